//! libtablecache: the JNI exports for `dev.tablecache.jni.NativeCodec` (see
//! docs/ARCHITECTURE.md), over the `tablecache-format` crate.
//!
//! No format logic lives here: each export converts Java arguments, calls the
//! format core, and converts the result. Every export runs inside
//! [`EnvUnowned::with_env`], which catches panics, and resolves through
//! [`ThrowTableCacheException`], which turns an error or a panic into a
//! `dev.tablecache.TableCacheException` unless an exception is already pending.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

mod arrow_c;
mod export;
mod import;

use std::ptr::NonNull;

use jni::errors::ErrorPolicy;
use jni::objects::{JByteArray, JClass, JIntArray, JLongArray, JString, JThrowable, JValue};
use jni::sys::{jint, jlong};
use jni::{jni_sig, jni_str, Env, EnvUnowned};

use tablecache_format::schema::global_schema_cache;
use tablecache_format::Codec;
use tablecache_format::Format;
use tablecache_format::WriteOptions;
use tablecache_format::{Encoding, EncodingPolicy};
use tablecache_format::{Error, ErrorKind};

/// The library version; the JVM shim refuses a library whose version differs from its own.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The build id (build.rs): a hash over the sources, manifests, lock file, target, profile,
/// features and compiler this library was built from, prefixed with the target triple and the
/// profile. The same build writes it to `libtablecache.build-id` next to the library, which the
/// jar carries beside its library resource; the JVM shim refuses a library whose id differs.
pub const BUILD_ID: &str = env!("TABLECACHE_BUILD_ID");

#[cfg(feature = "jemalloc")]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Process-wide allocator counters `(allocated, resident)` in bytes, from jemalloc's statistics;
/// `None` when the library is built without the `jemalloc` feature (the system allocator keeps no
/// such counters). The JVM's leak and soak tests compare these before and after a workload.
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

/// Highest format version this library writes (the capability probe's answer).
const CAPABILITY: jint = 3;

/// An error inside an export: from the format core or from JNI itself.
#[derive(Debug, thiserror::Error)]
pub enum JniError {
    /// A format or argument error.
    #[error(transparent)]
    Core(#[from] Error),
    /// A JNI call failed (often: a Java exception is already pending).
    #[error("JNI: {0}")]
    Jni(#[from] jni::errors::Error),
}

impl JniError {
    fn kind(&self) -> ErrorKind {
        match self {
            JniError::Core(e) => e.kind(),
            JniError::Jni(_) => ErrorKind::Internal,
        }
    }
}

type JniResult<T> = Result<T, JniError>;

/// Error policy: throw `dev.tablecache.TableCacheException(kind, message)` and
/// return the default value; never replace an exception that is already pending.
#[derive(Debug, Default)]
pub struct ThrowTableCacheException;

fn throw(env: &mut Env<'_>, kind: ErrorKind, message: &str) -> jni::errors::Result<()> {
    if env.exception_check() {
        return Ok(());
    }
    let kind = JString::from_str(env, kind.name())?;
    let message = JString::from_str(env, message)?;
    let exception = env.new_object(
        jni_str!("dev/tablecache/TableCacheException"),
        jni_sig!("(Ljava/lang/String;Ljava/lang/String;)V"),
        &[JValue::from(&kind), JValue::from(&message)],
    )?;
    let exception = env.cast_local::<JThrowable>(exception)?;
    // throw() reports the now-pending exception as an error; that is the goal here.
    let _ = env.throw(exception);
    Ok(())
}

impl<T: Default> ErrorPolicy<T, JniError> for ThrowTableCacheException {
    type Captures<'unowned_env_local: 'native_method, 'native_method> = ();

    fn on_error<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _captures: &mut Self::Captures<'unowned_env_local, 'native_method>,
        err: JniError,
    ) -> jni::errors::Result<T> {
        throw(env, err.kind(), &err.to_string())?;
        Ok(T::default())
    }

    fn on_panic<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _captures: &mut Self::Captures<'unowned_env_local, 'native_method>,
        payload: Box<dyn std::any::Any + Send + 'static>,
    ) -> jni::errors::Result<T> {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-string panic payload".to_string());
        // The payload may itself panic on drop; leak it rather than unwind here.
        std::mem::forget(payload);
        let at = PANIC_LOCATION
            .try_with(|l| l.borrow_mut().take())
            .ok()
            .flatten()
            .unwrap_or_else(|| "an unknown location".to_string());
        throw(
            env,
            ErrorKind::Internal,
            &format!("panic in tablecache native code at {at}: {message}"),
        )?;
        Ok(T::default())
    }
}

