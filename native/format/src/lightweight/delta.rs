//! DELTA (id 4): the first element, then each difference to the previous element minus the
//! smallest difference, bit-packed. Stored: `i64 first`, `i64 reference` (the smallest
//! difference), `u8 bit_width`, 7 zero bytes, then `n − 1` packed values. Offsets of strings and
//! lists (the differences are the lengths), sorted ids, timestamps at a steady rate. The
//! arithmetic wraps at 64 bits, so any sequence round-trips.

use super::{bitpack, integer_kind, integers, Analysis, BufferUnit};
use crate::error::{Error, Result};
use crate::layout::BufferKind;

/// The DELTA unit.
#[derive(Debug)]
pub(crate) struct Delta;

const PARAMS: usize = 24;

impl BufferUnit for Delta {
    fn applies_to(&self, kind: BufferKind) -> bool {
        integer_kind(kind)
    }

    fn stored_len(&self, buffer: &Analysis<'_>) -> Option<usize> {
        let v = buffer.values.as_ref()?;
        let (lo, hi) = v.deltas?;
        let width = bitpack::width_of(integers::distance(hi, lo));
        bitpack::packed_len(v.values.len() - 1, width)?.checked_add(PARAMS)
    }

    fn encode(&self, buffer: &Analysis<'_>, out: &mut Vec<u8>) -> Result<()> {
        let (v, (lo, hi)) = buffer
            .values
            .as_ref()
            .and_then(|v| Some((v, v.deltas?)))
            .ok_or_else(|| Error::Internal("delta of fewer than two integers".into()))?;
        let width = bitpack::width_of(integers::distance(hi, lo));
        out.extend_from_slice(&v.values[0].to_le_bytes());
        out.extend_from_slice(&lo.to_le_bytes());
        out.push(width);
        out.extend_from_slice(&[0; 7]);
        bitpack::pack(
            v.values
                .windows(2)
                .map(|p| integers::distance(p[1].wrapping_sub(p[0]), lo)),
            width,
            out,
        );
        Ok(())
    }

    fn decode(&self, stored: &[u8], width: usize, out: &mut [u8], what: &str) -> Result<()> {
        let n = super::element_count(out.len(), width, what)?;
        if n < 2 {
            return Err(Error::CorruptEncoding(format!(
                "{what}: delta of {n} elements (it needs two)"
            )));
        }
        let (params, packed) = super::split_params(stored, PARAMS, what)?;
        let first = super::param_i64(params, 0);
        let reference = super::param_i64(params, 8);
        super::reserved_zero(&params[17..], what)?;
        integers::write(out, 0, width, first)?;
        let mut previous = first;
        if bitpack::fused_width(width) {
            return bitpack::unpack_map_into(
                packed,
                params[16],
                &mut out[width..],
                width,
                what,
                |d| {
                    previous = previous.wrapping_add(reference.wrapping_add(d as i64));
                    previous
                },
            );
        }
        bitpack::unpack(packed, n - 1, params[16], what, |first, differences| {
            let values = differences.iter().map(|&d| {
                previous = previous.wrapping_add(reference.wrapping_add(d as i64));
                previous
            });
            integers::write_from(out, first + 1, width, values)
        })
    }
}
