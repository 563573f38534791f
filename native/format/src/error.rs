//! The one error type of the crate and the coarse kinds the JVM sees.

use std::fmt;

/// Coarse classification of an [`Error`], mirrored one-to-one by the Java
/// `TableCacheException.Kind` enum (see `docs/FORMAT.md` §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Structurally invalid bytes: truncation, bad magic, bad lengths, invalid Arrow data.
    CorruptFrame,
    /// A metadata or payload checksum does not match.
    ChecksumMismatch,
    /// A version, checksum kind or flag this reader does not know.
    UnsupportedVersion,
    /// An unknown codec id.
    UnsupportedCodec,
    /// The payload disagrees with the embedded schema.
    SchemaMismatch,
    /// A projection names a column that does not exist.
    ColumnOutOfRange,
    /// The writer was given an Arrow type the format does not carry.
    UnsupportedType,
    /// The caller passed an invalid argument.
    InvalidArgument,
    /// A bug, including a caught panic.
    Internal,
}

impl ErrorKind {
    /// The name shared with Java (`TableCacheException.Kind`).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::CorruptFrame => "CORRUPT_FRAME",
            ErrorKind::ChecksumMismatch => "CHECKSUM_MISMATCH",
            ErrorKind::UnsupportedVersion => "UNSUPPORTED_VERSION",
            ErrorKind::UnsupportedCodec => "UNSUPPORTED_CODEC",
            ErrorKind::SchemaMismatch => "SCHEMA_MISMATCH",
            ErrorKind::ColumnOutOfRange => "COLUMN_OUT_OF_RANGE",
            ErrorKind::UnsupportedType => "UNSUPPORTED_TYPE",
            ErrorKind::InvalidArgument => "INVALID_ARGUMENT",
            ErrorKind::Internal => "INTERNAL",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Everything that can go wrong while writing or reading a cached batch.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input ends before a structure it declares.
    #[error(
        "truncated frame: {what} needs {needed} bytes at offset {offset}, but the frame has {len}"
    )]
    Truncated {
        /// The structure being read.
        what: &'static str,
        /// Where it starts.
        offset: usize,
        /// Bytes it needs.
        needed: usize,
        /// Total input length.
        len: usize,
    },
    /// The first bytes are neither the frame magic nor an Arrow IPC stream.
    #[error("bad magic {found:02x?}: not a tablecache frame (expected 89 54 43 46) nor an Arrow IPC stream (FF FF FF FF)")]
    BadMagic {
        /// The first bytes found.
        found: [u8; 4],
    },
    /// The version byte is not one this reader knows.
    #[error("unsupported frame version {0} (this reader knows 2, 3 and 4)")]
    UnsupportedVersion(u8),
    /// Reserved flag bits or an unknown checksum kind are set.
    #[error("unsupported frame flags 0x{0:02x} (written by a newer tablecache?)")]
    UnsupportedFlags(u8),
    /// A reserved byte is not zero.
    #[error("reserved {what} is {value}, must be 0")]
    ReservedNotZero {
        /// Which reserved field.
        what: &'static str,
        /// Its value.
        value: u64,
    },
    /// A length or offset field points past the end of the frame.
    #[error("{what}: range {start}..{end} is past the end of the {len}-byte frame")]
    LengthOutOfBounds {
        /// The field.
        what: String,
        /// Range start.
        start: u64,
        /// Range end.
        end: u64,
        /// Frame length.
        len: usize,
    },
    /// Bytes remain after the last structure.
    #[error("{extra} trailing bytes after the end of the {what}")]
    TrailingBytes {
        /// What ended.
        what: &'static str,
        /// How many extra bytes.
        extra: usize,
    },
    /// The directory is inconsistent with itself.
    #[error("corrupt directory entry {index}: {reason}")]
    CorruptDirectory {
        /// Entry index.
        index: usize,
        /// What is wrong.
        reason: String,
    },
    /// A checksum does not match.
    #[error("checksum mismatch in {what}: stored 0x{stored:08x}, computed 0x{computed:08x}")]
    ChecksumMismatch {
        /// The checksummed region.
        what: String,
        /// The stored checksum.
        stored: u32,
        /// The computed checksum.
        computed: u32,
    },
    /// The codec id is unknown.
    #[error("unsupported codec id {0} (known: 0 none, 1 lz4, 2 zstd)")]
    UnsupportedCodec(u8),
    /// The encoding id is unknown.
    #[error("unsupported encoding id {0} (known: {known})", known = crate::encodings::Encoding::known())]
    UnsupportedEncoding(u8),
    /// A V4 buffer descriptor names a buffer encoding this reader does not know.
    #[error("unsupported buffer encoding id {0} (known: {known})", known = crate::lightweight::BufferEncoding::known())]
    UnsupportedBufferEncoding(u8),
    /// An encoded buffer of a V4 body is malformed.
    #[error("corrupt encoded buffer: {0}")]
    CorruptEncoding(String),
    /// Decompression failed or produced the wrong size.
    #[error("cannot decompress {what}: {reason}")]
    Decompression {
        /// The payload.
        what: String,
        /// Why.
        reason: String,
    },
    /// The header's row count exceeds what Java (and Arrow Java) can index.
    #[error("row count {0} exceeds the format's limit of 2147483647 (i32::MAX)")]
    RowCountTooLarge(u64),
    /// The embedded schema cannot be decoded.
    #[error("invalid embedded schema: {}", crate::names::foreign(.0))]
    InvalidSchema(String),
    /// The payload disagrees with the schema.
    #[error("schema mismatch: {}", crate::names::foreign(.0))]
    SchemaMismatch(String),
    /// A projection names a column that does not exist.
    #[error("column {index} out of range: the frame has {count} columns")]
    ColumnOutOfRange {
        /// Requested column.
        index: usize,
        /// Columns in the frame.
        count: usize,
    },
    /// A projection names a negative column index.
    #[error("column {0} out of range: column indices start at 0")]
    NegativeColumn(i32),
    /// The stats section is malformed.
    #[error("corrupt stats section: {0}")]
    CorruptStats(String),
    /// Decoded Arrow data failed validation.
    #[error("invalid Arrow data in {what}: {}", crate::names::foreign(&.source.to_string()))]
    InvalidData {
        /// Where.
        what: String,
        /// Arrow's complaint.
        #[source]
        source: arrow_schema::ArrowError,
    },
    /// The writer does not support this Arrow type.
    #[error("unsupported Arrow type {} (union, view and run-end types are not cached)", crate::names::foreign(.0))]
    UnsupportedType(String),
    /// The frame would exceed the format's limits.
    #[error("too large: {0}")]
    TooLarge(String),
    /// The directory declares more decoded bytes than the frame's rows and schema allow
    /// (the decode budget, `budget.rs`).
    #[error("decoded sizes over budget: {0}")]
    OverBudget(String),
    /// A caller error.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The legacy IPC stream is malformed.
    #[error("corrupt legacy Arrow IPC stream: {}", crate::names::foreign(.0))]
    CorruptLegacy(String),
    /// A bug.
    #[error("internal error: {}", crate::names::foreign(.0))]
    Internal(String),
}

