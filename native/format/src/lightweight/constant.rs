//! CONSTANT (id 2): every element equal, stored once (`width` bytes). Fixed-width columns that
//! hold one value per batch (a partition's date, a flag, a default), and the offsets of a
//! column of empty strings.

use super::{integer_kind, integers, Analysis, BufferUnit};
use crate::error::{Error, Result};
use crate::layout::BufferKind;

/// The CONSTANT unit.
#[derive(Debug)]
pub(crate) struct Constant;

impl BufferUnit for Constant {
    fn applies_to(&self, kind: BufferKind) -> bool {
        integer_kind(kind)
    }

    fn stored_len(&self, buffer: &Analysis<'_>) -> Option<usize> {
        let values = buffer.values.as_ref()?;
        (values.min == values.max).then_some(buffer.width())
    }

    fn encode(&self, buffer: &Analysis<'_>, out: &mut Vec<u8>) -> Result<()> {
        let first = buffer
            .bytes
            .get(..buffer.width())
            .ok_or_else(|| Error::Internal("constant of an empty buffer".into()))?;
        out.extend_from_slice(first);
        Ok(())
    }

    fn decode(&self, stored: &[u8], width: usize, out: &mut [u8], what: &str) -> Result<()> {
        let n = super::element_count(out.len(), width, what)?;
        if stored.len() != width || n == 0 {
            return Err(Error::CorruptEncoding(format!(
                "{what}: a constant of {width}-byte elements is {width} bytes for at least one \
                 element; {} stored for {n}",
                stored.len()
            )));
        }
        // Through the width-specialised stores: a copy_from_slice per element is a memcpy call
        // per element (about 2 GiB/s against 12 for these stores).
        let value = integers::read_all(stored, width)
            .and_then(|v| v.first().copied())
            .ok_or_else(|| {
                Error::CorruptEncoding(format!(
                    "{what}: a constant of {width}-byte elements that is not an integer"
                ))
            })?;
        integers::write_from(out, 0, width, std::iter::repeat_n(value, n))
    }
}
