//! Format detection and frame parsing: header, schema, stats and directory,
//! without touching any column payload (FORMAT.md §1–2).

use std::ops::Range;
use std::sync::Arc;

use arrow_schema::DataType;

use crate::codec::{self, StoredCodec};
use crate::cursor::Cursor;
use crate::encodings::Encoding;
use crate::error::{Error, Result};
use crate::schema::{global_schema_cache, InternedSchema};
use crate::stats::{self, BoundKind, ColumnStats};

/// The frame magic: `\x89TCF`.
pub const MAGIC: [u8; 4] = [0x89, 0x54, 0x43, 0x46];

/// The largest row count a batch may have: Java's `int` (and Arrow Java's value counts).
pub const MAX_ROW_COUNT: u32 = i32::MAX as u32;
/// The Arrow IPC continuation marker that starts a legacy stream.
pub const IPC_CONTINUATION: [u8; 4] = [0xFF; 4];
/// Fixed header length.
pub const HEADER_LEN: usize = header::LEN;
/// Directory entry length of V2 and V3 frames.
pub const DIRECTORY_ENTRY_LEN: usize = 20;
/// Directory entry length of V4 frames: the V3 entry and the column's decoded length.
pub const V4_DIRECTORY_ENTRY_LEN: usize = 24;

/// Byte offsets of the header fields (FORMAT.md §2), the one place they are written down.
pub mod header {
    /// The magic (4 bytes).
    pub const MAGIC_AT: usize = 0;
    /// The version byte.
    pub const VERSION_AT: usize = 4;
    /// The flags byte.
    pub const FLAGS_AT: usize = 5;
    /// Two reserved bytes.
    pub const RESERVED_AT: usize = 6;
    /// Row count (u32).
    pub const ROW_COUNT_AT: usize = 8;
    /// Column count (u32).
    pub const COLUMN_COUNT_AT: usize = 12;
    /// Schema section length (u32).
    pub const SCHEMA_LEN_AT: usize = 16;
    /// Stats section length (u32).
    pub const STATS_LEN_AT: usize = 20;
    /// Metadata checksum (u32), over the header before it and every section after it.
    pub const META_CHECKSUM_AT: usize = 24;
    /// Header length; the schema section starts here.
    pub const LEN: usize = 28;
}

/// The fixed header's fields as stored (FORMAT.md §2), without their meaning checked: the one
/// place that turns them into bytes and back. [`Frame::parse`] validates them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Frame version (2 or 3).
    pub version: u8,
    /// Flags byte.
    pub flags: u8,
    /// Rows in the batch.
    pub row_count: u32,
    /// Top-level columns.
    pub column_count: u32,
    /// Schema section length.
    pub schema_len: u32,
    /// Stats section length.
    pub stats_len: u32,
    /// Metadata checksum (0 before [`meta_checksum`] fills it in).
    pub meta_checksum: u32,
}

impl Header {
    /// The header's [`header::LEN`] bytes.
    pub fn encode(&self) -> [u8; header::LEN] {
        let mut out = [0u8; header::LEN];
        let mut put = |at: usize, v: u32| out[at..at + 4].copy_from_slice(&v.to_le_bytes());
        put(header::ROW_COUNT_AT, self.row_count);
        put(header::COLUMN_COUNT_AT, self.column_count);
        put(header::SCHEMA_LEN_AT, self.schema_len);
        put(header::STATS_LEN_AT, self.stats_len);
        put(header::META_CHECKSUM_AT, self.meta_checksum);
        out[header::MAGIC_AT..header::MAGIC_AT + 4].copy_from_slice(&MAGIC);
        out[header::VERSION_AT] = self.version;
        out[header::FLAGS_AT] = self.flags;
        out
    }

    /// The fields of a complete header (at least [`header::LEN`] bytes), or `None`; the magic
    /// is not checked (see [`detect`]).
    pub fn decode(bytes: &[u8]) -> Option<Header> {
        let u32_at = |at: usize| {
            bytes
                .get(at..at + 4)
                .and_then(|b| b.try_into().ok())
                .map(u32::from_le_bytes)
        };
        Some(Header {
            version: *bytes.get(header::VERSION_AT)?,
            flags: *bytes.get(header::FLAGS_AT)?,
            row_count: u32_at(header::ROW_COUNT_AT)?,
            column_count: u32_at(header::COLUMN_COUNT_AT)?,
            schema_len: u32_at(header::SCHEMA_LEN_AT)?,
            stats_len: u32_at(header::STATS_LEN_AT)?,
            meta_checksum: u32_at(header::META_CHECKSUM_AT)?,
        })
    }

