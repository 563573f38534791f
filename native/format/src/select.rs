//! Which encoding a payload gets. The encodings say what they apply to and what a column would
//! cost in them ([`crate::encodings`]); the payload writer applies the choice
//! ([`crate::payload`]); the choice itself is made here, from the write's [`EncodingPolicy`].

use crate::body::BodyParts;
use crate::body_v4;
use crate::codec::{self, Codec, CodecSample, StoredCodec};
use crate::encodings::{sample_runs, split_into, Encoding};
use crate::error::{Error, Result};
use crate::layout::BufferKind;
use crate::lightweight::{self, Analysis, BufferEncoding};

/// How the writer chooses the encoding of each payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum EncodingPolicy {
    /// The writer chooses (the default).
    #[default]
    Auto,
    /// This encoding on every payload it applies to, for tests and benchmarks. Like `Auto`, it
    /// goes only on payloads the codec compresses.
    Pinned(Encoding),
}

impl EncodingPolicy {
    /// The code of [`EncodingPolicy::Auto`] in [`EncodingPolicy::from_code`].
    pub const AUTO_CODE: i32 = -1;

    /// The policy with this code, as it crosses JNI: [`EncodingPolicy::AUTO_CODE`] (-1) is
    /// `Auto`; an encoding id (0 plain, 1 byte_stream_split) pins that encoding, so the codes of
    /// older shims, which sent the id, keep their meaning. Other negative codes are reserved.
    pub fn from_code(code: i32) -> Result<EncodingPolicy> {
        match code {
            EncodingPolicy::AUTO_CODE => Ok(EncodingPolicy::Auto),
            0.. => Encoding::from_id(code).map(EncodingPolicy::Pinned),
            _ => Err(Error::InvalidArgument(format!(
                "unknown encoding policy code {code} (known: {} auto; pinned: {})",
                EncodingPolicy::AUTO_CODE,
                Encoding::known()
            ))),
        }
    }

    /// This policy's code (see [`EncodingPolicy::from_code`]).
    pub fn code(self) -> i32 {
        match self {
            EncodingPolicy::Auto => EncodingPolicy::AUTO_CODE,
            EncodingPolicy::Pinned(encoding) => i32::from(encoding.id()),
        }
    }

    /// The name used in confs and messages: `auto`, or the pinned encoding's name.
    pub fn name(self) -> &'static str {
        match self {
            EncodingPolicy::Auto => "auto",
            EncodingPolicy::Pinned(encoding) => encoding.name(),
        }
    }
}

impl From<Encoding> for EncodingPolicy {
    fn from(encoding: Encoding) -> Self {
        EncodingPolicy::Pinned(encoding)
    }
}

/// What `Auto` tries, best first; the first that applies to a payload is chosen, and a payload
/// none applies to is plain.
///
/// `Auto` is today's default, BYTE_STREAM_SPLIT wherever it changes a buffer, rather than the
/// cheapest by [`crate::encodings::ColumnEncoding::estimate`]: a V2/V3 directory entry holds one
/// length-preserving encoding per payload, and the golden frames pin exactly this choice. Under
/// a codec, split streams compress better on the columns a cache holds and no worse on the rest
/// (on random bytes the estimates tie), so little is left on the table. The choice from
/// estimates comes with the encodings that change lengths, and a frame version that can store
/// them.
const AUTO_PREFERENCE: [Encoding; 1] = [Encoding::ByteStreamSplit];

