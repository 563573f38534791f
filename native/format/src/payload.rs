//! One payload of a V2/V3 frame: its column bodies encoded as the selector chose, compressed,
//! stored raw or compressed, and described by a directory entry. The frame around the payloads
//! (header, schema, stats, directory) is laid out by [`crate::write`].

use arrow_schema::DataType;

use crate::body::BodyParts;
use crate::body_v4;
use crate::budget;
use crate::codec::{self, Codec, StoredCodec, MAX_PAYLOAD};
use crate::cursor::to_u32;
use crate::encodings::Encoding;
use crate::error::{Error, Result};
use crate::frame::{ChecksumKind, DirectoryEntry};
use crate::select::{self, EncodingPolicy};

/// Writes the payloads of one frame, in order. Holds what spans payloads: the encoded bytes'
/// scratch buffer (reused, as arrow-ipc reuses its compression context), the decoded total the
/// reader's budget bounds, and whether any payload is encoded (the header's ENCODED flag).
#[derive(Debug)]
pub(crate) struct PayloadWriter {
    policy: EncodingPolicy,
    codec: Codec,
    checksum: ChecksumKind,
    scratch: Vec<u8>,
    decoded_total: u64,
    any_encoded: bool,
}

impl PayloadWriter {
    /// A writer of payloads with this policy, codec and checksum kind.
    pub(crate) fn new(policy: EncodingPolicy, codec: Codec, checksum: ChecksumKind) -> Self {
        PayloadWriter {
            policy,
            codec,
            checksum,
            scratch: Vec::new(),
            decoded_total: 0,
            any_encoded: false,
        }
    }

    /// Appends the payload made of `columns` to `out`, whose payload area starts at
    /// `payload_start`, and returns its directory entry.
    pub(crate) fn write(
        &mut self,
        columns: &[BodyParts<'_>],
        out: &mut Vec<u8>,
        payload_start: usize,
    ) -> Result<DirectoryEntry> {
        let start = out.len();
        let chosen = select::select(self.policy, self.codec, columns);
        let (raw_len, stored_codec, encoding) = if self.codec == Codec::None {
            encode_bodies(chosen, columns, out)?;
            (out.len() - start, StoredCodec::None, chosen)
        } else {
            self.scratch.clear();
            encode_bodies(chosen, columns, &mut self.scratch)?;
            let used = codec::compress_into(&self.scratch, self.codec, out)?;
            if used == StoredCodec::None && chosen != Encoding::Plain {
                // The codec kept it raw: store it plain, so that reading it costs no transform.
                out.truncate(start);
                encode_bodies(Encoding::Plain, columns, out)?;
                (out.len() - start, used, Encoding::Plain)
            } else {
                (self.scratch.len(), used, chosen)
            }
        };
        self.any_encoded |= encoding != Encoding::Plain;
        self.finish_entry(
            raw_len as u64,
            raw_len,
            stored_codec,
            encoding,
            out,
            start,
            payload_start,
        )
    }

    /// Checks the limits of one written payload (`out[start..]`, `raw_len` bytes decompressed,
    /// `decoded` bytes once decoded) and returns its directory entry.
    #[allow(clippy::too_many_arguments)]
    fn finish_entry(
        &mut self,
        decoded: u64,
        raw_len: usize,
        stored_codec: StoredCodec,
        encoding: Encoding,
        out: &[u8],
        start: usize,
        payload_start: usize,
    ) -> Result<DirectoryEntry> {
        if raw_len as u64 > MAX_PAYLOAD || out.len() as u64 > MAX_PAYLOAD {
            return Err(Error::TooLarge(format!(
                "frame exceeds {MAX_PAYLOAD} bytes"
            )));
        }
        // The reader's decode budget: never write what it refuses.
        self.decoded_total += decoded;
        if self.decoded_total > budget::MAX_DECODED_FRAME_BYTES {
            return Err(Error::TooLarge(format!(
                "the frame's columns decode to more than {} bytes",
                budget::MAX_DECODED_FRAME_BYTES
            )));
        }
        let stored = &out[start..];
        let checksum = match self.checksum {
            ChecksumKind::Crc32c => codec::crc32c(stored),
            ChecksumKind::None => 0,
        };
        Ok(DirectoryEntry {
            offset: to_u32(start - payload_start, "payload offset")?,
            stored_len: to_u32(stored.len(), "stored length")?,
            raw_len: to_u32(raw_len, "raw length")?,
            decoded_len: to_u32(
                usize::try_from(decoded).unwrap_or(usize::MAX),
                "decoded length",
            )?,
            checksum,
            codec: stored_codec,
            encoding,
        })
    }

    /// Appends the V4 payload of one `column` (of `data_type`, in a frame of `rows` rows) to
    /// `out` and returns its directory entry: a body that states each buffer's encoding
    /// ([`body_v4`]), compressed only where the codec still saves an eighth of it, as the
    /// encodings have usually taken what a codec would find.
    pub(crate) fn write_self_describing(
        &mut self,
        column: &BodyParts<'_>,
        data_type: &DataType,
        rows: u32,
        out: &mut Vec<u8>,
        payload_start: usize,
    ) -> Result<DirectoryEntry> {
        let start = out.len();
        self.scratch.clear();
        let written = body_v4::write(
            column,
            data_type,
            rows,
            self.policy,
            self.codec,
            &mut self.scratch,
        )?;
        let raw_len = self.scratch.len();
        let used = match self.codec {
            Codec::None => {
                out.extend_from_slice(&self.scratch);
                StoredCodec::None
            }
            codec => {
                // The samples the encodings were chosen on may already say whether zstd pays.
                let used = codec::compress_with_evidence(
                    &self.scratch,
                    codec,
                    written.zstd_evidence,
                    out,
                )?;
                if out.len() - start > raw_len - raw_len / 8 {
                    out.truncate(start);
                    out.extend_from_slice(&self.scratch);
                    StoredCodec::None
                } else {
                    used
                }
            }
        };
        self.finish_entry(
            written.decoded_len as u64,
            raw_len,
            used,
            Encoding::Plain,
            out,
            start,
            payload_start,
        )
    }

    /// Whether some payload written so far is encoded (not plain).
    pub(crate) fn any_encoded(&self) -> bool {
        self.any_encoded
    }
}

/// Appends the bodies of `columns` in `encoding` to `out`.
fn encode_bodies(encoding: Encoding, columns: &[BodyParts<'_>], out: &mut Vec<u8>) -> Result<()> {
    let unit = encoding.unit();
    for column in columns {
        let encoded = unit.encode(column, out)?;
        // A V2/V3 directory entry states one length per payload and no parameters.
        if !encoded.fits_directory_entry() {
            return Err(Error::Internal(format!(
                "{} wrote a body this frame version cannot describe ({encoded:?})",
                unit.encoding().name()
            )));
        }
    }
    Ok(())
}