thread_local! {
    /// Where the last panic on this thread happened, for the exception that reports it.
    static PANIC_LOCATION: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Records each panic's location for [`ThrowTableCacheException`] instead of printing it: a
/// panic in an export becomes a Java exception that says where it happened. This library links
/// its own copy of std, so the hook sees only this library's panics.
fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let at = info
                .location()
                .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
            let _ = PANIC_LOCATION.try_with(|p| *p.borrow_mut() = at);
        }));
    });
}

/// Called by the JVM when it loads the library.
#[unsafe(no_mangle)]
pub extern "system" fn JNI_OnLoad(
    _vm: *mut jni::sys::JavaVM,
    _reserved: *mut std::ffi::c_void,
) -> jint {
    install_panic_hook();
    jni::sys::JNI_VERSION_1_8
}

/// JNI export `NativeCodec.panicForTest`: panics, so tests can check that a panic reaches Java
/// as an INTERNAL `TableCacheException` naming its file and line. It reads nothing and has no
/// other effect.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_tablecache_jni_NativeCodec_panicForTest<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
) {
    unowned
        .with_env(|_env| -> JniResult<()> { panic!("deliberate panic (NativeCodec.panicForTest)") })
        .resolve::<ThrowTableCacheException>()
}

fn read_longs(env: &Env<'_>, array: &JLongArray<'_>, what: &str) -> JniResult<Vec<i64>> {
    if array.is_null() {
        return Err(Error::InvalidArgument(format!("{what} is null")).into());
    }
    let mut out = vec![0i64; array.len(env)?];
    array.get_region(env, 0, &mut out)?;
    Ok(out)
}

/// The format core's options from the write request of both serialize exports, with every Java
/// value checked: `format` is the capability number of the format to write (3 = V3, 2 = V2,
/// which always has stats, 1 = legacy, which has neither stats nor encodings), and
/// `encoding_policy` an [`EncodingPolicy`] code (-1 auto, else the id of the pinned encoding).
fn write_options(
    format: jint,
    stats: bool,
    codec: jint,
    encoding_policy: jint,
    string_bound_limit: jint,
) -> JniResult<WriteOptions> {
    let format = match format {
        3 => Format::V3,
        2 => Format::V2,
        1 => Format::Legacy,
        other => return Err(Error::InvalidArgument(format!("unknown format {other}")).into()),
    };
    let string_bound_limit = usize::try_from(string_bound_limit).map_err(|_| {
        Error::InvalidArgument(format!("negative string bound limit {string_bound_limit}"))
    })?;
    let legacy = format == Format::Legacy;
    Ok(WriteOptions {
        format,
        stats: !legacy && (stats || format == Format::V2),
        codec: Codec::from_id(codec)?,
        encoding: if legacy {
            EncodingPolicy::Pinned(Encoding::Plain)
        } else {
            EncodingPolicy::from_code(encoding_policy)?
        },
        string_bound_limit,
        ..WriteOptions::default()
    })
}

/// Writes `batch` as one cached batch into a new Java `byte[]`.
fn frame_array<'local>(
    env: &mut Env<'local>,
    batch: &arrow_array::RecordBatch,
    interned: &tablecache_format::schema::InternedSchema,
    options: &WriteOptions,
) -> JniResult<JByteArray<'local>> {
    let frame = tablecache_format::write_interned(batch, interned, options)?;
    Ok(env.byte_array_from_slice(&frame)?)
}

fn interned_schema(
    env: &Env<'_>,
    schema: &JByteArray<'_>,
) -> JniResult<std::sync::Arc<tablecache_format::schema::InternedSchema>> {
    if schema.is_null() {
        return Err(Error::InvalidArgument("schema is null".into()).into());
    }
    let schema_bytes = env.convert_byte_array(schema)?;
    Ok(global_schema_cache().get_or_parse(&schema_bytes)?)
}

fn row_count(row_count: jint) -> JniResult<usize> {
    Ok(usize::try_from(row_count)
        .map_err(|_| Error::InvalidArgument(format!("negative row count {row_count}")))?)
}

