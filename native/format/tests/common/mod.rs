//! Shared test data: deterministic batches covering every supported type.

#![allow(dead_code)]

use std::sync::Arc;

use arrow_array::builder::{
    Int32Builder, Int64Builder, ListBuilder, MapBuilder, StringBuilder, StructBuilder,
};
use arrow_array::*;
use arrow_schema::{DataType, Field, Fields, Schema};

/// Every flat type the format carries bounds for, plus binary, with edge values.
pub fn primitives() -> RecordBatch {
    let long_string = "ü".repeat(20) + "tail";
    let cols: Vec<(&str, ArrayRef)> = vec![
        (
            "i8",
            Arc::new(Int8Array::from(vec![
                Some(i8::MIN),
                None,
                Some(0),
                Some(i8::MAX),
                Some(-1),
            ])),
        ),
        (
            "i16",
            Arc::new(Int16Array::from(vec![
                Some(-300),
                Some(7),
                None,
                Some(i16::MAX),
                Some(0),
            ])),
        ),
        (
            "i32",
            Arc::new(Int32Array::from(vec![
                Some(1),
                Some(2),
                Some(3),
                Some(i32::MIN),
                None,
            ])),
        ),
        (
            "i64",
            Arc::new(Int64Array::from(vec![
                Some(i64::MAX),
                Some(i64::MIN),
                Some(0),
                None,
                Some(42),
            ])),
        ),
        (
            "bool",
            Arc::new(BooleanArray::from(vec![
                Some(true),
                None,
                Some(false),
                Some(true),
                None,
            ])),
        ),
        (
            "f32",
            Arc::new(Float32Array::from(vec![
                Some(1.5f32),
                Some(-0.0),
                None,
                Some(f32::INFINITY),
                Some(0.1),
            ])),
        ),
        (
            "f64",
            Arc::new(Float64Array::from(vec![
                Some(f64::NAN),
                Some(-0.0),
                Some(1e300),
                Some(f64::NEG_INFINITY),
                None,
            ])),
        ),
        (
            "date",
            Arc::new(Date32Array::from(vec![
                Some(-719162),
                Some(-1),
                Some(0),
                None,
                Some(19000),
            ])),
        ),
        (
            "ts",
            Arc::new(TimestampMicrosecondArray::from(vec![
                Some(-62135596800000000),
                Some(0),
                None,
                Some(1_700_000_000_123_456),
                Some(-1),
            ])),
        ),
        (
            "ts_tz",
            Arc::new(
                TimestampMicrosecondArray::from(vec![
                    Some(1),
                    None,
                    Some(-1),
                    Some(253402300799999999),
                    Some(0),
                ])
                .with_timezone("America/Los_Angeles"),
            ),
        ),
        (
            "s",
            Arc::new(StringArray::from(vec![
                Some(""),
                Some("héllo wörld"),
                None,
                Some(long_string.as_str()),
                Some("日本語\u{1F600}"),
            ])),
        ),
        (
            "dec10",
            Arc::new(
                Decimal128Array::from(vec![
                    Some(12345),
                    Some(-5),
                    None,
                    Some(9_999_999_999),
                    Some(0),
                ])
                .with_precision_and_scale(10, 2)
                .expect("valid decimal"),
            ),
        ),
        (
            "dec38",
            Arc::new(
                Decimal128Array::from(vec![
                    Some(10i128.pow(37)),
                    Some(-(10i128.pow(38) - 1)),
                    Some(0),
                    None,
                    Some(1),
                ])
                .with_precision_and_scale(38, 0)
                .expect("valid decimal"),
            ),
        ),
        (
            "bin",
            Arc::new(BinaryArray::from(vec![
                Some(&b"\x00\xff"[..]),
                None,
                Some(&b""[..]),
                Some(&b"abc"[..]),
                Some(&b"\x80"[..]),
            ])),
        ),
    ];
    batch(cols)
}

/// Builds a batch from named columns (nullable fields).
pub fn batch(cols: Vec<(&str, ArrayRef)>) -> RecordBatch {
    let fields: Vec<Field> = cols
        .iter()
        .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
        .collect();
    RecordBatch::try_new(
        Arc::new(Schema::new(fields)),
        cols.into_iter().map(|(_, a)| a).collect(),
    )
    .expect("valid batch")
}

