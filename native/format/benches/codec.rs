//! Criterion benchmarks at 10,000 rows x 16 mixed columns (the seed's shape):
//! serialize and full decode per format/codec, projected decode of 1/16 and
//! 4/16 columns, and a memcpy baseline. Throughput is the batch's Arrow bytes.

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::time::Duration;

use arrow_array::Array;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use tablecache_format::schema::{encode_schema, SchemaCache, DEFAULT_SCHEMA_CACHE_CAPACITY};
use tablecache_format::unsafe_row::to_record_batch;
use tablecache_format::{
    buffer_encodings, decode, decode_fetched, write, Codec, Encoding, Format, ReadOptions,
    WriteOptions,
};

const ROWS: usize = 10_000;

fn arrow_bytes(batch: &arrow_array::RecordBatch) -> u64 {
    fn data_bytes(d: &arrow_data::ArrayData) -> usize {
        d.buffers().iter().map(|b| b.len()).sum::<usize>()
            + d.nulls().map_or(0, |n| n.buffer().len())
            + d.child_data().iter().map(data_bytes).sum::<usize>()
    }
    batch
        .columns()
        .iter()
        .map(|c| data_bytes(&c.to_data()))
        .sum::<usize>() as u64
}

fn cases() -> Vec<(&'static str, WriteOptions)> {
    let o = |format, codec, stats| WriteOptions {
        format,
        codec,
        stats,
        ..Default::default()
    };
    vec![
        ("v4_stats_none_auto", o(Format::V4, Codec::None, true)),
        ("v4_stats_lz4_auto", o(Format::V4, Codec::Lz4, true)),
        ("v4_stats_zstd_auto", o(Format::V4, Codec::Zstd, true)),
        ("v3_stats_none", o(Format::V3, Codec::None, true)),
        ("v3_stats_lz4", o(Format::V3, Codec::Lz4, true)),
        (
            "v3_stats_lz4_plain",
            WriteOptions {
                encoding: Encoding::Plain.into(),
                ..o(Format::V3, Codec::Lz4, true)
            },
        ),
        ("v3_nostats_lz4", o(Format::V3, Codec::Lz4, false)),
        ("v3_stats_zstd", o(Format::V3, Codec::Zstd, true)),
        ("v2_stats_lz4", o(Format::V2, Codec::Lz4, true)),
        ("legacy_lz4", o(Format::Legacy, Codec::Lz4, false)),
        ("legacy_none", o(Format::Legacy, Codec::None, false)),
    ]
}

/// One column per V4 integer or double encoding, at 65,536 rows, shaped the way the encoding's
/// module says it is meant for.
fn encoding_columns() -> Vec<(&'static str, arrow_array::ArrayRef)> {
    use arrow_array::{Float64Array, Int32Array, Int64Array, StringArray};
    use std::sync::Arc;
    let rows = 65_536i64;
    // splitmix64's finalizer: values with no pattern a codec could find.
    let mix = |r: i64| {
        let mut z = (r as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    vec![
        (
            "constant",
            Arc::new(Int64Array::from_iter_values((0..rows).map(|_| 20_260_101))) as _,
        ),
        (
            "frame_of_reference",
            Arc::new(Int32Array::from_iter_values(
                (0..rows).map(|r| 5_000_000 + (mix(r) % 4096) as i32),
            )) as _,
        ),
        (
            "delta",
            Arc::new(Int64Array::from_iter_values((0..rows).map(|r| {
                1_700_000_000_000_000 + r * 1_000_000 + (mix(r) % 16) as i64
            }))) as _,
        ),
        (
            "run_length",
            Arc::new(Int64Array::from_iter_values(
                (0..rows).map(|r| 7_000_000_000 + (r / 700) * 977),
            )) as _,
        ),
        (
            "dictionary",
            Arc::new(Int64Array::from_iter_values((0..rows).map(|r| {
                [i64::MIN / 3, -77, 0, 1 << 40, i64::MAX / 5][(mix(r) % 5) as usize]
            }))) as _,
        ),
        (
            "alp",
            Arc::new(Float64Array::from_iter_values(
                (0..rows).map(|r| (1_000 + mix(r) % 90_000) as f64 / 100.0),
            )) as _,
        ),
        (
            // Log lines: templates with numbers substituted (the benchmark's logs table).
            "fsst",
            Arc::new(StringArray::from_iter_values((0..rows).map(|r| {
                let m = mix(r);
                match m % 4 {
                    0 => format!("GET /api/v{}/orders/{} 200 {} ms", m % 3, m >> 44, m % 900),
                    1 => format!(
                        "user {} logged in from 10.0.{}.{}",
                        m >> 40,
                        m % 256,
                        r % 256
                    ),
                    2 => format!("cache miss for key session:{:x}", m >> 16),
                    _ => format!(
                        "payment {} of {}.{:02} EUR accepted",
                        m >> 42,
                        m % 5000,
                        r % 100
                    ),
                }
            }))) as _,
        ),
        (
            // SHA-256 digests as lowercase hex (the strings table's hash, a logs trace id).
            "hex",
            Arc::new(StringArray::from_iter_values((0..rows).map(|r| {
                (0..4u64)
                    .map(|i| format!("{:016x}", mix(r * 4 + i as i64)))
                    .collect::<String>()
            }))) as _,
        ),
        (
            // User agents: a handful of long values.
            "string_dictionary",
            Arc::new(StringArray::from_iter_values((0..rows).map(|r| {
                [
                    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120.0",
                    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_2) AppleWebKit/605.1.15 Safari/17.2",
                    "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
                    "curl/8.5.0",
                    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) Mobile/15E148",
                    "python-requests/2.31.0",
                ][(mix(r) % 6) as usize]
            }))) as _,
        ),
    ]
}

