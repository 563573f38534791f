//! Bit-packing, the last stage of every integer encoding (FORMAT.md §3.2): `n` values of `width`
//! bits each (0 ≤ width ≤ 64) as one little-endian bit stream, value `i` in bits
//! `[i·width, (i+1)·width)`, bit `k` being bit `k mod 8` of byte `k / 8`, in `ceil(n·width/8)`
//! bytes. Unused high bits of the last byte are zero.
//!
//! Scalar and safe: the format crate forbids `unsafe`, and the decoder reads hostile bytes, so it
//! only ever indexes checked slices. Each width is its own monomorphised kernel that reads 8
//! values from one fixed window, so the bounds checks fold away. Decoders whose elements are 4 or
//! 8 bytes go through [`unpack_map_into`], which applies the encoding's last step (reference,
//! running sum, dictionary lookup, ALP's scaling) as it unpacks and writes straight into the
//! output buffer (frame-of-reference decode 7.2 -> 11.3 GiB/s); other widths unpack in chunks
//! through [`unpack`]. The `fastlanes` crate's kernels are faster still, but they lay values out
//! in their own transposed 1024-value order, not this one; adopting them is a new encoding id
//! with its own pinned bytes.

use crate::error::{Error, Result};

/// Bytes that `n` values of `width` bits pack into, or `None` on overflow.
pub(crate) fn packed_len(n: usize, width: u8) -> Option<usize> {
    n.checked_mul(usize::from(width))
        .map(|bits| bits.div_ceil(8))
}

/// The bits needed for `range` (the largest packed value): 0 for 0.
pub(crate) fn width_of(range: u64) -> u8 {
    (64 - range.leading_zeros()) as u8
}

/// Appends `values`, each below `2^width`, packed at `width` bits.
pub(crate) fn pack(values: impl IntoIterator<Item = u64>, width: u8, out: &mut Vec<u8>) {
    if width == 0 {
        return;
    }
    let mut acc: u128 = 0;
    let mut bits: u32 = 0;
    for v in values {
        acc |= u128::from(v) << bits;
        bits += u32::from(width);
        while bits >= 64 {
            out.extend_from_slice(&(acc as u64).to_le_bytes());
            acc >>= 64;
            bits -= 64;
        }
    }
    let tail = bits.div_ceil(8) as usize;
    out.extend_from_slice(&(acc as u64).to_le_bytes()[..tail]);
}

/// Checks that `packed` holds exactly `n` values of `width` (at most 64) bits.
fn check_stream(packed: &[u8], n: usize, width: u8, what: &str) -> Result<()> {
    if width > 64 {
        return Err(Error::CorruptEncoding(format!(
            "{what}: bit width {width} above 64"
        )));
    }
    let expected = packed_len(n, width)
        .ok_or_else(|| Error::CorruptEncoding(format!("{what}: {n} values of {width} bits")))?;
    if packed.len() != expected {
        return Err(Error::CorruptEncoding(format!(
            "{what}: {n} values of {width} bits pack into {expected} bytes, {} stored",
            packed.len()
        )));
    }
    Ok(())
}

/// Whether [`unpack_map_into`] writes elements of `out_width` bytes.
pub(crate) fn fused_width(out_width: usize) -> bool {
    matches!(out_width, 4 | 8)
}

/// An integer decoder's last stage in one pass: unpacks the values packed at `width` bits in
/// `packed` and writes `map(value)` straight into `out`, whose elements are `out_width` bytes
/// wide (a [`fused_width`]; each result truncated to its element). One value per element of
/// `out`, mapped in order (so `map` may carry state, as delta's running sum does); `packed` must
/// be exactly [`packed_len`] bytes for that many.
///
/// Unlike [`unpack`], no value passes through an intermediate chunk, and the packed bytes are not
/// copied: groups whose window lies inside `packed` read it in place, and only the last few (less
/// than one [`WINDOW`] of bytes) read from a padded copy on the stack.
// Inlined so that a caller whose element width is a constant (ALP's) compiles one of the two.
#[inline(always)]
pub(crate) fn unpack_map_into(
    packed: &[u8],
    width: u8,
    out: &mut [u8],
    out_width: usize,
    what: &str,
    map: impl FnMut(u64) -> i64,
) -> Result<()> {
    match out_width {
        4 => map_into::<4>(packed, width, out, what, map),
        8 => map_into::<8>(packed, width, out, what, map),
        _ => Err(Error::Internal(format!(
            "{what}: fused unpacking into {out_width}-byte elements"
        ))),
    }
}

