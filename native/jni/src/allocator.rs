//! The library's global allocator: jemalloc (`tikv-jemallocator`) with the `jemalloc` feature
//! (default on), else the system allocator; and its counters for the JVM's leak and soak tests
//! (docs/ARCHITECTURE.md, "Allocator").

#[cfg(feature = "jemalloc")]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Process-wide allocator counters `(allocated, resident)` in bytes, from jemalloc's statistics;
/// `None` when the library is built without the `jemalloc` feature (the system allocator keeps no
/// such counters). The JVM's leak and soak tests compare these before and after a workload.
pub fn allocator_stats() -> Option<(u64, u64)> {
    #[cfg(feature = "jemalloc")]
    {
        use tikv_jemalloc_ctl::{epoch, stats};
        // jemalloc caches its statistics; advancing the epoch refreshes them.
        epoch::advance().ok()?;
        let allocated = stats::allocated::read().ok()?;
        let resident = stats::resident::read().ok()?;
        Some((allocated as u64, resident as u64))
    }
    #[cfg(not(feature = "jemalloc"))]
    {
        None
    }
}
