//! Property tests: decode(write(b)) == b for every format and codec, and a
//! projected decode equals the projection of a full decode.

mod common;

use std::sync::Arc;

use arrow_array::builder::{Int32Builder, ListBuilder, StringBuilder};
use arrow_array::*;
use arrow_schema::{DataType, Field, Fields};
use proptest::prelude::*;
use tablecache_format::{
    buffer_encodings, decode, write, BufferEncoding, Codec, Encoding, EncodingPolicy, Format,
    Frame, WriteOptions,
};

/// A tiny deterministic generator so a proptest seed fully describes a batch.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn null(&mut self, rate: u64) -> bool {
        rate > 0 && self.below(100) < rate
    }
}

fn random_column(rng: &mut Rng, rows: usize) -> ArrayRef {
    let rate = [0, 0, 10, 50, 100][rng.below(5) as usize];
    macro_rules! prim {
        ($array:ty, $gen:expr) => {{
            let v: $array = (0..rows)
                .map(|_| {
                    if rng.null(rate) {
                        None
                    } else {
                        Some($gen(rng.next()))
                    }
                })
                .collect();
            Arc::new(v) as ArrayRef
        }};
    }
    let words = [
        "",
        "a",
        "héllo",
        "日本",
        "\u{10FFFF}",
        "zz",
        "longer string value",
    ];
    match rng.below(17) {
        0 => prim!(Int8Array, |x: u64| x as i8),
        // Hex digests of any length, odd ones included (HEX), as strings or bytes.
        16 => {
            let digest = |x: u64| format!("{x:016x}")[..(x % 17) as usize].to_string();
            if rng.below(2) == 0 {
                prim!(StringArray, digest)
            } else {
                prim!(BinaryArray, |x: u64| digest(x).into_bytes())
            }
        }
        1 => prim!(Int16Array, |x: u64| x as i16),
        2 => prim!(Int32Array, |x: u64| x as i32),
        3 => prim!(Int64Array, |x: u64| x as i64),
        4 => prim!(Float32Array, |x: u64| [
            f32::NAN,
            -0.0,
            0.0,
            f32::INFINITY,
            (x % 1000) as f32 / 7.0
        ][(x % 5) as usize]),
        // Mostly decimals in disguise (ALP), and every special value among them.
        5 => prim!(Float64Array, |x: u64| [
            f64::NAN,
            -0.0,
            f64::NEG_INFINITY,
            f64::from_bits(x)
        ]
        .get((x % 16) as usize)
        .copied()
        .unwrap_or(((x >> 8) % 100_000) as f64 / 100.0)),
        6 => prim!(BooleanArray, |x: u64| x.is_multiple_of(2)),
        7 => prim!(StringArray, |x: u64| words[(x % 7) as usize]),
        8 => prim!(LargeStringArray, |x: u64| words[(x % 7) as usize]),
        9 => prim!(BinaryArray, |x: u64| &b"\x00\x01\xffabc"
            [..(x % 6) as usize]),
        10 => prim!(Date32Array, |x: u64| x as i32 % 100_000),
        11 => {
            let v: Decimal128Array = (0..rows)
                .map(|_| {
                    if rng.null(rate) {
                        None
                    } else {
                        Some((rng.next() as i128) % 10i128.pow(20))
                    }
                })
                .collect();
            Arc::new(v.with_precision_and_scale(38, 4).expect("decimal"))
        }
        13 => {
            // Text long enough for FSST: templated lines with numbers, unicode and raw bytes.
            let v: StringArray = (0..rows)
                .map(|_| {
                    if rng.null(rate) {
                        None
                    } else {
                        let x = rng.next();
                        Some(format!(
                            "{} /api/{}/item/{} took {} ms 😀 {}",
                            words[(x % 7) as usize],
                            x % 5,
                            x >> 40,
                            (x >> 20) % 1000,
                            "x".repeat((x % 90) as usize)
                        ))
                    }
                })
                .collect();
            Arc::new(v)
        }
        14 => {
            let mut b = ListBuilder::new(StringBuilder::new());
            for _ in 0..rows {
                if rng.null(rate) {
                    b.append_null();
                } else {
                    for _ in 0..rng.below(5) {
                        b.values().append_value(words[rng.below(7) as usize]);
                    }
                    b.append(true);
                }
            }
            Arc::new(b.finish())
        }
        12 => {
            let mut b = ListBuilder::new(Int32Builder::new());
            for _ in 0..rows {
                if rng.null(rate) {
                    b.append_null();
                } else {
                    let n = rng.below(4);
                    for _ in 0..n {
                        b.values().append_value(rng.next() as i32);
                    }
                    b.append(true);
                }
            }
            Arc::new(b.finish())
        }
        _ => {
            let a: Int64Array = (0..rows)
                .map(|_| {
                    if rng.null(rate) {
                        None
                    } else {
                        Some(rng.next() as i64)
                    }
                })
                .collect();
            let s: StringArray = (0..rows)
                .map(|_| {
                    if rng.null(rate) {
                        None
                    } else {
                        Some(words[rng.below(7) as usize])
                    }
                })
                .collect();
            let fields = Fields::from(vec![
                Field::new("a", DataType::Int64, true),
                Field::new("s", DataType::Utf8, true),
            ]);
            let nulls: Option<arrow_buffer::NullBuffer> = if rate > 0 {
                Some(
                    (0..rows)
                        .map(|_| !rng.null(rate / 2))
                        .collect::<Vec<bool>>()
                        .into(),
                )
            } else {
                None
            };
            Arc::new(StructArray::new(
                fields,
                vec![Arc::new(a), Arc::new(s)],
                nulls,
            ))
        }
    }
}

