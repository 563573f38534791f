//! Per-payload compression (lz4 block, zstd) with allocation bounds derived
//! from the input, and CRC32C checksums.

use arrow_buffer::MutableBuffer;

use crate::error::{Error, Result};

/// Payload codec requested by the writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Codec {
    /// Store raw bytes.
    None,
    /// LZ4 block format (lz4_flex), always.
    #[default]
    Lz4,
    /// Zstandard frame, always.
    Zstd,
    /// LZ4, but stored raw when compression saves less than 1/8.
    Auto,
    /// LZ4, or zstd for a payload where zstd stores at most four fifths of what lz4 does (text
    /// whose repeats lie far apart or need entropy coding: JSON, URLs, log messages), judged from
    /// a sample of the payload; raw when the chosen codec saves less than an eighth.
    Adaptive,
}

impl Codec {
    /// The id that crosses JNI (`0 none, 1 lz4, 2 zstd, 3 auto, 4 adaptive`).
    pub fn from_id(id: i32) -> Result<Codec> {
        match id {
            0 => Ok(Codec::None),
            1 => Ok(Codec::Lz4),
            2 => Ok(Codec::Zstd),
            3 => Ok(Codec::Auto),
            4 => Ok(Codec::Adaptive),
            other => Err(Error::InvalidArgument(format!(
                "unknown codec id {other} (0 none, 1 lz4, 2 zstd, 3 auto, 4 adaptive)"
            ))),
        }
    }
}

/// The codec actually used for one stored payload (the directory's codec id).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum StoredCodec {
    /// Raw bytes.
    None = 0,
    /// LZ4 block.
    Lz4 = 1,
    /// Zstandard frame.
    Zstd = 2,
}

impl StoredCodec {
    /// The directory codec id.
    pub fn id(self) -> u8 {
        self as u8
    }

    /// Parses a directory codec id.
    pub fn from_id(id: u8) -> Result<StoredCodec> {
        match id {
            0 => Ok(StoredCodec::None),
            1 => Ok(StoredCodec::Lz4),
            2 => Ok(StoredCodec::Zstd),
            other => Err(Error::UnsupportedCodec(other)),
        }
    }
}

/// Zstd level: level 1 is the fast end and still shrinks cache data well.
const ZSTD_LEVEL: i32 = 1;
/// Largest expansion one input byte can produce in the LZ4 block format.
pub(crate) const LZ4_MAX_RATIO: u64 = 255;
/// Largest expansion of a zstd frame (RLE blocks: a few bytes per 128 KiB block).
pub(crate) const ZSTD_MAX_RATIO: u64 = 32768;
/// Largest payload, so every length fits a Java array and an `i32` offset.
pub(crate) const MAX_PAYLOAD: u64 = i32::MAX as u64 - 64;

/// Compresses `raw` with `codec`, appending the stored bytes to `out`.
/// Returns the codec that was actually used.
pub(crate) fn compress_into(raw: &[u8], codec: Codec, out: &mut Vec<u8>) -> Result<StoredCodec> {
    match codec {
        Codec::None => {
            out.extend_from_slice(raw);
            Ok(StoredCodec::None)
        }
        Codec::Lz4 | Codec::Auto => {
            let start = out.len();
            let written = lz4_into(raw, out)?;
            if codec == Codec::Auto && written > raw.len() - raw.len() / 8 {
                out.truncate(start);
                out.extend_from_slice(raw);
                return Ok(StoredCodec::None);
            }
            Ok(StoredCodec::Lz4)
        }
        Codec::Adaptive => compress_with_evidence(raw, codec, None, out),
        Codec::Zstd => {
            zstd_into(raw, out)?;
            Ok(StoredCodec::Zstd)
        }
    }
}

/// Appends the lz4 block of `raw` to `out`; its length.
fn lz4_into(raw: &[u8], out: &mut Vec<u8>) -> Result<usize> {
    let start = out.len();
    out.resize(
        start + lz4_flex::block::get_maximum_output_size(raw.len()),
        0,
    );
    let written = lz4_flex::block::compress_into(raw, &mut out[start..])
        .map_err(|e| Error::Internal(format!("lz4 compression failed: {e}")))?;
    out.truncate(start + written);
    Ok(written)
}

