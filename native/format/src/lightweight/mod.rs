//! The encodings of one buffer of a V4 column body (FORMAT.md §3.2), each a unit behind
//! [`BufferUnit`]: plain, BYTE_STREAM_SPLIT, the lightweight integer encodings (constant,
//! frame of reference, delta, dictionary, run-length), each ending in [`bitpack`], ALP for
//! doubles and floats, FSST and hex digits for value bytes, and the string dictionary over a
//! variable-length column's offsets and value bytes together. A V4 body states each buffer's
//! encoding, decoded length and stored length, so an encoding may change lengths and carry
//! parameters; the reader needs nothing but the body and the schema's element widths.
//!
//! A unit says what it applies to, what a buffer would cost in it (exactly, from one
//! [`Analysis`] of the buffer), and how to encode and decode. The choice between units is made
//! in [`crate::select::choose_buffer`].

mod alp;
pub(crate) mod bitpack;
mod constant;
mod delta;
mod dictionary;
mod frame_of_reference;
mod fsst;
mod hex;
pub(crate) mod integers;
mod run_length;
mod split;
pub(crate) mod string_dictionary;

use crate::error::{Error, Result};
use crate::layout::BufferKind;

/// The encoding of one buffer of a V4 body: the id its buffer descriptor stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BufferEncoding {
    /// The Arrow bytes as they are.
    Plain,
    /// Byte streams of the elements (as V3's encoding 1, for one buffer).
    ByteStreamSplit,
    /// Every element equal: stored once.
    Constant,
    /// Elements minus their minimum, bit-packed.
    FrameOfReference,
    /// The first element, then the differences of neighbours minus their minimum, bit-packed.
    Delta,
    /// The distinct elements, then each element's index among them, bit-packed.
    Dictionary,
    /// Doubles and floats as scaled integers, frame of reference and bit-packed, with exceptions
    /// (ALP).
    Alp,
    /// Runs of equal elements: each run's value (frame of reference) and length, bit-packed.
    RunLength,
    /// Value bytes through a static symbol table (FSST).
    Fsst,
    /// A variable-length column's offsets as indices into its distinct values (with
    /// [`BufferEncoding::StringDictionaryEntries`] on its value bytes).
    StringDictionary,
    /// A variable-length column's distinct values (with [`BufferEncoding::StringDictionary`] on
    /// its offsets).
    StringDictionaryEntries,
    /// Value bytes that are all hex digits of one case, two digits per byte.
    Hex,
}

impl BufferEncoding {
    /// Every buffer encoding, in id order.
    pub const ALL: [BufferEncoding; 12] = [
        BufferEncoding::Plain,
        BufferEncoding::ByteStreamSplit,
        BufferEncoding::Constant,
        BufferEncoding::FrameOfReference,
        BufferEncoding::Delta,
        BufferEncoding::Dictionary,
        BufferEncoding::Alp,
        BufferEncoding::RunLength,
        BufferEncoding::Fsst,
        BufferEncoding::StringDictionary,
        BufferEncoding::StringDictionaryEntries,
        BufferEncoding::Hex,
    ];

    /// The id a buffer descriptor stores.
    pub fn id(self) -> u8 {
        match self {
            BufferEncoding::Plain => 0,
            BufferEncoding::ByteStreamSplit => 1,
            BufferEncoding::Constant => 2,
            BufferEncoding::FrameOfReference => 3,
            BufferEncoding::Delta => 4,
            BufferEncoding::Dictionary => 5,
            BufferEncoding::Alp => 6,
            BufferEncoding::RunLength => 7,
            BufferEncoding::Fsst => 8,
            BufferEncoding::StringDictionary => 9,
            BufferEncoding::StringDictionaryEntries => 10,
            BufferEncoding::Hex => 11,
        }
    }