fn random_batch(seed: u64, rows: usize, cols: usize) -> RecordBatch {
    let mut rng = Rng(seed | 1);
    let columns: Vec<(String, ArrayRef)> = (0..cols)
        .map(|c| (format!("c{c}"), random_column(&mut rng, rows)))
        .collect();
    common::batch(
        columns
            .iter()
            .map(|(n, a)| (n.as_str(), a.clone()))
            .collect(),
    )
}

const FORMATS: [Format; 4] = [Format::V4, Format::V3, Format::V2, Format::Legacy];
const CODECS: [Codec; 5] = [
    Codec::None,
    Codec::Lz4,
    Codec::Zstd,
    Codec::Auto,
    Codec::Adaptive,
];
const ENCODINGS: [EncodingPolicy; 3] = [
    EncodingPolicy::Auto,
    EncodingPolicy::Pinned(Encoding::Plain),
    EncodingPolicy::Pinned(Encoding::ByteStreamSplit),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn decode_inverts_write(seed in any::<u64>(), rows in 0usize..120, cols in 1usize..7, stats in any::<bool>()) {
        let batch = random_batch(seed, rows, cols);
        for format in FORMATS {
            for codec in CODECS {
                for encoding in ENCODINGS {
                    let bytes = write(&batch, &WriteOptions { format, codec, stats, encoding, ..Default::default() }).expect("write");
                    let back = decode(&bytes, None).expect("decode");
                    common::assert_batches_equal(&back, &batch);
                }
            }
        }
    }

    /// A V4 entry's decoded length is the plain body its column decodes to: a V3 entry's
    /// raw length for the same column written plain and uncompressed.
    #[test]
    fn v4_decoded_lengths_are_the_plain_bodies(seed in any::<u64>(), rows in 0usize..120, cols in 1usize..7) {
        let batch = random_batch(seed, rows, cols);
        let plain = write(&batch, &WriteOptions { format: Format::V3, codec: Codec::None, encoding: EncodingPolicy::Pinned(Encoding::Plain), ..Default::default() }).expect("write V3");
        let plain = Frame::parse(&plain).expect("parse V3");
        for codec in CODECS {
            let v4 = write(&batch, &WriteOptions { format: Format::V4, codec, ..Default::default() }).expect("write V4");
            let v4 = Frame::parse(&v4).expect("parse V4");
            let decoded: Vec<u32> = v4.directory.iter().map(|e| e.decoded_len).collect();
            let expected: Vec<u32> = plain.directory.iter().map(|e| e.raw_len).collect();
            prop_assert_eq!(decoded, expected);
        }
    }

    #[test]
    fn projected_decode_equals_projection(seed in any::<u64>(), rows in 0usize..60, cols in 1usize..7, picks in proptest::collection::vec(any::<u16>(), 0..6)) {
        let batch = random_batch(seed, rows, cols);
        let projection: Vec<usize> = picks.iter().map(|p| *p as usize % cols).collect();
        for format in FORMATS {
            let bytes = write(&batch, &WriteOptions { format, ..Default::default() }).expect("write");
            let projected = decode(&bytes, Some(&projection)).expect("projected decode");
            let expected = decode(&bytes, None).expect("decode").project(&projection).expect("project");
            prop_assert_eq!(projected.num_rows(), rows);
            common::assert_batches_equal(&projected, &expected);
        }
    }

    #[test]
    fn sliced_input_is_normalized(seed in any::<u64>(), rows in 2usize..80, cols in 1usize..5, start in 0usize..40) {
        let batch = random_batch(seed, rows, cols);
        let start = start % rows;
        let slice = batch.slice(start, (rows - start) / 2);
        for format in FORMATS {
            let bytes = write(&slice, &WriteOptions { format, ..Default::default() }).expect("write");
            common::assert_batches_equal(&decode(&bytes, None).expect("decode"), &slice);
        }
    }
}

