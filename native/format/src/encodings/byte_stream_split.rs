//! BYTE_STREAM_SPLIT (id 1; Parquet's name, Blosc's "shuffle"): each buffer of fixed-width
//! elements (width ≥ 2) stored as one stream per byte position. Neighbouring values of real
//! columns share their high bytes, so the streams hold long runs that lz4 and zstd shrink far
//! better than interleaved values: on the benchmark table it cuts lz4 frames from ~50 to ~9
//! bytes per row. It preserves every length and takes no parameters.
//!
//! The transposition is ours, in safe Rust: 8 elements at a time, as 8×8 byte-matrix transposes
//! in 64-bit registers. The `byteshuffle` crate (Blosc's layout, which is the one FORMAT.md
//! pins; the tests check ours against it) has SIMD for some widths only and unshuffles 8-byte
//! elements, our most common width, byte by byte: 1.3 GB/s against 9.8 GB/s here.

use super::{estimate_per_buffer, ColumnEncoding, ColumnSample, CostEstimate, EncodedColumn};
use super::{Encoding, StoredColumn};
use crate::body::BodyParts;
use crate::codec::Codec;
use crate::error::Result;
use crate::layout::BufferSpec;
use crate::stats::ColumnStats;

/// The BYTE_STREAM_SPLIT unit.
#[derive(Debug)]
pub(crate) struct ByteStreamSplit;

impl ColumnEncoding for ByteStreamSplit {
    fn encoding(&self) -> Encoding {
        Encoding::ByteStreamSplit
    }

    /// Buffers of elements at least 2 bytes wide: values, offsets, dictionary keys. Bitmaps and
    /// byte buffers (width 1) have nothing to split.
    fn transforms(&self, buffer: &BufferSpec<'_>) -> bool {
        buffer.kind.width() >= 2
    }

    fn estimate(
        &self,
        sample: &ColumnSample<'_>,
        _stats: Option<&ColumnStats>,
        codec: Codec,
    ) -> Result<CostEstimate> {
        estimate_per_buffer(
            sample,
            codec,
            |spec| self.transforms(spec),
            |spec, src, out| split_into(spec.kind.width(), src, out),
        )
    }

    fn encode(&self, column: &BodyParts<'_>, out: &mut Vec<u8>) -> Result<EncodedColumn> {
        column
            .write_with(out, |spec, src, out| {
                if self.transforms(spec) {
                    split_into(spec.kind.width(), src, out);
                } else {
                    out.extend_from_slice(src);
                }
            })
            .map(EncodedColumn::same_length)
    }

    fn decode(&self, column: StoredColumn<'_, '_>, scratch: &mut Vec<u8>) -> Result<()> {
        for (range, spec) in column.buffers.iter().zip(column.specs) {
            if self.transforms(spec) {
                unsplit_in_place(spec.kind.width(), &mut column.body[range.clone()], scratch);
            }
        }
        Ok(())
    }
}

/// Appends `src` (elements of `width` bytes) to `out`, byte stream split: stream `j` holds byte
/// `j` of every whole element, then the `src.len() % width` trailing bytes follow as they are.
pub(crate) fn split_into(width: usize, src: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    out.resize(start + src.len(), 0);
    let dst = &mut out[start..];
    // Literal widths let the compiler specialise the loops for the common types.
    match width {
        2 => split(2, src, dst),
        4 => split(4, src, dst),
        8 => split(8, src, dst),
        16 => split(16, src, dst),
        _ => split(width, src, dst),
    }
}

#[inline(always)]
fn split(width: usize, src: &[u8], dst: &mut [u8]) {
    let n = src.len() / width;
    let whole = n * width;
    let groups = n / 8;
    for g in 0..groups {
        let elements = &src[g * 8 * width..(g + 1) * 8 * width];
        // Byte positions 8 at a time, then the rest, in chunks of constant size so that every
        // copy is a register move rather than a `memcpy` call.
        let mut j0 = 0;
        while j0 + 8 <= width {
            split_chunk::<8>(elements, width, j0, dst, n, g);
            j0 += 8;
        }
        match width - j0 {
            0 => {}
            1 => split_chunk::<1>(elements, width, j0, dst, n, g),
            2 => split_chunk::<2>(elements, width, j0, dst, n, g),
            3 => split_chunk::<3>(elements, width, j0, dst, n, g),
            4 => split_chunk::<4>(elements, width, j0, dst, n, g),
            5 => split_chunk::<5>(elements, width, j0, dst, n, g),
            6 => split_chunk::<6>(elements, width, j0, dst, n, g),
            _ => split_chunk::<7>(elements, width, j0, dst, n, g),
        }
    }
    for i in groups * 8..n {
        for j in 0..width {
            dst[j * n + i] = src[i * width + j];
        }
    }
    dst[whole..].copy_from_slice(&src[whole..]);
}

