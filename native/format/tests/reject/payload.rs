//! Cases in the payloads: the metadata is valid, only decoding a column finds the damage.

use super::forge::{
    batch, col, frame_of, layout, primitives, put_u32, reseal, set_u32, u32_at, v3,
};
use super::{RejectCase, Section};
use arrow_array::{Int64Array, StringArray};
use tablecache_format::{ChecksumKind, Codec, Encoding, Format};

fn case(name: &'static str, kind: &'static str, what: &'static str, bytes: Vec<u8>) -> RejectCase {
    RejectCase {
        name,
        kind,
        section: Section::Payload,
        what,
        bytes,
    }
}

/// Cases in the payloads.
pub fn cases() -> Vec<RejectCase> {
    let f = v3();
    let (_, d, p) = layout(&f);
    let mut flipped = f.clone();
    flipped[p + u32_at(&f, d + 20) + 1] ^= 0xFF;
    let v3_none = primitives(
        Format::V3,
        false,
        Codec::None,
        Encoding::Plain,
        ChecksumKind::Crc32c,
    );
    let v2_none = primitives(
        Format::V2,
        false,
        Codec::None,
        Encoding::Plain,
        ChecksumKind::Crc32c,
    );
    let lz4 = primitives(
        Format::V3,
        false,
        Codec::Lz4,
        Encoding::Plain,
        ChecksumKind::Crc32c,
    );
    let (_, ld, _) = layout(&lz4);
    let unchecked = primitives(
        Format::V3,
        false,
        Codec::Lz4,
        Encoding::Plain,
        ChecksumKind::None,
    );
    let (_, ud, up) = layout(&unchecked);
    let mut garbage = unchecked.clone();
    let stored0 = u32_at(&unchecked, ud + 4);
    garbage[up..up + stored0].fill(0xFF);
    let ints = frame_of(
        &batch(vec![("x", col(Int64Array::from(vec![1, 2, 3])))]),
        |o| {
            o.stats = false;
            o.codec = Codec::None;
        },
    );
    let strings = frame_of(
        &batch(vec![("x", col(StringArray::from(vec!["a", "b", "c"])))]),
        |o| {
            o.stats = false;
            o.codec = Codec::None;
        },
    );
    let swapped = {
        let (is, _, _) = layout(&ints);
        let schema = &strings[28..28 + u32_at(&strings, 16)];
        let mut b = ints[..28].to_vec();
        put_u32(&mut b, 16, schema.len() as u32);
        b.extend_from_slice(schema);
        b.extend_from_slice(&ints[is..]);
        reseal(b)
    };
    vec![
        case(
            "payload_checksum_mismatch",
            "CHECKSUM_MISMATCH",
            "one byte of column 1's payload flipped; its directory checksum no longer matches",
            flipped,
        ),
        case(
            "payload_v3_row_count_disagrees",
            "CORRUPT_FRAME",
            "a V3 frame (no stats) whose header says 4 rows, its columns hold 5; checksum valid \
             (the decode budget: its fixed-width columns declare more than 4 rows take)",
            set_u32(&v3_none, 8, 4),
        ),
        case(
            "payload_v2_row_count_disagrees",
            "SCHEMA_MISMATCH",
            "a V2 frame (no stats) whose header says 6 rows, its body holds 5; checksum valid",
            set_u32(&v2_none, 8, 6),
        ),
        case(
            "payload_lz4_raw_len_plus_8",
            "CORRUPT_FRAME",
            "entry 0 (lz4) claims 8 more raw bytes than its payload decompresses to",
            set_u32(&lz4, ld + 8, u32_at(&lz4, ld + 8) as u32 + 8),
        ),
        case(
            "payload_lz4_garbage_unchecked",
            "CORRUPT_FRAME",
            "a frame without checksums whose column 0 lz4 payload is all 0xFF bytes",
            garbage,
        ),
        case(
            "payload_schema_swapped",
            "SCHEMA_MISMATCH",
            "an Int64 column's frame carrying a Utf8 schema: the body has too few buffers",
            swapped,
        ),
    ]
}
