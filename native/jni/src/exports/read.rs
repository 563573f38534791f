//! The read direction: a frame to the JVM as a descriptor of native-owned buffers, one handle per
//! column ([`crate::descriptor`]), and the release of each handle. The decode itself
//! ([`decode_projected`]) is shared with the Arrow C export.

use jni::objects::{JByteArray, JClass, JIntArray, JLongArray};
use jni::sys::{jboolean, jlong};
use jni::{Env, EnvUnowned};

use tablecache_format::{Error, ReadOptions};

use super::args::{copy_region, projection};
use crate::errors::JniResult;
use crate::{descriptor, ThrowTableCacheException};

/// Decodes the projected columns of a Java frame. The frame is copied out with
/// GetByteArrayRegion, only what the projection reads, so decompression and the schema cache's
/// lock never run while a Java array is pinned. `options` says whether string dictionaries may
/// come back as dictionaries (only readers that follow keys ask for them).
pub(super) fn decode_projected(
    env: &Env<'_>,
    frame: &JByteArray<'_>,
    columns: &JIntArray<'_>,
    options: ReadOptions,
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
        options,
    )?)
}

/// JNI export `NativeCodec.deserializeProjected`: decodes the projected columns and returns the
/// descriptor of their native-owned buffers. With `dictionary_strings`, a string column stored
/// as a dictionary is described as its keys and entries (docs/ARCHITECTURE.md, "Output").
// SAFETY: the name is JNI's for a native of `dev.tablecache.jni.NativeCodec`; no other symbol in
// this library or its dependencies has it, so exporting it unmangled overrides nothing.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_tablecache_jni_NativeCodec_deserializeProjected<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
    frame: JByteArray<'local>,
    columns: JIntArray<'local>,
    dictionary_strings: jboolean,
) -> JLongArray<'local> {
    unowned
        .with_env(|env| -> JniResult<JLongArray<'local>> {
            let options = ReadOptions { dictionary_strings };
            let batch = decode_projected(env, &frame, &columns, options)?;
            let exported = descriptor::export_batch(&batch, dictionary_strings)?;
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

/// JNI export `NativeCodec.release`: frees one decoded column.
// SAFETY: the name is JNI's for a native of `dev.tablecache.jni.NativeCodec`; no other symbol in
// this library or its dependencies has it, so exporting it unmangled overrides nothing.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_tablecache_jni_NativeCodec_release<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    unowned
        .with_env(|_env| -> JniResult<()> { Ok(descriptor::release(handle)?) })
        .resolve::<ThrowTableCacheException>()
}