/// The random batches the properties run on reach every V4 buffer encoding, so that each
/// encoder and decoder meets random columns of every type (nulls, slices, nesting), not only the
/// fixtures.
#[test]
fn the_random_batches_reach_every_buffer_encoding() {
    let mut used = std::collections::BTreeSet::new();
    for seed in 0..300u64 {
        let batch = random_batch(seed * 7919, 40 + (seed as usize % 80), 6);
        for codec in [Codec::None, Codec::Lz4] {
            let bytes = write(
                &batch,
                &WriteOptions {
                    format: Format::V4,
                    codec,
                    ..Default::default()
                },
            )
            .expect("write");
            for encoding in buffer_encodings(&bytes)
                .expect("descriptors")
                .expect("V4")
                .into_iter()
                .flatten()
            {
                used.insert(encoding.id());
            }
        }
    }
    let all: std::collections::BTreeSet<u8> = BufferEncoding::ALL.iter().map(|e| e.id()).collect();
    let missing: Vec<_> = all.difference(&used).collect();
    assert!(
        missing.is_empty(),
        "never chosen on random batches: {missing:?}"
    );
}

/// A slice of a string or list array (arrow-rs slices its offsets) stores only its own values,
/// not every value before it.
#[test]
fn a_slice_stores_only_its_own_values() {
    let strings: StringArray = (0..1000)
        .map(|i| Some(format!("value number {i}")))
        .collect();
    let mut lists = ListBuilder::new(Int32Builder::new());
    for i in 0..1000 {
        lists.values().append_slice(&[i, i + 1, i + 2]);
        lists.append(true);
    }
    let whole = common::batch(vec![
        ("s", Arc::new(strings) as ArrayRef),
        ("l", Arc::new(lists.finish()) as ArrayRef),
    ]);
    let slice = whole.slice(990, 10);
    let options = WriteOptions {
        format: Format::V3,
        codec: Codec::None,
        ..Default::default()
    };
    let frame = write(&slice, &options).expect("write");
    let parsed = Frame::parse(&frame).expect("parse");
    for (column, entry) in parsed.directory.iter().enumerate() {
        assert!(
            entry.raw_len < 600,
            "column {column}: {} bytes for 10 values",
            entry.raw_len
        );
    }
    common::assert_batches_equal(&decode(&frame, None).expect("decode"), &slice);
}

#[test]
fn empty_projection_yields_row_count_only() {
    let batch = common::primitives();
    for format in FORMATS {
        let bytes = write(
            &batch,
            &WriteOptions {
                format,
                ..Default::default()
            },
        )
        .expect("write");
        let out = decode(&bytes, Some(&[])).expect("decode");
        assert_eq!(out.num_columns(), 0);
        assert_eq!(out.num_rows(), batch.num_rows());
    }
}

#[test]
fn formats_mix_and_are_detected() {
    let batch = common::nested();
    for (format, expected) in [
        (Format::V4, Format::V4),
        (Format::V3, Format::V3),
        (Format::V2, Format::V2),
        (Format::Legacy, Format::Legacy),
    ] {
        let bytes = write(
            &batch,
            &WriteOptions {
                format,
                ..Default::default()
            },
        )
        .expect("write");
        assert_eq!(tablecache_format::detect(&bytes).expect("detect"), expected);
    }
}

#[test]
fn dictionary_columns_round_trip() {
    let dict: DictionaryArray<arrow_array::types::Int32Type> =
        vec![Some("x"), None, Some("y"), Some("x")]
            .into_iter()
            .collect();
    let batch = common::batch(vec![("d", Arc::new(dict) as ArrayRef)]);
    for format in FORMATS {
        for encoding in ENCODINGS {
            let bytes = write(
                &batch,
                &WriteOptions {
                    format,
                    encoding,
                    ..Default::default()
                },
            )
            .expect("write");
            common::assert_batches_equal(&decode(&bytes, None).expect("decode"), &batch);
        }
    }
}

/// What the encoding is for: correlated fixed-width values (sequences, timestamps, prices)
/// shrink several times more under the codec once their bytes are split.
#[test]
fn byte_stream_split_shrinks_correlated_columns() {
    let rows = 10_000i64;
    let ids =
        arrow_array::Int64Array::from_iter_values((0..rows).map(|i| 1_700_000_000_000 + i * 3));
    let prices = arrow_array::Float64Array::from_iter_values((0..rows).map(|i| i as f64 * 0.25));
    let batch = common::batch(vec![
        ("id", Arc::new(ids) as ArrayRef),
        ("price", Arc::new(prices) as ArrayRef),
    ]);
    for codec in [Codec::Lz4, Codec::Zstd] {
        for format in [Format::V3, Format::V2] {
            let size = |encoding| {
                let options = WriteOptions {
                    format,
                    codec,
                    encoding,
                    ..Default::default()
                };
                let bytes = write(&batch, &options).expect("write");
                common::assert_batches_equal(&decode(&bytes, None).expect("decode"), &batch);
                bytes.len()
            };
            let (plain, split) = (
                size(Encoding::Plain.into()),
                size(Encoding::ByteStreamSplit.into()),
            );
            assert!(
                split * 4 < plain,
                "{format:?} {codec:?}: split {split} vs plain {plain}"
            );
        }
    }
}
