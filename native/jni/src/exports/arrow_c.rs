//! The Arrow C export: a frame decoded into Arrow C Data Interface structs that the caller
//! allocated (Comet's `CometBatchDecoder`), which its own Arrow Java then takes over
//! ([`crate::c_data`] writes them).

use jni::objects::{JByteArray, JClass, JIntArray, JLongArray};
use jni::sys::jint;
use jni::EnvUnowned;

use tablecache_format::{Error, ReadOptions};

use super::args::read_longs;
use super::read::decode_projected;
use crate::errors::JniResult;
use crate::ThrowTableCacheException;

/// JNI export `NativeCodec.decodeToArrowC`: decodes the projected columns into Arrow C Data
/// Interface structs the caller allocated (one `ArrowArray` and one `ArrowSchema` per projected
/// column, by address) and returns the row count. The caller imports them (which moves them).
// SAFETY: the name is JNI's for a native of `dev.tablecache.jni.NativeCodec`; no other symbol in
// this library or its dependencies has it, so exporting it unmangled overrides nothing.
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
            unsafe { crate::c_data::clear(&arrays, &schemas)? };
            // Comet's readers take plain Arrow: no dictionaries.
            let batch = decode_projected(env, &frame, &columns, ReadOptions::default())?;
            // SAFETY: the same structs, now cleared by `clear` above.
            unsafe { crate::c_data::export_columns(&batch, &arrays, &schemas)? };
            Ok(jint::try_from(batch.num_rows()).map_err(|_| {
                Error::Internal(format!("{} rows do not fit a Java int", batch.num_rows()))
            })?)
        })
        .resolve::<ThrowTableCacheException>()
}
