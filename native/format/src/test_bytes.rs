//! Bytes for the crate's unit tests.

/// `len` bytes of a xorshift64 sequence from `seed` (non-zero): incompressible, and the same on
/// every run.
pub(crate) fn random(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}
