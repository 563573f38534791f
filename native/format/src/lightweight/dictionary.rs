//! DICTIONARY (id 5): the distinct elements in order of first appearance, then each element's
//! index among them, bit-packed. Stored: `u32 count`, `u8 bit_width`, 3 zero bytes, `count`
//! elements of the buffer's width, then the packed indices. For low-cardinality values spread
//! over a wide range (status codes, prices from a list, category ids), where a frame of
//! reference would need the range's bits. At most [`MAX_ENTRIES`] entries: past that the
//! indices cost nearly as much as a frame of reference.

use ahash::{AHashMap, AHashSet};

use super::{bitpack, integer_kind, integers, Analysis, BufferUnit};
use crate::error::{Error, Result};
use crate::layout::BufferKind;

/// The DICTIONARY unit.
#[derive(Debug)]
pub(crate) struct Dictionary;

/// The most entries a dictionary is built with.
pub(crate) const MAX_ENTRIES: usize = 1 << 16;
const PARAMS: usize = 8;

/// Elements looked at before a dictionary is built.
const SAMPLE: usize = 1024;

/// Whether a dictionary of `values` (elements of `width` bytes) may be smaller than `beat`
/// bytes, judged from a sample (every element of a short buffer, else [`SAMPLE`] spread
/// evenly): its distinct share, scaled to the buffer, sizes the entries and the packed indices.
/// A buffer of mostly distinct values (measurements, random ids, doubles' bit patterns) is
/// never hashed in full, which is what would make the writer slow.
fn worth_building(values: &[i64], width: usize, beat: usize) -> bool {
    let step = values.len().div_ceil(SAMPLE).max(1);
    let mut seen = AHashSet::with_capacity(SAMPLE.min(values.len()));
    let mut sampled = 0usize;
    for &v in values.iter().step_by(step) {
        seen.insert(v);
        sampled += 1;
    }
    let estimated = (seen.len() * values.len()).div_ceil(sampled.max(1));
    let indices = bitpack::packed_len(values.len(), code_width(estimated)).unwrap_or(usize::MAX);
    estimated
        .saturating_mul(width)
        .saturating_add(indices)
        .saturating_add(PARAMS)
        < beat
}

/// The distinct elements and each element's index, or `None` past [`MAX_ENTRIES`].
fn build(buffer: &Analysis<'_>) -> Option<(Vec<i64>, Vec<u64>)> {
    let v = buffer.values.as_ref()?;
    let mut index: AHashMap<i64, u64> = AHashMap::with_capacity(v.values.len().min(1024));
    let mut entries = Vec::new();
    let mut codes = Vec::with_capacity(v.values.len());
    for &x in &v.values {
        let next = entries.len() as u64;
        let code = *index.entry(x).or_insert(next);
        if code == next {
            if entries.len() == MAX_ENTRIES {
                return None;
            }
            entries.push(x);
        }
        codes.push(code);
    }
    Some((entries, codes))
}

fn code_width(entries: usize) -> u8 {
    bitpack::width_of(entries.saturating_sub(1) as u64)
}

impl BufferUnit for Dictionary {
    fn applies_to(&self, kind: BufferKind) -> bool {
        integer_kind(kind)
    }

    fn stored_len(&self, buffer: &Analysis<'_>) -> Option<usize> {
        let v = buffer.values.as_ref()?;
        // Only worth building when the range needs more bits than a small dictionary would.
        let range_width = bitpack::width_of(integers::distance(v.max, v.min));
        let reference_len = bitpack::packed_len(v.values.len(), range_width)?;
        if range_width <= 8 || !worth_building(&v.values, buffer.width(), reference_len) {
            return None;
        }
        let (entries, _) = build(buffer)?;
        let packed = bitpack::packed_len(v.values.len(), code_width(entries.len()))?;
        PARAMS
            .checked_add(entries.len().checked_mul(buffer.width())?)?
            .checked_add(packed)
    }

    fn encode(&self, buffer: &Analysis<'_>, out: &mut Vec<u8>) -> Result<()> {
        let (entries, codes) =
            build(buffer).ok_or_else(|| Error::Internal("dictionary past its limit".into()))?;
        let width = code_width(entries.len());
        out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
        out.push(width);
        out.extend_from_slice(&[0; 3]);
        let start = out.len();
        out.resize(start + entries.len() * buffer.width(), 0);
        for (i, &e) in entries.iter().enumerate() {
            integers::write(&mut out[start..], i, buffer.width(), e)?;
        }
        bitpack::pack(codes, width, out);
        Ok(())
    }