/// [`unpack_map_into`] into `OW`-byte elements.
fn map_into<const OW: usize>(
    packed: &[u8],
    width: u8,
    out: &mut [u8],
    what: &str,
    mut map: impl FnMut(u64) -> i64,
) -> Result<()> {
    if !out.len().is_multiple_of(OW) {
        return Err(Error::Internal(format!(
            "{what}: {} bytes are not whole {OW}-byte elements",
            out.len()
        )));
    }
    let n = out.len() / OW;
    check_stream(packed, n, width, what)?;
    macro_rules! by_width {
        ($($w:literal)*) => {
            match width {
                $($w => map_at::<$w, OW>(packed, out, &mut map),)*
                _ => false,
            }
        };
    }
    let done = by_width!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26
        27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56
        57 58 59 60 61 62 63 64);
    if done {
        Ok(())
    } else {
        Err(Error::Internal(format!(
            "{what}: fused unpacking of {n} values at {width} bits ran past its window"
        )))
    }
}

/// [`unpack_map_into`] for `W`-bit values into `OW`-byte elements: the groups of 8 whose
/// [`WINDOW`] lies inside `packed` straight from it, then the rest from a zero-padded copy of
/// the tail. False if a window would not fit (never, for a stream [`check_stream`] accepted).
fn map_at<const W: usize, const OW: usize>(
    packed: &[u8],
    out: &mut [u8],
    map: &mut impl FnMut(u64) -> i64,
) -> bool {
    if W == 0 {
        for element in out.chunks_exact_mut(OW) {
            element.copy_from_slice(&map(0).to_le_bytes()[..OW]);
        }
        return true;
    }
    let mask = if W == 64 { u64::MAX } else { (1u64 << W) - 1 };
    let whole_groups = out.len() / OW / 8;
    let direct = if packed.len() >= WINDOW {
        whole_groups.min((packed.len() - WINDOW) / W + 1)
    } else {
        0
    };
    let (head, rest) = out.split_at_mut(direct * 8 * OW);
    for (group, dst) in head.chunks_exact_mut(8 * OW).enumerate() {
        let Some(window) = window_at::<W>(packed, group) else {
            return false;
        };
        for i in 0..8 {
            let value = map(extract::<W>(window, i, mask));
            dst[i * OW..(i + 1) * OW].copy_from_slice(&value.to_le_bytes()[..OW]);
        }
    }
    let Some(tail) = packed.get(direct * W..) else {
        return false;
    };
    if tail.len() > WINDOW {
        return false;
    }
    let mut padded = [0u8; 2 * WINDOW];
    padded[..tail.len()].copy_from_slice(tail);
    for (group, dst) in rest.chunks_mut(8 * OW).enumerate() {
        let Some(window) = window_at::<W>(&padded, group) else {
            return false;
        };
        for (i, element) in dst.chunks_exact_mut(OW).enumerate() {
            let value = map(extract::<W>(window, i, mask));
            element.copy_from_slice(&value.to_le_bytes()[..OW]);
        }
    }
    true
}

/// Values unpacked per call of the sink in [`unpack`]: small enough to stay in L1.
pub(crate) const CHUNK: usize = 1024;

/// Unpacks the `n` values packed at `width` bits in `packed`, which must be exactly
/// [`packed_len`] bytes long, and hands them to `sink(first_index, values)` in chunks of up to
/// [`CHUNK`], in order.
pub(crate) fn unpack(
    packed: &[u8],
    n: usize,
    width: u8,
    what: &str,
    mut sink: impl FnMut(usize, &[u64]) -> Result<()>,
) -> Result<()> {
    let mut chunks = Chunks::new(packed, n, width, what)?;
    while let Some((first, values)) = chunks.next_chunk()? {
        sink(first, values)?;
    }
    Ok(())
}

