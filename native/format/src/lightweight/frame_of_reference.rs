//! FRAME_OF_REFERENCE (id 3): every element minus the smallest, bit-packed at the width of the
//! largest difference. Stored: `i64 reference`, `u8 bit_width`, 7 zero bytes, then the packed
//! differences ([`super::bitpack`]). Ids, counters, dates, timestamps within a batch, decimals
//! of up to 18 digits: values that span a small range need few bits each.

use super::{bitpack, integer_kind, integers, Analysis, BufferUnit};
use crate::error::{Error, Result};
use crate::layout::BufferKind;

/// The FRAME_OF_REFERENCE unit.
#[derive(Debug)]
pub(crate) struct FrameOfReference;

const PARAMS: usize = 16;

impl BufferUnit for FrameOfReference {
    fn applies_to(&self, kind: BufferKind) -> bool {
        integer_kind(kind)
    }

    fn stored_len(&self, buffer: &Analysis<'_>) -> Option<usize> {
        let v = buffer.values.as_ref()?;
        let width = bitpack::width_of(integers::distance(v.max, v.min));
        bitpack::packed_len(v.values.len(), width)?.checked_add(PARAMS)
    }

    fn encode(&self, buffer: &Analysis<'_>, out: &mut Vec<u8>) -> Result<()> {
        let v = buffer
            .values
            .as_ref()
            .ok_or_else(|| Error::Internal("frame of reference of non-integers".into()))?;
        let width = bitpack::width_of(integers::distance(v.max, v.min));
        out.extend_from_slice(&v.min.to_le_bytes());
        out.push(width);
        out.extend_from_slice(&[0; 7]);
        bitpack::pack(
            v.values.iter().map(|&x| integers::distance(x, v.min)),
            width,
            out,
        );
        Ok(())
    }

    fn decode(&self, stored: &[u8], width: usize, out: &mut [u8], what: &str) -> Result<()> {
        let n = super::element_count(out.len(), width, what)?;
        let (params, packed) = super::split_params(stored, PARAMS, what)?;
        let reference = super::param_i64(params, 0);
        super::reserved_zero(&params[9..], what)?;
        if bitpack::fused_width(width) {
            return bitpack::unpack_map_into(packed, params[8], out, width, what, |d| {
                reference.wrapping_add(d as i64)
            });
        }
        bitpack::unpack(packed, n, params[8], what, |first, differences| {
            let values = differences
                .iter()
                .map(|&d| reference.wrapping_add(d as i64));
            integers::write_from(out, first, width, values)
        })
    }
}
