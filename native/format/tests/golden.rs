//! Golden frames: the writer must reproduce every file in `golden/` byte for
//! byte, and the manifest must match what the frame says. Run with
//! `TABLECACHE_REGEN_GOLDEN=1` (scripts/regen-golden.sh) to rewrite them on purpose.

mod common;

use std::path::PathBuf;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use serde_json::{json, Value};
use tablecache_format::stats::Bound;
use tablecache_format::{
    decode, detect, write, ChecksumKind, Codec, Encoding, EncodingPolicy, Format, Frame,
    WriteOptions,
};

struct Fixture {
    name: &'static str,
    description: &'static str,
    batch: RecordBatch,
    options: WriteOptions,
}

fn opts(format: Format, stats: bool, codec: Codec) -> WriteOptions {
    WriteOptions {
        format,
        stats,
        codec,
        encoding: EncodingPolicy::Pinned(Encoding::Plain),
        string_bound_limit: 16,
        checksum: ChecksumKind::Crc32c,
    }
}

/// V4 with the `auto` policy: each buffer in the encoding the selector chooses.
fn v4(stats: bool, codec: Codec) -> WriteOptions {
    WriteOptions {
        encoding: EncodingPolicy::Auto,
        ..opts(Format::V4, stats, codec)
    }
}

/// `options` with BYTE_STREAM_SPLIT pinned (what `auto`, the writer's default, chooses today;
/// the older files pin plain bodies).
fn split(options: WriteOptions) -> WriteOptions {
    WriteOptions {
        encoding: EncodingPolicy::Pinned(Encoding::ByteStreamSplit),
        ..options
    }
}