/// Byte positions `j0..j0 + B` of the 8 elements of group `g`, into their streams.
#[inline(always)]
fn split_chunk<const B: usize>(
    elements: &[u8],
    width: usize,
    j0: usize,
    dst: &mut [u8],
    n: usize,
    g: usize,
) {
    // Row k: bytes j0.. of element k; after the transpose, row j: byte j0 + j of each element.
    // A plain loop rather than `array::from_fn`, which the compiler did not always inline here
    // (measured: serialize 25% slower when it stayed a call).
    let mut rows = [0u64; 8];
    for (k, row) in rows.iter_mut().enumerate() {
        *row = load::<B>(&elements[k * width + j0..k * width + j0 + B]);
    }
    transpose8x8(&mut rows);
    for (j, row) in rows.iter().take(B).enumerate() {
        let at = (j0 + j) * n + g * 8;
        dst[at..at + 8].copy_from_slice(&row.to_le_bytes());
    }
}

/// Undoes [`split_into`] from `src` into `dst`, of the same length.
pub(crate) fn unsplit_into(width: usize, src: &[u8], dst: &mut [u8]) {
    match width {
        2 => unsplit(2, src, dst),
        4 => unsplit(4, src, dst),
        8 => unsplit(8, src, dst),
        16 => unsplit(16, src, dst),
        _ => unsplit(width, src, dst),
    }
}

/// Undoes [`split_into`] in place; `scratch` is reused between calls to avoid an allocation
/// per buffer.
fn unsplit_in_place(width: usize, buf: &mut [u8], scratch: &mut Vec<u8>) {
    scratch.clear();
    scratch.extend_from_slice(buf);
    match width {
        2 => unsplit(2, scratch, buf),
        4 => unsplit(4, scratch, buf),
        8 => unsplit(8, scratch, buf),
        16 => unsplit(16, scratch, buf),
        _ => unsplit(width, scratch, buf),
    }
}

#[inline(always)]
fn unsplit(width: usize, src: &[u8], buf: &mut [u8]) {
    let n = buf.len() / width;
    let groups = n / 8;
    for g in 0..groups {
        let elements = &mut buf[g * 8 * width..(g + 1) * 8 * width];
        let mut j0 = 0;
        while j0 + 8 <= width {
            unsplit_chunk::<8>(src, n, g, j0, elements, width);
            j0 += 8;
        }
        match width - j0 {
            0 => {}
            1 => unsplit_chunk::<1>(src, n, g, j0, elements, width),
            2 => unsplit_chunk::<2>(src, n, g, j0, elements, width),
            3 => unsplit_chunk::<3>(src, n, g, j0, elements, width),
            4 => unsplit_chunk::<4>(src, n, g, j0, elements, width),
            5 => unsplit_chunk::<5>(src, n, g, j0, elements, width),
            6 => unsplit_chunk::<6>(src, n, g, j0, elements, width),
            _ => unsplit_chunk::<7>(src, n, g, j0, elements, width),
        }
    }
    for i in groups * 8..n {
        for j in 0..width {
            buf[i * width + j] = src[j * n + i];
        }
    }
    // The trailing bytes were stored as they are, so they are already in place.
}

/// Streams `j0..j0 + B` of group `g`, back into the 8 elements' bytes `j0..j0 + B`.
#[inline(always)]
fn unsplit_chunk<const B: usize>(
    src: &[u8],
    n: usize,
    g: usize,
    j0: usize,
    elements: &mut [u8],
    width: usize,
) {
    // Row j: byte j0 + j of the 8 elements; after the transpose, row k: bytes j0.. of one.
    let mut rows = [0u64; 8];
    for (j, row) in rows.iter_mut().take(B).enumerate() {
        let at = (j0 + j) * n + g * 8;
        *row = load::<8>(&src[at..at + 8]);
    }
    transpose8x8(&mut rows);
    for (k, row) in rows.iter().enumerate() {
        let at = k * width + j0;
        elements[at..at + B].copy_from_slice(&row.to_le_bytes()[..B]);
    }
}

