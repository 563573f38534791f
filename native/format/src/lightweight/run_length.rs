//! RUN_LENGTH (id 7): runs of equal neighbours, each stored once as its value and its length.
//! Stored: `u32 runs`, `u8 value_width`, `u8 length_width`, 2 zero bytes, `i64 reference` (the
//! smallest value), then the `runs` values minus the reference packed at `value_width` bits,
//! then the `runs` lengths minus 1 packed at `length_width` bits ([`super::bitpack`]). Columns of
//! a table sorted or clustered by them (a partition's date, a sensor or account id, a status
//! that holds for a stretch of rows), where a dictionary or a frame of reference would still
//! spend bits on every row.

use super::bitpack::{self, Chunks};
use super::{integer_kind, integers, Analysis, BufferUnit};
use crate::error::{Error, Result};
use crate::layout::BufferKind;

/// The RUN_LENGTH unit.
#[derive(Debug)]
pub(crate) struct RunLength;

const PARAMS: usize = 16;

/// The bit widths of the run values and of the run lengths minus 1.
fn widths(buffer: &Analysis<'_>) -> Option<(u8, u8)> {
    let v = buffer.values.as_ref()?;
    let value_width = bitpack::width_of(integers::distance(v.max, v.min));
    let length_width = bitpack::width_of(v.longest_run.checked_sub(1)? as u64);
    Some((value_width, length_width))
}

impl BufferUnit for RunLength {
    fn applies_to(&self, kind: BufferKind) -> bool {
        integer_kind(kind)
    }

    fn stored_len(&self, buffer: &Analysis<'_>) -> Option<usize> {
        let v = buffer.values.as_ref()?;
        // Runs of one element each are a frame of reference with more parameters.
        if v.longest_run < 2 {
            return None;
        }
        u32::try_from(v.runs).ok()?;
        let (value_width, length_width) = widths(buffer)?;
        PARAMS
            .checked_add(bitpack::packed_len(v.runs, value_width)?)?
            .checked_add(bitpack::packed_len(v.runs, length_width)?)
    }

    fn encode(&self, buffer: &Analysis<'_>, out: &mut Vec<u8>) -> Result<()> {
        let (v, (value_width, length_width)) = buffer
            .values
            .as_ref()
            .zip(widths(buffer))
            .ok_or_else(|| Error::Internal("run-length of non-integers".into()))?;
        let runs = u32::try_from(v.runs)
            .map_err(|_| Error::Internal(format!("{} runs do not fit a u32", v.runs)))?;
        out.extend_from_slice(&runs.to_le_bytes());
        out.extend_from_slice(&[value_width, length_width, 0, 0]);
        out.extend_from_slice(&v.min.to_le_bytes());
        // Each run as (value, length), found again by the same comparison the analysis counted.
        let mut starts = Vec::with_capacity(v.runs);
        for (i, pair) in v.values.windows(2).enumerate() {
            if pair[0] != pair[1] {
                starts.push(i + 1);
            }
        }
        let ends = starts.iter().copied().chain([v.values.len()]);
        let begins = [0].into_iter().chain(starts.iter().copied());
        bitpack::pack(
            begins
                .clone()
                .map(|at| integers::distance(v.values[at], v.min)),
            value_width,
            out,
        );
        bitpack::pack(
            begins.zip(ends).map(|(at, end)| (end - at - 1) as u64),
            length_width,
            out,
        );
        Ok(())
    }

