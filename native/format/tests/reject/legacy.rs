//! Cases of legacy Arrow IPC streams (FORMAT.md §5).

use super::forge::primitives;
use super::{RejectCase, Section};
use tablecache_format::{ChecksumKind, Codec, Encoding, Format};

fn case(name: &'static str, what: &'static str, bytes: Vec<u8>) -> RejectCase {
    RejectCase {
        name,
        kind: "CORRUPT_FRAME",
        section: Section::Legacy,
        what,
        bytes,
    }
}

/// Cases of legacy streams.
pub fn cases() -> Vec<RejectCase> {
    let b = primitives(
        Format::Legacy,
        false,
        Codec::None,
        Encoding::Plain,
        ChecksumKind::Crc32c,
    );
    let mut after_eos = b.clone();
    after_eos.extend_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]);
    let mut one_byte_after = b.clone();
    one_byte_after.push(0);
    vec![
        case(
            "legacy_no_eos",
            "a legacy stream without its end-of-stream marker",
            b[..b.len() - 8].to_vec(),
        ),
        case(
            "legacy_half_eos",
            "a legacy stream cut inside its end-of-stream marker",
            b[..b.len() - 4].to_vec(),
        ),
        case(
            "legacy_second_eos",
            "a second end-of-stream marker after the first",
            after_eos,
        ),
        case(
            "legacy_byte_after_eos",
            "one byte after the end-of-stream marker",
            one_byte_after,
        ),
        case(
            "legacy_marker_only",
            "only the continuation marker",
            b[..4].to_vec(),
        ),
        case(
            "legacy_cut_in_schema",
            "a stream cut 16 bytes into its schema message",
            b[..16].to_vec(),
        ),
        case(
            "legacy_eos_only",
            "an end-of-stream marker and nothing else: no schema, no batch",
            vec![0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0],
        ),
    ]
}
