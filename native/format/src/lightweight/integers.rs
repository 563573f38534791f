//! Fixed-width elements as integers: what the integer encodings compute on. An element of 1, 2, 4
//! or 8 bytes is read sign-extended to `i64`; a 16-byte element (Decimal128, and other 16-byte
//! values) only when it is the sign extension of its low 8 bytes, which holds for every decimal of
//! up to 18 digits. Writing an element back truncates (or sign-extends) it to its width, so any
//! bit pattern round-trips: encodings work modulo 2^64 and never interpret the values.

use crate::error::{Error, Result};

/// Whether elements of `width` bytes can be read as integers at all.
pub(crate) fn supported_width(width: usize) -> bool {
    matches!(width, 1 | 2 | 4 | 8 | 16)
}

/// The elements of `bytes` (a whole number of `width`-byte elements) as `i64`, or `None` when a
/// 16-byte element does not fit in 64 bits or `width` is not supported.
pub(crate) fn read_all(bytes: &[u8], width: usize) -> Option<Vec<i64>> {
    if !supported_width(width) || !bytes.len().is_multiple_of(width) {
        return None;
    }
    let chunks = bytes.chunks_exact(width);
    Some(match width {
        1 => chunks.map(|c| i64::from(c[0] as i8)).collect(),
        2 => chunks
            .map(|c| i64::from(i16::from_le_bytes([c[0], c[1]])))
            .collect(),
        4 => chunks
            .map(|c| i64::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect(),
        8 => chunks.map(|c| i64::from_le_bytes(array8(c))).collect(),
        _ => chunks
            .map(|c| {
                let mut b = [0u8; 16];
                b.copy_from_slice(c);
                i64::try_from(i128::from_le_bytes(b)).ok()
            })
            .collect::<Option<Vec<_>>>()?,
    })
}

fn array8(c: &[u8]) -> [u8; 8] {
    let mut b = [0u8; 8];
    b.copy_from_slice(&c[..8]);
    b
}

/// Writes `value` as element `index` of `out` (elements of `width` bytes).
pub(crate) fn write(out: &mut [u8], index: usize, width: usize, value: i64) -> Result<()> {
    let at = index
        .checked_mul(width)
        .and_then(|start| out.get_mut(start..start + width))
        .ok_or_else(|| Error::Internal(format!("element {index} of width {width} outside")))?;
    if width == 16 {
        at.copy_from_slice(&i128::from(value).to_le_bytes());
    } else {
        at.copy_from_slice(&value.to_le_bytes()[..width]);
    }
    Ok(())
}

/// The unsigned distance `value - reference` for a `reference ≤ value`.
pub(crate) fn distance(value: i64, reference: i64) -> u64 {
    value.wrapping_sub(reference) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_width() {
        for width in [1usize, 2, 4, 8, 16] {
            let bytes: Vec<u8> = (0..width * 7).map(|i| (i * 37 + 5) as u8).collect();
            let bytes = if width == 16 {
                // Sign extensions of 8-byte values.
                [-5i64, 0, i64::MAX, i64::MIN, 3, -1, 77]
                    .iter()
                    .flat_map(|v| i128::from(*v).to_le_bytes())
                    .collect()
            } else {
                bytes
            };
            let values = read_all(&bytes, width).unwrap();
            let mut out = vec![0u8; bytes.len()];
            for (i, v) in values.iter().enumerate() {
                write(&mut out, i, width, *v).unwrap();
            }
            assert_eq!(out, bytes, "width {width}");
        }
    }

    #[test]
    fn wide_decimals_and_odd_widths_are_not_integers() {
        let big = (i128::from(i64::MAX) + 1).to_le_bytes();
        assert!(read_all(&big, 16).is_none());
        assert!(read_all(&[0; 6], 3).is_none());
        assert!(read_all(&[0; 5], 4).is_none());
    }
}