/// `B ≤ 8` bytes as a little-endian `u64`, zero-filled above them.
#[inline(always)]
fn load<const B: usize>(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word[..B].copy_from_slice(&bytes[..B]);
    u64::from_le_bytes(word)
}

/// Transposes the 8×8 byte matrix whose row `r` is `rows[r]` (byte `c` of a row is its column
/// `c`, little-endian), by swapping ever larger blocks across the diagonal.
#[inline(always)]
fn transpose8x8(rows: &mut [u64; 8]) {
    #[inline(always)]
    fn swap(rows: &mut [u64; 8], a: usize, b: usize, shift: u32, mask: u64) {
        let t = ((rows[a] >> shift) ^ rows[b]) & mask;
        rows[b] ^= t;
        rows[a] ^= t << shift;
    }
    for a in [0, 2, 4, 6] {
        swap(rows, a, a + 1, 8, 0x00FF_00FF_00FF_00FF);
    }
    for a in [0, 1, 4, 5] {
        swap(rows, a, a + 2, 16, 0x0000_FFFF_0000_FFFF);
    }
    for a in 0..4 {
        swap(rows, a, a + 4, 32, 0x0000_0000_FFFF_FFFF);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encodings::test_columns;

    /// The layout FORMAT.md §3.1 specifies, written out naively.
    fn reference_split(width: usize, src: &[u8]) -> Vec<u8> {
        let n = src.len() / width;
        let mut out = Vec::with_capacity(src.len());
        for j in 0..width {
            out.extend((0..n).map(|i| src[i * width + j]));
        }
        out.extend_from_slice(&src[n * width..]);
        out
    }

    proptest::proptest! {
        #[test]
        fn split_matches_the_spec_and_round_trips(
            width in 2usize..40,
            // Lengths around multiples of 8 elements exercise both the blocks and the tail.
            src in proptest::collection::vec(proptest::num::u8::ANY, 0..3000),
        ) {
            let mut split = vec![0xAA];
            split_into(width, &src, &mut split);
            proptest::prop_assert_eq!(&split[1..], &reference_split(width, &src)[..]);
            proptest::prop_assert_eq!(&split[1..], &byteshuffle::shuffle(width, &src)[..]);
            let mut back = split[1..].to_vec();
            unsplit_in_place(width, &mut back, &mut Vec::new());
            proptest::prop_assert_eq!(back, src);
        }

        #[test]
        fn random_columns_of_every_type_round_trip(seed in proptest::num::u64::ANY, len in 0usize..150) {
            for data in test_columns::every_column(seed, len) {
                test_columns::round_trip(&ByteStreamSplit, &data);
            }
        }
    }

    #[test]
    fn round_trips_every_type_and_fill() {
        test_columns::round_trip_all(&ByteStreamSplit);
    }

    #[test]
    fn the_body_splits_exactly_the_buffers_of_width_2_or_more() {
        for data in test_columns::every_column(2, 41) {
            let parts = BodyParts::collect(&data).unwrap();
            let mut body = Vec::new();
            let encoded = ByteStreamSplit.encode(&parts, &mut body).unwrap();
            assert_eq!(encoded, EncodedColumn::same_length(parts.plain_len()));
            // The plain body with each buffer of width >= 2 replaced by its streams.
            let expected = test_columns::reference_body(&parts, |spec, src| {
                if spec.kind.width() >= 2 {
                    reference_split(spec.kind.width(), src)
                } else {
                    src.to_vec()
                }
            });
            assert_eq!(body, expected, "{}", data.data_type());
            let widths = crate::layout::buffer_widths(data.data_type()).unwrap();
            assert_eq!(
                ByteStreamSplit.applies_to(&parts),
                widths.iter().any(|&w| w >= 2),
                "{}",
                data.data_type()
            );
        }
    }
}
