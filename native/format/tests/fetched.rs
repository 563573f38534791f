//! `decode_fetched` (the JNI layer's copy-out read) gives exactly what `decode` gives over the
//! whole bytes, for valid and damaged batches, and copies only what it reads.

mod common;

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{Array, ArrayRef, BinaryArray, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use tablecache_format::{decode, decode_fetched, Codec, Format, ReadOptions, WriteOptions};

/// Decodes through `decode_fetched` over `bytes`, returning the result and the bytes copied.
fn fetched(
    bytes: &[u8],
    projection: Option<&[usize]>,
) -> (tablecache_format::Result<RecordBatch>, usize) {
    fetched_with(bytes, projection, ReadOptions::default())
}

fn fetched_with(
    bytes: &[u8],
    projection: Option<&[usize]>,
    options: ReadOptions,
) -> (tablecache_format::Result<RecordBatch>, usize) {
    let mut copied = 0;
    let result = decode_fetched(
        bytes.len(),
        |offset, dst| {
            dst.copy_from_slice(&bytes[offset..offset + dst.len()]);
            copied += dst.len();
            Ok(())
        },
        projection,
        options,
    );
    (result, copied)
}

fn frames() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for format in [Format::V4, Format::V3, Format::V2, Format::Legacy] {
        for codec in [Codec::None, Codec::Lz4, Codec::Zstd] {
            let options = WriteOptions {
                format,
                codec,
                stats: format != Format::Legacy,
                ..WriteOptions::default()
            };
            for batch in [common::primitives(), common::nested()] {
                out.push(tablecache_format::write(&batch, &options).expect("write"));
            }
        }
    }
    out
}

fn same(bytes: &[u8], projection: Option<&[usize]>) {
    let whole = decode(bytes, projection);
    let (part, _) = fetched(bytes, projection);
    match (whole, part) {
        (Ok(a), Ok(b)) => assert_eq!(a, b),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (a, b) => panic!("decode gave {a:?}, decode_fetched gave {b:?}"),
    }
}

#[test]
fn equals_decode_for_every_projection() {
    for bytes in frames() {
        let columns = decode(&bytes, Some(&[])).expect("decode").num_columns();
        let count = decode(&bytes, None).expect("decode").num_columns();
        assert_eq!(columns, 0);
        same(&bytes, None);
        same(&bytes, Some(&[]));
        for c in 0..count {
            same(&bytes, Some(&[c]));
            same(&bytes, Some(&[count - 1 - c, c]));
        }
        same(&bytes, Some(&[count]));
    }
}

#[test]
fn equals_decode_for_damaged_bytes() {
    for bytes in frames() {
        let step = (bytes.len() / 97).max(1);
        for at in (0..bytes.len()).step_by(step) {
            same(&bytes[..at], Some(&[0]));
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x5A;
            same(&flipped, None);
            same(&flipped, Some(&[0]));
        }
    }
}

#[test]
fn copies_only_the_metadata_and_the_projected_payloads_of_a_v3_frame() {
    let options = WriteOptions {
        format: Format::V3,
        ..WriteOptions::default()
    };
    let bytes = tablecache_format::write(&common::primitives(), &options).expect("write");
    let frame = tablecache_format::Frame::parse(&bytes).expect("parse");
    let metadata = frame.payload_start;
    let payload = |i: usize| frame.directory[i].stored_len as usize;
    let (result, copied) = fetched(&bytes, Some(&[1]));
    result.expect("decode");
    assert_eq!(copied, metadata + payload(1));
    let (result, copied) = fetched(&bytes, Some(&[]));
    result.expect("decode");
    assert_eq!(copied, metadata);
    let (result, copied) = fetched(&bytes, None);
    result.expect("decode");
    assert_eq!(copied, bytes.len());
}

const DICTIONARY_STRINGS: ReadOptions = ReadOptions {
    dictionary_strings: true,
};