    /// The name used in docs and messages.
    pub fn name(self) -> &'static str {
        match self {
            BufferEncoding::Plain => "plain",
            BufferEncoding::ByteStreamSplit => "byte_stream_split",
            BufferEncoding::Constant => "constant",
            BufferEncoding::FrameOfReference => "frame_of_reference",
            BufferEncoding::Delta => "delta",
            BufferEncoding::Dictionary => "dictionary",
            BufferEncoding::Alp => "alp",
            BufferEncoding::RunLength => "run_length",
            BufferEncoding::Fsst => "fsst",
            BufferEncoding::StringDictionary => "string_dictionary",
            BufferEncoding::StringDictionaryEntries => "string_dictionary_entries",
            BufferEncoding::Hex => "hex",
        }
    }

    /// The encoding a descriptor stores, if this reader knows it.
    pub fn from_stored(id: u8) -> Option<BufferEncoding> {
        BufferEncoding::ALL.into_iter().find(|e| e.id() == id)
    }

    /// The known ids and names, for messages.
    pub fn known() -> String {
        BufferEncoding::ALL
            .iter()
            .map(|e| format!("{} {}", e.id(), e.name()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The unit that encodes and decodes this id; exhaustive, so a new id names its unit.
    pub(crate) fn unit(self) -> &'static dyn BufferUnit {
        match self {
            BufferEncoding::Plain => &split::Plain,
            BufferEncoding::ByteStreamSplit => &split::ByteStreamSplit,
            BufferEncoding::Constant => &constant::Constant,
            BufferEncoding::FrameOfReference => &frame_of_reference::FrameOfReference,
            BufferEncoding::Delta => &delta::Delta,
            BufferEncoding::Dictionary => &dictionary::Dictionary,
            BufferEncoding::Alp => &alp::Alp,
            BufferEncoding::RunLength => &run_length::RunLength,
            BufferEncoding::Fsst => &fsst::Fsst,
            BufferEncoding::StringDictionary => &PairHalf(PairSide::Offsets),
            BufferEncoding::StringDictionaryEntries => &PairHalf(PairSide::Values),
            BufferEncoding::Hex => &hex::Hex,
        }
    }

    /// The encoding of the other buffer of a pair that is encoded and decoded together, for
    /// the encodings that span two buffers of a node.
    pub(crate) fn pair(self) -> Option<(PairSide, BufferEncoding)> {
        match self {
            BufferEncoding::StringDictionary => {
                Some((PairSide::Offsets, BufferEncoding::StringDictionaryEntries))
            }
            BufferEncoding::StringDictionaryEntries => {
                Some((PairSide::Values, BufferEncoding::StringDictionary))
            }
            _ => None,
        }
    }
}

/// Decodes one stored V4 buffer in encoding `id` into `decoded_len` bytes of `kind`'s elements,
/// after the checks a body's reader makes of its descriptor first (the encoding is known and
/// applies to `kind`, the stored bytes are no more than the decoded ones, and the expansion
/// rule holds: at most `row_bound` bytes for a buffer whose size its rows set, else a bounded
/// multiple of the stored bytes). For the fuzz targets `v4_buffer_*` and tools, which reach
/// each encoding's decoder without a body around it; a string dictionary's halves decode
/// together ([`decode_string_dictionary`]).
pub fn decode_buffer(
    id: u8,
    kind: BufferKind,
    decoded_len: usize,
    row_bound: Option<u64>,
    stored: &[u8],
) -> Result<Vec<u8>> {
    let what = "buffer";
    let encoding = BufferEncoding::from_stored(id).ok_or(Error::UnsupportedBufferEncoding(id))?;
    if !encoding.unit().applies_to(kind) {
        return Err(Error::CorruptEncoding(format!(
            "{what} ({kind:?}) cannot be {}",
            encoding.name()
        )));
    }
    check_declared(decoded_len, stored.len(), row_bound, what)?;
    let mut out = vec![0u8; decoded_len];
    encoding
        .unit()
        .decode(stored, kind.width(), &mut out, what)?;
    Ok(out)
}

/// Encodes `bytes` of `kind` in encoding `id`: `None` when the encoding does not apply to `kind`
/// or cannot store these bytes (or is half of a pair). What the fuzz targets re-encode a decoded
/// buffer with, to check that it decodes back the same.
pub fn encode_buffer(id: u8, kind: BufferKind, bytes: &[u8]) -> Result<Option<Vec<u8>>> {
    let encoding = BufferEncoding::from_stored(id).ok_or(Error::UnsupportedBufferEncoding(id))?;
    let unit = encoding.unit();
    if encoding.pair().is_some() || !unit.applies_to(kind) {
        return Ok(None);
    }
    let analysis = Analysis::of(bytes, kind).with_floats(matches!(kind, BufferKind::Values(4 | 8)));
    let Some(len) = unit.stored_len(&analysis) else {
        return Ok(None);
    };
    let mut out = Vec::with_capacity(len);
    unit.encode(&analysis, &mut out)?;
    Ok(Some(out))
}

/// Decodes a stored string dictionary (ids 9 and 10) into `offsets_len` bytes of offsets of
/// `width` bytes and `values_len` value bytes, after the checks a body's reader makes of the
/// pair's descriptors. For the fuzz target `v4_buffer_string_dictionary` and tools.
pub fn decode_string_dictionary(
    offsets_stored: &[u8],
    values_stored: &[u8],
    width: usize,
    offsets_len: usize,
    values_len: usize,
) -> Result<(Vec<u8>, Vec<u8>)> {
    let what = "string dictionary";
    check_declared(offsets_len, offsets_stored.len(), None, what)?;
    if values_stored.len() > values_len {
        return Err(Error::CorruptEncoding(format!(
            "{what}: {} entry bytes for {values_len} value bytes",
            values_stored.len()
        )));
    }
    let strings = (offsets_len / width.max(1)).saturating_sub(1) as u64;
    if values_len as u64 > string_dictionary::values_bound(strings, values_stored.len() as u64) {
        return Err(Error::OverBudget(format!(
            "{what}: {values_len} value bytes from {} entry bytes for {strings} values",
            values_stored.len()
        )));
    }
    let (mut offsets, mut values) = (vec![0u8; offsets_len], vec![0u8; values_len]);
    string_dictionary::decode(
        offsets_stored,
        values_stored,
        width,
        &mut offsets,
        &mut values,
        what,
    )?;
    Ok((offsets, values))
}

/// The stored halves of a string dictionary of the variable-length column whose offsets
/// (`width` bytes each, 4 or 8) and value bytes these are, or `None` where the dictionary does
/// not apply. What the fuzz target `v4_buffer_string_dictionary` is seeded with.
pub fn encode_string_dictionary(
    offsets: &[u8],
    width: usize,
    bytes: &[u8],
) -> Option<(Vec<u8>, Vec<u8>)> {
    let values = integers::read_all(offsets, width)?;
    let plan = string_dictionary::plan(&values, bytes, u64::MAX)?;
    let (mut offsets_out, mut values_out) = (Vec::new(), Vec::new());
    string_dictionary::encode(&plan, bytes, &mut offsets_out, &mut values_out);
    Some((offsets_out, values_out))
}

/// The reader's rule for a buffer's declared lengths: no more stored than decoded bytes, and no
/// more decoded bytes than its rows allow (`row_bound`) or its stored ones may expand to.
fn check_declared(
    decoded_len: usize,
    stored_len: usize,
    row_bound: Option<u64>,
    what: &str,
) -> Result<()> {
    if stored_len > decoded_len {
        return Err(Error::CorruptEncoding(format!(
            "{what}: {stored_len} stored bytes for {decoded_len} decoded"
        )));
    }
    if !crate::body_v4::expansion_allowed(decoded_len as u64, stored_len as u64, row_bound) {
        return Err(Error::OverBudget(format!(
            "{what}: {decoded_len} decoded bytes from {stored_len} stored"
        )));
    }
    Ok(())
}

/// FSST's table length and its form of the named pieces of the analysed value bytes, if FSST
/// applies (the table is trained once per analysis): what the selector estimates FSST from
/// before it compresses a whole buffer.
pub(crate) fn fsst_sampled(
    buffer: &Analysis<'_>,
    pieces: &[std::ops::Range<usize>],
) -> Option<(usize, Vec<Vec<u8>>)> {
    fsst::sampled(buffer, pieces)
}

/// The packed nibbles HEX stores for `bytes` (hex digits of one case, an even count), without
/// its parameters: what the selector hands a codec to estimate the codec on top of HEX.
pub(crate) fn hex_packed(bytes: &[u8]) -> Vec<u8> {
    hex::packed(bytes)
}

/// Which buffer of a variable-length node a pair encoding's half stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PairSide {
    /// The offsets (the first of the pair).
    Offsets,
    /// The value bytes (the second).
    Values,
}