    /// Where the metadata ends (header, schema, stats, directory), for a frame of `format`.
    pub fn metadata_end(&self, format: Format) -> Option<usize> {
        let entries = match format {
            Format::V3 | Format::V4 => self.column_count as usize,
            _ => 1,
        };
        header::LEN
            .checked_add(self.schema_len as usize)?
            .checked_add(self.stats_len as usize)?
            .checked_add(entries.checked_mul(format.directory_entry_len())?)
    }
}

/// The metadata checksum of a frame whose payloads start at `payload_start`: CRC32C over the
/// header up to the checksum field, then schema, stats and directory.
pub fn meta_checksum(frame: &[u8], payload_start: usize) -> u32 {
    codec::crc32c_append(
        codec::crc32c(&frame[..header::META_CHECKSUM_AT]),
        &frame[header::LEN..payload_start],
    )
}

pub(crate) const FLAG_STATS: u8 = 0x01;
const CHECKSUM_SHIFT: u8 = 1;
const CHECKSUM_MASK: u8 = 0x06;
/// Some directory entry has a non-plain encoding; readers that predate encodings see a
/// reserved bit and report UNSUPPORTED_VERSION instead of misreading the payloads.
pub(crate) const FLAG_ENCODED: u8 = 0x08;
const RESERVED_FLAGS: u8 = 0xF0;

/// A cached-batch format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Plain Arrow IPC stream.
    Legacy,
    /// Framed, one whole-batch payload.
    V2,
    /// Framed, one payload per column.
    V3,
    /// V3's layout with column bodies that state each buffer's encoding (FORMAT.md §3.2).
    V4,
}

impl Format {
    /// The frame version byte (legacy has none).
    pub fn version(self) -> Option<u8> {
        match self {
            Format::Legacy => None,
            Format::V2 => Some(2),
            Format::V3 => Some(3),
            Format::V4 => Some(4),
        }
    }

    /// The length of one directory entry (legacy frames have no directory; V2's one entry).
    pub fn directory_entry_len(self) -> usize {
        match self {
            Format::V4 => V4_DIRECTORY_ENTRY_LEN,
            _ => DIRECTORY_ENTRY_LEN,
        }
    }
}

/// Checksum kind recorded in the flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ChecksumKind {
    /// No checksums.
    None,
    /// CRC32C over metadata and each payload.
    #[default]
    Crc32c,
}

impl ChecksumKind {
    pub(crate) fn flag_bits(self) -> u8 {
        match self {
            ChecksumKind::None => 0,
            ChecksumKind::Crc32c => 1 << CHECKSUM_SHIFT,
        }
    }
}

/// Tells the three formats apart from the first bytes.
pub fn detect(bytes: &[u8]) -> Result<Format> {
    let mut cur = Cursor::new(bytes);
    let magic: [u8; 4] = cur
        .take(4, "magic")?
        .try_into()
        .map_err(|_| Error::Internal("4-byte slice".into()))?;
    if magic == IPC_CONTINUATION {
        return Ok(Format::Legacy);
    }
    if magic != MAGIC {
        return Err(Error::BadMagic { found: magic });
    }
    match cur.u8("version")? {
        2 => Ok(Format::V2),
        3 => Ok(Format::V3),
        4 => Ok(Format::V4),
        other => Err(Error::UnsupportedVersion(other)),
    }
}

/// One directory entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirectoryEntry {
    /// Offset from the payload start.
    pub offset: u32,
    /// Stored bytes.
    pub stored_len: u32,
    /// Bytes after decompression.
    pub raw_len: u32,
    /// Bytes of the plain column body (§3) the payload decodes to: stated in a V4 entry, whose
    /// decompressed body is encoded; `raw_len` in V2 and V3, whose decompressed body is plain.
    pub decoded_len: u32,
    /// CRC32C of the stored bytes (0 without checksums).
    pub checksum: u32,
    /// The codec of the stored bytes.
    pub codec: StoredCodec,
    /// How the column bodies are laid out before the codec.
    pub encoding: Encoding,
}

