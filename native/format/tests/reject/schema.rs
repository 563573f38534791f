//! Cases in the embedded schema (FORMAT.md §2, "Schema section"), checksums re-forged.

use super::forge::{batch, col, frame_of, layout, put_u32, reseal, u32_at};
use super::{RejectCase, Section};
use arrow_array::{Decimal128Array, Int64Array, StringArray};
use arrow_schema::{DataType, Field, Schema};
use tablecache_format::schema::encode_schema;

fn case(name: &'static str, kind: &'static str, what: &'static str, bytes: Vec<u8>) -> RejectCase {
    RejectCase {
        name,
        kind,
        section: Section::Schema,
        what,
        bytes,
    }
}

/// `frame` with its schema section replaced by `schema`, resealed.
fn with_schema(frame: &[u8], schema: &[u8]) -> Vec<u8> {
    let (stats, _, _) = layout(frame);
    let mut b = frame[..28].to_vec();
    put_u32(&mut b, 16, schema.len() as u32);
    b.extend_from_slice(schema);
    b.extend_from_slice(&frame[stats..]);
    reseal(b)
}

fn schema_of(frame: &[u8]) -> &[u8] {
    &frame[28..28 + u32_at(frame, 16)]
}

/// Cases in the schema section.
pub fn cases() -> Vec<RejectCase> {
    let one = frame_of(
        &batch(vec![("x", col(Int64Array::from(vec![1, 2, 3])))]),
        |o| o.stats = false,
    );
    let two = frame_of(
        &batch(vec![
            ("x", col(Int64Array::from(vec![1, 2, 3]))),
            ("y", col(StringArray::from(vec!["a", "b", "c"]))),
        ]),
        |o| o.stats = false,
    );
    let decimal = frame_of(
        &batch(vec![(
            "d",
            col(Decimal128Array::from(vec![1, 2, 3])
                .with_precision_and_scale(10, 2)
                .expect("decimal")),
        )]),
        |o| o.stats = false,
    );
    let decimal_schema = |precision: u8, scale: i8| {
        encode_schema(&Schema::new(vec![Field::new(
            "d",
            DataType::Decimal128(precision, scale),
            true,
        )]))
        .expect("encode schema")
    };
    let garbage = vec![0x5Au8; schema_of(&one).len()];
    vec![
        case(
            "schema_garbage",
            "CORRUPT_FRAME",
            "the schema section's bytes are all 0x5A: not an IPC schema message",
            with_schema(&one, &garbage),
        ),
        case(
            "schema_empty",
            "CORRUPT_FRAME",
            "a schema section of 0 bytes",
            with_schema(&one, &[]),
        ),
        case(
            "schema_decimal_precision_0",
            "CORRUPT_FRAME",
            "a Decimal128 column whose schema says precision 0 (found by the differential test)",
            with_schema(&decimal, &decimal_schema(0, 0)),
        ),
        case(
            "schema_decimal_precision_39",
            "CORRUPT_FRAME",
            "a Decimal128 column whose schema says precision 39, above the maximum 38",
            with_schema(&decimal, &decimal_schema(39, 2)),
        ),
        case(
            "schema_decimal_scale_above_precision",
            "CORRUPT_FRAME",
            "a Decimal128 column whose schema says precision 5, scale 6",
            with_schema(&decimal, &decimal_schema(5, 6)),
        ),
        case(
            "schema_more_fields",
            "SCHEMA_MISMATCH",
            "a 1-column frame carrying a 2-field schema",
            with_schema(&one, schema_of(&two)),
        ),
    ]
}