/// One half of [`string_dictionary`]: what it applies to. It is chosen for the node, not the
/// buffer, and decoded with its other half ([`crate::body_v4`]), so alone it neither sizes,
/// encodes nor decodes.
#[derive(Debug)]
pub(crate) struct PairHalf(PairSide);

impl BufferUnit for PairHalf {
    fn applies_to(&self, kind: BufferKind) -> bool {
        match self.0 {
            PairSide::Offsets => matches!(kind, BufferKind::Offsets(4 | 8)),
            PairSide::Values => kind == BufferKind::Bytes,
        }
    }

    fn stored_len(&self, _buffer: &Analysis<'_>) -> Option<usize> {
        None
    }

    fn encode(&self, _buffer: &Analysis<'_>, _out: &mut Vec<u8>) -> Result<()> {
        Err(Error::Internal(
            "half of a string dictionary encoded alone".into(),
        ))
    }

    fn decode(&self, _stored: &[u8], _width: usize, _out: &mut [u8], what: &str) -> Result<()> {
        Err(Error::CorruptEncoding(format!(
            "{what}: half of a string dictionary without its other half"
        )))
    }
}

/// One encoding of one buffer.
pub(crate) trait BufferUnit: Sync {
    /// Whether it can store buffers of `kind`.
    fn applies_to(&self, kind: BufferKind) -> bool;

