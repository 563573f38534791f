//! CONSTANT (id 2): every element equal, stored once (`width` bytes). Fixed-width columns that
//! hold one value per batch (a partition's date, a flag, a default), and the offsets of a
//! column of empty strings.

use super::{integer_kind, Analysis, BufferUnit};
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
        for element in out.chunks_exact_mut(width) {
            element.copy_from_slice(stored);
        }
        Ok(())
    }
}