/// A parsed V2/V3 frame: everything but the payloads, which stay borrowed.
#[derive(Debug, Clone)]
pub struct Frame<'a> {
    /// V2 or V3.
    pub format: Format,
    /// The flags byte.
    pub flags: u8,
    /// Checksum kind.
    pub checksum: ChecksumKind,
    /// Rows in the batch.
    pub row_count: u32,
    /// Top-level columns.
    pub column_count: u32,
    /// The stored metadata checksum.
    pub meta_checksum: u32,
    /// The embedded schema bytes.
    pub schema_bytes: &'a [u8],
    /// The parsed (interned) schema.
    pub schema: Arc<InternedSchema>,
    /// Column stats, when the frame has them.
    pub stats: Option<Vec<ColumnStats>>,
    /// The directory (V3: one entry per column; V2: one entry).
    pub directory: Vec<DirectoryEntry>,
    /// Offset of the payload area.
    pub payload_start: usize,
    bytes: &'a [u8],
}

/// Where the metadata of a V3 or V4 frame ends (header, schema, stats and directory), from its first
/// [`HEADER_LEN`] bytes; `None` for anything else (V2, legacy, or a header too short to say),
/// whose readers need every byte. Nothing is checked here: [`Frame::parse`] does that.
pub(crate) fn per_column_metadata_end(bytes: &[u8]) -> Option<usize> {
    if bytes.get(..4)? != MAGIC {
        return None;
    }
    let header = Header::decode(bytes)?;
    let format = match header.version {
        3 => Format::V3,
        4 => Format::V4,
        _ => return None,
    };
    header.metadata_end(format)
}