/// JNI export `NativeCodec.serialize`: writes one cached batch from Arrow buffers that live in
/// the JVM, described by address (`BatchExporter`), in the format of the write request.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)] // the JNI signature; write_options groups them at once
pub extern "system" fn Java_dev_tablecache_jni_NativeCodec_serialize<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
    schema: JByteArray<'local>,
    row_count_arg: jint,
    nodes: JLongArray<'local>,
    buffers: JLongArray<'local>,
    format: jint,
    stats: jni::sys::jboolean,
    codec: jint,
    encoding_policy: jint,
    string_bound_limit: jint,
) -> JByteArray<'local> {
    unowned
        .with_env(|env| -> JniResult<JByteArray<'local>> {
            let options = write_options(format, stats, codec, encoding_policy, string_bound_limit)?;
            let rows = row_count(row_count_arg)?;
            let interned = interned_schema(env, &schema)?;
            let nodes = read_longs(env, &nodes, "nodes")?;
            let buffers = read_longs(env, &buffers, "buffers")?;
            // SAFETY: the Java caller (BatchExporter) keeps every buffer it described alive and
            // unmodified until this call returns, and `frame` below owns its bytes, so no
            // borrowed buffer outlives the call.
            let batch = unsafe { import::import_batch(&interned.schema, rows, &nodes, &buffers)? };
            frame_array(env, &batch, &interned, &options)
        })
        .resolve::<ThrowTableCacheException>()
}

/// JNI export `NativeCodec.serializeUnsafeRows`: writes one frame from Spark `UnsafeRow`s that
/// the JVM copied, back to back, into off-heap memory (`tablecache_format::unsafe_row`). Row `i`
/// is `rows[starts[i]..starts[i + 1]]`; `starts` holds `row_count + 1` longs. The write request
/// is that of `serialize`.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)] // the JNI signature; write_options groups them at once
pub extern "system" fn Java_dev_tablecache_jni_NativeCodec_serializeUnsafeRows<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
    schema: JByteArray<'local>,
    rows_address: jlong,
    rows_length: jlong,
    starts_address: jlong,
    row_count_arg: jint,
    format: jint,
    stats: jni::sys::jboolean,
    codec: jint,
    encoding_policy: jint,
    string_bound_limit: jint,
) -> JByteArray<'local> {
    unowned
        .with_env(|env| -> JniResult<JByteArray<'local>> {
            let options = write_options(format, stats, codec, encoding_policy, string_bound_limit)?;
            let rows = row_count(row_count_arg)?;
            let rows_length = usize::try_from(rows_length).map_err(|_| {
                Error::InvalidArgument(format!("negative rows length {rows_length}"))
            })?;
            let interned = interned_schema(env, &schema)?;
            // SAFETY: the Java caller (UnsafeRowBuffer) keeps both off-heap regions allocated and
            // unmodified until this call returns, and nothing borrowed from them outlives the
            // call: the batch below copies every value into buffers it owns.
            let (row_bytes, starts) = unsafe {
                (
                    borrowed_bytes(rows_address, rows_length, "rows")?,
                    borrowed_longs(starts_address, rows + 1, "row starts")?,
                )
            };
            let batch = tablecache_format::unsafe_row::to_record_batch(
                &interned.schema,
                row_bytes,
                starts,
            )?;
            frame_array(env, &batch, &interned, &options)
        })
        .resolve::<ThrowTableCacheException>()
}

/// JNI export `NativeCodec.unsafeRowsSupported`: whether `serializeUnsafeRows` reads every field
/// of this schema (`tablecache_format::unsafe_row::supports`), so the JVM asks instead of keeping a copy of
/// the type list.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_tablecache_jni_NativeCodec_unsafeRowsSupported<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
    schema: JByteArray<'local>,
) -> jni::sys::jboolean {
    unowned
        .with_env(|env| -> JniResult<jni::sys::jboolean> {
            let interned = interned_schema(env, &schema)?;
            Ok(tablecache_format::unsafe_row::supports(&interned.schema))
        })
        .resolve::<ThrowTableCacheException>()
}

/// `len` bytes at `address` (which may be 0 when `len` is 0).
///
/// # Safety
/// A non-zero `len` requires `address` to be readable for `len` bytes for the returned lifetime.
unsafe fn borrowed_bytes<'a>(address: jlong, len: usize, what: &str) -> JniResult<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    let ptr = NonNull::new(address as usize as *mut u8)
        .ok_or_else(|| Error::InvalidArgument(format!("{what}: null address for {len} bytes")))?;
    // SAFETY: non-null, and the caller guarantees `len` readable bytes that outlive 'a.
    Ok(unsafe { std::slice::from_raw_parts(ptr.as_ptr(), len) })
}

