//! Fuzz target `schema_cache`: see `tablecache_fuzz::schema_cache` (native/fuzz/src/lib.rs) for the input layout
//! and the invariants checked.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = tablecache_fuzz::schema_cache(data);
});