/// `decode_fetched` over `source` copied out piece by piece, as the JNI read copies a Java array.
fn fetched(
    source: &[u8],
    projection: Option<&[usize]>,
    options: ReadOptions,
) -> arrow_array::RecordBatch {
    decode_fetched(
        source.len(),
        |offset, dst| {
            dst.copy_from_slice(&source[offset..offset + dst.len()]);
            Ok(())
        },
        projection,
        options,
    )
    .expect("decode")
}

fn benches(c: &mut Criterion) {
    let batch = common::bench_batch(ROWS);
    let bytes = arrow_bytes(&batch);

    let mut g = c.benchmark_group("baseline");
    g.throughput(Throughput::Bytes(bytes));
    let source = vec![7u8; bytes as usize];
    g.bench_function("memcpy", |b| b.iter(|| black_box(source.clone())));
    g.finish();

    let mut g = c.benchmark_group("serialize");
    g.throughput(Throughput::Bytes(bytes));
    for (name, options) in cases() {
        g.bench_function(name, |b| {
            b.iter(|| write(black_box(&batch), &options).expect("write"))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("decode_all");
    g.throughput(Throughput::Bytes(bytes));
    for (name, options) in cases() {
        let frame = write(&batch, &options).expect("write");
        println!(
            "frame size {name}: {} bytes ({:.3} of Arrow)",
            frame.len(),
            frame.len() as f64 / bytes as f64
        );
        if let Some(columns) = buffer_encodings(&frame).expect("a frame") {
            let chosen: Vec<String> = batch
                .schema()
                .fields()
                .iter()
                .zip(columns)
                .map(|(f, buffers)| {
                    let names: Vec<&str> = buffers.iter().map(|e| e.name()).collect();
                    format!("{}={}", f.name(), names.join("/"))
                })
                .collect();
            println!("buffer encodings {name}: {}", chosen.join(" "));
        }
        g.bench_function(name, |b| {
            b.iter(|| decode(black_box(&frame), None).expect("decode"))
        });
    }
    g.finish();

    // Each V4 buffer encoding on a column shaped for it (decoding it alone, no codec), beside
    // the same column in V3 with lz4 and with no codec: what decoding an encoding costs against
    // decompressing. Throughput is the column's Arrow bytes.
    let mut g = c.benchmark_group("decode_encoding");
    for (shape, column) in encoding_columns() {
        let one = common::batch(vec![(shape, column)]);
        g.throughput(Throughput::Bytes(arrow_bytes(&one)));
        let o = |format, codec| WriteOptions {
            format,
            codec,
            stats: false,
            ..Default::default()
        };
        for (name, options) in [
            ("v4_none", o(Format::V4, Codec::None)),
            ("v3_lz4", o(Format::V3, Codec::Lz4)),
            ("v3_none", o(Format::V3, Codec::None)),
        ] {
            let frame = write(&one, &options).expect("write");
            let chosen = buffer_encodings(&frame)
                .expect("a frame")
                .map(|c| c[0].iter().map(|e| e.name()).collect::<Vec<_>>().join("/"))
                .unwrap_or_default();
            println!(
                "column {shape} {name}: {} bytes ({:.3} of Arrow) {chosen}",
                frame.len(),
                frame.len() as f64 / arrow_bytes(&one) as f64
            );
            g.bench_function(BenchmarkId::new(shape, name), |b| {
                b.iter(|| decode(black_box(&frame), None).expect("decode"))
            });
            // The JVM's flat read of a string dictionary: keys over the entries, not one value
            // per row (ReadOptions::dictionary_strings), through the same copy-out read.
            if name == "v4_none" && chosen.contains("string_dictionary") {
                let keyed = ReadOptions {
                    dictionary_strings: true,
                };
                for (label, options) in [
                    ("v4_none_fetched", ReadOptions::default()),
                    ("v4_none_keyed", keyed),
                ] {
                    g.bench_function(BenchmarkId::new(shape, label), |b| {
                        b.iter(|| fetched(black_box(&frame), None, options))
                    });
                }
            }
        }
    }
    g.finish();

    // The build's row input (Spark's UnsafeRows, as the JVM hands them over): transposing
    // them into a batch, and that plus writing the default frame, as one JNI call does.
    let (rows, starts) = common::to_unsafe_rows(&batch);
    let schema = batch.schema();
    let mut g = c.benchmark_group("unsafe_rows");
    g.throughput(Throughput::Bytes(bytes));
    g.bench_function("transpose", |b| {
        b.iter(|| to_record_batch(&schema, black_box(&rows), &starts).expect("transpose"))
    });
    g.bench_function("transpose_write", |b| {
        b.iter(|| {
            let batch = to_record_batch(&schema, black_box(&rows), &starts).expect("transpose");
            write(&batch, &WriteOptions::default()).expect("write")
        })
    });
    g.finish();

    // Projected reads report throughput against the whole batch, like a query
    // that needs those columns of it.
    let mut g = c.benchmark_group("decode_projected");
    g.throughput(Throughput::Bytes(bytes));
    for (name, options) in cases().into_iter().filter(|(n, _)| {
        matches!(
            *n,
            "v3_stats_lz4" | "v3_stats_zstd" | "v2_stats_lz4" | "v3_stats_none"
        )
    }) {
        let frame = write(&batch, &options).expect("write");
        for projection in [vec![0usize], vec![0, 4, 8, 12]] {
            let id = BenchmarkId::new(name, format!("{}of16", projection.len()));
            g.bench_with_input(id, &projection, |b, p| {
                b.iter(|| decode(black_box(&frame), Some(p)).expect("decode"))
            });
        }
    }
    g.finish();

    // The JNI read copies what it decodes out of the Java array first (decode_fetched); this
    // prices that copy against decoding borrowed bytes, the same projections side by side.
    let mut g = c.benchmark_group("decode_fetched");
    g.throughput(Throughput::Bytes(bytes));
    let frame = write(&batch, &WriteOptions::default()).expect("write");
    for projection in [vec![0usize], vec![0, 4, 8, 12]] {
        let label = format!("{}of16", projection.len());
        g.bench_with_input(BenchmarkId::new("borrowed", &label), &projection, |b, p| {
            b.iter(|| decode(black_box(&frame), Some(p)).expect("decode"))
        });
        g.bench_with_input(BenchmarkId::new("fetched", &label), &projection, |b, p| {
            b.iter(|| fetched(black_box(&frame), Some(p), ReadOptions::default()))
        });
    }
    g.finish();
    black_box(batch.column(0).len());

    // The usual case of the schema cache: few small schemas, one lookup per batch.
    let mut g = c.benchmark_group("schema_cache");
    let cache = SchemaCache::new(DEFAULT_SCHEMA_CACHE_CAPACITY);
    let schema = batch.schema();
    let keys: Vec<Vec<u8>> = (0..4)
        .map(|i| {
            let fields = schema
                .fields()
                .iter()
                .map(|f| f.as_ref().clone().with_name(format!("{}_{i}", f.name())));
            encode_schema(&arrow_schema::Schema::new(fields.collect::<Vec<_>>())).expect("encode")
        })
        .collect();
    for key in &keys {
        cache.get_or_parse(key).expect("parse");
    }
    g.bench_function("hit_16_columns", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % keys.len();
            cache.get_or_parse(black_box(&keys[i])).expect("hit")
        })
    });
    g.finish();
}

criterion_group! {
    name = codec;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = benches
}
criterion_main!(codec);