/// List, struct, map and a list of structs.
pub fn nested() -> RecordBatch {
    let mut list = ListBuilder::new(Int32Builder::new());
    list.append_value([Some(1), None, Some(3)]);
    list.append_null();
    list.append_value([]);
    list.append_value([Some(-7)]);
    let list = list.finish();

    let struct_fields = Fields::from(vec![
        Field::new("a", DataType::Int32, true),
        Field::new("b", DataType::Utf8, true),
    ]);
    let mut st = StructBuilder::from_fields(struct_fields.clone(), 4);
    for (i, (a, b)) in [
        (Some(1), Some("x")),
        (None, Some("yy")),
        (Some(3), None),
        (Some(4), Some("ü")),
    ]
    .into_iter()
    .enumerate()
    {
        st.field_builder::<Int32Builder>(0)
            .expect("a")
            .append_option(a);
        st.field_builder::<StringBuilder>(1)
            .expect("b")
            .append_option(b);
        st.append(i != 2);
    }
    let st = st.finish();

    let mut map = MapBuilder::new(None, StringBuilder::new(), Int64Builder::new());
    map.keys().append_value("k1");
    map.values().append_value(10);
    map.keys().append_value("k2");
    map.values().append_null();
    map.append(true).expect("map");
    map.append(false).expect("map");
    map.append(true).expect("map");
    map.keys().append_value("only");
    map.values().append_value(-1);
    map.append(true).expect("map");
    let map = map.finish();

    let mut los = ListBuilder::new(StructBuilder::from_fields(struct_fields, 0));
    for row in 0..4 {
        for j in 0..row {
            let sb = los.values();
            sb.field_builder::<Int32Builder>(0)
                .expect("a")
                .append_value(row * 10 + j);
            sb.field_builder::<StringBuilder>(1)
                .expect("b")
                .append_value(format!("r{row}j{j}"));
            sb.append(true);
        }
        los.append(row != 1);
    }
    let los = los.finish();

    batch(vec![
        ("list", Arc::new(list) as ArrayRef),
        ("struct", Arc::new(st)),
        ("map", Arc::new(map)),
        ("list_of_struct", Arc::new(los)),
    ])
}

/// All-null columns of several types, and the Null type.
pub fn all_null() -> RecordBatch {
    batch(vec![
        (
            "i64",
            Arc::new(Int64Array::from(vec![None::<i64>; 3])) as ArrayRef,
        ),
        ("s", Arc::new(StringArray::from(vec![None::<&str>; 3]))),
        ("f64", Arc::new(Float64Array::from(vec![None::<f64>; 3]))),
        ("null", Arc::new(NullArray::new(3))),
    ])
}

/// Float and string stats edge cases: only NaN, and a string bound that cannot be incremented.
pub fn bound_edges() -> RecordBatch {
    let max_chars = "\u{10FFFF}".repeat(70);
    batch(vec![
        (
            "nan_only",
            Arc::new(Float64Array::from(vec![
                Some(f64::NAN),
                None,
                Some(f64::NAN),
            ])) as ArrayRef,
        ),
        (
            "nan_and_inf",
            Arc::new(Float32Array::from(vec![
                Some(f32::NAN),
                Some(f32::INFINITY),
                Some(-0.0),
            ])),
        ),
        (
            "no_upper",
            Arc::new(StringArray::from(vec![
                Some(max_chars.as_str()),
                Some("a"),
                None,
            ])),
        ),
        (
            "carry",
            Arc::new(StringArray::from(vec![
                Some(format!("{}\u{D7FF}zzz", "a".repeat(13))),
                Some("a".into()),
                Some("".into()),
            ])),
        ),
    ])
}

/// A 0-row batch of the primitive schema.
pub fn empty() -> RecordBatch {
    primitives().slice(0, 0)
}

