//! Java arguments into Rust values, checked, for the exports: arrays copied out of the JVM, counts
//! and column indices made `usize`, off-heap addresses borrowed as slices, the schema interned.
//! A null or out-of-range argument is an `INVALID_ARGUMENT` error, never a crash.

use std::ptr::NonNull;
use std::sync::Arc;

use jni::objects::{JByteArray, JIntArray, JLongArray};
use jni::sys::{jint, jlong};
use jni::Env;

use tablecache_format::schema::{global_schema_cache, InternedSchema};
use tablecache_format::Error;

use crate::errors::JniResult;

/// The contents of a Java `long[]` (`what` names it in the error for null).
pub(super) fn read_longs(env: &Env<'_>, array: &JLongArray<'_>, what: &str) -> JniResult<Vec<i64>> {
    if array.is_null() {
        return Err(Error::InvalidArgument(format!("{what} is null")).into());
    }
    let mut out = vec![0i64; array.len(env)?];
    array.get_region(env, 0, &mut out)?;
    Ok(out)
}

/// The schema of a write request (an encoded Arrow schema), parsed once per distinct schema by the
/// format core's intern cache.
pub(super) fn interned_schema(
    env: &Env<'_>,
    schema: &JByteArray<'_>,
) -> JniResult<Arc<InternedSchema>> {
    if schema.is_null() {
        return Err(Error::InvalidArgument("schema is null".into()).into());
    }
    let schema_bytes = env.convert_byte_array(schema)?;
    Ok(global_schema_cache().get_or_parse(&schema_bytes)?)
}

/// A row count from Java, which must not be negative.
pub(super) fn row_count(row_count: jint) -> JniResult<usize> {
    Ok(usize::try_from(row_count)
        .map_err(|_| Error::InvalidArgument(format!("negative row count {row_count}")))?)
}

/// `len` bytes at `address` (which may be 0 when `len` is 0).
///
/// # Safety
/// A non-zero `len` requires `address` to be readable for `len` bytes for the returned lifetime.
pub(super) unsafe fn borrowed_bytes<'a>(
    address: jlong,
    len: usize,
    what: &str,
) -> JniResult<&'a [u8]> {
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
pub(super) unsafe fn borrowed_longs<'a>(
    address: jlong,
    len: usize,
    what: &str,
) -> JniResult<&'a [i64]> {
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
pub(super) fn projection(env: &Env<'_>, columns: &JIntArray<'_>) -> JniResult<Option<Vec<usize>>> {
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

/// Copies `dst.len()` bytes of `array` from `offset` (GetByteArrayRegion).
pub(super) fn copy_region(
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