    /// The exact bytes it would store for the analysed buffer, or `None` when it cannot store
    /// this one (a constant encoding of unequal elements, a dictionary of too many values).
    fn stored_len(&self, buffer: &Analysis<'_>) -> Option<usize>;

    /// Appends the stored form of the analysed buffer to `out`; only called when
    /// [`BufferUnit::stored_len`] is `Some`, and appends exactly that many bytes.
    fn encode(&self, buffer: &Analysis<'_>, out: &mut Vec<u8>) -> Result<()>;

    /// Decodes `stored` into `out`, which is the buffer's decoded length, for elements of
    /// `width` bytes. Any input is hostile: every length is checked before it is used.
    fn decode(&self, stored: &[u8], width: usize, out: &mut [u8], what: &str) -> Result<()>;
}

/// What the units need to know about one buffer, computed once: its bytes, element width, and
/// for integer elements their values, bounds and the bounds of neighbour differences.
#[derive(Debug)]
pub(crate) struct Analysis<'a> {
    /// The buffer's Arrow bytes.
    pub(crate) bytes: &'a [u8],
    /// What the buffer holds.
    pub(crate) kind: BufferKind,
    /// The elements as integers, when they are integers ([`integers`]).
    pub(crate) values: Option<IntegerValues>,
    /// Whether the elements are floating point (a Float64 or Float32 column's values), which ALP
    /// may store.
    pub(crate) floats: bool,
    /// ALP's plan for the doubles, made once: sizing the buffer and encoding it both need it.
    pub(crate) alp_plan: std::cell::OnceCell<Option<alp::Plan>>,
    /// The FSST form of value bytes, made once for the same reason.
    pub(crate) fsst: fsst::Cell,
    /// Whether value bytes are hex digits of one case, and which, scanned once.
    pub(crate) hex_case: std::cell::OnceCell<Option<u8>>,
}

/// A buffer's elements as integers, with what the integer encodings size themselves by.
#[derive(Debug)]
pub(crate) struct IntegerValues {
    /// The elements, sign-extended.
    pub(crate) values: Vec<i64>,
    /// The smallest element.
    pub(crate) min: i64,
    /// The largest element.
    pub(crate) max: i64,
    /// The smallest and largest wrapping difference of neighbours, when there are two elements.
    pub(crate) deltas: Option<(i64, i64)>,
    /// The runs of equal neighbours (1 for one element).
    pub(crate) runs: usize,
    /// The longest run's length.
    pub(crate) longest_run: usize,
}

impl<'a> Analysis<'a> {
    /// Analyses one buffer of `kind`.
    pub(crate) fn of(bytes: &'a [u8], kind: BufferKind) -> Self {
        let values = match kind {
            BufferKind::Values(w) | BufferKind::Offsets(w) if !bytes.is_empty() => {
                integers::read_all(bytes, w).map(IntegerValues::of)
            }
            _ => None,
        };
        Analysis {
            bytes,
            kind,
            values,
            floats: false,
            alp_plan: std::cell::OnceCell::new(),
            fsst: fsst::Cell::default(),
            hex_case: std::cell::OnceCell::new(),
        }
    }

