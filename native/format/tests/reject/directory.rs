//! Cases in the offset directory (FORMAT.md §2, "Directory entry"), checksums re-forged.

use super::forge::{layout, primitives, reseal, set, set_u32, u32_at, v3};
use super::{RejectCase, Section};
use tablecache_format::{ChecksumKind, Codec, Encoding, Format};

fn case(name: &'static str, kind: &'static str, what: &'static str, bytes: Vec<u8>) -> RejectCase {
    RejectCase {
        name,
        kind,
        section: Section::Directory,
        what,
        bytes,
    }
}

/// Cases in the directory.
pub fn cases() -> Vec<RejectCase> {
    let f = v3();
    let (_, d, _) = layout(&f);
    assert_eq!(f[d + 20 + 17], 1, "column 1 (i16) is split");
    let entry = |i: usize| d + 20 * i;
    let plain = primitives(
        Format::V3,
        true,
        Codec::Lz4,
        Encoding::Plain,
        ChecksumKind::Crc32c,
    );
    let none = primitives(
        Format::V3,
        true,
        Codec::None,
        Encoding::Plain,
        ChecksumKind::Crc32c,
    );
    let zstd = primitives(
        Format::V3,
        true,
        Codec::Zstd,
        Encoding::Plain,
        ChecksumKind::Crc32c,
    );
    let unchecked = primitives(
        Format::V3,
        true,
        Codec::Lz4,
        Encoding::Plain,
        ChecksumKind::None,
    );
    let (_, zd, _) = layout(&zstd);
    let (_, nd, _) = layout(&none);
    let (_, ud, _) = layout(&unchecked);
    let stored0 = u32_at(&f, entry(0) + 4) as u32;
    let zstored0 = u32_at(&zstd, zd + 4) as u32;
    vec![
        case(
            "directory_codec_3",
            "UNSUPPORTED_CODEC",
            "codec id 3, which no reader knows, on entry 0",
            set(&f, entry(0) + 16, 3),
        ),
        case(
            "directory_codec_255",
            "UNSUPPORTED_CODEC",
            "codec id 255 on entry 2",
            set(&f, entry(2) + 16, 255),
        ),
        case(
            "directory_encoding_2",
            "UNSUPPORTED_CODEC",
            "encoding id 2, which no reader knows, on a split entry",
            set(&f, entry(1) + 17, 2),
        ),
        case(
            "directory_encoded_without_flag",
            "CORRUPT_FRAME",
            "a BYTE_STREAM_SPLIT entry while the ENCODED flag is clear",
            set(&f, 5, f[5] & !0x08),
        ),
        case(
            "directory_flag_without_encoded",
            "CORRUPT_FRAME",
            "the ENCODED flag on a frame whose entries are all PLAIN",
            set(&plain, 5, plain[5] | 0x08),
        ),
        case(
            "directory_reserved_byte_18",
            "CORRUPT_FRAME",
            "entry 0's reserved byte 18 is 1",
            set(&f, entry(0) + 18, 1),
        ),
        case(
            "directory_reserved_byte_19",
            "CORRUPT_FRAME",
            "entry 3's reserved byte 19 is 0x80",
            set(&f, entry(3) + 19, 0x80),
        ),
        case(
            "directory_offset_not_contiguous",
            "CORRUPT_FRAME",
            "entry 1's offset is 1, not the end of payload 0",
            set_u32(&f, entry(1), 1),
        ),
        case(
            "directory_first_offset_not_zero",
            "CORRUPT_FRAME",
            "entry 0's offset is 8",
            set_u32(&f, entry(0), 8),
        ),
        case(
            "directory_stored_len_past_end",
            "CORRUPT_FRAME",
            "entry 0's stored_len is 4 GiB - 1, past the frame end",
            set_u32(&f, entry(0) + 4, u32::MAX),
        ),
        case(
            "directory_stored_len_short",
            "CORRUPT_FRAME",
            "the last entry's stored_len is one byte short, so one byte trails the payloads",
            {
                let last = u32_at(&f, 12) - 1;
                let stored = u32_at(&f, entry(last) + 4) as u32;
                set_u32(&f, entry(last) + 4, stored - 1)
            },
        ),
        case(
            "directory_raw_len_2g",
            "CORRUPT_FRAME",
            "entry 0 (lz4) claims a raw_len of 2^31 - 1 from a few stored bytes",
            set_u32(&f, entry(0) + 8, i32::MAX as u32),
        ),
        case(
            "directory_lz4_ratio",
            "CORRUPT_FRAME",
            "entry 0 (lz4) claims raw_len 255 x stored_len + 17, one past what lz4 can expand to",
            set_u32(&f, entry(0) + 8, 255 * stored0 + 17),
        ),
        case(
            "directory_zstd_ratio",
            "CORRUPT_FRAME",
            "entry 0 (zstd) claims raw_len 32768 x stored_len + 1025",
            set_u32(&zstd, zd + 8, 32768 * zstored0 + 1025),
        ),
        case(
            "directory_none_raw_ne_stored",
            "CORRUPT_FRAME",
            "entry 0 (codec none) has raw_len 8 more than stored_len",
            {
                let raw = u32_at(&none, nd + 8) as u32;
                set_u32(&none, nd + 8, raw + 8)
            },
        ),
        case(
            "directory_checksum_without_checksums",
            "CORRUPT_FRAME",
            "checksum kind NONE but entry 0 has a non-zero checksum",
            reseal({
                let mut b = unchecked.clone();
                b[ud + 12] = 1;
                b
            }),
        ),
    ]
}