thread_local! {
    /// One zstd compression context per thread, reused: a new context per call zeroes its
    /// tables every time, which cost more than compressing the samples the writer prices.
    static ZSTD: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// Appends the zstd frame of `raw` to `out`; its length.
fn zstd_into(raw: &[u8], out: &mut Vec<u8>) -> Result<usize> {
    let start = out.len();
    out.resize(start + zstd::zstd_safe::compress_bound(raw.len()), 0);
    let failed = |e: std::io::Error| Error::Internal(format!("zstd compression failed: {e}"));
    let written = ZSTD.with(|cell| -> Result<usize> {
        let mut context = cell.borrow_mut();
        if context.is_none() {
            *context = Some(zstd::bulk::Compressor::new(ZSTD_LEVEL).map_err(failed)?);
        }
        match context.as_mut() {
            Some(c) => c.compress_to_buffer(raw, &mut out[start..]).map_err(failed),
            None => Err(Error::Internal("no zstd context".into())),
        }
    })?;
    out.truncate(start + written);
    Ok(written)
}

/// What lz4 and zstd store for sampled bytes: the evidence [`Codec::Adaptive`] decides on. The
/// writer's cost estimates take it from the samples they compress anyway, and hand it to the
/// payload's compression ([`compress_with_evidence`]), which then need not sample again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CodecSample {
    /// Bytes sampled.
    pub(crate) sampled: u64,
    /// What lz4 stores for them.
    pub(crate) lz4: u64,
    /// What zstd stores for them; `None` where zstd was not tried (a piece too small to judge).
    /// Where lz4 keeps a tenth or less, zstd is not tried either and this is lz4's size: the
    /// encodings took what zstd would find.
    pub(crate) zstd: Option<u64>,
}

impl CodecSample {
    /// Both codecs run once on `piece`; zstd only on a piece of at least
    /// [`ADAPTIVE_MIN_BYTES`] that lz4 leaves more than a tenth of.
    pub(crate) fn of(piece: &[u8]) -> Result<CodecSample> {
        let mut scratch = Vec::new();
        let lz4 = lz4_into(piece, &mut scratch)?;
        let zstd = if piece.len() < ADAPTIVE_MIN_BYTES {
            None
        } else if lz4 * 10 > piece.len() {
            scratch.clear();
            Some(zstd_into(piece, &mut scratch)?)
        } else {
            Some(lz4)
        };
        Ok(CodecSample {
            sampled: piece.len() as u64,
            lz4: lz4 as u64,
            zstd: zstd.map(|z| z as u64),
        })
    }

    /// Both samples together.
    pub(crate) fn plus(self, other: CodecSample) -> CodecSample {
        CodecSample {
            sampled: self.sampled + other.sampled,
            lz4: self.lz4 + other.lz4,
            zstd: self.zstd.zip(other.zstd).map(|(a, b)| a + b),
        }
    }

    /// Whether [`Codec::Adaptive`] takes zstd on this evidence: lz4 keeps more than a tenth,
    /// and zstd stores at most four fifths of what lz4 does. `None` without zstd's size.
    pub(crate) fn zstd_pays(self) -> Option<bool> {
        let zstd = self.zstd?;
        Some(self.lz4 * 10 > self.sampled && zstd * 5 <= self.lz4 * 4)
    }
}

/// The codec [`Codec::Adaptive`] takes for `piece` (lz4, zstd or none) and the bytes it stores,
/// each codec run once on it, with the evidence: what the writer's cost estimates price a sample
/// piece at.
pub(crate) fn adaptive_piece(piece: &[u8]) -> Result<(StoredCodec, usize, CodecSample)> {
    let sample = CodecSample::of(piece)?;
    let lz4 = sample.lz4 as usize;
    let (codec, len) = match sample.zstd {
        Some(zstd) if zstd * 5 <= sample.lz4 * 4 => (StoredCodec::Zstd, zstd as usize),
        _ => (StoredCodec::Lz4, lz4),
    };
    Ok(if len > piece.len() - piece.len() / 8 {
        (StoredCodec::None, piece.len(), sample)
    } else {
        (codec, len, sample)
    })
}

/// Payloads smaller than this stay with lz4 under [`Codec::Adaptive`]: what zstd could save on
/// them does not pay for sampling them.
const ADAPTIVE_MIN_BYTES: usize = 16 << 10;
/// Bytes of each piece [`zstd_pays`] compresses with both codecs.
const ADAPTIVE_PIECE: usize = 16 << 10;
/// Pieces [`zstd_pays`] takes at most.
const ADAPTIVE_PIECES: usize = 4;

