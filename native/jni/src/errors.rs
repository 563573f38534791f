//! The error policy of every export: an error inside an export ([`JniError`]) or a panic becomes
//! a `dev.tablecache.TableCacheException(kind, message)` thrown into the JVM
//! ([`ThrowTableCacheException`]), unless a Java exception is already pending, and the export
//! returns its type's default value.
//!
//! The kind is the format core's [`ErrorKind`] name; a failed JNI call is `INTERNAL`. The panic's
//! message and location come from [`crate::panic`].

use jni::errors::ErrorPolicy;
use jni::objects::{JString, JThrowable, JValue};
use jni::{jni_sig, jni_str, Env};

use tablecache_format::{Error, ErrorKind};

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
    /// The kind the thrown `TableCacheException` carries.
    fn kind(&self) -> ErrorKind {
        match self {
            JniError::Core(e) => e.kind(),
            JniError::Jni(_) => ErrorKind::Internal,
        }
    }
}

/// What every export's body returns; [`ThrowTableCacheException`] resolves it.
pub(crate) type JniResult<T> = Result<T, JniError>;

/// Error policy: throw `dev.tablecache.TableCacheException(kind, message)` and
/// return the default value; never replace an exception that is already pending.
#[derive(Debug, Default)]
pub struct ThrowTableCacheException;

/// Throws `dev.tablecache.TableCacheException(kind, message)`, unless an exception is already
/// pending (which then stays the one Java sees).
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
        throw(env, ErrorKind::Internal, &crate::panic::report(payload))?;
        Ok(T::default())
    }
}