/// Strings of few distinct values (the writer keeps them as a string dictionary), with nulls,
/// unicode and binary, beside columns it does not: unique strings and integers.
fn low_cardinality_strings(rows: usize) -> RecordBatch {
    let words = [
        "GET /index.html",
        "",
        "ünïcödé ✓",
        "POST /api/v1/items?id=7",
        "HEAD /",
    ];
    let text: StringArray = (0..rows)
        .map(|i| (i % 7 != 3).then(|| words[(i * 13) % words.len()]))
        .collect();
    let unique: StringArray = (0..rows).map(|i| Some(format!("row-{i:08x}"))).collect();
    let bytes: BinaryArray = (0..rows)
        .map(|i| Some(vec![0xffu8, 0x00, (i % 3) as u8]))
        .collect();
    let number: Int64Array = (0..rows as i64).map(Some).collect();
    let schema = Arc::new(Schema::new(vec![
        Field::new("text", DataType::Utf8, true),
        Field::new("unique", DataType::Utf8, false),
        Field::new("bytes", DataType::Binary, false),
        Field::new("number", DataType::Int64, false),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(text),
        Arc::new(unique),
        Arc::new(bytes),
        Arc::new(number),
    ];
    RecordBatch::try_new(schema, columns).expect("batch")
}

/// `keyed` with every dictionary column materialised: what `decode` gives for the same frame.
fn materialised(keyed: &RecordBatch) -> RecordBatch {
    let columns: Vec<ArrayRef> = keyed
        .columns()
        .iter()
        .map(|c| match c.as_dictionary_opt::<Int32Type>() {
            Some(d) => arrow_select::take::take(d.values(), d.keys(), None).expect("take"),
            None => c.clone(),
        })
        .collect();
    let fields: Vec<Field> = keyed
        .schema()
        .fields()
        .iter()
        .zip(&columns)
        .map(|(f, c)| f.as_ref().clone().with_data_type(c.data_type().clone()))
        .collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).expect("batch")
}

#[test]
fn dictionary_strings_are_keys_over_the_entries_of_v4_string_dictionaries() {
    let batch = low_cardinality_strings(3000);
    for codec in [Codec::None, Codec::Lz4, Codec::Zstd] {
        let options = WriteOptions {
            format: Format::V4,
            codec,
            ..WriteOptions::default()
        };
        let bytes = tablecache_format::write(&batch, &options).expect("write");
        let (keyed, _) = fetched_with(&bytes, None, DICTIONARY_STRINGS);
        let keyed = keyed.expect("decode");
        let types: Vec<bool> = keyed
            .columns()
            .iter()
            .map(|c| matches!(c.data_type(), DataType::Dictionary(_, _)))
            .collect();
        // The low-cardinality string and binary columns, not the unique strings or integers.
        assert_eq!(types, [true, false, true, false], "{codec:?}");
        let dictionary = keyed.column(0).as_dictionary::<Int32Type>();
        assert!(dictionary.values().len() <= 5, "entries once each");
        assert_eq!(dictionary.null_count(), batch.column(0).null_count());
        assert_eq!(materialised(&keyed), batch);
        // A projection in any order keys its own columns.
        let (projected, _) = fetched_with(&bytes, Some(&[2, 3, 0]), DICTIONARY_STRINGS);
        let projected = projected.expect("decode");
        assert_eq!(materialised(&projected), batch.project(&[2, 3, 0]).unwrap());
    }
}

#[test]
fn dictionary_strings_are_the_same_values_and_leave_other_formats_as_decode_gives_them() {
    for bytes in frames() {
        let (plain, _) = fetched(&bytes, None);
        let (keyed, _) = fetched_with(&bytes, None, DICTIONARY_STRINGS);
        assert_eq!(materialised(&keyed.expect("keyed")), plain.expect("plain"));
    }
    for format in [Format::V3, Format::V2, Format::Legacy] {
        let options = WriteOptions {
            format,
            stats: format != Format::Legacy,
            ..WriteOptions::default()
        };
        let bytes = tablecache_format::write(&low_cardinality_strings(500), &options).unwrap();
        let (keyed, _) = fetched_with(&bytes, None, DICTIONARY_STRINGS);
        assert_eq!(keyed.expect("keyed"), decode(&bytes, None).expect("plain"));
    }
}

/// Every how many bytes the exhaustive damage test damages: 1 (every byte), unless
/// `TABLECACHE_DAMAGE_STRIDE` says more. `scripts/leakcheck.sh` sets it: under valgrind every
/// byte takes minutes, and the native `cargo test` run still damages every byte.
fn damage_stride() -> usize {
    std::env::var("TABLECACHE_DAMAGE_STRIDE")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1)
}

/// Damage anywhere in a frame: the keyed read accepts only what the plain read accepts (it may
/// refuse more only where it validates every entry), and then gives the same values.
#[test]
fn dictionary_strings_of_damaged_frames_never_accept_what_decode_refuses() {
    let batch = low_cardinality_strings(400);
    for codec in [Codec::None, Codec::Lz4] {
        let options = WriteOptions {
            format: Format::V4,
            codec,
            ..WriteOptions::default()
        };
        let bytes = tablecache_format::write(&batch, &options).expect("write");
        for at in (0..bytes.len()).step_by(damage_stride()) {
            for (flip, cut) in [(0x01u8, false), (0x80, false), (0, true)] {
                let mut damaged = bytes.clone();
                if cut {
                    damaged.truncate(at);
                } else {
                    damaged[at] ^= flip;
                }
                let (keyed, _) = fetched_with(&damaged, None, DICTIONARY_STRINGS);
                let (plain, _) = fetched(&damaged, None);
                match (keyed, plain) {
                    (Ok(k), Ok(p)) => assert_eq!(materialised(&k), p, "byte {at}"),
                    (Ok(_), Err(e)) => panic!("byte {at}: keyed read accepted, plain refused: {e}"),
                    (Err(k), Ok(_)) => assert!(
                        matches!(k, tablecache_format::Error::InvalidData { .. }),
                        "byte {at}: the keyed read refused more than its entries' validation: {k}"
                    ),
                    (Err(_), Err(_)) => {}
                }
            }
        }
    }
}
