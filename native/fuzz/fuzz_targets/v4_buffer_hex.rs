//! Fuzz target `v4_buffer_hex`: see `tablecache_fuzz::run` (native/fuzz/src/lib.rs) for the
//! input layout and the invariants checked.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = tablecache_fuzz::run("v4_buffer_hex", data);
});