/// Whether zstd stores at most four fifths of what lz4 stores for `raw`, judged from up to four
/// evenly spaced pieces compressed both ways, so that the payload itself is compressed once.
/// Never for a small payload, nor where lz4 keeps a tenth of the pieces or less (an encoded body:
/// the encodings took what zstd would find).
fn zstd_pays(raw: &[u8]) -> bool {
    if raw.len() < ADAPTIVE_MIN_BYTES {
        return false;
    }
    // Each piece centred in its share of the payload, so that none starts at a body's header
    // and offsets, which compress unlike the value bytes that make up most of it.
    let pieces = (raw.len() / ADAPTIVE_PIECE).clamp(1, ADAPTIVE_PIECES);
    let stride = raw.len() / pieces;
    let (mut sampled, mut lz4_sample, mut zstd_sample) = (0usize, 0usize, 0usize);
    let mut scratch = Vec::new();
    for i in 0..pieces {
        let start = (i * stride + stride / 2).saturating_sub(ADAPTIVE_PIECE / 2);
        let piece = &raw[start..(start + ADAPTIVE_PIECE).min(raw.len())];
        scratch.clear();
        let (Ok(l), Ok(z)) = (
            lz4_into(piece, &mut scratch),
            zstd_into(piece, &mut scratch),
        ) else {
            return false;
        };
        sampled += piece.len();
        lz4_sample += l;
        zstd_sample += z;
    }
    lz4_sample * 10 > sampled && zstd_sample * 5 <= lz4_sample * 4
}

/// [`compress_into`], where `zstd_evidence` may already say whether zstd pays for `raw` under
/// [`Codec::Adaptive`] (from the samples the writer priced its encodings on), so that the payload
/// is not sampled again; without it, the payload is sampled. Other codecs ignore it.
pub(crate) fn compress_with_evidence(
    raw: &[u8],
    codec: Codec,
    zstd_evidence: Option<bool>,
    out: &mut Vec<u8>,
) -> Result<StoredCodec> {
    if codec != Codec::Adaptive {
        return compress_into(raw, codec, out);
    }
    let start = out.len();
    let zstd = raw.len() >= ADAPTIVE_MIN_BYTES && zstd_evidence.unwrap_or_else(|| zstd_pays(raw));
    let (used, written) = if zstd {
        (StoredCodec::Zstd, zstd_into(raw, out)?)
    } else {
        (StoredCodec::Lz4, lz4_into(raw, out)?)
    };
    if written > raw.len() - raw.len() / 8 {
        out.truncate(start);
        out.extend_from_slice(raw);
        return Ok(StoredCodec::None);
    }
    Ok(used)
}

/// Checks that `raw_len` is reachable from `stored_len` bytes with `codec`, so
/// no allocation is ever sized by a length the input cannot produce.
pub(crate) fn check_raw_len(
    codec: StoredCodec,
    stored_len: u64,
    raw_len: u64,
) -> Result<(), String> {
    if raw_len > MAX_PAYLOAD {
        return Err(format!(
            "raw length {raw_len} exceeds the limit {MAX_PAYLOAD}"
        ));
    }
    let max = match codec {
        StoredCodec::None => {
            return if stored_len == raw_len {
                Ok(())
            } else {
                Err(format!(
                    "uncompressed payload has stored length {stored_len} but raw length {raw_len}"
                ))
            };
        }
        StoredCodec::Lz4 => stored_len.saturating_mul(LZ4_MAX_RATIO).saturating_add(16),
        StoredCodec::Zstd => stored_len
            .saturating_mul(ZSTD_MAX_RATIO)
            .saturating_add(1024),
    };
    if raw_len > max {
        return Err(format!(
            "raw length {raw_len} cannot come from {stored_len} stored bytes (at most {max})"
        ));
    }
    Ok(())
}

/// An uncompressed payload as it is stored, after the same length checks [`decompress`] makes:
/// for a reader that only reads the payload (a V4 column body, which decodes into buffers of
/// its own), so it need not be copied.
pub(crate) fn uncompressed<'s>(
    stored: &'s [u8],
    raw_len: usize,
    what: &dyn Fn() -> String,
) -> Result<&'s [u8]> {
    check_stored(stored, StoredCodec::None, raw_len, what)?;
    Ok(stored)
}

/// [`check_raw_len`] for a payload about to be read, as the reader's error.
fn check_stored(
    stored: &[u8],
    codec: StoredCodec,
    raw_len: usize,
    what: &dyn Fn() -> String,
) -> Result<()> {
    check_raw_len(codec, stored.len() as u64, raw_len as u64).map_err(|reason| {
        Error::Decompression {
            what: what(),
            reason,
        }
    })
}