fn fixtures() -> Vec<Fixture> {
    use common::*;
    let f = |name, description, batch, options| Fixture {
        name,
        description,
        batch,
        options,
    };
    vec![
        f("v3_stats_lz4_primitives", "V3 + stats + lz4: every bounded type with NaN, -0.0, ±inf, multibyte and over-limit strings, decimals (10,2)/(38,0), pre-epoch dates, timestamps with and without a time zone, binary (unsupported bounds); string limit 16", primitives(), opts(Format::V3, true, Codec::Lz4)),
        f("v3_nostats_none_primitives", "V3 without stats, codec none", primitives(), opts(Format::V3, false, Codec::None)),
        f("v3_stats_zstd_primitives", "V3 + stats + zstd", primitives(), opts(Format::V3, true, Codec::Zstd)),
        f("v3_stats_auto_primitives", "V3 + stats + auto (tiny columns stay uncompressed)", primitives(), opts(Format::V3, true, Codec::Auto)),
        f("v3_stats_none_nochecksum", "V3 + stats, codec none, checksum kind NONE", primitives(), WriteOptions { checksum: ChecksumKind::None, ..opts(Format::V3, true, Codec::None) }),
        f("v2_stats_lz4_primitives", "V2 + stats + lz4 (one whole-batch payload)", primitives(), opts(Format::V2, true, Codec::Lz4)),
        f("v2_nostats_zstd_primitives", "V2 without stats, zstd", primitives(), opts(Format::V2, false, Codec::Zstd)),
        f("legacy_none_primitives", "legacy Arrow IPC stream, uncompressed", primitives(), opts(Format::Legacy, false, Codec::None)),
        f("legacy_lz4_primitives", "legacy Arrow IPC stream with IPC LZ4_FRAME body compression", primitives(), opts(Format::Legacy, false, Codec::Lz4)),
        f("v3_stats_lz4_nested", "V3: list<int>, struct<int,string>, map<string,long>, list<struct> with nulls at every level (stats UNSUPPORTED)", nested(), opts(Format::V3, true, Codec::Lz4)),
        f("v2_stats_none_nested", "V2: nested types, codec none", nested(), opts(Format::V2, true, Codec::None)),
        f("v3_stats_lz4_all_null", "V3: all-null long/string/double columns (no bounds) and a Null-type column", all_null(), opts(Format::V3, true, Codec::Lz4)),
        f("v3_stats_lz4_bound_edges", "V3: NaN-only column (lower = upper = NaN), NaN with inf, a string whose upper bound cannot be incremented (no upper), a carry past U+D7FF", bound_edges(), opts(Format::V3, true, Codec::Lz4)),
        f("v3_stats_lz4_empty", "V3: a 0-row batch", empty(), opts(Format::V3, true, Codec::Lz4)),
        f("v3_stats_lz4_wide64", "V3: 64 mixed columns x 100 rows", wide(), opts(Format::V3, true, Codec::Lz4)),
        f("v3_stats_lz4_split_primitives", "V3 + stats + lz4, BYTE_STREAM_SPLIT: 2-, 4-, 8- and 16-byte values and string/binary offsets split; 1-byte values, booleans and validity left plain", primitives(), split(opts(Format::V3, true, Codec::Lz4))),
        f("v3_stats_zstd_split_primitives", "V3 + stats + zstd, BYTE_STREAM_SPLIT", primitives(), split(opts(Format::V3, true, Codec::Zstd))),
        f("v2_stats_lz4_split_primitives", "V2 + stats + lz4, BYTE_STREAM_SPLIT over the whole-batch body", primitives(), split(opts(Format::V2, true, Codec::Lz4))),
        f("v3_stats_lz4_split_nested", "V3 + lz4, BYTE_STREAM_SPLIT: list/map offsets and nested values split", nested(), split(opts(Format::V3, true, Codec::Lz4))),
        f("v3_stats_auto_split_wide64", "V3 + auto, BYTE_STREAM_SPLIT: payloads that compress are split, payloads kept raw are plain (encoding 0)", wide(), split(opts(Format::V3, true, Codec::Auto))),
        f("v4_stats_lz4_encodings", "V4 + stats + lz4, auto: a buffer in each encoding (constant, frame of reference, delta, run-length, dictionary, alp, fsst, string dictionary, byte_stream_split, plain)", encodings(), v4(true, Codec::Lz4)),
        f("v4_stats_none_encodings", "V4 + stats, codec none, auto: the lightweight encodings alone", encodings(), v4(true, Codec::None)),
        f("v4_stats_none_encodings_by_type", "V4 + stats, codec none, auto: each encoding on each type it applies to (constant, frame of reference, delta, run-length and dictionary on 1-, 2-, 4-, 8- and 16-byte integers, dates, timestamps and decimals; ALP on doubles and floats; FSST, HEX and the string dictionary on strings, large strings and binary), with nulls", encodings_by_type(), v4(true, Codec::None)),
        f("v4_stats_zstd_primitives", "V4 + stats + zstd, auto: every bounded type with NaN, -0.0, ±inf, multibyte strings", primitives(), v4(true, Codec::Zstd)),
        f("v4_stats_lz4_nested", "V4 + lz4, auto: list, struct, map, list<struct> with nulls at every level", nested(), v4(true, Codec::Lz4)),
        f("v4_stats_lz4_all_null", "V4: all-null columns and a Null-type column", all_null(), v4(true, Codec::Lz4)),
        f("v4_stats_lz4_empty", "V4: a 0-row batch", empty(), v4(true, Codec::Lz4)),
        f("v4_nostats_auto_wide64", "V4 without stats, codec auto: 64 mixed columns x 100 rows", wide(), v4(false, Codec::Auto)),
        f("v3_stats_none_split_primitives", "V3, codec none with BYTE_STREAM_SPLIT requested: nothing is split (the encoding only applies to compressed payloads)", primitives(), split(opts(Format::V3, true, Codec::None))),
    ]
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../golden")
}