    /// This analysis of a buffer whose elements are floating point when `floats` is set.
    pub(crate) fn with_floats(self, floats: bool) -> Self {
        Analysis { floats, ..self }
    }

    /// The element width.
    pub(crate) fn width(&self) -> usize {
        self.kind.width()
    }
}

impl IntegerValues {
    fn of(values: Vec<i64>) -> Self {
        // This runs for every integer buffer a V4 frame writes. Separate short passes without a
        // carried branch: one loop carrying every statistic (runs and the longest run too) took
        // about 25 instructions an element (callgrind).
        let (mut min, mut max) = (i64::MAX, i64::MIN);
        for &v in &values {
            min = min.min(v);
            max = max.max(v);
        }
        let (mut lo, mut hi, mut equal) = (i64::MAX, i64::MIN, 0usize);
        for (&a, &b) in values.iter().zip(values.iter().skip(1)) {
            let d = b.wrapping_sub(a);
            lo = lo.min(d);
            hi = hi.max(d);
            equal += usize::from(d == 0);
        }
        // Without equal neighbours every run is one element long, the common case, so the
        // longest run is looked for only where there are runs.
        let mut longest_run = 1;
        if equal > 0 {
            let mut run = 1;
            for pair in values.windows(2) {
                run = if pair[0] == pair[1] { run + 1 } else { 1 };
                longest_run = longest_run.max(run);
            }
        }
        IntegerValues {
            deltas: (values.len() >= 2).then_some((lo, hi)),
            runs: values.len() - equal,
            values,
            min,
            max,
            longest_run,
        }
    }
}

/// Whether the integer encodings apply to buffers of `kind`: fixed-width values, dictionary
/// keys and offsets whose width the integers can read. Bitmaps and value bytes are not
/// integers.
pub(crate) fn integer_kind(kind: BufferKind) -> bool {
    matches!(kind, BufferKind::Values(w) | BufferKind::Offsets(w) if integers::supported_width(w))
}

/// The number of `width`-byte elements in `len` decoded bytes; an error unless whole.
pub(crate) fn element_count(len: usize, width: usize, what: &str) -> Result<usize> {
    if width == 0 || !len.is_multiple_of(width) || !integers::supported_width(width) {
        return Err(Error::CorruptEncoding(format!(
            "{what}: {len} decoded bytes are not whole integer elements of {width} bytes"
        )));
    }
    Ok(len / width)
}

/// A fixed-size parameter block at the start of a stored buffer, and the rest.
pub(crate) fn split_params<'s>(
    stored: &'s [u8],
    len: usize,
    what: &str,
) -> Result<(&'s [u8], &'s [u8])> {
    if stored.len() < len {
        return Err(Error::CorruptEncoding(format!(
            "{what}: {} stored bytes, its parameters take {len}",
            stored.len()
        )));
    }
    Ok(stored.split_at(len))
}