    fn decode(&self, stored: &[u8], width: usize, out: &mut [u8], what: &str) -> Result<()> {
        let n = super::element_count(out.len(), width, what)?;
        let (params, packed) = super::split_params(stored, PARAMS, what)?;
        super::reserved_zero(&params[6..8], what)?;
        let runs = u32::from_le_bytes([params[0], params[1], params[2], params[3]]) as usize;
        let (value_width, length_width) = (params[4], params[5]);
        let reference = super::param_i64(params, 8);
        if runs == 0 || runs > n {
            return Err(Error::CorruptEncoding(format!(
                "{what}: {runs} runs for {n} elements (1 to {n})"
            )));
        }
        let values_len = bitpack::packed_len(runs, value_width)
            .filter(|_| value_width <= 64)
            .ok_or_else(|| {
                Error::CorruptEncoding(format!("{what}: run values of {value_width} bits"))
            })?;
        if packed.len() < values_len {
            return Err(Error::CorruptEncoding(format!(
                "{what}: {runs} run values of {value_width} bits take {values_len} bytes, {} \
                 stored",
                packed.len()
            )));
        }
        let (values, lengths) = packed.split_at(values_len);
        let mut values = Chunks::new(values, runs, value_width, what)?;
        let mut lengths = Chunks::new(lengths, runs, length_width, what)?;
        let mut at = 0usize;
        // Both streams hold `runs` values, so their chunks pair up one to one.
        while let (Some((_, chunk_values)), Some((_, chunk_lengths))) =
            (values.next_chunk()?, lengths.next_chunk()?)
        {
            for (&value, &length) in chunk_values.iter().zip(chunk_lengths) {
                let value = reference.wrapping_add(value as i64);
                let end = usize::try_from(length)
                    .ok()
                    .and_then(|l| at.checked_add(l)?.checked_add(1))
                    .filter(|&end| end <= n)
                    .ok_or_else(|| {
                        Error::CorruptEncoding(format!(
                            "{what}: a run of {length} + 1 elements from element {at} passes \
                             the {n} elements"
                        ))
                    })?;
                integers::write_from(out, at, width, std::iter::repeat_n(value, end - at))?;
                at = end;
            }
        }
        if at != n {
            return Err(Error::CorruptEncoding(format!(
                "{what}: {runs} runs hold {at} elements, not {n}"
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lightweight::tests::round_trip;
    use crate::lightweight::BufferEncoding;
    use crate::select::choose_buffer;
    use crate::{Codec, EncodingPolicy};

    fn ints(values: &[i64], width: usize) -> Vec<u8> {
        let mut bytes = vec![0u8; values.len() * width];
        for (i, v) in values.iter().enumerate() {
            integers::write(&mut bytes, i, width, *v).unwrap();
        }
        bytes
    }

    fn stored(values: &[i64], width: usize) -> Vec<u8> {
        let bytes = ints(values, width);
        let analysis = Analysis::of(&bytes, BufferKind::Values(width));
        let mut out = Vec::new();
        RunLength.encode(&analysis, &mut out).unwrap();
        assert_eq!(Some(out.len()), RunLength.stored_len(&analysis));
        out
    }

    #[test]
    fn clustered_values_take_a_few_bytes_per_run() {
        // 4 runs over 4000 rows: 16 bytes of parameters, 4 values of 2 bits, 4 lengths - 1 (999)
        // of 10 bits.
        let values: Vec<i64> = (0..4000)
            .map(|i| [20_200, 20_201, 20_203, 20_200][i / 1000])
            .collect();
        assert_eq!(stored(&values, 4).len(), 16 + 1 + 5);
        for width in [1, 2, 4, 8, 16] {
            let narrow: Vec<i64> = values.iter().map(|v| v % 100 - 50).collect();
            assert!(round_trip(
                BufferEncoding::RunLength,
                &ints(&narrow, width),
                BufferKind::Values(width)
            ));
        }
        assert!(round_trip(
            BufferEncoding::RunLength,
            &ints(&[i64::MIN, i64::MAX, i64::MAX], 8),
            BufferKind::Values(8)
        ));
        assert!(round_trip(
            BufferEncoding::RunLength,
            &ints(&[5, 5], 2),
            BufferKind::Values(2)
        ));
        // No run of two elements: not a candidate.
        assert!(!round_trip(
            BufferEncoding::RunLength,
            &ints(&[5, 6, 5], 2),
            BufferKind::Values(2)
        ));
    }

    #[test]
    fn runs_that_do_not_cover_the_elements_exactly_are_refused() {
        let good = stored(&[1, 1, 1, 2, 2, 3], 4);
        let mut out = vec![0u8; 24];
        RunLength.decode(&good, 4, &mut out, "t").unwrap();
        assert_eq!(out, ints(&[1, 1, 1, 2, 2, 3], 4));
        let refused = |stored: &[u8], elements: usize| {
            let mut out = vec![0u8; elements * 4];
            RunLength
                .decode(stored, 4, &mut out, "t")
                .unwrap_err()
                .to_string()
        };
        // Six elements stated by the runs, five or seven asked for.
        assert!(
            refused(&good, 5).contains("passes the 5 elements"),
            "{}",
            refused(&good, 5)
        );
        assert!(
            refused(&good, 7).contains("hold 6 elements, not 7"),
            "{}",
            refused(&good, 7)
        );
        // No runs, and more runs than elements.
        let mut none = good.clone();
        none[..4].copy_from_slice(&0u32.to_le_bytes());
        assert!(refused(&none, 6).contains("0 runs"));
        let mut many = good.clone();
        many[..4].copy_from_slice(&7u32.to_le_bytes());
        assert!(refused(&many, 6).contains("7 runs for 6"));
        // Reserved bytes, a width past 64, and the streams' lengths.
        let mut reserved = good.clone();
        reserved[7] = 1;
        assert!(refused(&reserved, 6).contains("reserved"));
        let mut wide = good.clone();
        wide[5] = 65;
        assert!(refused(&wide, 6).contains("65"));
        assert!(refused(&good[..good.len() - 1], 6).contains("stored"));
        let mut longer = good.clone();
        longer.push(0);
        assert!(refused(&longer, 6).contains("stored"));
    }

    #[test]
    fn a_sorted_column_of_long_runs_chooses_run_length() {
        let values: Vec<i64> = (0..8192).map(|i| 1_000_000_007 * (i / 700)).collect();
        let bytes = ints(&values, 8);
        let analysis = Analysis::of(&bytes, BufferKind::Values(8));
        for codec in [Codec::None, Codec::Lz4] {
            let chosen =
                choose_buffer(EncodingPolicy::Auto, codec, &analysis, Some(8192 * 8)).encoding;
            assert_eq!(chosen, BufferEncoding::RunLength, "{codec:?}");
        }
    }
}