/// The values of one packed stream, a chunk of up to [`CHUNK`] at a time, pulled by the caller
/// (so that a decoder can walk two streams side by side). Lengths are checked once, in
/// [`Chunks::new`]; the loop itself reads whole 8-byte words from a fixed window of a copy of the
/// packed bytes with [`PAD`] zero bytes after them, so it has no per-value branch on the input's
/// end, and it is compiled once per bit width so that each value's byte and shift are constants.
pub(crate) struct Chunks {
    padded: Vec<u8>,
    n: usize,
    width: u8,
    next: usize,
    chunk: Box<[u64; CHUNK]>,
}

/// Bytes a group of 8 values reads from its first byte on: 8 values of up to 64 bits, plus the
/// ninth byte a value of more than 56 bits may reach into.
const WINDOW: usize = 72;
/// Zero bytes after the packed bytes: every group's window lies inside them.
const PAD: usize = WINDOW + 8;

impl Chunks {
    /// The `n` values packed at `width` bits in `packed`, which must be exactly [`packed_len`]
    /// bytes long.
    pub(crate) fn new(packed: &[u8], n: usize, width: u8, what: &str) -> Result<Self> {
        check_stream(packed, n, width, what)?;
        let mut padded = Vec::with_capacity(packed.len() + PAD);
        padded.extend_from_slice(packed);
        padded.resize(packed.len() + PAD, 0);
        Ok(Chunks {
            padded,
            n,
            width,
            next: 0,
            chunk: Box::new([0; CHUNK]),
        })
    }

    /// The next chunk's first index and values; `None` once all `n` were handed out.
    pub(crate) fn next_chunk(&mut self) -> Result<Option<(usize, &[u64])>> {
        let first = self.next;
        if first >= self.n {
            return Ok(None);
        }
        let len = CHUNK.min(self.n - first);
        self.next = first + len;
        let chunk = &mut self.chunk[..len];
        if !unpack_chunk(self.width, &self.padded, first, chunk) {
            return Err(Error::Internal(format!(
                "bit-unpacking values {first}..+{len} of {} at {} bits ran past its padding",
                self.n, self.width
            )));
        }
        Ok(Some((first, chunk)))
    }
}

/// Unpacks `out.len()` values from value `first` (a multiple of 8) at `width` bits; false if a
/// window were to pass the padding (never, for a stream [`Chunks::new`] accepted).
fn unpack_chunk(width: u8, padded: &[u8], first: usize, out: &mut [u64]) -> bool {
    macro_rules! by_width {
        ($($w:literal)*) => {
            match width {
                0 => {
                    out.fill(0);
                    true
                }
                $($w => unpack_at::<$w>(padded, first, out),)*
                _ => false,
            }
        };
    }
    by_width!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
        32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61
        62 63 64)
}

/// [`unpack_chunk`] for `W`-bit values: 8 values span exactly `W` bytes, so group `g` starts at
/// byte `(first / 8 + g) × W` and, in a whole group of 8, each value's byte and shift are
/// constants (the loop over a group has a constant trip count, so it unrolls into one load,
/// shift, mask and store per value); only a chunk's last, partial group loops at run time.
fn unpack_at<const W: usize>(padded: &[u8], first: usize, out: &mut [u64]) -> bool {
    let mask = if W == 64 { u64::MAX } else { (1u64 << W) - 1 };
    let whole = out.len() / 8 * 8;
    let (groups, tail) = out.split_at_mut(whole);
    for (group, values) in groups.chunks_exact_mut(8).enumerate() {
        let Some(window) = window_at::<W>(padded, first / 8 + group) else {
            return false;
        };
        for (i, slot) in values.iter_mut().enumerate().take(8) {
            *slot = extract::<W>(window, i, mask);
        }
    }
    if !tail.is_empty() {
        let Some(window) = window_at::<W>(padded, first / 8 + whole / 8) else {
            return false;
        };
        for (i, slot) in tail.iter_mut().enumerate() {
            *slot = extract::<W>(window, i, mask);
        }
    }
    true
}

/// The [`WINDOW`] bytes group `group` of `W`-bit values reads, if the padding holds them.
#[inline(always)]
fn window_at<const W: usize>(padded: &[u8], group: usize) -> Option<&[u8; WINDOW]> {
    let base = group * W;
    padded
        .get(base..base + WINDOW)
        .and_then(|w| <&[u8; WINDOW]>::try_from(w).ok())
}

