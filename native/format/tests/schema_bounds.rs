//! Schema bounds (FORMAT.md §2, "Schema bounds"): a schema exactly at the nesting limit is
//! written and read by every format; the corpus's schema bombs fail on the limit they pass, and
//! the message names it.

mod common;
mod reject;

use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, RecordBatch, StructArray};
use arrow_schema::Field;
use reject::schema_bombs;
use tablecache_format::schema::parse_schema;
use tablecache_format::schema_bounds::{
    check_schema_message, MAX_DEPTH, MAX_FIELDS, MAX_NAME_BYTES,
};
use tablecache_format::{decode, write, ErrorKind, Format, Frame, WriteOptions};

/// One column: a struct chain `depth` fields deep (the column is depth 1) over an int leaf.
fn chain_batch(depth: usize) -> RecordBatch {
    let mut column: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None, Some(3)]));
    for _ in 1..depth {
        let field = Arc::new(Field::new("c", column.data_type().clone(), true));
        column = Arc::new(StructArray::from(vec![(field, column)]));
    }
    RecordBatch::try_from_iter([("c", column)]).expect("batch")
}

#[test]
fn a_chain_exactly_at_the_depth_limit_round_trips_in_every_format() {
    let batch = chain_batch(MAX_DEPTH);
    for format in [Format::V3, Format::V2, Format::Legacy] {
        let options = WriteOptions {
            format,
            ..Default::default()
        };
        let bytes = write(&batch, &options).expect("write");
        let back = decode(&bytes, None).unwrap_or_else(|e| panic!("{format:?}: {e}"));
        assert_eq!(back, batch, "{format:?}");
        if format != Format::Legacy {
            Frame::parse(&bytes).expect("parse");
        }
    }
}

#[test]
fn a_hand_built_chain_at_the_limit_parses_and_one_deeper_does_not() {
    let at = parse_schema(&schema_bombs::chain_schema(MAX_DEPTH)).expect("at the limit");
    assert_eq!(at.fields().len(), 1);
    let err = parse_schema(&schema_bombs::chain_schema(MAX_DEPTH + 1)).expect_err("past it");
    assert_eq!(err.kind(), ErrorKind::CorruptFrame);
    assert!(
        err.to_string()
            .contains(&format!("nesting deeper than {MAX_DEPTH} at c.c.c.")),
        "{err}"
    );
}

/// Each bomb fails with CORRUPT_FRAME and a message naming its limit.
#[test]
fn schema_bombs_fail_on_the_limit_they_pass() {
    let long_name = {
        let mut m = schema_bombs::SchemaMessage::default();
        let leaf = m.int_leaf(&"n".repeat(MAX_NAME_BYTES + 1));
        m.finish(&[leaf])
    };
    let cases = [
        (
            "dag",
            schema_bombs::dag_schema(),
            format!("more than {MAX_FIELDS} fields"),
        ),
        (
            "deep chain",
            schema_bombs::chain_schema(20_000),
            format!("nesting deeper than {MAX_DEPTH}"),
        ),
        (
            "long name",
            long_name,
            format!("longer than {MAX_NAME_BYTES}"),
        ),
    ];
    for (name, schema, expected) in cases {
        let framed = [
            schema_bombs::v3_with_schema(&schema),
            schema_bombs::legacy_with_schema(&schema),
        ];
        for bytes in framed {
            let err = decode(&bytes, None).expect_err(name);
            assert_eq!(err.kind(), ErrorKind::CorruptFrame, "{name}: {err}");
            assert!(err.to_string().contains(&expected), "{name}: {err}");
        }
    }
    for case in schema_bombs::cases()
        .iter()
        .filter(|c| c.name.contains("union"))
    {
        let err = decode(&case.bytes, None).expect_err(case.name);
        assert!(
            err.to_string().contains("type id 14"),
            "{}: {err}",
            case.name
        );
    }
}

#[test]
fn a_wide_flat_schema_is_accepted() {
    // 1000 top-level columns: far from every limit, and the walk costs one visit per field.
    let cols: Vec<(String, ArrayRef)> = (0..1000)
        .map(|i| {
            (
                format!("c{i}"),
                Arc::new(Int32Array::from(vec![i])) as ArrayRef,
            )
        })
        .collect();
    let batch = RecordBatch::try_from_iter(cols).expect("batch");
    let bytes = write(&batch, &WriteOptions::default()).expect("write");
    assert_eq!(decode(&bytes, None).expect("decode"), batch);
}

/// Every truncation and every single-byte change of a nested schema message is either accepted
/// or an error: the walk reads nothing out of bounds and never panics.
#[test]
fn the_walk_survives_every_truncation_and_byte_change() {
    let message =
        tablecache_format::schema::encode_schema(&common::nested().schema()).expect("encode");
    for cut in 0..message.len() {
        let _ = check_schema_message(&message[..cut]);
    }
    for at in 0..message.len() {
        for value in [0x00, 0x01, 0x0E, 0x7F, 0x80, 0xFF] {
            let mut m = message.clone();
            m[at] = value;
            if let Err(e) = check_schema_message(&m) {
                assert_eq!(e.kind(), ErrorKind::CorruptFrame);
            }
        }
    }
}