impl<'a> Frame<'a> {
    /// Parses and checks header, schema, stats and directory (V2 and V3 only).
    pub fn parse(bytes: &'a [u8]) -> Result<Frame<'a>> {
        Self::parse_metadata(bytes, bytes.len())
    }

    /// [`Frame::parse`] of a frame `frame_len` bytes long of which `bytes` holds a prefix that
    /// contains at least the metadata; the payloads are fetched separately and handed to
    /// [`Frame::verified`]. Errors are exactly those of `parse` over the whole frame.
    pub(crate) fn parse_metadata(bytes: &'a [u8], frame_len: usize) -> Result<Frame<'a>> {
        if bytes.len() > frame_len {
            return Err(Error::Internal(format!(
                "a prefix of {} bytes of a {frame_len}-byte frame",
                bytes.len()
            )));
        }
        let format = detect(bytes)?;
        if format == Format::Legacy {
            return Err(Error::InvalidArgument(
                "a legacy Arrow IPC stream has no frame header".into(),
            ));
        }
        let mut cur = Cursor::at(bytes, header::FLAGS_AT);
        let flags = cur.u8("flags")?;
        if flags & RESERVED_FLAGS != 0 {
            return Err(Error::UnsupportedFlags(flags));
        }
        let checksum = match (flags & CHECKSUM_MASK) >> CHECKSUM_SHIFT {
            0 => ChecksumKind::None,
            1 => ChecksumKind::Crc32c,
            _ => return Err(Error::UnsupportedFlags(flags)),
        };
        let reserved = cur.u16("reserved")?;
        if reserved != 0 {
            return Err(Error::ReservedNotZero {
                what: "header bytes 6..8",
                value: reserved.into(),
            });
        }
        let row_count = cur.u32("row count")?;
        let column_count = cur.u32("column count")?;
        let schema_len = cur.u32("schema length")? as usize;
        let stats_len = cur.u32("stats length")? as usize;
        let meta_checksum = cur.u32("metadata checksum")?;
        if (flags & FLAG_STATS != 0) != (stats_len > 0) {
            return Err(Error::CorruptStats(format!(
                "stats flag is {} but stats length is {stats_len}",
                flags & FLAG_STATS != 0
            )));
        }
        let entries = match format {
            Format::V3 | Format::V4 => column_count as usize,
            _ => 1,
        };
        let schema_bytes = cur.take(schema_len, "schema section")?;
        let stats_bytes = cur.take(stats_len, "stats section")?;
        let directory_bytes = cur.take(
            entries.saturating_mul(format.directory_entry_len()),
            "directory",
        )?;
        let payload_start = cur.position();
        match checksum {
            ChecksumKind::Crc32c => {
                let computed = crate::frame::meta_checksum(bytes, payload_start);
                if computed != meta_checksum {
                    return Err(Error::ChecksumMismatch {
                        what: "frame metadata (header, schema, stats, directory)".into(),
                        stored: meta_checksum,
                        computed,
                    });
                }
            }
            ChecksumKind::None if meta_checksum != 0 => {
                return Err(Error::ReservedNotZero {
                    what: "metadata checksum without checksums",
                    value: meta_checksum.into(),
                });
            }
            ChecksumKind::None => {}
        }
        // After the checksum, so a damaged header reports as a checksum mismatch.
        if row_count > MAX_ROW_COUNT {
            return Err(Error::RowCountTooLarge(row_count.into()));
        }
        let directory = parse_directory(
            directory_bytes,
            frame_len - payload_start,
            checksum,
            flags & FLAG_ENCODED != 0,
            format == Format::V4,
        )?;
        // Stats before the schema, as the pure-Java parser does (it decodes the schema lazily):
        // a frame bad in both places reports the same kind on both sides.
        let stats = if stats_len > 0 {
            Some(stats::decode(
                stats_bytes,
                column_count as usize,
                row_count,
            )?)
        } else {
            None
        };
        let schema = global_schema_cache().get_or_parse(schema_bytes)?;
        let fields = schema.schema.fields();
        if fields.len() != column_count as usize {
            return Err(Error::SchemaMismatch(format!(
                "header says {column_count} columns, embedded schema has {} fields",
                fields.len()
            )));
        }
        if let Some(stats) = &stats {
            for (i, (s, field)) in stats.iter().zip(fields.iter()).enumerate() {
                let expected = BoundKind::for_type(field.data_type());
                let kind = s.bound_kind();
                if (kind != BoundKind::None && Some(kind) != expected)
                    || s.unsupported != expected.is_none()
                {
                    return Err(Error::CorruptStats(format!(
                        "column {i}: stats of kind {kind:?} do not fit type {}",
                        field.data_type()
                    )));
                }
                // Every slot of a Null column is null; the writer counts them (FORMAT.md §4).
                if *field.data_type() == DataType::Null && s.null_count != s.row_count {
                    return Err(Error::CorruptStats(format!(
                        "column {i}: a Null column with {} nulls in {} rows",
                        s.null_count, s.row_count
                    )));
                }
            }
        }
        Ok(Frame {
            format,
            flags,
            checksum,
            row_count,
            column_count,
            meta_checksum,
            schema_bytes,
            schema,
            stats,
            directory,
            payload_start,
            bytes,
        })
    }

    /// Where the stored bytes of directory entry `index` lie in the frame, and the entry.
    pub(crate) fn payload_range(&self, index: usize) -> Result<(Range<usize>, &DirectoryEntry)> {
        let entry = self
            .directory
            .get(index)
            .ok_or_else(|| Error::Internal(format!("directory entry {index} missing")))?;
        let start = self.payload_start + entry.offset as usize;
        Ok((start..start + entry.stored_len as usize, entry))
    }

    /// `stored`, the bytes of directory entry `index`, after checking them against its checksum.
    pub(crate) fn verified<'b>(&self, index: usize, stored: &'b [u8]) -> Result<&'b [u8]> {
        if self.checksum == ChecksumKind::Crc32c {
            let expected = self.directory.get(index).map_or(0, |e| e.checksum);
            let computed = codec::crc32c(stored);
            if computed != expected {
                return Err(Error::ChecksumMismatch {
                    what: format!("payload {index}"),
                    stored: expected,
                    computed,
                });
            }
        }
        Ok(stored)
    }

    /// The stored bytes of directory entry `index`, checksum verified (a frame parsed whole).
    pub(crate) fn payload(&self, index: usize) -> Result<(&'a [u8], &DirectoryEntry)> {
        let (range, entry) = self.payload_range(index)?;
        let stored = self.bytes.get(range).ok_or_else(|| {
            Error::Internal(format!("payload {index} lies outside the parsed bytes"))
        })?;
        Ok((self.verified(index, stored)?, entry))
    }
}

/// Offsets of a directory entry's fields (FORMAT.md §2).
pub mod directory_entry {
    /// Payload offset from the payload start (u32).
    pub const OFFSET_AT: usize = 0;
    /// Stored length (u32).
    pub const STORED_LEN_AT: usize = 4;
    /// Length after decompression (u32).
    pub const RAW_LEN_AT: usize = 8;
    /// CRC32C of the stored bytes (u32).
    pub const CHECKSUM_AT: usize = 12;
    /// Codec id (u8).
    pub const CODEC_AT: usize = 16;
    /// Encoding id (u8).
    pub const ENCODING_AT: usize = 17;
    /// Two reserved bytes, zero.
    pub const RESERVED_AT: usize = 18;
    /// V4 only: the plain column body's length (u32).
    pub const DECODED_LEN_AT: usize = 20;
}

