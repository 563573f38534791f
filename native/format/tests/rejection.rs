//! Every error kind, from bytes that are truncated, corrupted or hostile.
//! None of them may panic or allocate by an unchecked length field.

mod common;

use tablecache_format::{
    decode, detect, write, ChecksumKind, Codec, Encoding, ErrorKind, Format, Frame, WriteOptions,
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
fn bad_magic_and_unknown_versions() {
    assert_eq!(
        kind_of(b"PAR1xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", None),
        ErrorKind::CorruptFrame
    );
    let mut b = v3();
    b[4] = 4;
    assert_eq!(kind_of(&b, None), ErrorKind::UnsupportedVersion);
    let mut b = v3();
    b[5] |= 0x80;
    assert_eq!(kind_of(&b, None), ErrorKind::UnsupportedVersion);
    let mut b = v3();
    b[5] |= 0x06; // checksum kind 3
    assert_eq!(kind_of(&b, None), ErrorKind::UnsupportedVersion);
    let mut b = v3();
    b[6] = 1;
    reseal(&mut b);
    assert_eq!(kind_of(&b, None), ErrorKind::CorruptFrame);
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

#[test]
fn inflated_lengths_fail_fast_without_allocating() {
    let clean = v3();
    let (directory, _) = layout(&clean);
    // raw length of column 0 claims 2 GiB from a few stored bytes.
    let mut b = clean.clone();
    put_u32(&mut b, directory + 8, i32::MAX as u32);
    reseal(&mut b);
    assert_eq!(kind_of(&b, None), ErrorKind::CorruptFrame);
    // stored length past the end of the frame.
    let mut b = clean.clone();
    put_u32(&mut b, directory + 4, u32::MAX);
    reseal(&mut b);
    assert_eq!(kind_of(&b, None), ErrorKind::CorruptFrame);
    // schema and stats lengths past the end (caught before the checksum is computed).
    for field in [16, 20] {
        let mut b = clean.clone();
        put_u32(&mut b, field, u32::MAX - 3);
        assert_eq!(kind_of(&b, None), ErrorKind::CorruptFrame);
    }
    // a column count of 4 billion needs a directory the frame cannot hold.
    let mut b = clean.clone();
    put_u32(&mut b, 12, u32::MAX);
    assert_eq!(kind_of(&b, None), ErrorKind::CorruptFrame);
}

#[test]
fn unknown_codec_and_inconsistent_directory() {
    let clean = v3();
    let (directory, _) = layout(&clean);
    let mut b = clean.clone();
    b[directory + 16] = 7;
    reseal(&mut b);
    assert_eq!(kind_of(&b, None), ErrorKind::UnsupportedCodec);
    let mut b = clean.clone();
    put_u32(&mut b, directory + 20, 1); // column 1 offset no longer contiguous
    reseal(&mut b);
    assert_eq!(kind_of(&b, None), ErrorKind::CorruptFrame);
    let mut b = clean.clone();
    b[directory + 18] = 1; // reserved
    reseal(&mut b);
    assert_eq!(kind_of(&b, None), ErrorKind::CorruptFrame);
}

#[test]
fn encodings_must_agree_with_the_encoded_flag() {
    let split = v3();
    assert_eq!(split[5] & 0x08, 0x08, "the default writer sets ENCODED");
    let (directory, _) = layout(&split);
    assert_eq!(split[directory + 20 + 17], 1, "column 1 (i16) is split");
    // An encoding this reader does not know.
    let mut b = split.clone();
    b[directory + 20 + 17] = 2;
    reseal(&mut b);
    assert_eq!(kind_of(&b, None), ErrorKind::UnsupportedCodec);
    // An encoded entry without the flag.
    let mut b = split.clone();
    b[5] &= !0x08;
    reseal(&mut b);
    assert_eq!(kind_of(&b, None), ErrorKind::CorruptFrame);
    // The flag without an encoded entry.
    let plain = write(
        &common::primitives(),
        &WriteOptions {
            encoding: Encoding::Plain,
            ..Default::default()
        },
    )
    .expect("write");
    assert_eq!(plain[5] & 0x08, 0);
    let mut b = plain.clone();
    b[5] |= 0x08;
    reseal(&mut b);
    assert_eq!(kind_of(&b, None), ErrorKind::CorruptFrame);
    // Without the metadata checksum, a split column read as plain is caught by nothing but
    // the checksum of its payload, which does not cover the directory: the reason the
    // directory is under the metadata checksum. With it, any edit is a mismatch.
    let mut b = split.clone();
    b[directory + 20 + 17] = 0;
    assert_eq!(kind_of(&b, None), ErrorKind::ChecksumMismatch);
}

#[test]
fn row_count_disagreeing_with_payload_is_a_schema_mismatch() {
    let mut b = frame(Format::V3, false, Codec::None, ChecksumKind::Crc32c);
    put_u32(&mut b, 8, 4);
    reseal(&mut b);
    assert_eq!(kind_of(&b, None), ErrorKind::SchemaMismatch);
    let mut b = frame(Format::V2, false, Codec::None, ChecksumKind::Crc32c);
    put_u32(&mut b, 8, 6);
    reseal(&mut b);
    assert_eq!(kind_of(&b, None), ErrorKind::SchemaMismatch);
}

#[test]
fn schema_swapped_for_another_is_rejected() {
    // Same column count, different types: the bodies no longer fit the schema.
    let a = common::batch(vec![(
        "x",
        std::sync::Arc::new(arrow_array::Int64Array::from(vec![1, 2, 3])) as arrow_array::ArrayRef,
    )]);
    let b = common::batch(vec![(
        "x",
        std::sync::Arc::new(arrow_array::StringArray::from(vec!["a", "b", "c"]))
            as arrow_array::ArrayRef,
    )]);
    let opts = WriteOptions {
        stats: false,
        codec: Codec::None,
        ..Default::default()
    };
    let fa = write(&a, &opts).expect("write");
    let fb = write(&b, &opts).expect("write");
    let (schema_a, schema_b) = (&fa[28..28 + u32_at(&fa, 16)], &fb[28..28 + u32_at(&fb, 16)]);
    let mut swapped = Vec::new();
    swapped.extend_from_slice(&fa[..16]);
    swapped.extend_from_slice(&(schema_b.len() as u32).to_le_bytes());
    swapped.extend_from_slice(&fa[20..28]);
    swapped.extend_from_slice(schema_b);
    swapped.extend_from_slice(&fa[28 + schema_a.len()..]);
    reseal(&mut swapped);
    let kind = kind_of(&swapped, None);
    assert!(
        matches!(kind, ErrorKind::SchemaMismatch | ErrorKind::CorruptFrame),
        "{kind:?}"
    );
}

#[test]
fn stats_flag_and_section_must_agree() {
    let mut b = v3();
    b[5] &= !1;
    reseal(&mut b);
    assert_eq!(kind_of(&b, None), ErrorKind::CorruptFrame);
}

#[test]
fn legacy_rejections() {
    let b = frame(Format::Legacy, false, Codec::None, ChecksumKind::Crc32c);
    assert_eq!(detect(&b).expect("detect"), Format::Legacy);
    assert!(
        Frame::parse(&b).is_err(),
        "a legacy stream has no frame header"
    );
    // No end-of-stream marker, or something after it.
    assert_eq!(kind_of(&b[..b.len() - 8], None), ErrorKind::CorruptFrame);
    let mut extra = b.clone();
    extra.extend_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]);
    assert_eq!(kind_of(&extra, None), ErrorKind::CorruptFrame);
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