/// The encoding of one payload made of `columns` (one column in V3, all of them in V2) that
/// `codec` compresses (or not, for [`Codec::None`]).
pub(crate) fn select(policy: EncodingPolicy, codec: Codec, columns: &[BodyParts<'_>]) -> Encoding {
    // An encoding only rearranges bytes for the codec; it saves nothing on its own.
    if codec == Codec::None {
        return Encoding::Plain;
    }
    let applies = |encoding: Encoding| columns.iter().any(|c| encoding.unit().applies_to(c));
    let chosen = match policy {
        EncodingPolicy::Pinned(encoding) => Some(encoding).filter(|&e| applies(e)),
        EncodingPolicy::Auto => AUTO_PREFERENCE.into_iter().find(|&e| applies(e)),
    };
    chosen.unwrap_or(Encoding::Plain)
}

/// What [`choose_buffer`] chose for a buffer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BufferChoice {
    /// The encoding.
    pub(crate) encoding: BufferEncoding,
    /// The bytes it is estimated to store once compressed.
    pub(crate) cost: u64,
    /// What lz4 and zstd made of a sample of the buffer in this encoding, where the estimate
    /// compressed one both ways (under [`Codec::Adaptive`]).
    pub(crate) sample: Option<CodecSample>,
}

impl BufferChoice {
    fn new(encoding: BufferEncoding, cost: u64) -> Self {
        BufferChoice {
            encoding,
            cost,
            sample: None,
        }
    }
}

/// The encoding of one buffer of a V4 body, whose payload `codec` then compresses.
///
/// `Auto` takes the smallest: the lightweight encodings by the exact size they store (their
/// output is what the codec then sees; counting it uncompressed keeps the choice on the side of
/// the encodings, which decode faster than any codec), FSST by the smaller of its exact size and
/// what the codec makes of a sample of it, plain and BYTE_STREAM_SPLIT by what the codec makes
/// of a sample of the buffer ([`sample_runs`], [`text_sample`] for value bytes). Only encodings
/// that store fewer bytes than the buffer holds, and that the reader's expansion rule allows for
/// the buffer's `row_bound` ([`body_v4::expansion_allowed`]), are candidates. Ties go to the
/// earlier of [`V4_PREFERENCE`]: the cheaper to decode. A pinned V3 encoding (plain,
/// BYTE_STREAM_SPLIT) pins it on every buffer it applies to.
/// Returns the choice with its estimated cost and the codecs' evidence behind it.
pub(crate) fn choose_buffer(
    policy: EncodingPolicy,
    codec: Codec,
    buffer: &Analysis<'_>,
    row_bound: Option<u64>,
) -> BufferChoice {
    let len = buffer.bytes.len();
    let applies = |e: BufferEncoding| e.unit().applies_to(buffer.kind);
    match policy {
        EncodingPolicy::Pinned(Encoding::Plain) => {
            return BufferChoice::new(BufferEncoding::Plain, len as u64)
        }
        EncodingPolicy::Pinned(Encoding::ByteStreamSplit) => {
            let split = codec != Codec::None && applies(BufferEncoding::ByteStreamSplit);
            return if split {
                BufferChoice::new(BufferEncoding::ByteStreamSplit, len as u64)
            } else {
                BufferChoice::new(BufferEncoding::Plain, len as u64)
            };
        }
        EncodingPolicy::Auto => {}
    }
    if len == 0 {
        return BufferChoice::new(BufferEncoding::Plain, 0);
    }
    let mut best = BufferChoice::new(BufferEncoding::Plain, len as u64);
    // The best of plain and BYTE_STREAM_SPLIT (the bytes as they are, for the codec).
    let mut general = best;
    for encoding in V4_PREFERENCE {
        if !applies(encoding) || matches!(encoding, BufferEncoding::Fsst | BufferEncoding::Hex) {
            continue;
        }
        let candidate = match encoding {
            BufferEncoding::Plain | BufferEncoding::ByteStreamSplit => {
                if codec == Codec::None {
                    continue;
                }
                match general_cost(encoding, codec, buffer) {
                    Some((cost, sample)) => BufferChoice {
                        encoding,
                        cost,
                        sample,
                    },
                    None => continue,
                }
            }
            _ => match encoding.unit().stored_len(buffer) {
                Some(stored)
                    if stored < len
                        && body_v4::expansion_allowed(len as u64, stored as u64, row_bound) =>
                {
                    BufferChoice::new(encoding, stored as u64)
                }
                _ => continue,
            },
        };
        if candidate.cost < best.cost {
            best = candidate;
        }
        if matches!(
            encoding,
            BufferEncoding::Plain | BufferEncoding::ByteStreamSplit
        ) && candidate.cost < general.cost
        {
            general = candidate;
        }
    }
    // A lightweight encoding that saves less than a sixteenth of the buffer is not worth its
    // decode (62-bit frames of reference over random doubles save 2%, and decode 3 times slower
    // than a copy).
    if best.cost * MIN_SAVING_DIVISOR > len as u64 * (MIN_SAVING_DIVISOR - 1) {
        best = general;
    }
    // Hex digits: half the bytes, or what the codec makes of that. FSST is not tried on them: its
    // best on hex digits is a code per digit pair, which HEX stores without a table.
    let mut hex = false;
    if applies(BufferEncoding::Hex) {
        if let Some((cost, sample)) = hex_cost(codec, buffer, row_bound) {
            hex = true;
            if cost < best.cost {
                best = BufferChoice {
                    encoding: BufferEncoding::Hex,
                    cost,
                    sample,
                };
            }
        }
    }
    // FSST last, from an estimate first: the whole buffer is compressed only where the estimate
    // beats everything above.
    if applies(BufferEncoding::Fsst) && !hex {
        if let Some((cost, sample)) = fsst_cost(codec, buffer, row_bound, best.cost) {
            best = BufferChoice {
                encoding: BufferEncoding::Fsst,
                cost,
                sample,
            };
        }
    }
    best
}