/// One column per V4 buffer encoding, 200 rows: a constant, a frame of reference (small range
/// far from zero), a delta (timestamps a second apart), a dictionary (five scattered longs),
/// 16-byte decimals, dates, strings whose offsets are affine, with nulls, doubles with NaN and
/// -0.0 that no integer encoding takes, a random column that stays plain, and prices of two
/// decimals with NaN and nulls (ALP).
pub fn encodings() -> RecordBatch {
    let rows = 200i64;
    let spread = [i64::MIN / 3, -77, 0, 1 << 40, i64::MAX / 5];
    let cols: Vec<(&str, ArrayRef)> = vec![
        (
            "constant",
            Arc::new(Int64Array::from_iter_values(
                (0..rows).map(|_| 1_234_567_890_123),
            )),
        ),
        (
            "for",
            Arc::new(Int32Array::from_iter_values(
                (0..rows).map(|r| 1_000_000 + (mix(r) % 100) as i32),
            )),
        ),
        (
            "delta",
            Arc::new(
                TimestampMicrosecondArray::from_iter_values(
                    (0..rows).map(|r| 1_700_000_000_000_000 + r * 1_000_000),
                )
                .with_timezone("UTC"),
            ),
        ),
        (
            "dictionary",
            Arc::new(Int64Array::from_iter(
                (0..rows).map(|r| (r % 11 != 0).then(|| spread[(mix(r) % 5) as usize])),
            )),
        ),
        (
            "decimal",
            Arc::new(
                Decimal128Array::from_iter_values((0..rows).map(|r| 10_000 + i128::from(r % 13)))
                    .with_precision_and_scale(18, 2)
                    .expect("decimal"),
            ),
        ),
        (
            "date",
            Arc::new(Date32Array::from_iter_values(
                (0..rows).map(|r| 19_000 + (r / 10) as i32),
            )),
        ),
        (
            "code",
            Arc::new(StringArray::from_iter(
                (0..rows).map(|r| (r % 17 != 0).then(|| format!("k{:04}", r % 9))),
            )),
        ),
        (
            "ratio",
            Arc::new(Float64Array::from_iter_values((0..rows).map(|r| {
                match r % 4 {
                    0 => f64::NAN,
                    1 => -0.0,
                    _ => r as f64 / 7.0,
                }
            }))),
        ),
        (
            "random",
            Arc::new(Int64Array::from_iter_values(
                (0..rows).map(|r| mix(r) as i64),
            )),
        ),
        (
            "price",
            Arc::new(Float64Array::from_iter((0..rows).map(|r| {
                (r % 23 != 0).then(|| match r % 50 {
                    7 => f64::NAN,
                    _ => (100_000 + (mix(r) % 5_000) as i64) as f64 / 100.0,
                })
            }))),
        ),
        (
            // Log lines: templated text with numbers in it, and a null now and then (FSST).
            "message",
            Arc::new(StringArray::from_iter((0..rows).map(|r| {
                (r % 29 != 0).then(|| {
                    format!(
                        "GET /api/v{}/orders/{} took {} ms from 10.0.{}.{} — ok",
                        r % 3,
                        mix(r) % 100_000,
                        mix(r + 1) % 900,
                        r % 7,
                        mix(r + 2) % 250
                    )
                })
            }))),
        ),
    ];
    batch(cols)
}

/// A deterministic scramble of `r` (splitmix64's finalizer): values with no pattern a codec or
/// an integer encoding could find.
pub fn mix(r: i64) -> u64 {
    let mut z = (r as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// 64 columns of mixed types, 100 rows.
pub fn wide() -> RecordBatch {
    let rows = 100;
    let cols: Vec<(String, ArrayRef)> = (0..64)
        .map(|c| {
            let array: ArrayRef = match c % 4 {
                0 => Arc::new(Int64Array::from_iter((0..rows).map(|r| {
                    if r % 7 == 0 {
                        None
                    } else {
                        Some(r * c)
                    }
                }))),
                1 => Arc::new(Int64Array::from_iter_values((0..rows).map(|r| r % 5))),
                2 => Arc::new(Float64Array::from_iter_values(
                    (0..rows).map(|r| r as f64 / (c + 1) as f64),
                )),
                _ => Arc::new(StringArray::from_iter_values(
                    (0..rows).map(|r| format!("v{}", r % 9)),
                )),
            };
            (format!("c{c}"), array)
        })
        .collect();
    batch(cols.iter().map(|(n, a)| (n.as_str(), a.clone())).collect())
}

/// The benchmark's shape: `rows` × 16 columns (4 sequential longs, 4 low-cardinality
/// longs, 4 doubles, 4 low-cardinality strings).
pub fn bench_batch(rows: usize) -> RecordBatch {
    let words = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
    ];
    let mut cols: Vec<(String, ArrayRef)> = Vec::new();
    for c in 0..4i64 {
        cols.push((
            format!("seq{c}"),
            Arc::new(Int64Array::from_iter_values(
                (0..rows as i64).map(|r| r * (c + 1) + 1000),
            )),
        ));
    }
    for c in 0..4i64 {
        cols.push((
            format!("card{c}"),
            Arc::new(Int64Array::from_iter_values(
                (0..rows as i64).map(|r| (r * 31 + c) % 50),
            )),
        ));
    }
    for c in 0..4u64 {
        let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ c;
        cols.push((
            format!("dbl{c}"),
            Arc::new(Float64Array::from_iter_values((0..rows).map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 1_000_000) as f64 / 100.0
            }))),
        ));
    }
    for c in 0..4 {
        cols.push((
            format!("str{c}"),
            Arc::new(StringArray::from_iter_values(
                (0..rows).map(|r| words[(r * 7 + c) % words.len()]),
            )),
        ));
    }
    batch(cols.iter().map(|(n, a)| (n.as_str(), a.clone())).collect())
}