/// The little-endian `i64` at `at` of a parameter block the caller has sized.
pub(crate) fn param_i64(params: &[u8], at: usize) -> i64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&params[at..at + 8]);
    i64::from_le_bytes(b)
}

/// Checks that the reserved bytes of a parameter block are zero.
pub(crate) fn reserved_zero(params: &[u8], what: &str) -> Result<()> {
    if params.iter().any(|&b| b != 0) {
        return Err(Error::CorruptEncoding(format!(
            "{what}: reserved parameter bytes are not zero"
        )));
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The statistics of `IntegerValues::of`, the obvious way: one pass, every statistic kept.
    fn reference_stats(values: &[i64]) -> (i64, i64, Option<(i64, i64)>, usize, usize) {
        let min = values.iter().copied().min().unwrap_or(i64::MAX);
        let max = values.iter().copied().max().unwrap_or(i64::MIN);
        let diffs: Vec<i64> = values.windows(2).map(|p| p[1].wrapping_sub(p[0])).collect();
        let deltas = (values.len() >= 2).then(|| {
            let lo = diffs.iter().copied().min().unwrap_or(i64::MAX);
            (lo, diffs.iter().copied().max().unwrap_or(i64::MIN))
        });
        let (mut runs, mut longest, mut run) = (0, 1, 0);
        for (i, &v) in values.iter().enumerate() {
            run = if i > 0 && values[i - 1] == v {
                run + 1
            } else {
                1
            };
            runs += usize::from(run == 1);
            longest = longest.max(run);
        }
        (min, max, deltas, runs, longest)
    }

    #[test]
    fn integer_statistics_match_a_single_pass() {
        let random = crate::test_bytes::random(3 * 2 * 1000 * 8, 0x9e37_79b9_7f4a_7c15);
        let mut words = random
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")));
        let mut next = move || words.next().expect("enough random words");
        let mut columns: Vec<Vec<i64>> = vec![
            vec![],
            vec![5],
            vec![i64::MIN, i64::MAX, i64::MIN],
            vec![3, 3, 3, 3],
            vec![1, 2, 2, 3, 3, 3, 1, 1],
            (0..1000).collect(),
        ];
        for len in [2, 17, 1000] {
            columns.push((0..len).map(|_| next() as i64).collect());
            // Few distinct values, so runs of every length occur.
            columns.push((0..len).map(|_| (next() % 3) as i64 - 1).collect());
        }
        for values in columns {
            let v = IntegerValues::of(values.clone());
            assert_eq!(
                (v.min, v.max, v.deltas, v.runs, v.longest_run),
                reference_stats(&values),
                "{values:?}"
            );
        }
    }

    /// Encodes `bytes` of `kind` with `encoding` (if it applies) and decodes it back.
    pub(crate) fn round_trip(encoding: BufferEncoding, bytes: &[u8], kind: BufferKind) -> bool {
        let unit = encoding.unit();
        if !unit.applies_to(kind) {
            return false;
        }
        // 4- and 8-byte elements are also offered as floats, so ALP meets integers' bit patterns too.
        let analysis =
            Analysis::of(bytes, kind).with_floats(matches!(kind, BufferKind::Values(4 | 8)));
        let Some(len) = unit.stored_len(&analysis) else {
            return false;
        };
        let mut stored = Vec::new();
        unit.encode(&analysis, &mut stored).unwrap();
        assert_eq!(stored.len(), len, "{encoding:?}: stored_len is exact");
        let mut out = vec![0xAAu8; bytes.len()];
        unit.decode(&stored, kind.width(), &mut out, "test")
            .unwrap();
        assert_eq!(out, bytes, "{encoding:?} {kind:?}");
        true
    }

    #[test]
    fn ids_are_dense_and_name_their_units() {
        for (i, e) in BufferEncoding::ALL.iter().enumerate() {
            assert_eq!(usize::from(e.id()), i);
            assert_eq!(BufferEncoding::from_stored(e.id()), Some(*e));
        }
        assert_eq!(BufferEncoding::from_stored(12), None);
    }

    fn columns() -> Vec<(Vec<u8>, BufferKind)> {
        let mut out = Vec::new();
        for width in [1usize, 2, 4, 8, 16] {
            let kind = BufferKind::Values(width);
            let seqs: Vec<Vec<i64>> = vec![
                vec![7; 100],
                (0..100).collect(),
                (0..100).map(|i| 1_000_000 + i * 3).collect(),
                (0..100).map(|i| (i * 7919) % 13 - 6).collect(),
                vec![i64::MIN, i64::MAX, 0, -1, 1],
                (0..100)
                    .map(|i| [i64::MIN / 3, 77, 1 << 40][i % 3])
                    .collect(),
                vec![42],
                (0..500)
                    .map(|i| [3, -9, 3, 1 << 33][(i / 37) % 4])
                    .collect(),
                (0..300)
                    .map(|i| (i * 2654435761u64 as i64) ^ (i << 40))
                    .collect(),
            ];
            for seq in seqs {
                let mut bytes = vec![0u8; seq.len() * width];
                for (i, v) in seq.iter().enumerate() {
                    integers::write(&mut bytes, i, width, *v).unwrap();
                }
                out.push((bytes, kind));
            }
        }
        out.push((
            (0..=50i32).flat_map(|i| (i * 5).to_le_bytes()).collect(),
            BufferKind::Offsets(4),
        ));
        let text: String = (0..400)
            .map(|i| format!("{{\"user\": {i}, \"path\": \"/a/{}\"}}", i % 7))
            .collect();
        out.push((text.into_bytes(), BufferKind::Bytes));
        let digests: String = (0..300u64)
            .map(|i| format!("{:016x}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15)))
            .collect();
        out.push((digests.into_bytes(), BufferKind::Bytes));
        out
    }

    #[test]
    fn every_unit_round_trips_what_it_accepts() {
        // The string dictionary's halves are sized, encoded and decoded as a pair (its tests).
        for encoding in BufferEncoding::ALL
            .into_iter()
            .filter(|e| e.pair().is_none())
        {
            let mut accepted = 0;
            for (bytes, kind) in columns() {
                if round_trip(encoding, &bytes, kind) {
                    accepted += 1;
                }
            }
            assert!(accepted > 0, "{encoding:?} accepted nothing");
        }
    }

    #[test]
    fn decoders_refuse_damaged_bytes_without_panicking() {
        for encoding in BufferEncoding::ALL {
            let unit = encoding.unit();
            for (bytes, kind) in columns() {
                let analysis = Analysis::of(&bytes, kind)
                    .with_floats(matches!(kind, BufferKind::Values(4 | 8)));
                if !unit.applies_to(kind) || unit.stored_len(&analysis).is_none() {
                    continue;
                }
                let mut stored = Vec::new();
                unit.encode(&analysis, &mut stored).unwrap();
                let mut out = vec![0u8; bytes.len()];
                // Truncated and extended stored bytes, and every single-byte flip of the first
                // 40 bytes: an error or some decoded bytes, never a panic.
                for cut in 0..stored.len() {
                    let _ = unit.decode(&stored[..cut], kind.width(), &mut out, "t");
                }
                let mut longer = stored.clone();
                longer.push(0);
                let _ = unit.decode(&longer, kind.width(), &mut out, "t");
                for i in 0..stored.len().min(40) {
                    let mut flipped = stored.clone();
                    flipped[i] ^= 0xFF;
                    let _ = unit.decode(&flipped, kind.width(), &mut out, "t");
                }
                // A decoded length that is not whole elements.
                if kind.width() > 1 && !bytes.is_empty() {
                    let mut odd = vec![0u8; bytes.len() - 1];
                    assert!(unit.decode(&stored, kind.width(), &mut odd, "t").is_err());
                }
            }
        }
    }
}