/// `len` longs at `address`, which must be 8-byte aligned.
///
/// # Safety
/// `address` must be readable for `len * 8` bytes for the returned lifetime.
unsafe fn borrowed_longs<'a>(address: jlong, len: usize, what: &str) -> JniResult<&'a [i64]> {
    let ptr = NonNull::new(address as usize as *mut i64)
        .ok_or_else(|| Error::InvalidArgument(format!("{what}: null address")))?;
    if !(ptr.as_ptr() as usize).is_multiple_of(std::mem::align_of::<i64>()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: address {address:#x} is not 8-byte aligned"
        ))
        .into());
    }
    // SAFETY: non-null and aligned, and the caller guarantees `len` readable longs that outlive 'a.
    Ok(unsafe { std::slice::from_raw_parts(ptr.as_ptr(), len) })
}

/// The projection of a decode request: all columns for null, else each index checked.
fn projection(env: &Env<'_>, columns: &JIntArray<'_>) -> JniResult<Option<Vec<usize>>> {
    if columns.is_null() {
        return Ok(None);
    }
    let mut ints = vec![0i32; columns.len(env)?];
    columns.get_region(env, 0, &mut ints)?;
    Ok(Some(
        ints.iter()
            .map(|&c| usize::try_from(c).map_err(|_| Error::NegativeColumn(c)))
            .collect::<Result<Vec<usize>, Error>>()?,
    ))
}

/// Decodes the projected columns of a Java frame. The frame is copied out with
/// GetByteArrayRegion, only what the projection reads, so decompression and the schema cache's
/// lock never run while a Java array is pinned.
fn decode_projected(
    env: &Env<'_>,
    frame: &JByteArray<'_>,
    columns: &JIntArray<'_>,
) -> JniResult<arrow_array::RecordBatch> {
    if frame.is_null() {
        return Err(Error::InvalidArgument("frame is null".into()).into());
    }
    let projection = projection(env, columns)?;
    let len = frame.len(env)?;
    Ok(tablecache_format::decode_fetched(
        len,
        |offset, dst| copy_region(env, frame, offset, dst),
        projection.as_deref(),
    )?)
}

/// JNI export `NativeCodec.deserializeProjected`: decodes the projected
/// columns and returns the descriptor of their native-owned buffers.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_tablecache_jni_NativeCodec_deserializeProjected<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
    frame: JByteArray<'local>,
    columns: JIntArray<'local>,
) -> JLongArray<'local> {
    unowned
        .with_env(|env| -> JniResult<JLongArray<'local>> {
            let batch = decode_projected(env, &frame, &columns)?;
            let exported = export::export_batch(&batch)?;
            let result = (|| -> JniResult<JLongArray<'local>> {
                let array = env.new_long_array(exported.descriptor.len())?;
                array.set_region(env, 0, &exported.descriptor)?;
                Ok(array)
            })();
            if result.is_err() {
                exported.release_all();
            }
            result
        })
        .resolve::<ThrowTableCacheException>()
}

/// JNI export `NativeCodec.decodeToArrowC`: decodes the projected columns into Arrow C Data
/// Interface structs the caller allocated (one `ArrowArray` and one `ArrowSchema` per projected
/// column, by address) and returns the row count. The caller imports them (which moves them).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_tablecache_jni_NativeCodec_decodeToArrowC<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
    frame: JByteArray<'local>,
    columns: JIntArray<'local>,
    arrays: JLongArray<'local>,
    schemas: JLongArray<'local>,
) -> jint {
    unowned
        .with_env(|env| -> JniResult<jint> {
            let arrays = read_longs(env, &arrays, "arrays")?;
            let schemas = read_longs(env, &schemas, "schemas")?;
            // SAFETY: NativeCodec.decodeToArrowC's contract: the Java caller allocated each
            // struct with its Arrow C Data library (holding nothing to release) and keeps it
            // alive and untouched until this returns.
            unsafe { arrow_c::clear(&arrays, &schemas)? };
            let batch = decode_projected(env, &frame, &columns)?;
            // SAFETY: the same structs, now cleared by `clear` above.
            unsafe { arrow_c::export_columns(&batch, &arrays, &schemas)? };
            Ok(jint::try_from(batch.num_rows()).map_err(|_| {
                Error::Internal(format!("{} rows do not fit a Java int", batch.num_rows()))
            })?)
        })
        .resolve::<ThrowTableCacheException>()
}

/// Copies `dst.len()` bytes of `array` from `offset` (GetByteArrayRegion).
fn copy_region(
    env: &Env<'_>,
    array: &JByteArray<'_>,
    offset: usize,
    dst: &mut [u8],
) -> Result<(), Error> {
    if dst.is_empty() {
        return Ok(());
    }
    let start = jni::sys::jsize::try_from(offset)
        .map_err(|_| Error::Internal(format!("offset {offset} past a Java array")))?;
    // SAFETY: jbyte (i8) and u8 have the same size and alignment, and `dst` is exclusively
    // borrowed for the whole call.
    let dst = unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<i8>(), dst.len()) };
    array
        .get_region(env, start, dst)
        .map_err(|e| Error::Internal(format!("copying the frame out of the Java array: {e}")))
}