impl Error {
    /// The coarse kind the JVM sees.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Truncated { .. }
            | Error::BadMagic { .. }
            | Error::ReservedNotZero { .. }
            | Error::LengthOutOfBounds { .. }
            | Error::TrailingBytes { .. }
            | Error::CorruptDirectory { .. }
            | Error::Decompression { .. }
            | Error::InvalidSchema(_)
            | Error::RowCountTooLarge(_)
            | Error::CorruptStats(_)
            | Error::InvalidData { .. }
            | Error::OverBudget(_)
            | Error::CorruptEncoding(_)
            | Error::CorruptLegacy(_) => ErrorKind::CorruptFrame,
            Error::ChecksumMismatch { .. } => ErrorKind::ChecksumMismatch,
            Error::UnsupportedVersion(_) | Error::UnsupportedFlags(_) => {
                ErrorKind::UnsupportedVersion
            }
            Error::UnsupportedCodec(_)
            | Error::UnsupportedEncoding(_)
            | Error::UnsupportedBufferEncoding(_) => ErrorKind::UnsupportedCodec,
            Error::SchemaMismatch(_) => ErrorKind::SchemaMismatch,
            Error::ColumnOutOfRange { .. } | Error::NegativeColumn(_) => {
                ErrorKind::ColumnOutOfRange
            }
            Error::UnsupportedType(_) => ErrorKind::UnsupportedType,
            Error::TooLarge(_) | Error::InvalidArgument(_) => ErrorKind::InvalidArgument,
            Error::Internal(_) => ErrorKind::Internal,
        }
    }
}

/// Result alias for this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
