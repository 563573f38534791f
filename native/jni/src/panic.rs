//! Panics: a panic in an export is caught by `EnvUnowned::with_env` and reported by the error
//! policy ([`crate::ThrowTableCacheException`]) as an `INTERNAL` exception that says where it
//! happened. The hook ([`install_hook`], installed by `JNI_OnLoad`) records each panic's location
//! instead of printing it; [`report`] turns the caught payload and that location into the
//! exception's message.

use std::cell::RefCell;

thread_local! {
    /// Where the last panic on this thread happened, for the exception that reports it.
    static PANIC_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Records each panic's location for [`report`] instead of printing it: a panic in an export
/// becomes a Java exception that says where it happened. This library links its own copy of std,
/// so the hook sees only this library's panics. Installing it again does nothing.
pub(crate) fn install_hook() {
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

/// The message of the exception that reports a caught panic: its location (taken, so it is
/// reported once) and its payload's text. The payload is leaked rather than dropped, since its
/// drop may itself panic and there is no unwinding from here.
pub(crate) fn report(payload: Box<dyn std::any::Any + Send + 'static>) -> String {
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
    format!("panic in tablecache native code at {at}: {message}")
}