/// JNI export `NativeCodec.release`: frees one decoded column.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_tablecache_jni_NativeCodec_release<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    unowned
        .with_env(|_env| -> JniResult<()> { Ok(export::release(handle)?) })
        .resolve::<ThrowTableCacheException>()
}

/// JNI export `NativeCodec.capabilities`: the highest format version written.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_tablecache_jni_NativeCodec_capabilities<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> jint {
    unowned
        .with_env(|_env| -> JniResult<jint> { Ok(CAPABILITY) })
        .resolve::<ThrowTableCacheException>()
}

/// JNI export `NativeCodec.version`: the library version.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_tablecache_jni_NativeCodec_version<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> JString<'local> {
    unowned
        .with_env(|env| -> JniResult<JString<'local>> {
            Ok(JString::from_str(env, crate::VERSION)?)
        })
        .resolve::<ThrowTableCacheException>()
}

/// JNI export `NativeCodec.buildId`: the build id ([`BUILD_ID`]).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_tablecache_jni_NativeCodec_buildId<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> JString<'local> {
    unowned
        .with_env(|env| -> JniResult<JString<'local>> {
            Ok(JString::from_str(env, crate::BUILD_ID)?)
        })
        .resolve::<ThrowTableCacheException>()
}

/// JNI export `NativeCodec.allocationStats`: `{live handles, bytes they hold, allocator
/// allocated bytes, allocator resident bytes}`; the last two are -1 without jemalloc.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_tablecache_jni_NativeCodec_allocationStats<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> JLongArray<'local> {
    unowned
        .with_env(|env| -> JniResult<JLongArray<'local>> {
            let (handles, bytes) = export::live();
            let (allocated, resident) = crate::allocator_stats()
                .map(|(a, r)| (saturating_i64(a), saturating_i64(r)))
                .unwrap_or((-1, -1));
            let array = env.new_long_array(4)?;
            array.set_region(env, 0, &[handles, bytes, allocated, resident])?;
            Ok(array)
        })
        .resolve::<ThrowTableCacheException>()
}

fn saturating_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The encoding argument is a policy code: -1 auto, an encoding id pins it (the ids older
    /// shims sent), anything else is refused; legacy streams ignore it.
    #[test]
    fn the_encoding_argument_is_a_policy_code() {
        let policy = |format, code| write_options(format, true, 1, code, 256).map(|o| o.encoding);
        assert_eq!(policy(3, -1).ok(), Some(EncodingPolicy::Auto));
        assert_eq!(
            policy(2, 0).ok(),
            Some(EncodingPolicy::Pinned(Encoding::Plain))
        );
        assert_eq!(
            policy(3, 1).ok(),
            Some(EncodingPolicy::Pinned(Encoding::ByteStreamSplit))
        );
        for bad in [-2, 2, i32::MAX] {
            assert!(policy(3, bad).is_err(), "{bad}");
        }
        assert_eq!(
            policy(1, -7).ok(),
            Some(EncodingPolicy::Pinned(Encoding::Plain))
        );
        assert_eq!(WriteOptions::default().encoding, EncodingPolicy::Auto);
    }

    /// The id is `<triple>-<profile>-<32 hex digits>`, and build.rs wrote the same id next to
    /// the library (which is where Maven takes it from).
    #[test]
    fn build_id_names_the_target_and_matches_the_id_file() {
        let hash = BUILD_ID.rsplit('-').next().unwrap_or_default();
        assert_eq!(hash.len(), 32, "{BUILD_ID}");
        assert!(hash.bytes().all(|b| b.is_ascii_hexdigit()), "{BUILD_ID}");
        let triple = BUILD_ID
            .strip_suffix(hash)
            .and_then(|s| s.strip_suffix('-'))
            .and_then(|s| s.rsplit_once('-'))
            .map(|(t, _)| t)
            .unwrap_or_default();
        assert!(triple.contains(std::env::consts::ARCH), "{BUILD_ID}");
        // The test binary runs from <profile dir>/deps/.
        let exe = std::env::current_exe().expect("test binary path");
        let profile_dir = exe
            .parent()
            .and_then(std::path::Path::parent)
            .expect("profile directory");
        let written = std::fs::read_to_string(profile_dir.join("libtablecache.build-id"))
            .expect("build.rs writes libtablecache.build-id next to the library");
        assert_eq!(written.trim(), BUILD_ID);
    }
}
