//! tablecache: native cached-batch frames for Spark's in-memory table cache.
//!
//! A cached batch is one of three formats (see `docs/FORMAT.md`):
//! * **V3**: per-column payloads behind an offset directory, so a query reading
//!   one column decodes one column; optional partition stats.
//! * **V2**: stats plus one whole-batch payload, decoded eagerly.
//! * **Legacy**: a plain Arrow IPC stream.
//!
//! The format core ([`write()`], [`detect`], [`Frame::parse`], [`decode`]) has no JNI in
//! it; the `jni` module is a thin layer of exports for the JVM shim.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

mod body;
pub mod coalesce;
mod codec;
mod cursor;
mod encoding;
mod error;
mod frame;
mod legacy;
mod read;
pub mod schema;
pub mod stats;
pub mod unsafe_row;
mod write;

pub mod jni;

pub use codec::{Codec, StoredCodec};
pub use encoding::Encoding;
pub use error::{Error, ErrorKind, Result};
pub use frame::{
    detect, ChecksumKind, DirectoryEntry, Format, Frame, DIRECTORY_ENTRY_LEN, HEADER_LEN,
    IPC_CONTINUATION, MAGIC,
};
pub use read::decode;
pub use write::{write, WriteOptions};

/// The library version; the JVM shim refuses a library whose version differs from its own.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

#[cfg(feature = "jemalloc")]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Process-wide allocator counters `(allocated, resident)` in bytes, from jemalloc's statistics;
/// `None` when the library is built without the `jemalloc` feature (the system allocator keeps no
/// such counters). Leak and soak tests compare these before and after a workload.
pub fn allocator_stats() -> Option<(u64, u64)> {
    #[cfg(feature = "jemalloc")]
    {
        use tikv_jemalloc_ctl::{epoch, stats};
        // jemalloc caches its statistics; advancing the epoch refreshes them.
        epoch::advance().ok()?;
        let allocated = stats::allocated::read().ok()?;
        let resident = stats::resident::read().ok()?;
        Some((allocated as u64, resident as u64))
    }
    #[cfg(not(feature = "jemalloc"))]
    {
        None
    }
}