/// What HEX would cost for the value bytes `buffer`, if they are hex digits of one case: its
/// exact size, or less where `codec` on its packed form of a [`text_sample`] says the codec on
/// top saves more (the repeats between values: a trace id on every line of a request).
fn hex_cost(
    codec: Codec,
    buffer: &Analysis<'_>,
    row_bound: Option<u64>,
) -> Option<(u64, Option<CodecSample>)> {
    let len = buffer.bytes.len() as u64;
    let exact = BufferEncoding::Hex.unit().stored_len(buffer)? as u64;
    if exact >= len || !body_v4::expansion_allowed(len, exact, row_bound) {
        return None;
    }
    if codec == Codec::None {
        return Some((exact, None));
    }
    let (mut compressed, mut sampled) = (0u64, 0u64);
    let mut samples = Samples::default();
    for range in text_sample(buffer.bytes) {
        let packed = lightweight::hex_packed(&buffer.bytes[range.start & !1..range.end & !1]);
        let (cost, sample) = compressed_cost(&packed, codec, packed.len())?;
        compressed += cost;
        samples.add(sample);
        sampled += packed.len() as u64;
    }
    let with_codec = (compressed * exact).div_ceil(sampled.max(1));
    Some((exact.min(with_codec), samples.total()))
}

/// What FSST would cost for the value bytes `buffer`, if less than `beat`: estimated from FSST's
/// form of a [`text_sample`] (alone, and with `codec` on top), then, where the estimate beats
/// `beat`, the exact size of the whole buffer in FSST (which must exist: smaller, decoding back).
fn fsst_cost(
    codec: Codec,
    buffer: &Analysis<'_>,
    row_bound: Option<u64>,
    beat: u64,
) -> Option<(u64, Option<CodecSample>)> {
    let len = buffer.bytes.len() as u64;
    let pieces = text_sample(buffer.bytes);
    let (header, compressed) = lightweight::fsst_sampled(buffer, &pieces)?;
    let sampled: u64 = pieces.iter().map(|r| r.len() as u64).sum();
    let scale = |bytes: u64| (bytes * len).div_ceil(sampled.max(1)) + header as u64;
    let alone = scale(compressed.iter().map(|c| c.len() as u64).sum());
    let mut samples = Samples::default();
    let with_codec = match codec {
        Codec::None => None,
        _ => compressed
            .iter()
            .map(|piece| {
                let (cost, sample) = compressed_cost(piece, codec, piece.len())?;
                samples.add(sample);
                Some(cost)
            })
            .sum::<Option<u64>>()
            .map(scale),
    };
    let estimate = with_codec.map_or(alone, |c| c.min(alone));
    if estimate >= beat {
        return None;
    }
    let exact = BufferEncoding::Fsst.unit().stored_len(buffer)? as u64;
    if exact >= len || !body_v4::expansion_allowed(len, exact, row_bound) {
        return None;
    }
    let cost = with_codec.map_or(exact, |c| c.min(exact));
    (cost < beat).then_some((cost, samples.total()))
}

