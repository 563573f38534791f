//! Every symbol the JVM binds: `JNI_OnLoad` (below) and the natives of
//! `dev.tablecache.jni.NativeCodec`, one file per direction of the data:
//!
//! - [`write`]: a batch from the JVM (Arrow buffers by address, or `UnsafeRow` bytes) to a frame;
//! - [`read`]: a frame to a descriptor of native-owned buffers, and their release;
//! - [`arrow_c`]: a frame to Arrow C Data Interface structs the caller allocated;
//! - [`probe`]: what the JVM asks the library about itself (capability, version, build id,
//!   allocation counters) and the panic test hook.
//!
//! Each export converts its Java arguments ([`args`]), calls the format core and converts the
//! result; no format logic lives here. Its body runs inside `EnvUnowned::with_env`, which catches
//! panics, and resolves through [`crate::ThrowTableCacheException`].

mod args;
mod arrow_c;
pub(crate) mod probe;
mod read;
mod write;

use jni::sys::jint;

/// Called by the JVM when it loads the library: installs the panic hook
/// ([`crate::panic::install_hook`]) and asks for JNI 1.8.
// SAFETY: the one `JNI_OnLoad` in this library and its dependencies, the name the JVM looks up
// in a library it loads; exporting it unmangled overrides nothing.
#[unsafe(no_mangle)]
pub extern "system" fn JNI_OnLoad(
    _vm: *mut jni::sys::JavaVM,
    _reserved: *mut std::ffi::c_void,
) -> jint {
    crate::panic::install_hook();
    jni::sys::JNI_VERSION_1_8
}
