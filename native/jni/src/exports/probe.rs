//! What the JVM asks the library about itself: the highest format it writes, its version and
//! build id (the loader's handshake refuses a library whose version or id differ from the jar's),
//! the allocation counters of the leak and soak tests, and a deliberate panic for the tests of
//! the panic path.

use jni::objects::{JClass, JLongArray, JString};
use jni::sys::jint;
use jni::EnvUnowned;

use crate::errors::JniResult;
use crate::ThrowTableCacheException;

/// The library version; the JVM shim refuses a library whose version differs from its own.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The build id (build.rs): a hash over the sources, manifests, lock file, target, profile,
/// features and compiler this library was built from, prefixed with the target triple and the
/// profile. The same build writes it to `libtablecache.build-id` next to the library, which the
/// jar carries beside its library resource; the JVM shim refuses a library whose id differs.
pub const BUILD_ID: &str = env!("TABLECACHE_BUILD_ID");

/// Highest format version this library writes (the capability probe's answer): V4, and every
/// older format. Which one a cache gets is the JVM's choice (V3 unless V4 is asked for).
const CAPABILITY: jint = 4;

/// JNI export `NativeCodec.capabilities`: the highest format version written.
// SAFETY: the name is JNI's for a native of `dev.tablecache.jni.NativeCodec`; no other symbol in
// this library or its dependencies has it, so exporting it unmangled overrides nothing.
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
// SAFETY: the name is JNI's for a native of `dev.tablecache.jni.NativeCodec`; no other symbol in
// this library or its dependencies has it, so exporting it unmangled overrides nothing.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_tablecache_jni_NativeCodec_version<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> JString<'local> {
    unowned
        .with_env(|env| -> JniResult<JString<'local>> { Ok(JString::from_str(env, VERSION)?) })
        .resolve::<ThrowTableCacheException>()
}

/// JNI export `NativeCodec.buildId`: the build id ([`BUILD_ID`]).
// SAFETY: the name is JNI's for a native of `dev.tablecache.jni.NativeCodec`; no other symbol in
// this library or its dependencies has it, so exporting it unmangled overrides nothing.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_tablecache_jni_NativeCodec_buildId<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> JString<'local> {
    unowned
        .with_env(|env| -> JniResult<JString<'local>> { Ok(JString::from_str(env, BUILD_ID)?) })
        .resolve::<ThrowTableCacheException>()
}

/// JNI export `NativeCodec.allocationStats`: `{live handles, bytes they hold, allocator
/// allocated bytes, allocator resident bytes}`; the last two are -1 without jemalloc.
// SAFETY: the name is JNI's for a native of `dev.tablecache.jni.NativeCodec`; no other symbol in
// this library or its dependencies has it, so exporting it unmangled overrides nothing.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_tablecache_jni_NativeCodec_allocationStats<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> JLongArray<'local> {
    unowned
        .with_env(|env| -> JniResult<JLongArray<'local>> {
            let (handles, bytes) = crate::descriptor::live();
            let (allocated, resident) = crate::allocator_stats()
                .map(|(a, r)| (saturating_i64(a), saturating_i64(r)))
                .unwrap_or((-1, -1));
            let array = env.new_long_array(4)?;
            array.set_region(env, 0, &[handles, bytes, allocated, resident])?;
            Ok(array)
        })
        .resolve::<ThrowTableCacheException>()
}

/// `value` as a Java long, `Long.MAX_VALUE` past it.
fn saturating_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// JNI export `NativeCodec.panicForTest`: panics, so tests can check that a panic reaches Java
/// as an INTERNAL `TableCacheException` naming its file and line. It reads nothing and has no
/// other effect.
// SAFETY: the name is JNI's for a native of `dev.tablecache.jni.NativeCodec`; no other symbol in
// this library or its dependencies has it, so exporting it unmangled overrides nothing.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_tablecache_jni_NativeCodec_panicForTest<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
) {
    unowned
        .with_env(|_env| -> JniResult<()> { panic!("deliberate panic (NativeCodec.panicForTest)") })
        .resolve::<ThrowTableCacheException>()
}

#[cfg(test)]
mod tests {
    use super::*;

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
