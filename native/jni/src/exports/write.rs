//! The write direction: a batch from the JVM to one cached batch (a frame) in a new Java `byte[]`.
//! `serialize` takes Arrow buffers that live in the JVM, by address ([`crate::import`]);
//! `serializeUnsafeRows` takes Spark `UnsafeRow` bytes, which the format core transposes;
//! `unsafeRowsSupported` says which schemas the second reads. Both writes take the same write
//! request ([`write_options`]).

use jni::objects::{JByteArray, JClass, JLongArray};
use jni::sys::{jint, jlong};
use jni::{Env, EnvUnowned};

use tablecache_format::schema::InternedSchema;
use tablecache_format::{Codec, Encoding, EncodingPolicy, Error, Format, WriteOptions};

use super::args::{borrowed_bytes, borrowed_longs, interned_schema, read_longs, row_count};
use crate::errors::JniResult;
use crate::{import, ThrowTableCacheException};

/// The format core's options from the write request of both serialize exports, with every Java
/// value checked: `format` is the capability number of the format to write (4 = V4, 3 = V3,
/// 2 = V2, which always has stats, 1 = legacy, which has neither stats nor encodings), and
/// `encoding_policy` an [`EncodingPolicy`] code (-1 auto, else the id of the pinned encoding).
fn write_options(
    format: jint,
    stats: bool,
    codec: jint,
    encoding_policy: jint,
    string_bound_limit: jint,
) -> JniResult<WriteOptions> {
    let format = match format {
        4 => Format::V4,
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
    interned: &InternedSchema,
    options: &WriteOptions,
) -> JniResult<JByteArray<'local>> {
    let frame = tablecache_format::write_interned(batch, interned, options)?;
    Ok(env.byte_array_from_slice(&frame)?)
}

/// JNI export `NativeCodec.serialize`: writes one cached batch from Arrow buffers that live in
/// the JVM, described by address (`BatchExporter`), in the format of the write request.
// SAFETY: the name is JNI's for a native of `dev.tablecache.jni.NativeCodec`; no other symbol in
// this library or its dependencies has it, so exporting it unmangled overrides nothing.
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
// SAFETY: the name is JNI's for a native of `dev.tablecache.jni.NativeCodec`; no other symbol in
// this library or its dependencies has it, so exporting it unmangled overrides nothing.
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
// SAFETY: the name is JNI's for a native of `dev.tablecache.jni.NativeCodec`; no other symbol in
// this library or its dependencies has it, so exporting it unmangled overrides nothing.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The format argument is the capability number: 4 = V4, 3 = V3, 2 = V2 (always with
    /// stats), 1 = legacy (never with stats); anything else is refused.
    #[test]
    fn the_format_argument_is_a_capability_number() {
        let written =
            |format, stats| write_options(format, stats, 1, -1, 256).map(|o| (o.format, o.stats));
        assert_eq!(written(4, false).ok(), Some((Format::V4, false)));
        assert_eq!(written(4, true).ok(), Some((Format::V4, true)));
        assert_eq!(written(3, true).ok(), Some((Format::V3, true)));
        assert_eq!(written(2, false).ok(), Some((Format::V2, true)));
        assert_eq!(written(1, true).ok(), Some((Format::Legacy, false)));
        for bad in [0, 5, -1, i32::MAX] {
            assert!(written(bad, true).is_err(), "{bad}");
        }
    }

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
}
