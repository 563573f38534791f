//! Bounds-checked little-endian reading: every read names what it reads, so a
//! truncated input produces an error that says which structure was cut.

use crate::error::{Error, Result};

/// A forward-only reader over a byte slice.
#[derive(Debug, Clone)]
pub(crate) struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Cursor { buf, pos: 0 }
    }

    pub(crate) fn at(buf: &'a [u8], pos: usize) -> Self {
        Cursor { buf, pos }
    }

    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    pub(crate) fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    pub(crate) fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&end| end <= self.buf.len())
            .ok_or(Error::Truncated {
                what,
                offset: self.pos,
                needed: n,
                len: self.buf.len(),
            })?;
        let out = &self.buf[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        let bytes = self.take(N, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    pub(crate) fn u8(&mut self, what: &'static str) -> Result<u8> {
        Ok(self.array::<1>(what)?[0])
    }

    pub(crate) fn u16(&mut self, what: &'static str) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }

    pub(crate) fn u32(&mut self, what: &'static str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    pub(crate) fn u64(&mut self, what: &'static str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    pub(crate) fn i64(&mut self, what: &'static str) -> Result<i64> {
        Ok(i64::from_le_bytes(self.array(what)?))
    }

    pub(crate) fn i128(&mut self, what: &'static str) -> Result<i128> {
        Ok(i128::from_le_bytes(self.array(what)?))
    }

    pub(crate) fn f64(&mut self, what: &'static str) -> Result<f64> {
        Ok(f64::from_le_bytes(self.array(what)?))
    }
}

/// Rounds `n` up to a multiple of 8.
pub(crate) fn pad8(n: usize) -> usize {
    (n + 7) & !7
}

/// Converts a length to the `u32` the format stores, or fails naming it.
pub(crate) fn to_u32(n: usize, what: &str) -> Result<u32> {
    u32::try_from(n)
        .map_err(|_| Error::TooLarge(format!("{what} is {n}, the format's limit is {}", u32::MAX)))
}