    fn decode(&self, stored: &[u8], width: usize, out: &mut [u8], what: &str) -> Result<()> {
        let n = super::element_count(out.len(), width, what)?;
        let (params, rest) = super::split_params(stored, PARAMS, what)?;
        let count = u32::from_le_bytes([params[0], params[1], params[2], params[3]]) as usize;
        super::reserved_zero(&params[5..], what)?;
        if count == 0 || count > MAX_ENTRIES || count > n {
            return Err(Error::CorruptEncoding(format!(
                "{what}: a dictionary of {count} entries for {n} elements"
            )));
        }
        let (entries, packed) = super::split_params(rest, count * width, what)?;
        // Entries as integers, so that each element is one load and one store of its width;
        // 16-byte entries that are no integer (never written, but any bytes decode) are copied.
        let as_integers = if width == 16 {
            None
        } else {
            integers::read_all(entries, width)
        };
        if let Some(values) = as_integers.as_ref().filter(|_| bitpack::fused_width(width)) {
            let mut largest = 0;
            bitpack::unpack_map_into(packed, params[4], out, width, what, |code| {
                largest = largest.max(code);
                values.get(code as usize).copied().unwrap_or(0)
            })?;
            if largest < count as u64 {
                return Ok(());
            }
            // An index past the entries: the chunked decode below names the first.
        }
        bitpack::unpack(packed, n, params[4], what, |first, codes| {
            // One check per chunk: every index below the entry count.
            let largest = codes.iter().copied().max().unwrap_or(0);
            if largest >= count as u64 {
                let at = codes.iter().position(|&c| c >= count as u64).unwrap_or(0);
                return Err(Error::CorruptEncoding(format!(
                    "{what}: element {} has index {} into {count} entries",
                    first + at,
                    codes[at]
                )));
            }
            match &as_integers {
                Some(values) => integers::write_from(
                    out,
                    first,
                    width,
                    codes.iter().map(|&c| values[c as usize]),
                ),
                None => {
                    let dst = out
                        .get_mut(first * width..(first + codes.len()) * width)
                        .ok_or_else(|| Error::Internal(format!("{what}: elements outside")))?;
                    for (element, &code) in dst.chunks_exact_mut(width).zip(codes) {
                        let entry = code as usize * width;
                        element.copy_from_slice(&entries[entry..entry + width]);
                    }
                    Ok(())
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored dictionary of 3 entries for `n` elements of `width` bytes, whose codes (2 bits
    /// each) are `codes`.
    fn stored(width: usize, codes: &[u64]) -> Vec<u8> {
        let mut out = 3u32.to_le_bytes().to_vec();
        out.push(2);
        out.extend_from_slice(&[0; 3]);
        let start = out.len();
        out.resize(start + 3 * width, 0);
        for (i, entry) in [-5i64, 9, 1 << 20].into_iter().enumerate() {
            integers::write(&mut out[start..], i, width, entry).expect("in range");
        }
        bitpack::pack(codes.iter().copied(), 2, &mut out);
        out
    }

    #[test]
    fn an_index_past_the_entries_is_refused_at_every_width() {
        // 100 elements, so the fused decode reads groups in place and from its padded tail.
        for width in [1usize, 2, 4, 8, 16] {
            for bad_at in [0usize, 37, 99] {
                let mut codes: Vec<u64> = (0..100).map(|i| i % 3).collect();
                let mut out = vec![0u8; 100 * width];
                Dictionary
                    .decode(&stored(width, &codes), width, &mut out, "t")
                    .expect("valid codes");
                let mut expected = vec![0u8; 100 * width];
                for (i, &c) in codes.iter().enumerate() {
                    let entry = [-5i64, 9, 1 << 20][c as usize];
                    integers::write(&mut expected, i, width, entry).expect("in range");
                }
                assert_eq!(out, expected, "width {width}");
                codes[bad_at] = 3;
                let err = Dictionary
                    .decode(&stored(width, &codes), width, &mut out, "t")
                    .expect_err("index 3 of 3 entries");
                assert!(
                    err.to_string()
                        .contains(&format!("element {bad_at} has index 3 into 3 entries")),
                    "width {width}: {err}"
                );
            }
        }
    }
}
