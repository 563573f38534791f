//! Fuzz target `stats`: see `tablecache_fuzz::stats` (native/fuzz/src/lib.rs) for the input layout
//! and the invariants checked.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = tablecache_fuzz::stats(data);
});
