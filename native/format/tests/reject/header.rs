//! Cases in the fixed header: flags, reserved bits and bytes, counts, lengths, checksum kind.

use super::forge::{primitives, reseal, set, set_u32, u32_at, v3};
use super::{RejectCase, Section};
use tablecache_format::{ChecksumKind, Codec, Encoding, Format};

fn case(name: &'static str, kind: &'static str, what: &'static str, bytes: Vec<u8>) -> RejectCase {
    RejectCase {
        name,
        kind,
        section: Section::Header,
        what,
        bytes,
    }
}

/// Cases in the fixed header.
pub fn cases() -> Vec<RejectCase> {
    let f = v3();
    let plain_none = primitives(
        Format::V3,
        false,
        Codec::None,
        Encoding::Plain,
        ChecksumKind::None,
    );
    let v2_nostats = primitives(
        Format::V2,
        false,
        Codec::None,
        Encoding::Plain,
        ChecksumKind::Crc32c,
    );
    let mut bad_checksum = f.clone();
    bad_checksum[24] ^= 0x01;
    let mut trailing = f.clone();
    trailing.push(0);
    let nostats = primitives(
        Format::V3,
        false,
        Codec::Lz4,
        Encoding::Plain,
        ChecksumKind::Crc32c,
    );
    vec![
        case(
            "header_not_a_frame",
            "CORRUPT_FRAME",
            "a Parquet file's first bytes: neither the frame magic nor an IPC stream",
            b"PAR1xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx".to_vec(),
        ),
        case(
            "header_three_bytes",
            "CORRUPT_FRAME",
            "three bytes, too short to tell the format",
            f[..3].to_vec(),
        ),
        case(
            "header_cut_at_27",
            "CORRUPT_FRAME",
            "a V3 frame cut one byte before the end of its 28-byte header",
            f[..27].to_vec(),
        ),
        case(
            "header_version_5",
            "UNSUPPORTED_VERSION",
            "a frame with version byte 5, the next version",
            set(&f, 4, 5),
        ),
        case(
            "header_flag_bit4",
            "UNSUPPORTED_VERSION",
            "reserved flag bit 4 set (checksum valid): a newer writer's feature",
            set(&f, 5, f[5] | 0x10),
        ),
        case(
            "header_flag_bit7",
            "UNSUPPORTED_VERSION",
            "reserved flag bit 7 set (checksum valid)",
            set(&f, 5, f[5] | 0x80),
        ),
        case(
            "header_checksum_kind_2",
            "UNSUPPORTED_VERSION",
            "checksum kind 2, which is reserved",
            set(&f, 5, (f[5] & !0x06) | 0x04),
        ),
        case(
            "header_checksum_kind_3",
            "UNSUPPORTED_VERSION",
            "checksum kind 3, which is reserved",
            set(&f, 5, f[5] | 0x06),
        ),
        case(
            "header_reserved_byte_6",
            "CORRUPT_FRAME",
            "header byte 6 (reserved) is 1, checksum valid",
            set(&f, 6, 1),
        ),
        case(
            "header_reserved_byte_7",
            "CORRUPT_FRAME",
            "header byte 7 (reserved) is 0x80, checksum valid",
            set(&f, 7, 0x80),
        ),
        case(
            "header_stats_flag_clear_with_stats",
            "CORRUPT_FRAME",
            "flag STATS clear while stats_len is not 0, checksum valid",
            set(&f, 5, f[5] & !0x01),
        ),
        case(
            "header_stats_flag_set_without_stats",
            "CORRUPT_FRAME",
            "flag STATS set while stats_len is 0, checksum valid",
            set(&nostats, 5, nostats[5] | 0x01),
        ),
        case(
            "header_meta_checksum_wrong",
            "CHECKSUM_MISMATCH",
            "one bit of meta_checksum flipped",
            bad_checksum,
        ),
        case(
            "header_meta_checksum_without_checksums",
            "CORRUPT_FRAME",
            "checksum kind NONE but meta_checksum is not 0",
            {
                let mut b = plain_none.clone();
                b[24] = 1;
                b
            },
        ),
        case(
            "header_row_count_2g",
            "CORRUPT_FRAME",
            "row_count 2^31, above Java's int, checksum valid",
            set_u32(&nostats, 8, 0x8000_0000),
        ),
        case(
            "header_row_count_4g",
            "CORRUPT_FRAME",
            "row_count 2^32 - 1, checksum valid",
            set_u32(&nostats, 8, u32::MAX),
        ),
        case(
            "header_column_count_4g",
            "CORRUPT_FRAME",
            "a V3 column_count of 4 billion: its directory runs past the frame end",
            {
                // Not resealed: the directory is found to run past the end before the checksum.
                let mut b = f.clone();
                b[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
                b
            },
        ),
        case(
            "header_schema_len_past_end",
            "CORRUPT_FRAME",
            "schema_len near 4 GiB, past the frame end (found before the checksum is computed)",
            {
                let mut b = f.clone();
                b[16..20].copy_from_slice(&(u32::MAX - 3).to_le_bytes());
                b
            },
        ),
        case(
            "header_stats_len_past_end",
            "CORRUPT_FRAME",
            "stats_len near 4 GiB, past the frame end",
            {
                let mut b = f.clone();
                b[20..24].copy_from_slice(&(u32::MAX - 3).to_le_bytes());
                b
            },
        ),
        case(
            "header_schema_len_plus_8",
            "CHECKSUM_MISMATCH",
            "schema_len 8 bytes too long: the sections shift, and the meta checksum no longer matches",
            {
                let mut b = f.clone();
                let len = u32_at(&b, 16) as u32 + 8;
                b[16..20].copy_from_slice(&len.to_le_bytes());
                b
            },
        ),
        case(
            "header_v2_column_count_plus_one",
            "SCHEMA_MISMATCH",
            "a V2 frame without stats whose column_count is one more than the schema's fields, checksum valid",
            set_u32(&v2_nostats, 12, u32_at(&v2_nostats, 12) as u32 + 1),
        ),
        case(
            "header_v2_column_count_4g",
            "SCHEMA_MISMATCH",
            "a V2 frame without stats whose column_count is 4 billion, checksum valid",
            set_u32(&v2_nostats, 12, u32::MAX),
        ),
        case(
            "header_v2_version_of_v3_frame",
            "CORRUPT_FRAME",
            "a V3 frame relabelled V2: one directory entry where there are many, checksum valid",
            reseal({
                let mut b = f.clone();
                b[4] = 2;
                b
            }),
        ),
        case(
            "header_trailing_byte",
            "CORRUPT_FRAME",
            "one zero byte after the last payload",
            trailing,
        ),
    ]
}