/// Value `i` (0..8) of the group of `W`-bit values in `window`.
#[inline(always)]
fn extract<const W: usize>(window: &[u8; WINDOW], i: usize, mask: u64) -> u64 {
    let bit = i * W;
    let (byte, shift) = (bit / 8, (bit % 8) as u32);
    let lo = u64::from_le_bytes(word(&window[byte..byte + 8]));
    if W > 56 {
        let hi = u64::from(window[byte + 8]);
        ((lo >> shift) | (hi << 1 << (63 - shift))) & mask
    } else {
        (lo >> shift) & mask
    }
}

#[inline(always)]
fn word(bytes: &[u8]) -> [u8; 8] {
    let mut w = [0u8; 8];
    w.copy_from_slice(bytes);
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn unpacked(packed: &[u8], n: usize, width: u8) -> Vec<u64> {
        let mut out = Vec::new();
        unpack(packed, n, width, "test", |first, values| {
            assert_eq!(first, out.len());
            out.extend_from_slice(values);
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn layout_is_lsb_first() {
        let mut out = Vec::new();
        pack([1, 2, 3, 0, 7], 3, &mut out);
        // 001 010 011 000 111 → bits 0..15: 1,0,0, 0,1,0, 1,1,0, 0,0,0, 1,1,1
        assert_eq!(out, vec![0b1101_0001, 0b0111_0000]);
        assert_eq!(unpacked(&out, 5, 3), vec![1, 2, 3, 0, 7]);
    }

    #[test]
    fn wrong_lengths_and_widths_are_refused() {
        assert!(unpack(&[0; 3], 5, 3, "t", |_, _| Ok(())).is_err());
        assert!(unpack(&[0; 1], 5, 3, "t", |_, _| Ok(())).is_err());
        assert!(unpack(&[], 1, 65, "t", |_, _| Ok(())).is_err());
        assert!(unpack(&[], usize::MAX, 64, "t", |_, _| Ok(())).is_err());
    }

    #[test]
    fn fused_unpacking_refuses_wrong_lengths_and_widths() {
        // Five 4-byte elements at 3 bits: 15 bits, 2 bytes.
        let mut out = [0u8; 20];
        assert!(unpack_map_into(&[0; 2], 3, &mut out, 4, "t", |d| d as i64).is_ok());
        assert!(unpack_map_into(&[0; 3], 3, &mut out, 4, "t", |d| d as i64).is_err());
        assert!(unpack_map_into(&[0; 1], 3, &mut out, 4, "t", |d| d as i64).is_err());
        assert!(unpack_map_into(&[], 65, &mut out, 4, "t", |d| d as i64).is_err());
        assert!(unpack_map_into(&[0; 2], 3, &mut out[..19], 4, "t", |d| d as i64).is_err());
        assert!(unpack_map_into(&[0; 4], 3, &mut out, 2, "t", |d| d as i64).is_err());
    }

    proptest! {
        /// The fused decode writes what unpacking, adding the reference and truncating each
        /// value to its element would, at every width, stream length and alignment of its tail.
        #[test]
        fn fused_unpacking_equals_unpack_then_map(
            values in proptest::collection::vec(any::<u64>(), 0..700),
            width in 0u8..=64,
            reference in any::<i64>(),
            wide in any::<bool>(),
        ) {
            let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
            let values: Vec<u64> = values.into_iter().map(|v| v & mask).collect();
            let mut packed = Vec::new();
            pack(values.iter().copied(), width, &mut packed);
            let out_width = if wide { 8 } else { 4 };
            let expected: Vec<u8> = values
                .iter()
                .flat_map(|&v| reference.wrapping_add(v as i64).to_le_bytes()[..out_width].to_vec())
                .collect();
            let mut out = vec![0xA5u8; expected.len()];
            unpack_map_into(&packed, width, &mut out, out_width, "t", |d| reference.wrapping_add(d as i64))
                .unwrap();
            prop_assert_eq!(out, expected);
        }

        #[test]
        fn round_trips(values in proptest::collection::vec(any::<u64>(), 0..2500), width in 0u8..=64) {
            let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
            let values: Vec<u64> = values.into_iter().map(|v| v & mask).collect();
            let mut out = Vec::new();
            pack(values.iter().copied(), width, &mut out);
            prop_assert_eq!(out.len(), packed_len(values.len(), width).unwrap());
            prop_assert_eq!(unpacked(&out, values.len(), width), values);
        }
    }
}