/// Row-by-row equality that treats NaN as equal to NaN and keeps -0.0 distinct from 0.0.
pub fn assert_batches_equal(left: &RecordBatch, right: &RecordBatch) {
    assert_eq!(left.schema(), right.schema(), "schemas differ");
    assert_eq!(left.num_rows(), right.num_rows(), "row counts differ");
    for (i, (l, r)) in left.columns().iter().zip(right.columns()).enumerate() {
        assert_eq!(l.to_data(), r.to_data(), "column {i} differs");
    }
}

/// `batch`'s rows as Spark `UnsafeRow`s, packed back to back the way the JVM hands them to
/// `unsafe_row::to_record_batch`: (bytes, starts with one entry past the last row). Only the
/// bench batch's types (longs, doubles, strings) are written.
pub fn to_unsafe_rows(batch: &RecordBatch) -> (Vec<u8>, Vec<i64>) {
    let fields = batch.num_columns();
    let fixed = fields.div_ceil(64) * 8 + fields * 8;
    let mut data = Vec::new();
    let mut starts = vec![0i64];
    for row in 0..batch.num_rows() {
        let start = data.len();
        data.resize(start + fixed, 0);
        for (f, column) in batch.columns().iter().enumerate() {
            let slot = start + fields.div_ceil(64) * 8 + f * 8;
            if column.is_null(row) {
                data[start + (f / 64) * 8 + (f % 64) / 8] |= 1 << (f % 8);
                continue;
            }
            let word = match column.data_type() {
                DataType::Int64 => column
                    .as_any()
                    .downcast_ref::<Int64Array>()
                    .unwrap()
                    .value(row) as u64,
                DataType::Float64 => column
                    .as_any()
                    .downcast_ref::<Float64Array>()
                    .unwrap()
                    .value(row)
                    .to_bits(),
                DataType::Utf8 => {
                    let s = column
                        .as_any()
                        .downcast_ref::<StringArray>()
                        .unwrap()
                        .value(row);
                    let offset = data.len() - start;
                    data.extend_from_slice(s.as_bytes());
                    data.resize(data.len() + (8 - s.len() % 8) % 8, 0);
                    ((offset as u64) << 32) | s.len() as u64
                }
                other => panic!("to_unsafe_rows: no writer for {other}"),
            };
            data[slot..slot + 8].copy_from_slice(&word.to_le_bytes());
        }
        starts.push(data.len() as i64);
    }
    (data, starts)
}