/// A lightweight encoding is chosen only where it stores at most `1 - 1/MIN_SAVING_DIVISOR` of
/// the buffer's bytes.
const MIN_SAVING_DIVISOR: u64 = 16;

/// What `Auto` tries, cheapest to decode first (ties go to the earlier). The string dictionary
/// is not here: it spans two buffers and is weighed against this choice for both
/// ([`crate::body_v4`]).
const V4_PREFERENCE: [BufferEncoding; 10] = [
    BufferEncoding::Constant,
    BufferEncoding::FrameOfReference,
    BufferEncoding::Delta,
    BufferEncoding::RunLength,
    BufferEncoding::Dictionary,
    BufferEncoding::Alp,
    BufferEncoding::Hex,
    BufferEncoding::Fsst,
    BufferEncoding::Plain,
    BufferEncoding::ByteStreamSplit,
];

/// The estimated bytes `codec` stores for the buffer laid out plain or split: a sample of it
/// compressed, scaled to its length; with the codecs' evidence under [`Codec::Adaptive`].
fn general_cost(
    encoding: BufferEncoding,
    codec: Codec,
    buffer: &Analysis<'_>,
) -> Option<(u64, Option<CodecSample>)> {
    let width = buffer.width();
    if buffer.kind == BufferKind::Bytes {
        return sampled_cost(buffer.bytes, codec, text_sample(buffer.bytes));
    }
    let sample = sample_runs(buffer.bytes, width);
    if sample.is_empty() {
        return None;
    }
    let mut laid_out = Vec::new();
    let bytes: &[u8] = if encoding == BufferEncoding::ByteStreamSplit {
        split_into(width, &sample, &mut laid_out);
        &laid_out
    } else {
        &sample
    };
    compressed_cost(bytes, codec, buffer.bytes.len())
}

/// What `codec` makes of `sample`, scaled from the sample's length to `full_len`. Under
/// [`Codec::Adaptive`], bytes zstd stores are priced at five fourths (what the codec itself asks
/// of zstd before it takes it over lz4), so that an encoding that decodes fast is not traded for
/// zstd's slower decode to save a few percent. Under [`Codec::Adaptive`], also what each codec
/// stored.
fn compressed_cost(
    sample: &[u8],
    codec: Codec,
    full_len: usize,
) -> Option<(u64, Option<CodecSample>)> {
    if sample.is_empty() {
        return None;
    }
    let (mut cost, evidence) = if codec == Codec::Adaptive {
        let (used, len, evidence) = codec::adaptive_piece(sample).ok()?;
        let len = len as u64;
        let cost = if used == StoredCodec::Zstd {
            len * 5 / 4
        } else {
            len
        };
        (cost, Some(evidence))
    } else {
        let mut compressed = Vec::new();
        codec::compress_into(sample, codec, &mut compressed).ok()?;
        (compressed.len() as u64, None)
    };
    cost = cost.min(sample.len() as u64);
    Some((
        (cost * full_len as u64).div_ceil(sample.len() as u64),
        evidence,
    ))
}

/// [`compressed_cost`] of the pieces `sample` names in `bytes`, each compressed on its own.
fn sampled_cost(
    bytes: &[u8],
    codec: Codec,
    sample: Vec<std::ops::Range<usize>>,
) -> Option<(u64, Option<CodecSample>)> {
    let mut cost = 0u64;
    let mut sampled = 0usize;
    let mut samples = Samples::default();
    for range in sample {
        let piece = &bytes[range];
        let (piece_cost, evidence) = compressed_cost(piece, codec, piece.len())?;
        cost += piece_cost;
        samples.add(evidence);
        sampled += piece.len();
    }
    (sampled > 0).then(|| {
        (
            (cost * bytes.len() as u64).div_ceil(sampled as u64),
            samples.total(),
        )
    })
}

