//! libtablecache: the JNI exports for `dev.tablecache.jni.NativeCodec` (see
//! docs/ARCHITECTURE.md), over the `tablecache-format` crate.
//!
//! No format logic lives here: each export converts Java arguments, calls the
//! format core, and converts the result. Every export runs inside
//! [`EnvUnowned::with_env`](jni::EnvUnowned::with_env), which catches panics, and resolves
//! through [`ThrowTableCacheException`], which turns an error or a panic into a
//! `dev.tablecache.TableCacheException` unless an exception is already pending.
//!
//! The crate by concern; every `unsafe` block of the library is in one of these files, with
//! its `// SAFETY:` comment:
//!
//! | module | owns |
//! |---|---|
//! | `exports` | every symbol the JVM binds: `JNI_OnLoad`, and `NativeCodec`'s natives by direction (`write`, `read`, `arrow_c`, `probe`) over their argument conversions (`args`) |
//! | `errors` | the error policy: [`JniError`], its kind, and throwing `TableCacheException` |
//! | `panic` | the panic hook and the message that reports a caught panic |
//! | `allocator` | the global allocator (jemalloc) and its counters |
//! | `import` | a batch over JVM buffers described by address (write input) |
//! | `descriptor` | decoded columns as a descriptor plus live handles (read output) |
//! | `c_data` | decoded columns into Arrow C Data Interface structs (Arrow C output) |

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

mod allocator;
mod c_data;
mod descriptor;
mod errors;
mod exports;
mod import;
mod panic;

pub use allocator::allocator_stats;
pub use errors::{JniError, ThrowTableCacheException};
pub use exports::probe::{BUILD_ID, VERSION};