/// Decompresses one stored payload into a fresh 64-byte-aligned buffer of
/// exactly `raw_len` bytes, so Arrow buffers can be sliced from it without a copy
/// (mutable, so that an encoding can be undone in place first).
pub(crate) fn decompress(
    stored: &[u8],
    codec: StoredCodec,
    raw_len: usize,
    what: &dyn Fn() -> String,
) -> Result<MutableBuffer> {
    check_stored(stored, codec, raw_len, what)?;
    let fail = |reason: String| Error::Decompression {
        what: what(),
        reason,
    };
    match codec {
        StoredCodec::None => {
            let mut out = MutableBuffer::with_capacity(raw_len);
            out.extend_from_slice(stored);
            Ok(out)
        }
        StoredCodec::Lz4 => {
            let mut out = MutableBuffer::from_len_zeroed(raw_len);
            let n = lz4_decompress(stored, out.as_slice_mut()).map_err(fail)?;
            if n != raw_len {
                return Err(fail(format!("lz4 produced {n} bytes, expected {raw_len}")));
            }
            Ok(out)
        }
        StoredCodec::Zstd => {
            let declared = zstd::zstd_safe::get_frame_content_size(stored)
                .map_err(|e| fail(format!("zstd frame header: {e:?}")))?;
            if declared != Some(raw_len as u64) {
                return Err(fail(format!(
                    "zstd frame declares {declared:?} bytes, directory says {raw_len}"
                )));
            }
            let mut out = MutableBuffer::from_len_zeroed(raw_len);
            let n = zstd::bulk::decompress_to_buffer(stored, out.as_slice_mut())
                .map_err(|e| fail(format!("zstd: {e}")))?;
            if n != raw_len {
                return Err(fail(format!("zstd produced {n} bytes, expected {raw_len}")));
            }
            Ok(out)
        }
    }
}

/// The largest input the reference LZ4 library handles (`LZ4_MAX_INPUT_SIZE`).
const LZ4_C_MAX_INPUT: usize = 0x7E00_0000;

/// Decompresses an LZ4 block into `out` (exactly its size), returning the bytes written.
///
/// Blocks are written by lz4_flex (pure Rust, pinned by the golden files) and read by the
/// reference C library (`LZ4_decompress_safe`, built for untrusted input): byte stream split
/// bodies are long runs, which lz4_flex copies byte by byte (1.0 GB/s here) and the C decoder
/// expands by pattern (7.9 GB/s). Both implement the same block format.
fn lz4_decompress(stored: &[u8], out: &mut [u8]) -> std::result::Result<usize, String> {
    if out.len() > LZ4_C_MAX_INPUT {
        return lz4_flex::block::decompress_into(stored, out).map_err(|e| format!("lz4: {e}"));
    }
    let expected = i32::try_from(out.len()).map_err(|_| "lz4: block too large".to_string())?;
    lz4::block::decompress_to_buffer(stored, Some(expected), out).map_err(|e| format!("lz4: {e}"))
}

/// CRC32C (Castagnoli), hardware-accelerated where the CPU has it.
pub(crate) fn crc32c(bytes: &[u8]) -> u32 {
    crc32c::crc32c(bytes)
}

/// CRC32C continued over more bytes.
pub(crate) fn crc32c_append(crc: u32, bytes: &[u8]) -> u32 {
    crc32c::crc32c_append(crc, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(raw: &[u8]) -> (StoredCodec, usize) {
        let mut out = Vec::new();
        let codec = compress_into(raw, Codec::Adaptive, &mut out).unwrap();
        let back = decompress(&out, codec, raw.len(), &|| "t".into()).unwrap();
        assert_eq!(&back[..], raw);
        (codec, out.len())
    }

    #[test]
    fn adaptive_takes_zstd_where_it_stores_four_fifths_of_lz4_or_less() {
        // JSON events: small alphabets and numbers, which zstd's entropy coding takes.
        let mut x = 99u64;
        let json: Vec<u8> = (0..3000)
            .flat_map(|i| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                format!(
                    "{{\"user_id\":{},\"event\":\"{}\",\"amount\":{}}}",
                    x >> 44,
                    ["click", "view", "buy"][i % 3],
                    (x >> 20) % 100_000
                )
                .into_bytes()
            })
            .collect();
        let mut lz4 = Vec::new();
        lz4_into(&json, &mut lz4).unwrap();
        let (codec, len) = stored(&json);
        assert_eq!(codec, StoredCodec::Zstd);
        assert!(len * 5 <= lz4.len() * 4, "{len} vs lz4 {}", lz4.len());
        // Long runs: lz4 keeps little enough that zstd is not tried.
        assert_eq!(stored(&vec![7u8; 100_000]).0, StoredCodec::Lz4);
        // Random bytes: neither saves an eighth.
        let random = crate::test_bytes::random(100_000, x);
        assert_eq!(stored(&random).0, StoredCodec::None);
        // Small payloads stay with lz4.
        assert_eq!(stored(&json[..4000]).0, StoredCodec::Lz4);
    }
}