/// The columns of [`encodings_by_type`]: each named `<encoding>_<type>`, shaped so that `auto`
/// without a codec stores its values (for strings, its offsets or value bytes) in that encoding.
/// Run-length, dictionary, ALP and string columns have a null now and then; the others none, as
/// a null's slot holds 0, which would widen a frame of reference or break a constant.
pub fn encodings_by_type_columns() -> Vec<(String, ArrayRef)> {
    let rows = 300i64;
    let nulls = |r: i64| r % 37 != 5;
    // Shapes, as i64 values per row; cast to each type below.
    let constant = |_: i64| 42i64;
    let reference = |r: i64| 100 + (mix(r) % 100) as i64;
    let delta = |r: i64| 1_000 + r * 97 + (mix(r) % 3) as i64;
    let runs = |r: i64| [5i64, -3, 77, 12][((r / 50) % 4) as usize];
    let spread = |r: i64| [-30_000i64, -7, 0, 29_999][(mix(r) % 4) as usize];
    let wide_spread = |r: i64| [i64::MIN / 3, -77, 0, 1 << 40, i64::MAX / 5][(mix(r) % 5) as usize];
    type Shape = fn(i64) -> i64;
    let shapes: [(&str, Shape); 5] = [
        ("constant", constant),
        ("frame_of_reference", reference),
        ("delta", delta),
        ("run_length", runs),
        ("dictionary", spread),
    ];
    let mut cols: Vec<(String, ArrayRef)> = Vec::new();
    for (name, shape) in shapes {
        let with_nulls = matches!(name, "run_length" | "dictionary");
        let present = move |r: i64| !with_nulls || nulls(r);
        let values = |r: i64| present(r).then(|| shape(r));
        let narrow = |r: i64| present(r).then(|| (shape(r) % 100) as i8);
        if name != "dictionary" && name != "delta" {
            cols.push((
                format!("{name}_int8"),
                Arc::new(Int8Array::from_iter((0..rows).map(narrow))),
            ));
        }
        cols.push((
            format!("{name}_int16"),
            Arc::new(Int16Array::from_iter(
                (0..rows).map(|r| values(r).map(|v| v as i16)),
            )),
        ));
        cols.push((
            format!("{name}_int32"),
            Arc::new(Int32Array::from_iter(
                (0..rows).map(|r| values(r).map(|v| v as i32)),
            )),
        ));
        cols.push((
            format!("{name}_date32"),
            Arc::new(Date32Array::from_iter(
                (0..rows).map(|r| values(r).map(|v| 19_000 + v as i32)),
            )),
        ));
        let big = |r: i64| {
            values(r).map(|v| match name {
                "dictionary" => wide_spread(r),
                _ => 1_700_000_000_000 + v * 1_000,
            })
        };
        cols.push((
            format!("{name}_int64"),
            Arc::new(Int64Array::from_iter((0..rows).map(big))),
        ));
        cols.push((
            format!("{name}_timestamp"),
            Arc::new(TimestampMicrosecondArray::from_iter((0..rows).map(big)).with_timezone("UTC")),
        ));
        cols.push((
            format!("{name}_decimal18"),
            Arc::new(
                Decimal128Array::from_iter((0..rows).map(|r| big(r).map(i128::from)))
                    .with_precision_and_scale(18, 3)
                    .expect("decimal"),
            ),
        ));
    }
    // Floating point: ALP for decimals in disguise, constant bit patterns for a constant.
    cols.push((
        "alp_float64".into(),
        Arc::new(Float64Array::from_iter((0..rows).map(|r| {
            nulls(r).then(|| match r % 61 {
                3 => f64::NAN,
                4 => -0.0,
                _ => (10_000 + (mix(r) % 5_000) as i64) as f64 / 100.0,
            })
        }))),
    ));
    cols.push((
        "alp_float32".into(),
        Arc::new(Float32Array::from_iter((0..rows).map(|r| {
            nulls(r).then(|| match r % 61 {
                3 => f32::NAN,
                4 => -0.0,
                _ => (150 + (mix(r) % 250) as i32) as f32 / 10.0,
            })
        }))),
    ));
    cols.push((
        "constant_float64".into(),
        Arc::new(Float64Array::from_iter_values((0..rows).map(|_| 2.5))),
    ));
    // Variable length: FSST for templated text, the string dictionary for few distinct values,
    // HEX for digests.
    let text = |r: i64| {
        format!(
            "GET /api/v{}/orders/{} took {} ms from 10.0.{}.{}",
            r % 3,
            mix(r) % 100_000,
            mix(r + 1) % 900,
            r % 7,
            mix(r + 2) % 250
        )
    };
    let agent = |r: i64| {
        [
            "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
            "curl/8.7.1",
            "",
            "python-requests/2.31.0 é",
        ][(mix(r) % 4) as usize]
            .to_string()
    };
    // Digests: a 128-bit id in hex, one per row.
    let digest = |r: i64| format!("{:016x}{:016x}", mix(r), mix(r + 1_000_000));
    type Text = fn(i64) -> String;
    for (name, value) in [
        ("fsst", text as Text),
        ("string_dictionary", agent as Text),
        ("hex", digest as Text),
    ] {
        let strings = || (0..rows).map(move |r| nulls(r).then(|| value(r)));
        cols.push((
            format!("{name}_utf8"),
            Arc::new(StringArray::from_iter(strings())),
        ));
        cols.push((
            format!("{name}_large_utf8"),
            Arc::new(LargeStringArray::from_iter(strings())),
        ));
        cols.push((
            format!("{name}_binary"),
            Arc::new(BinaryArray::from_iter(
                strings().map(|s| s.map(String::into_bytes)),
            )),
        ));
    }
    cols
}

/// One column per (encoding, type) pair: [`encodings_by_type_columns`].
pub fn encodings_by_type() -> RecordBatch {
    let cols = encodings_by_type_columns();
    batch(cols.iter().map(|(n, c)| (n.as_str(), c.clone())).collect())
}