fn float_json(v: f64) -> Value {
    Value::String(if v.is_nan() {
        "NaN".into()
    } else if v == f64::INFINITY {
        "Infinity".into()
    } else if v == f64::NEG_INFINITY {
        "-Infinity".into()
    } else {
        format!("{v:?}")
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn value_json(array: &dyn Array, i: usize) -> Value {
    if array.is_null(i) || array.data_type() == &DataType::Null {
        return Value::Null;
    }
    match array.data_type() {
        DataType::Boolean => json!(array.as_boolean().value(i)),
        DataType::Int8 => json!(array.as_primitive::<Int8Type>().value(i)),
        DataType::Int16 => json!(array.as_primitive::<Int16Type>().value(i)),
        DataType::Int32 => json!(array.as_primitive::<Int32Type>().value(i)),
        DataType::Int64 => json!(array.as_primitive::<Int64Type>().value(i)),
        DataType::Date32 => json!(array.as_primitive::<Date32Type>().value(i)),
        DataType::Timestamp(_, _) => {
            json!(array.as_primitive::<TimestampMicrosecondType>().value(i))
        }
        DataType::Float32 => float_json(array.as_primitive::<Float32Type>().value(i) as f64),
        DataType::Float64 => float_json(array.as_primitive::<Float64Type>().value(i)),
        DataType::Utf8 => json!(array.as_string::<i32>().value(i)),
        DataType::LargeUtf8 => json!(array.as_string::<i64>().value(i)),
        DataType::Binary => json!(hex(array.as_binary::<i32>().value(i))),
        DataType::Decimal128(_, _) => {
            json!(array.as_primitive::<Decimal128Type>().value_as_string(i))
        }
        DataType::List(_) => {
            let items = array.as_list::<i32>().value(i);
            Value::Array((0..items.len()).map(|j| value_json(&items, j)).collect())
        }
        DataType::Struct(fields) => {
            let s = array.as_struct();
            Value::Object(
                fields
                    .iter()
                    .enumerate()
                    .map(|(k, f)| (f.name().clone(), value_json(s.column(k), i)))
                    .collect(),
            )
        }
        DataType::Map(_, _) => {
            let entries = array.as_map().value(i);
            Value::Array(
                (0..entries.len())
                    .map(|j| {
                        json!([
                            value_json(entries.column(0), j),
                            value_json(entries.column(1), j)
                        ])
                    })
                    .collect(),
            )
        }
        other => panic!("golden manifest has no JSON form for {other}"),
    }
}

fn bound_json(b: &Bound) -> Value {
    match b {
        Bound::Bool(v) => json!(v),
        Bound::Int(v) => json!(v),
        Bound::Float(v) => float_json(*v),
        Bound::Utf8(s) => json!(s),
        Bound::Decimal128(v) => json!(v.to_string()),
    }
}

fn manifest(fx: &Fixture, bytes: &[u8]) -> Value {
    let batch = &fx.batch;
    let format = detect(bytes).expect("detect");
    let mut m = json!({
        "name": fx.name,
        "description": fx.description,
        "format": match format { Format::V4 => "V4", Format::V3 => "V3", Format::V2 => "V2", Format::Legacy => "LEGACY" },
        "write_options": {
            "format": format!("{:?}", fx.options.format).to_uppercase(),
            "stats": fx.options.stats,
            "codec": format!("{:?}", fx.options.codec).to_uppercase(),
            "encoding": fx.options.encoding.name().to_uppercase(),
            "string_bound_limit": fx.options.string_bound_limit,
            "checksum": format!("{:?}", fx.options.checksum).to_uppercase(),
        },
        "row_count": batch.num_rows(),
        "column_count": batch.num_columns(),
        "header": null,
        "directory": [],
        "stats": null,
        "fields": batch.schema().fields().iter().map(|f| json!({"name": f.name(), "type": f.data_type().to_string(), "nullable": f.is_nullable()})).collect::<Vec<_>>(),
        "columns": batch.schema().fields().iter().zip(batch.columns()).map(|(f, c)| json!({"name": f.name(), "values": (0..c.len()).map(|i| value_json(c.as_ref(), i)).collect::<Vec<_>>()})).collect::<Vec<_>>(),
    });
    if format != Format::Legacy {
        let frame = Frame::parse(bytes).expect("parse");
        m["header"] = json!({
            "version": format.version(),
            "flags": frame.flags,
            "stats_present": frame.stats.is_some(),
            "checksum_kind": match frame.checksum { ChecksumKind::None => 0, ChecksumKind::Crc32c => 1 },
            "schema_len": frame.schema_bytes.len(),
            "stats_len": frame.payload_start - 28 - frame.schema_bytes.len() - frame.directory.len() * frame.format.directory_entry_len(),
            "meta_checksum": frame.meta_checksum,
        });
        m["directory"] = frame
            .directory
            .iter()
            .map(|e| {
                let mut entry = json!({"offset": e.offset, "stored_len": e.stored_len, "raw_len": e.raw_len, "checksum": e.checksum, "codec": e.codec as u8, "encoding": e.encoding.id()});
                // Only V4 entries state a decoded length (V2/V3 manifests keep their bytes).
                if frame.format == Format::V4 {
                    entry["decoded_len"] = json!(e.decoded_len);
                }
                entry
            })
            .collect();
        if let Some(stats) = &frame.stats {
            m["stats"] = stats
                .iter()
                .map(|s| {
                    let mut o = json!({"null_count": s.null_count, "row_count": s.row_count, "size_in_bytes": s.size_in_bytes, "unsupported": s.unsupported, "has_nan": s.has_nan, "bound_kind": s.bound_kind() as u8});
                    if let Some(b) = &s.lower {
                        o["lower"] = bound_json(b);
                    }
                    if let Some(b) = &s.upper {
                        o["upper"] = bound_json(b);
                    }
                    o
                })
                .collect();
        }
    }
    m
}

#[test]
fn golden_frames_are_reproduced_byte_for_byte() {
    let regen = std::env::var_os("TABLECACHE_REGEN_GOLDEN").is_some();
    let dir = golden_dir();
    let mut index = String::from("# Golden files\n\nGenerated by `scripts/regen-golden.sh`; see README.md for the manifest format.\n\n| file | pins |\n|---|---|\n");
    for fx in fixtures() {
        let bytes = write(&fx.batch, &fx.options).expect("write");
        let decoded = decode(&bytes, None).expect("decode");
        common::assert_batches_equal(&decoded, &fx.batch);
        let manifest = manifest(&fx, &bytes);
        let bin = dir.join(format!("{}.bin", fx.name));
        let json_path = dir.join(format!("{}.json", fx.name));
        index.push_str(&format!("| `{}.bin` | {} |\n", fx.name, fx.description));
        if regen {
            std::fs::write(&bin, &bytes).expect("write golden");
            std::fs::write(
                &json_path,
                serde_json::to_string_pretty(&manifest).expect("json") + "\n",
            )
            .expect("write manifest");
            continue;
        }
        let expected = std::fs::read(&bin)
            .unwrap_or_else(|e| panic!("{}: {e} (run scripts/regen-golden.sh)", bin.display()));
        assert!(
            expected == bytes,
            "{}: writer output drifted from the golden file ({} vs {} bytes)",
            fx.name,
            bytes.len(),
            expected.len()
        );
        let expected_manifest: Value =
            serde_json::from_slice(&std::fs::read(&json_path).expect("manifest"))
                .expect("manifest json");
        assert_eq!(expected_manifest, manifest, "{}: manifest drifted", fx.name);
        let golden_decoded = decode(&expected, None).expect("decode golden");
        common::assert_batches_equal(&golden_decoded, &fx.batch);
    }
    if regen {
        std::fs::write(dir.join("INDEX.md"), index).expect("write index");
    }
}

/// `auto` (the writer's default) is today's choice: every golden file written with
/// BYTE_STREAM_SPLIT pinned, which is what the default wrote before policies, comes back byte for
/// byte from `auto`.
#[test]
fn auto_writes_the_golden_bytes_of_every_split_fixture() {
    let dir = golden_dir();
    let mut checked = 0;
    for fx in fixtures() {
        if fx.options.encoding != EncodingPolicy::Pinned(Encoding::ByteStreamSplit) {
            continue;
        }
        let auto = WriteOptions {
            encoding: EncodingPolicy::Auto,
            ..fx.options
        };
        let bytes = write(&fx.batch, &auto).expect("write");
        let expected = std::fs::read(dir.join(format!("{}.bin", fx.name))).expect("golden");
        assert!(
            bytes == expected,
            "{}: auto differs from the golden file",
            fx.name
        );
        checked += 1;
    }
    assert!(checked >= 6, "the split fixtures: {checked}");
}

/// The encoding the writer chose for each payload before encodings were units, from the batch's
/// types and the stored codec alone: BYTE_STREAM_SPLIT when the payload is compressed and some
/// buffer of its columns is at least 2 bytes wide, else plain.
fn todays_choice(columns: &[&DataType], stored_codec: u8) -> Encoding {
    let any_wide = columns.iter().any(|t| {
        tablecache_format::layout::buffer_widths(t)
            .expect("widths")
            .iter()
            .any(|&w| w >= 2)
    });
    if stored_codec != 0 && any_wide {
        Encoding::ByteStreamSplit
    } else {
        Encoding::Plain
    }
}

#[test]
fn auto_matches_todays_choice_on_every_golden_batch() {
    let mut batches: Vec<_> = fixtures()
        .into_iter()
        .map(|fx| (fx.name, fx.batch))
        .collect();
    batches.dedup_by_key(|(_, b)| b.schema());
    for (name, batch) in &batches {
        let types: Vec<&DataType> = batch
            .schema_ref()
            .fields()
            .iter()
            .map(|f| f.data_type())
            .collect();
        for format in [Format::V3, Format::V2] {
            for codec in [Codec::None, Codec::Lz4, Codec::Zstd, Codec::Auto] {
                for stats in [true, false] {
                    let options = |encoding| WriteOptions {
                        format,
                        stats,
                        codec,
                        encoding,
                        string_bound_limit: 16,
                        checksum: ChecksumKind::Crc32c,
                    };
                    let what = format!("{name}: {format:?} {codec:?} stats {stats}");
                    let auto = write(batch, &options(EncodingPolicy::Auto)).expect("write");
                    let before =
                        write(batch, &options(Encoding::ByteStreamSplit.into())).expect("write");
                    assert!(
                        auto == before,
                        "{what}: auto differs from the default before it"
                    );
                    let frame = Frame::parse(&auto).expect("parse");
                    for (index, entry) in frame.directory.iter().enumerate() {
                        let columns = match format {
                            Format::V3 => &types[index..=index],
                            _ => &types[..],
                        };
                        assert_eq!(
                            entry.encoding,
                            todays_choice(columns, entry.codec as u8),
                            "{what}: entry {index}"
                        );
                    }
                    common::assert_batches_equal(&decode(&auto, None).expect("decode"), batch);
                }
            }
        }
    }
}

/// Each column of the encoding × type fixture is stored in the encoding its name says (the values
/// buffer; for strings, the offsets and value bytes): the golden file pins each decoder on each
/// type it applies to.
#[test]
fn the_encodings_by_type_fixture_uses_the_encoding_each_column_names() {
    use tablecache_format::{buffer_encodings, BufferEncoding};
    let columns = common::encodings_by_type_columns();
    let bytes = write(&common::encodings_by_type(), &v4(true, Codec::None)).expect("write");
    let chosen = buffer_encodings(&bytes)
        .expect("descriptors")
        .expect("a V4 frame");
    let mut wrong = Vec::new();
    for ((name, _), buffers) in columns.iter().zip(&chosen) {
        let names: Vec<&str> = buffers.iter().map(|e| e.name()).collect();
        let expected = BufferEncoding::ALL
            .into_iter()
            .filter(|e| name.starts_with(&format!("{}_", e.name())))
            .max_by_key(|e| e.name().len())
            .expect("a column named for its encoding");
        // Buffer 0 is validity; the values (or a string's offsets and value bytes) follow.
        if !buffers[1..].contains(&expected) {
            wrong.push(format!("{name}: {names:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "not in the encoding they name:\n{}",
        wrong.join("\n")
    );
}

/// The encodings fixtures together store a buffer in every V4 encoding, so their golden V4 files
/// pin every decoder; `auto` without a codec never picks BYTE_STREAM_SPLIT (it saves nothing alone).
#[test]
fn the_v4_encodings_fixtures_use_every_buffer_encoding() {
    use std::collections::BTreeSet;
    use tablecache_format::{buffer_encodings, BufferEncoding};
    for (codec, expected) in [
        (Codec::Lz4, BufferEncoding::ALL.to_vec()),
        (
            Codec::None,
            BufferEncoding::ALL
                .into_iter()
                .filter(|e| *e != BufferEncoding::ByteStreamSplit)
                .collect(),
        ),
    ] {
        let mut used = BTreeSet::new();
        for batch in [common::encodings(), common::encodings_by_type()] {
            let bytes = write(&batch, &v4(true, codec)).expect("write");
            used.extend(
                buffer_encodings(&bytes)
                    .expect("descriptors")
                    .expect("a V4 frame")
                    .into_iter()
                    .flatten()
                    .map(BufferEncoding::id),
            );
        }
        let expected: BTreeSet<u8> = expected.into_iter().map(BufferEncoding::id).collect();
        assert_eq!(used, expected, "{codec:?}");
    }
}
