//! Every error kind, from bytes that are truncated, corrupted or hostile.
//! None of them may panic or allocate by an unchecked length field. Fixed bad inputs, one per
//! rule, are in the shared corpus (`golden/reject/`, `tests/reject/`); these are the loops and
//! the checks that need a projection or an error message.

mod common;

use tablecache_format::{
    decode, detect, write, ChecksumKind, Codec, ErrorKind, Format, Frame, WriteOptions,
};

fn frame(format: Format, stats: bool, codec: Codec, checksum: ChecksumKind) -> Vec<u8> {
    write(
        &common::primitives(),
        &WriteOptions {
            format,
            stats,
            codec,
            checksum,
            ..Default::default()
        },
    )
    .expect("write")
}

fn v3() -> Vec<u8> {
    frame(Format::V3, true, Codec::Lz4, ChecksumKind::Crc32c)
}

fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes")) as usize
}

fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// Offsets of the directory and the payload area, read straight from the header.
fn layout(b: &[u8]) -> (usize, usize) {
    let entries = if b[4] == 3 { u32_at(b, 12) } else { 1 };
    let directory = 28 + u32_at(b, 16) + u32_at(b, 20);
    (directory, directory + 20 * entries)
}

/// Recomputes the metadata checksum after a deliberate edit, so the test
/// reaches the check behind it.
fn reseal(b: &mut [u8]) {
    let (_, payload_start) = layout(b);
    let crc = tablecache_format::meta_checksum(b, payload_start);
    put_u32(b, tablecache_format::header::META_CHECKSUM_AT, crc);
}

fn kind_of(bytes: &[u8], projection: Option<&[usize]>) -> ErrorKind {
    match decode(bytes, projection) {
        Ok(_) => panic!("decode accepted a bad frame"),
        Err(e) => {
            assert!(!e.to_string().is_empty());
            e.kind()
        }
    }
}

#[test]
fn truncation_at_every_offset_is_an_error() {
    for format in [Format::V3, Format::V2, Format::Legacy] {
        let bytes = frame(format, true, Codec::Lz4, ChecksumKind::Crc32c);
        for cut in 0..bytes.len() {
            let kind = kind_of(&bytes[..cut], None);
            assert!(
                matches!(kind, ErrorKind::CorruptFrame | ErrorKind::ChecksumMismatch),
                "{format:?} cut at {cut}: {kind:?}"
            );
        }
    }
}

#[test]
fn corrupted_metadata_fails_the_checksum() {
    let clean = v3();
    let (_, payload_start) = layout(&clean);
    for at in (8..payload_start).filter(|&i| !(24..28).contains(&i)) {
        let mut b = clean.clone();
        b[at] ^= 0x10;
        let kind = kind_of(&b, None);
        assert!(
            matches!(
                kind,
                ErrorKind::ChecksumMismatch
                    | ErrorKind::CorruptFrame
                    | ErrorKind::UnsupportedVersion
            ),
            "byte {at}: {kind:?}"
        );
        if at >= 28 {
            assert_eq!(
                Frame::parse(&b).expect_err("parse").kind(),
                ErrorKind::ChecksumMismatch,
                "byte {at}"
            );
        }
    }
}

#[test]
fn corrupted_payload_fails_its_checksum_only_when_read() {
    let mut b = v3();
    let (directory, payload_start) = layout(&b);
    let offset = u32_at(&b, directory + 20); // column 1
    b[payload_start + offset + 1] ^= 0xFF;
    assert_eq!(kind_of(&b, None), ErrorKind::ChecksumMismatch);
    assert_eq!(kind_of(&b, Some(&[1])), ErrorKind::ChecksumMismatch);
    decode(&b, Some(&[0, 2])).expect("untouched columns still decode");
}

#[test]
fn corrupted_payload_without_checksums_is_still_an_error() {
    let clean = frame(Format::V3, true, Codec::Lz4, ChecksumKind::None);
    let (_, payload_start) = layout(&clean);
    let mut errors = 0;
    for at in payload_start..clean.len() {
        for bit in [0x01u8, 0x80] {
            let mut b = clean.clone();
            b[at] ^= bit;
            // Either an error or a decode that arrow validated; never a panic.
            if decode(&b, None).is_err() {
                errors += 1;
            }
        }
    }
    assert!(errors > 0);
}

