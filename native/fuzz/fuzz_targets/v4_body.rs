//! Fuzz target `v4_body`: see `tablecache_fuzz::v4_body` (native/fuzz/src/lib.rs) for the input
//! layout and the invariants checked.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = tablecache_fuzz::v4_body(data);
});