/// The codecs' evidence of several sample pieces, pooled: none unless every piece has some.
#[derive(Default)]
struct Samples {
    pooled: Option<CodecSample>,
    incomplete: bool,
}

impl Samples {
    fn add(&mut self, sample: Option<CodecSample>) {
        match sample {
            None => self.incomplete = true,
            Some(s) => self.pooled = Some(self.pooled.map_or(s, |p| p.plus(s))),
        }
    }

    fn total(self) -> Option<CodecSample> {
        if self.incomplete {
            None
        } else {
            self.pooled
        }
    }
}

/// Bytes of each piece of a [`text_sample`].
const TEXT_PIECE: usize = 16 << 10;
/// Pieces a [`text_sample`] takes.
const TEXT_PIECES: usize = 4;

/// The sample of value bytes (text) a codec's cost is estimated from: up to [`TEXT_PIECES`]
/// evenly spaced contiguous pieces of [`TEXT_PIECE`] bytes. Text compresses by matches between
/// values tens to thousands of bytes apart, which short runs (as [`sample_runs`] takes for
/// fixed-width elements) would hide from the codec.
fn text_sample(bytes: &[u8]) -> Vec<std::ops::Range<usize>> {
    let (pieces, len) = if bytes.len() <= TEXT_PIECE * TEXT_PIECES {
        (1, bytes.len())
    } else {
        (TEXT_PIECES, TEXT_PIECE)
    };
    // Each piece centred in its share, clear of the buffer's first and last bytes.
    let stride = bytes.len() / pieces;
    (0..pieces)
        .map(|i| {
            let start = (i * stride + stride / 2).saturating_sub(len / 2);
            start..start + len
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encodings::test_columns;
    use crate::layout;
    use arrow_data::ArrayData;
    use arrow_schema::DataType;

    const CODECS: [Codec; 4] = [Codec::None, Codec::Lz4, Codec::Zstd, Codec::Auto];

    /// The writer's rule before encodings were units (write.rs of the merge before issue 27),
    /// from the types alone: the requested encoding when the payload is compressed and some
    /// buffer of it is at least 2 bytes wide, else plain.
    fn rule_before_units(requested: Encoding, codec: Codec, columns: &[ArrayData]) -> Encoding {
        let any_wide = columns.iter().any(|c| {
            layout::buffer_widths(c.data_type())
                .unwrap()
                .iter()
                .any(|&w| w >= 2)
        });
        if codec != Codec::None && requested == Encoding::ByteStreamSplit && any_wide {
            Encoding::ByteStreamSplit
        } else {
            Encoding::Plain
        }
    }

    #[test]
    fn auto_and_pinned_choose_what_the_writer_chose_before() {
        let columns = test_columns::every_column(5, 20);
        // Every column alone (a V3 payload), runs of them and all together (V2 payloads).
        let mut payloads: Vec<&[ArrayData]> = columns.chunks(1).collect();
        payloads.extend(columns.chunks(3));
        payloads.push(&columns);
        payloads.push(&[]);
        for payload in payloads {
            let parts: Vec<_> = payload
                .iter()
                .map(|c| BodyParts::collect(c).unwrap())
                .collect();
            for codec in CODECS {
                let today_default = rule_before_units(Encoding::ByteStreamSplit, codec, payload);
                assert_eq!(select(EncodingPolicy::Auto, codec, &parts), today_default);
                for pinned in Encoding::ALL {
                    assert_eq!(
                        select(EncodingPolicy::Pinned(pinned), codec, &parts),
                        rule_before_units(pinned, codec, payload),
                        "{pinned:?} {codec:?}"
                    );
                }
            }
        }
    }

    /// The oracle: every buffer encoding that applies, encoded in full. Without a codec the
    /// chosen one must store the fewest bytes of all of them (ties to the earlier of
    /// [`V4_PREFERENCE`]; plain where the fewest saves less than a sixteenth), and it must decode
    /// back to the buffer.
    #[test]
    fn auto_without_a_codec_chooses_the_smallest_encoding_of_every_buffer() {
        let mut checked = 0;
        for seed in [3, 17] {
            for data in test_columns::every_column(seed, 97) {
                let parts = BodyParts::collect(&data).unwrap();
                for (bytes, spec) in parts.buffers().iter().zip(parts.specs()) {
                    let analysis = Analysis::of(bytes, spec.kind).with_floats(matches!(
                        spec.node_type,
                        DataType::Float64 | DataType::Float32
                    ));
                    let chosen =
                        choose_buffer(EncodingPolicy::Auto, Codec::None, &analysis, None).encoding;
                    let stored = |e: BufferEncoding| {
                        let unit = e.unit();
                        if !unit.applies_to(spec.kind) || unit.stored_len(&analysis).is_none() {
                            return None;
                        }
                        let mut out = Vec::new();
                        unit.encode(&analysis, &mut out).unwrap();
                        let mut back = vec![0u8; bytes.len()];
                        unit.decode(&out, spec.kind.width(), &mut back, "oracle")
                            .unwrap();
                        assert_eq!(&back[..], *bytes, "{e:?} round trip");
                        Some(out.len())
                    };
                    let best = [BufferEncoding::Plain]
                        .into_iter()
                        .chain(V4_PREFERENCE)
                        .filter(|e| *e != BufferEncoding::ByteStreamSplit)
                        .filter_map(|e| {
                            let len = stored(e)?;
                            let allowed = e == BufferEncoding::Plain
                                || body_v4::expansion_allowed(bytes.len() as u64, len as u64, None);
                            allowed.then_some(len)
                        })
                        .min()
                        .unwrap();
                    // ... unless it saves less than a sixteenth: then plain.
                    let len = bytes.len();
                    let best = if (best as u64) * MIN_SAVING_DIVISOR
                        > len as u64 * (MIN_SAVING_DIVISOR - 1)
                    {
                        len
                    } else {
                        best
                    };
                    assert_eq!(
                        stored(chosen),
                        Some(best),
                        "{:?} {:?}: chose {chosen:?}",
                        data.data_type(),
                        spec.kind
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 100);
    }

    #[test]
    fn a_payload_of_narrow_buffers_only_stays_plain() {
        for data_type in [DataType::Int8, DataType::Boolean, DataType::Null] {
            let data = test_columns::column(&data_type, 100, test_columns::Fill::Random, 9);
            let parts = [BodyParts::collect(&data).unwrap()];
            assert_eq!(
                select(EncodingPolicy::Auto, Codec::Lz4, &parts),
                Encoding::Plain
            );
        }
    }

    #[test]
    fn policy_codes_and_names() {
        assert_eq!(EncodingPolicy::default(), EncodingPolicy::Auto);
        assert_eq!(EncodingPolicy::from_code(-1).unwrap(), EncodingPolicy::Auto);
        for encoding in Encoding::ALL {
            let pinned = EncodingPolicy::Pinned(encoding);
            assert_eq!(
                pinned.code(),
                i32::from(encoding.id()),
                "pinned codes are ids"
            );
            assert_eq!(EncodingPolicy::from_code(pinned.code()).unwrap(), pinned);
            assert_eq!(pinned.name(), encoding.name());
            assert_eq!(EncodingPolicy::from(encoding), pinned);
        }
        assert_eq!(EncodingPolicy::Auto.name(), "auto");
        assert_eq!(
            EncodingPolicy::from_code(EncodingPolicy::Auto.code()).unwrap(),
            EncodingPolicy::Auto
        );
        for bad in [-2, i32::MIN, 2, 256, i32::MAX] {
            let err = EncodingPolicy::from_code(bad).unwrap_err();
            assert!(matches!(err, Error::InvalidArgument(_)), "{bad}: {err}");
        }
    }
}
