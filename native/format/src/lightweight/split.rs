//! Plain and BYTE_STREAM_SPLIT as buffer units: both store exactly the decoded length, so the
//! codec on top is what they are chosen for.

use super::{Analysis, BufferUnit};
use crate::encodings::{split_into, unsplit_into};
use crate::error::{Error, Result};
use crate::layout::BufferKind;

/// The Arrow bytes as they are.
#[derive(Debug)]
pub(crate) struct Plain;

/// One byte stream per byte position of the elements (FORMAT.md §3.1).
#[derive(Debug)]
pub(crate) struct ByteStreamSplit;

fn same_length(stored: &[u8], out: &[u8], what: &str) -> Result<()> {
    if stored.len() != out.len() {
        return Err(Error::CorruptEncoding(format!(
            "{what}: {} stored bytes for {} decoded, which this encoding keeps equal",
            stored.len(),
            out.len()
        )));
    }
    Ok(())
}

impl BufferUnit for Plain {
    fn applies_to(&self, _kind: BufferKind) -> bool {
        true
    }

    fn stored_len(&self, buffer: &Analysis<'_>) -> Option<usize> {
        Some(buffer.bytes.len())
    }

    fn encode(&self, buffer: &Analysis<'_>, out: &mut Vec<u8>) -> Result<()> {
        out.extend_from_slice(buffer.bytes);
        Ok(())
    }

    fn decode(&self, stored: &[u8], _width: usize, out: &mut [u8], what: &str) -> Result<()> {
        same_length(stored, out, what)?;
        out.copy_from_slice(stored);
        Ok(())
    }
}

impl BufferUnit for ByteStreamSplit {
    fn applies_to(&self, kind: BufferKind) -> bool {
        kind.width() >= 2
    }

    fn stored_len(&self, buffer: &Analysis<'_>) -> Option<usize> {
        Some(buffer.bytes.len())
    }

    fn encode(&self, buffer: &Analysis<'_>, out: &mut Vec<u8>) -> Result<()> {
        split_into(buffer.width(), buffer.bytes, out);
        Ok(())
    }

    fn decode(&self, stored: &[u8], width: usize, out: &mut [u8], what: &str) -> Result<()> {
        same_length(stored, out, what)?;
        if width < 2 {
            return Err(Error::CorruptEncoding(format!(
                "{what}: byte_stream_split of {width}-byte elements"
            )));
        }
        unsplit_into(width, stored, out);
        Ok(())
    }
}
