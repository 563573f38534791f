//! tablecache-format: the cached-batch format of tablecache, Spark's native in-memory
//! table-cache serializer.
//!
//! A cached batch is one of four formats (see `docs/FORMAT.md`):
//! * **V4**: V3's layout, with column bodies that state each buffer's encoding (constant,
//!   frame of reference, delta, dictionary, byte stream split, plain), chosen per buffer.
//! * **V3**: per-column payloads behind an offset directory, so a query reading
//!   one column decodes one column; optional partition stats.
//! * **V2**: stats plus one whole-batch payload, decoded eagerly.
//! * **Legacy**: a plain Arrow IPC stream.
//!
//! This crate is the format core ([`write()`], [`detect`], [`Frame::parse`], [`decode`]): no
//! JNI and no unsafe code. The `tablecache-jni` crate (the `libtablecache` cdylib) is a thin
//! layer of exports over it for the JVM shim.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod body;
mod body_v4;
pub mod budget;
mod codec;
mod cursor;
mod encodings;
mod error;
mod frame;
pub mod layout;
mod legacy;
mod lightweight;
pub mod names;
mod payload;
pub mod raw_strings;
mod read;
pub mod schema;
pub mod schema_bounds;
mod select;
pub mod stats;
#[cfg(test)]
mod test_bytes;
pub mod unsafe_row;
mod write;

pub use codec::{Codec, StoredCodec};
pub use encodings::Encoding;
pub use error::{Error, ErrorKind, Result};
pub use frame::{
    detect, directory_entry, header, meta_checksum, ChecksumKind, DirectoryEntry, Format, Frame,
    Header, DIRECTORY_ENTRY_LEN, HEADER_LEN, IPC_CONTINUATION, MAGIC, V4_DIRECTORY_ENTRY_LEN,
};
pub use lightweight::{
    decode_buffer, decode_string_dictionary, encode_buffer, encode_string_dictionary,
    BufferEncoding,
};
pub use read::{
    buffer_encodings, decode, decode_column_body_v4, decode_column_body_v4_keyed, decode_fetched,
    ReadOptions,
};
pub use select::EncodingPolicy;
pub use write::{write, write_interned, WriteOptions};
