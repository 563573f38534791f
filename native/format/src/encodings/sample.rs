//! The sample a cost estimate looks at (BtrBlocks' scheme): a few runs of neighbouring elements
//! from each buffer of a column, taken once and shared by every candidate encoding. Runs rather
//! than single elements, because what the encodings exploit is the likeness of neighbours.

use std::borrow::Cow;

use crate::body::BodyParts;
use crate::layout::BufferSpec;

/// Runs taken from a buffer larger than [`SAMPLE_RUNS`] × [`SAMPLE_RUN_ELEMENTS`] elements.
const SAMPLE_RUNS: usize = 16;
/// Elements per run.
const SAMPLE_RUN_ELEMENTS: usize = 64;

/// A sample of one column's buffers.
#[derive(Debug)]
pub(crate) struct ColumnSample<'a> {
    /// Bytes of the column body that are not buffer contents (header, lengths, padding).
    header_len: usize,
    buffers: Vec<SampledBuffer<'a>>,
}

/// The sample of one buffer.
#[derive(Debug)]
pub(crate) struct SampledBuffer<'a> {
    /// What the buffer holds.
    pub(crate) spec: BufferSpec<'a>,
    /// The sampled bytes: whole elements of the buffer, run after run (the whole buffer when it
    /// is small).
    pub(crate) bytes: Cow<'a, [u8]>,
    /// The buffer's length.
    pub(crate) full_len: usize,
}

impl<'a> ColumnSample<'a> {
    /// Samples every buffer of `column`. Deterministic: evenly spaced runs, so that a writer
    /// choosing from the sample writes the same bytes every time.
    pub(crate) fn of(column: &BodyParts<'a>) -> Self {
        let buffers: Vec<SampledBuffer<'a>> = column
            .buffers()
            .iter()
            .zip(column.specs())
            .map(|(&bytes, &spec)| SampledBuffer {
                spec,
                bytes: sample_runs(bytes, spec.kind.width()),
                full_len: bytes.len(),
            })
            .collect();
        let contents: usize = column.buffers().iter().map(|b| b.len()).sum();
        ColumnSample {
            header_len: column.plain_len() - contents,
            buffers,
        }
    }

    /// Bytes of the body that are not buffer contents; every encoding stores them as they are.
    pub(crate) fn header_len(&self) -> usize {
        self.header_len
    }

    /// The sampled buffers, in traversal order.
    pub(crate) fn buffers(&self) -> &[SampledBuffer<'a>] {
        &self.buffers
    }
}

/// `SAMPLE_RUNS` runs of `SAMPLE_RUN_ELEMENTS` elements of `width` bytes, the first at the start
/// of `buffer` and the last at its end; all of `buffer`'s whole elements when that is no more.
pub(crate) fn sample_runs(buffer: &[u8], width: usize) -> Cow<'_, [u8]> {
    let elements = buffer.len() / width;
    if elements <= SAMPLE_RUNS * SAMPLE_RUN_ELEMENTS {
        return Cow::Borrowed(&buffer[..elements * width]);
    }
    let last_start = elements - SAMPLE_RUN_ELEMENTS;
    let run_bytes = SAMPLE_RUN_ELEMENTS * width;
    let mut sample = Vec::with_capacity(SAMPLE_RUNS * run_bytes);
    for run in 0..SAMPLE_RUNS {
        let start = run * last_start / (SAMPLE_RUNS - 1) * width;
        sample.extend_from_slice(&buffer[start..start + run_bytes]);
    }
    Cow::Owned(sample)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_buffers_are_sampled_whole_and_large_ones_by_evenly_spaced_runs() {
        let small: Vec<u8> = (0..=255).collect();
        assert_eq!(&*sample_runs(&small, 8), &small[..]);
        assert_eq!(
            &*sample_runs(&small[..13], 4),
            &small[..12],
            "whole elements only"
        );
        assert!(sample_runs(&[], 8).is_empty());

        // 10 000 little-endian u32 element indices: the runs hold exactly the elements expected.
        let elements = 10_000u32;
        let buffer: Vec<u8> = (0..elements).flat_map(u32::to_le_bytes).collect();
        let sample = sample_runs(&buffer, 4);
        assert_eq!(sample.len(), SAMPLE_RUNS * SAMPLE_RUN_ELEMENTS * 4);
        let values: Vec<u32> = sample
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let last_start = elements as usize - SAMPLE_RUN_ELEMENTS;
        for (run, chunk) in values.chunks(SAMPLE_RUN_ELEMENTS).enumerate() {
            let start = (run * last_start / (SAMPLE_RUNS - 1)) as u32;
            let expected: Vec<u32> = (start..start + SAMPLE_RUN_ELEMENTS as u32).collect();
            assert_eq!(chunk, &expected[..], "run {run}");
        }
        assert_eq!(values[0], 0, "the first run starts the buffer");
        assert_eq!(
            *values.last().unwrap(),
            elements - 1,
            "the last run ends it"
        );
    }
}