impl DirectoryEntry {
    /// The entry's bytes in a frame of `format` ([`Format::directory_entry_len`] of them).
    pub fn encode(&self, format: Format) -> Vec<u8> {
        use directory_entry::*;
        let mut out = vec![0u8; format.directory_entry_len()];
        let mut put = |at: usize, v: u32| out[at..at + 4].copy_from_slice(&v.to_le_bytes());
        put(OFFSET_AT, self.offset);
        put(STORED_LEN_AT, self.stored_len);
        put(RAW_LEN_AT, self.raw_len);
        put(CHECKSUM_AT, self.checksum);
        if format == Format::V4 {
            put(DECODED_LEN_AT, self.decoded_len);
        }
        out[CODEC_AT] = self.codec.id();
        out[ENCODING_AT] = self.encoding.id();
        out
    }
}

fn parse_directory(
    bytes: &[u8],
    payload_len: usize,
    checksum: ChecksumKind,
    encoded_flag: bool,
    self_describing: bool,
) -> Result<Vec<DirectoryEntry>> {
    let entry_len = if self_describing {
        V4_DIRECTORY_ENTRY_LEN
    } else {
        DIRECTORY_ENTRY_LEN
    };
    let mut entries = Vec::with_capacity(bytes.len() / entry_len);
    let mut expected_offset: u64 = 0;
    for (index, chunk) in bytes.chunks_exact(entry_len).enumerate() {
        use directory_entry::*;
        let u32_at = |at: usize| Cursor::at(chunk, at).u32("directory entry");
        let offset = u32_at(OFFSET_AT)?;
        let stored_len = u32_at(STORED_LEN_AT)?;
        let raw_len = u32_at(RAW_LEN_AT)?;
        let crc = u32_at(CHECKSUM_AT)?;
        let codec_id = chunk[CODEC_AT];
        let encoding_id = chunk[ENCODING_AT];
        let reserved = &chunk[RESERVED_AT..RESERVED_AT + 2];
        let bad = |reason: String| Error::CorruptDirectory { index, reason };
        if reserved != [0, 0] {
            return Err(bad(format!("reserved bytes {reserved:02x?}")));
        }
        let codec = StoredCodec::from_id(codec_id)?;
        let encoding =
            Encoding::from_stored(encoding_id).ok_or(Error::UnsupportedEncoding(encoding_id))?;
        if encoding != Encoding::Plain && self_describing {
            return Err(bad(format!(
                "encoding {encoding_id} in a V4 entry (V4 bodies state their own encodings)"
            )));
        }
        if encoding != Encoding::Plain && !encoded_flag {
            return Err(bad("encoded, but the ENCODED flag is clear".into()));
        }
        if u64::from(offset) != expected_offset {
            return Err(bad(format!(
                "offset {offset}, expected {expected_offset} (payloads are contiguous)"
            )));
        }
        let end = expected_offset + u64::from(stored_len);
        if end > payload_len as u64 {
            return Err(Error::LengthOutOfBounds {
                what: format!("payload {index}"),
                start: offset.into(),
                end,
                len: payload_len,
            });
        }
        codec::check_raw_len(codec, stored_len.into(), raw_len.into()).map_err(bad)?;
        let decoded_len = if self_describing {
            let decoded_len = u32_at(DECODED_LEN_AT)?;
            // A plain body is 8-byte aligned throughout (§3), so its length is too.
            if decoded_len % 8 != 0 {
                return Err(bad(format!(
                    "decoded length {decoded_len} is not a multiple of 8"
                )));
            }
            decoded_len
        } else {
            raw_len
        };
        if checksum == ChecksumKind::None && crc != 0 {
            return Err(bad(format!(
                "checksum 0x{crc:08x} in a frame without checksums"
            )));
        }
        expected_offset = end;
        entries.push(DirectoryEntry {
            offset,
            stored_len,
            raw_len,
            decoded_len,
            checksum: crc,
            codec,
            encoding,
        });
    }
    if encoded_flag && entries.iter().all(|e| e.encoding == Encoding::Plain) {
        return Err(Error::CorruptDirectory {
            index: 0,
            reason: "the ENCODED flag is set but no payload is encoded".into(),
        });
    }
    if expected_offset != payload_len as u64 {
        return Err(Error::TrailingBytes {
            what: "last payload",
            extra: payload_len - expected_offset as usize,
        });
    }
    Ok(entries)
}