#[test]
fn projection_out_of_range() {
    for format in [Format::V3, Format::V2, Format::Legacy] {
        let b = frame(format, true, Codec::Lz4, ChecksumKind::Crc32c);
        assert_eq!(
            kind_of(&b, Some(&[0, 99])),
            ErrorKind::ColumnOutOfRange,
            "{format:?}"
        );
    }
}

#[test]
fn trailing_bytes() {
    for format in [Format::V3, Format::V2, Format::Legacy] {
        let mut b = frame(format, true, Codec::Lz4, ChecksumKind::Crc32c);
        b.push(0);
        assert_eq!(kind_of(&b, None), ErrorKind::CorruptFrame, "{format:?}");
        assert!(
            decode(&b, None)
                .expect_err("trailing")
                .to_string()
                .contains("trailing"),
            "{format:?}"
        );
    }
}

/// Fixed bad legacy streams are in the shared corpus (golden/reject/); this is the API rule.
#[test]
fn a_legacy_stream_has_no_frame_header() {
    let b = frame(Format::Legacy, false, Codec::None, ChecksumKind::Crc32c);
    assert_eq!(detect(&b).expect("detect"), Format::Legacy);
    assert!(
        Frame::parse(&b).is_err(),
        "a legacy stream has no frame header"
    );
}

#[test]
fn legacy_compressed_lengths_are_bounded_before_decoding() {
    let clean = frame(Format::Legacy, false, Codec::Lz4, ChecksumKind::Crc32c);
    // Every 8-byte window set to a huge value: either a clean error or a decode, never an abort.
    for at in (0..clean.len().saturating_sub(8)).step_by(4) {
        let mut b = clean.clone();
        b[at..at + 8].copy_from_slice(&0x3000_0000_0000_0000i64.to_le_bytes());
        let _ = decode(&b, None);
    }
    for at in 0..clean.len() {
        let mut b = clean.clone();
        b[at] ^= 0x01;
        let _ = decode(&b, None);
    }
}

#[test]
fn writer_rejects_unsupported_types() {
    use arrow_array::{ArrayRef, StringViewArray};
    let batch = common::batch(vec![(
        "v",
        std::sync::Arc::new(StringViewArray::from(vec!["a"])) as ArrayRef,
    )]);
    for format in [Format::V3, Format::V2, Format::Legacy] {
        let options = WriteOptions {
            format,
            ..Default::default()
        };
        let err = write(&batch, &options).expect_err("views are not carried");
        assert_eq!(err.kind(), ErrorKind::UnsupportedType, "{format:?}");
    }
}

/// A header row count above i32::MAX (Java's int) is corrupt, even with a valid checksum, for
/// every projection including the rows-only one (which decodes no column to contradict it).
#[test]
fn row_count_above_i32_max_is_corrupt() {
    for format in [Format::V2, Format::V3] {
        for rows in [0x8000_0000u32, u32::MAX] {
            let mut b = frame(format, false, Codec::None, ChecksumKind::Crc32c);
            put_u32(&mut b, 8, rows);
            reseal(&mut b);
            for projection in [None, Some(&[][..]), Some(&[0usize][..])] {
                let err = decode(&b, projection).expect_err("row count above i32::MAX");
                assert_eq!(err.kind(), ErrorKind::CorruptFrame, "{err}");
                assert!(err.to_string().contains("row count"), "{err}");
            }
        }
    }
}

/// A decimal type with an impossible precision or scale (a damaged schema where no checksum
/// guards it) is a corrupt schema, not a batch Arrow Java and Spark would refuse later.
#[test]
fn invalid_decimal_precision_or_scale_is_corrupt() {
    use arrow_schema::{DataType, Field, Schema};
    for data_type in [
        DataType::Decimal128(0, 0),
        DataType::Decimal128(39, 2),
        DataType::Decimal128(5, 6),
        DataType::Decimal256(77, 0),
    ] {
        let schema = Schema::new(vec![Field::new("d", data_type.clone(), true)]);
        let err = tablecache_format::schema::parse_schema(
            &tablecache_format::schema::encode_schema(&schema).expect("encode"),
        )
        .expect_err("invalid decimal");
        assert_eq!(err.kind(), ErrorKind::CorruptFrame, "{data_type}: {err}");
    }
}
