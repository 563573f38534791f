//! The checks behind the fuzz targets, shared with the regression test.
//!
//! Every fuzz target in `fuzz_targets/` is one call into this file, and
//! `native/format/tests/fuzz_regressions.rs` compiles this same file (with `#[path]`) to replay crash
//! inputs and the golden frames through exactly the same code. Each check feeds one input to the
//! crate's public API, asserts the invariants that must hold for any input (a broken invariant is
//! a panic, that is, a finding), and returns the outcome: `Ok(())` or the error's kind.
//!
//! Input layouts (the golden frames seed every target, see `scripts/fuzz.sh`):
//! * `frame`: a frame or legacy stream, as is.
//! * `projected_decode`: byte 0 holds the number of projection indices `n` (low 4 bits), the next
//!   `n` bytes are the indices (see [`projection_index`]), the rest is the frame.
//! * `stats`: `u32` row count, one mode byte (bit 0 clear: the column count is the section's own
//!   first `u32`; set: the column count is `mode >> 1`), then the stats section.
//! * `schema_cache`: up to four schema byte strings separated by [`SCHEMA_SEPARATOR`].
//! * `v4_body`: byte 0 picks the column's type from [`V4_BODY_TYPES`] (modulo their count), bytes
//!   1..3 are the row count (`u16`), the rest is one V4 column body (FORMAT.md §3.2), decoded
//!   without a frame around it so that no checksum stands between the mutations and the buffer
//!   decoders. [`v4_body_seeds`] makes a seed per type.
//! * `v4_buffer_<encoding>` (one target per buffer encoding, [`V4_BUFFER_ENCODINGS`]): byte 0's
//!   low 7 bits pick the buffer's kind from [`V4_BUFFER_KINDS`] (modulo their count) and its high
//!   bit whether the rows bound the buffer (its decoded length is then its bound, as for a flat
//!   column's buffers; else the stored bytes bound it, as in a list's child), bytes 1..3 are the
//!   decoded element count (`u16`), the rest is the stored buffer, straight into that encoding's
//!   decoder. For the string dictionary (ids 9 and 10 together), byte 0's low bit picks 4- or
//!   8-byte offsets, bytes 1..3 the value count, bytes 3..5 the decoded value bytes, bytes 5..7
//!   where the stored offsets half ends and the stored entries begin.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock};

use arrow_array::RecordBatch;
use arrow_schema::DataType;
use tablecache_format::layout::BufferKind;
use tablecache_format::schema::{encode_schema, parse_schema, InternedSchema, SchemaCache};
use tablecache_format::{
    decode, detect, stats, write, ChecksumKind, Codec, Error, ErrorKind, Format, Frame,
    WriteOptions, DIRECTORY_ENTRY_LEN, HEADER_LEN, MAGIC, V4_DIRECTORY_ENTRY_LEN,
};

/// What a check observed: success or the error kind the caller would see.
pub type Outcome = Result<(), ErrorKind>;

/// The fuzz targets, by name.
pub const TARGETS: [&str; 16] = [
    "frame",
    "projected_decode",
    "stats",
    "schema_cache",
    "v4_body",
    "v4_buffer_plain",
    "v4_buffer_byte_stream_split",
    "v4_buffer_constant",
    "v4_buffer_frame_of_reference",
    "v4_buffer_delta",
    "v4_buffer_dictionary",
    "v4_buffer_alp",
    "v4_buffer_run_length",
    "v4_buffer_fsst",
    "v4_buffer_string_dictionary",
    "v4_buffer_hex",
];

/// The buffer encodings with a `v4_buffer_<name>` target of their own, by id (FORMAT.md §3.2);
/// the string dictionary's pair (ids 9 and 10) has [`v4_string_dictionary`].
pub const V4_BUFFER_ENCODINGS: [(&str, u8); 10] = [
    ("plain", 0),
    ("byte_stream_split", 1),
    ("constant", 2),
    ("frame_of_reference", 3),
    ("delta", 4),
    ("dictionary", 5),
    ("alp", 6),
    ("run_length", 7),
    ("fsst", 8),
    ("hex", 11),
];

/// Runs the check of fuzz target `target` on `data`.
pub fn run(target: &str, data: &[u8]) -> Outcome {
    match target {
        "frame" => frame(data),
        "projected_decode" => projected_decode(data),
        "stats" => stats(data),
        "schema_cache" => schema_cache(data),
        "v4_body" => v4_body(data),
        "v4_buffer_string_dictionary" => v4_string_dictionary(data),
        other => match other
            .strip_prefix("v4_buffer_")
            .and_then(|name| V4_BUFFER_ENCODINGS.iter().find(|(n, _)| *n == name))
        {
            Some(&(_, id)) => v4_buffer(id, data),
            None => panic!("unknown fuzz target {other:?}"),
        },
    }
}

/// An error that no input may produce: `INTERNAL` means a bug (or a caught panic).
fn checked(e: &Error) -> ErrorKind {
    assert_ne!(e.kind(), ErrorKind::Internal, "internal error: {e}");
    assert!(!e.to_string().is_empty());
    e.kind()
}

/// The frame with every CRC32C checksum (metadata and payloads) recomputed, when it has
/// checksums and its metadata fits; `None` otherwise or when nothing changes. Mutated frames
/// fail the checksum before anything interesting, so every target also checks the resealed copy.
pub fn resealed(data: &[u8]) -> Option<Vec<u8>> {
    if data.len() < HEADER_LEN || data[..4] != MAGIC || (data[5] >> 1) & 3 != 1 {
        return None;
    }
    let u32_at = |b: &[u8], at: usize| {
        b.get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
    };
    let entries = if data[4] >= 3 { u32_at(data, 12)? } else { 1 };
    let directory = HEADER_LEN
        .checked_add(u32_at(data, 16)?)?
        .checked_add(u32_at(data, 20)?)?;
    let entry_len = if data[4] >= 4 {
        V4_DIRECTORY_ENTRY_LEN
    } else {
        DIRECTORY_ENTRY_LEN
    };
    let payload_start = directory.checked_add(entries.checked_mul(entry_len)?)?;
    if payload_start > data.len() {
        return None;
    }
    let mut out = data.to_vec();
    for entry in (directory..payload_start).step_by(entry_len) {
        let start = payload_start.checked_add(u32_at(&out, entry)?)?;
        let end = start.checked_add(u32_at(&out, entry + 4)?)?;
        if let Some(stored) = out.get(start..end) {
            let crc = crc32c::crc32c(stored);
            out[entry + 12..entry + 16].copy_from_slice(&crc.to_le_bytes());
        }
    }
    let crc = tablecache_format::meta_checksum(&out, payload_start);
    let at = tablecache_format::header::META_CHECKSUM_AT;
    out[at..at + 4].copy_from_slice(&crc.to_le_bytes());
    (out != data).then_some(out)
}

/// Target `frame`: detection, `Frame::parse` and a full decode of any format (the legacy
/// stream path included); a batch that decodes must survive a V3 and a V2 round trip. The
/// resealed copy (see [`resealed`]) goes through the same checks.
pub fn frame(data: &[u8]) -> Outcome {
    let outcome = frame_once(data);
    if let Some(copy) = resealed(data) {
        let _ = frame_once(&copy);
    }
    outcome
}

fn frame_once(data: &[u8]) -> Outcome {
    let detected = detect(data);
    if let Err(e) = &detected {
        assert!(
            matches!(
                checked(e),
                ErrorKind::CorruptFrame | ErrorKind::UnsupportedVersion
            ),
            "detect: {e}"
        );
    }
    let parsed = Frame::parse(data);
    match (&detected, &parsed) {
        (Err(d), Err(p)) => assert_eq!(d.kind(), p.kind(), "detect: {d}, parse: {p}"),
        (Err(d), Ok(_)) => panic!("parse accepted what detect rejected: {d}"),
        (Ok(Format::Legacy), Err(e)) => assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}"),
        (Ok(Format::Legacy), Ok(_)) => panic!("parse accepted a legacy stream"),
        (Ok(format), Ok(frame)) => {
            assert_eq!(frame.format, *format);
            check_frame(frame, data);
        }
        (Ok(_), Err(e)) => {
            checked(e);
        }
    }
    let decoded = decode(data, None);
    match &decoded {
        Ok(batch) => {
            match (&detected, &parsed) {
                (Ok(Format::Legacy), _) => {}
                (_, Ok(frame)) => {
                    assert_eq!(batch.num_rows(), frame.row_count as usize);
                    assert_eq!(batch.num_columns(), frame.column_count as usize);
                    assert_eq!(batch.schema_ref().as_ref(), frame.schema.schema.as_ref());
                }
                (_, Err(e)) => panic!("decode succeeded where parse failed: {e}"),
            }
            round_trip(batch, matches!(detected, Ok(Format::Legacy)));
        }
        Err(e) => {
            checked(e);
        }
    }
    decoded.map(|_| ()).map_err(|e| e.kind())
}

/// Structural invariants of a frame that `Frame::parse` accepted.
fn check_frame(frame: &Frame<'_>, data: &[u8]) {
    let entries = match frame.format {
        Format::V3 | Format::V4 => frame.column_count as usize,
        _ => 1,
    };
    assert_eq!(frame.directory.len(), entries);
    assert_eq!(
        frame.schema.schema.fields().len(),
        frame.column_count as usize
    );
    assert!(frame.payload_start <= data.len());
    assert!(
        frame.payload_start
            >= HEADER_LEN + frame.schema_bytes.len() + entries * frame.format.directory_entry_len()
    );
    let stored: u64 = frame
        .directory
        .iter()
        .map(|e| u64::from(e.stored_len))
        .sum();
    assert_eq!(stored, (data.len() - frame.payload_start) as u64);
    if let Some(stats) = &frame.stats {
        assert_eq!(stats.len(), frame.column_count as usize);
        assert!(stats.iter().all(|s| s.row_count == frame.row_count));
    }
}

/// A batch the reader accepted must be writable and read back equal.
fn round_trip(batch: &RecordBatch, legacy: bool) {
    for (format, stats, codec) in [
        (Format::V3, true, Codec::Lz4),
        (Format::V2, false, Codec::Zstd),
        (Format::V4, true, Codec::Lz4),
    ] {
        let options = WriteOptions {
            format,
            stats,
            codec,
            checksum: ChecksumKind::Crc32c,
            ..Default::default()
        };
        let bytes = match write(batch, &options) {
            Ok(bytes) => bytes,
            // Only a legacy stream (i64 lengths) can exceed the frame's u32 counts.
            Err(Error::TooLarge(_)) if legacy => return,
            Err(e) => panic!("{format:?}: cannot write a batch the reader accepted: {e}"),
        };
        let again = decode(&bytes, None)
            .unwrap_or_else(|e| panic!("{format:?}: cannot read back a written batch: {e}"));
        if legacy
            && batch
                .schema()
                .fields()
                .iter()
                .any(|f| empty_time_zone(f.data_type()))
        {
            // arrow-ipc reads an empty time zone as `Some("")`, frames normalize it to none
            // (the same meaning in Arrow): only the shape can be compared.
            assert_eq!(again.num_rows(), batch.num_rows());
            assert_eq!(again.num_columns(), batch.num_columns());
            continue;
        }
        assert_eq!(&again, batch, "{format:?} round trip changed the batch");
    }
}

/// True when `data_type` has a `Timestamp(_, Some(""))` anywhere in its tree.
fn empty_time_zone(data_type: &DataType) -> bool {
    match data_type {
        DataType::Timestamp(_, Some(tz)) => tz.is_empty(),
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::Map(f, _) => empty_time_zone(f.data_type()),
        DataType::Struct(fields) => fields.iter().any(|f| empty_time_zone(f.data_type())),
        DataType::Dictionary(_, value) => empty_time_zone(value),
        _ => false,
    }
}

/// Maps a projection byte to a column index: `0x00..=0x7F` as is (in range for small and wide
/// frames, out of range for small ones), `0x80..=0xEF` to `0..16` (duplicates are likely), and
/// `0xF0..=0xFF` to indices near `usize::MAX`.
pub fn projection_index(byte: u8) -> usize {
    match byte {
        0x00..=0x7F => byte as usize,
        0x80..=0xEF => (byte & 0x0F) as usize,
        _ => usize::MAX - (byte & 0x0F) as usize,
    }
}

/// Splits a `projected_decode` input into the projection and the frame.
pub fn split_projection(data: &[u8]) -> (Vec<usize>, &[u8]) {
    let Some((&count, rest)) = data.split_first() else {
        return (Vec::new(), data);
    };
    let n = ((count & 0x0F) as usize).min(rest.len());
    let (indices, frame) = rest.split_at(n);
    (
        indices.iter().map(|&b| projection_index(b)).collect(),
        frame,
    )
}

/// Target `projected_decode`: a decode with an arbitrary projection (out of range, duplicate,
/// empty) either fails with `COLUMN_OUT_OF_RANGE` where the full decode succeeds, or equals
/// the projection of the full decode.
pub fn projected_decode(data: &[u8]) -> Outcome {
    let (projection, bytes) = split_projection(data);
    let outcome = projected_decode_once(&projection, bytes);
    if let Some(copy) = resealed(bytes) {
        let _ = projected_decode_once(&projection, &copy);
    }
    outcome
}

fn projected_decode_once(projection: &[usize], bytes: &[u8]) -> Outcome {
    let projected = decode(bytes, Some(projection));
    let full = decode(bytes, None);
    let out_of_range = |count: usize| projection.iter().any(|&i| i >= count);
    match (&projected, &full) {
        (Ok(p), Ok(f)) => {
            assert!(
                !out_of_range(f.num_columns()),
                "out-of-range projection accepted"
            );
            let expected = f
                .project(projection)
                .expect("projection of the full decode");
            assert_eq!(
                p, &expected,
                "projected decode differs from the projected full decode"
            );
        }
        (Err(e), Ok(f)) => {
            assert_eq!(checked(e), ErrorKind::ColumnOutOfRange, "{e}");
            assert!(out_of_range(f.num_columns()), "{e}");
        }
        (Ok(p), Err(e)) => {
            // Only V3 decodes columns one by one: a corrupt column outside the projection.
            checked(e);
            assert_eq!(detect(bytes).ok(), Some(Format::V3), "{e}");
            let frame = Frame::parse(bytes).expect("a projected V3 decode parsed the frame");
            assert!(!out_of_range(frame.column_count as usize));
            assert_eq!(p.num_columns(), projection.len());
            assert_eq!(p.num_rows(), frame.row_count as usize);
        }
        (Err(pe), Err(fe)) => {
            checked(pe);
            checked(fe);
            if let Ok(frame) = Frame::parse(bytes) {
                if out_of_range(frame.column_count as usize) {
                    assert_eq!(pe.kind(), ErrorKind::ColumnOutOfRange, "{pe}");
                }
            }
        }
    }
    projected.map(|_| ()).map_err(|e| e.kind())
}

/// Splits a `stats` input into `(row_count, column_count, section)`.
pub fn split_stats(data: &[u8]) -> (u32, usize, &[u8]) {
    let row_count = data
        .get(..4)
        .map_or(0, |b| u32::from_le_bytes(b.try_into().expect("4 bytes")));
    let mode = data.get(4).copied().unwrap_or(0);
    let section = data.get(5..).unwrap_or(&[]);
    let column_count = if mode & 1 == 0 {
        section.get(..4).map_or(0, |b| {
            u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize
        })
    } else {
        (mode >> 1) as usize
    };
    (row_count, column_count, section)
}

/// Target `stats`: the stats section decoder; what it accepts re-encodes to the same bytes
/// (the encoding is canonical) and obeys the section's rules.
pub fn stats(data: &[u8]) -> Outcome {
    let (row_count, column_count, section) = split_stats(data);
    match stats::decode(section, column_count, row_count) {
        Ok(columns) => {
            assert_eq!(columns.len(), column_count);
            for s in &columns {
                assert_eq!(s.row_count, row_count);
                assert!(s.null_count <= s.row_count);
                if let (Some(l), Some(u)) = (&s.lower, &s.upper) {
                    assert_eq!(l.kind(), u.kind());
                }
                assert!(!s.unsupported || (s.lower.is_none() && s.upper.is_none() && !s.has_nan));
            }
            let mut encoded = Vec::new();
            stats::encode(&columns, &mut encoded).expect("re-encode decoded stats");
            assert!(encoded == section, "stats re-encode to different bytes");
            Ok(())
        }
        Err(e) => {
            assert_eq!(checked(&e), ErrorKind::CorruptFrame, "{e}");
            Err(e.kind())
        }
    }
}

/// The column types of the `v4_body` target: every buffer kind the V4 encodings see (values of
/// each integer width, 16-byte decimals, doubles, bits, offsets of both widths, value bytes) and
/// the nestings that bound a buffer by its rows (struct) or only by its stored bytes (list).
pub fn v4_body_types() -> Vec<DataType> {
    use arrow_schema::{Field, Fields};
    vec![
        DataType::Int8,
        DataType::Int16,
        DataType::Int32,
        DataType::Int64,
        DataType::Decimal128(18, 2),
        DataType::Float64,
        DataType::Date32,
        DataType::Boolean,
        DataType::Utf8,
        DataType::LargeBinary,
        DataType::List(Arc::new(Field::new("item", DataType::Int64, true))),
        DataType::Struct(Fields::from(vec![
            Field::new("a", DataType::Int32, true),
            Field::new("b", DataType::Utf8, true),
        ])),
        DataType::Binary,
        DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
    ]
}

/// [`v4_body_types`]' count: byte 0 of a `v4_body` input is taken modulo it.
pub const V4_BODY_TYPES: usize = 14;

/// The type, row count and body of a `v4_body` input.
fn split_v4_body(data: &[u8]) -> Option<(DataType, u32, &[u8])> {
    let (&pick, rest) = data.split_first()?;
    let rows = u16::from_le_bytes([*rest.first()?, *rest.get(1)?]);
    let types = v4_body_types();
    Some((
        types[usize::from(pick) % types.len()].clone(),
        u32::from(rows),
        &rest[2..],
    ))
}

/// Target `v4_body`: one V4 column body through every check and decoder a frame's reader runs
/// on it. A body it accepts holds the stated rows, and writing that column as V4 again reads
/// back equal. A string or binary body decoded as its dictionary is refused wherever the plain
/// decode refuses it, and where both accept it they give the same values.
pub fn v4_body(data: &[u8]) -> Outcome {
    let Some((data_type, rows, body)) = split_v4_body(data) else {
        return Ok(());
    };
    let schema = arrow_schema::Schema::new(vec![arrow_schema::Field::new("c", data_type, true)]);
    let plain = tablecache_format::decode_column_body_v4(body, &schema, rows);
    match (
        &plain,
        tablecache_format::decode_column_body_v4_keyed(body, &schema, rows),
    ) {
        (Ok(column), Ok(Some(keyed))) => same_values(column.as_ref(), keyed.as_ref()),
        (Err(_), Ok(Some(_))) => panic!("the keyed decode accepts a body the plain decode refuses"),
        // Refusing more is the entries' validation alone (one no value uses, not UTF-8).
        (Ok(_), Err(e)) => assert!(matches!(e, Error::InvalidData { .. }), "{e}"),
        (Err(_), Err(e)) => {
            checked(&e);
        }
        (_, Ok(None)) => {}
    }
    match plain {
        Ok(column) => {
            assert_eq!(column.len(), rows as usize);
            let batch = RecordBatch::try_new(Arc::new(schema), vec![column]).expect("batch");
            round_trip(&batch, false);
            Ok(())
        }
        Err(e) => {
            let kind = checked(&e);
            assert!(
                matches!(
                    kind,
                    ErrorKind::CorruptFrame
                        | ErrorKind::SchemaMismatch
                        | ErrorKind::UnsupportedCodec
                ),
                "{e}"
            );
            Err(kind)
        }
    }
}

/// Asserts that `keyed`, a dictionary of string or binary entries, stands for `plain`'s values.
fn same_values(plain: &dyn arrow_array::Array, keyed: &dyn arrow_array::Array) {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int32Type;
    let dictionary = keyed.as_dictionary::<Int32Type>();
    let entries = dictionary.values();
    let bytes = |array: &dyn arrow_array::Array, i: usize| -> Vec<u8> {
        match array.data_type() {
            DataType::Utf8 => array.as_string::<i32>().value(i).as_bytes().to_vec(),
            _ => array.as_binary::<i32>().value(i).to_vec(),
        }
    };
    assert_eq!(plain.len(), dictionary.len());
    for (i, key) in dictionary.keys().iter().enumerate() {
        assert_eq!(plain.is_null(i), key.is_none(), "row {i}: null");
        if let Some(key) = key {
            assert_eq!(
                bytes(plain, i),
                bytes(entries.as_ref(), key as usize),
                "row {i}"
            );
        }
    }
}

/// Seeds for `v4_body`: for each type of [`v4_body_types`], the bodies the writer makes of a
/// column of it (200 rows: runs, a steady step, a few distinct values, nulls), as inputs.
pub fn v4_body_seeds() -> Vec<Vec<u8>> {
    use arrow_array::builder::*;
    use arrow_array::ArrayRef;
    let rows = 200usize;
    let ints = |i: usize| (i as i64 / 10) * 3 + 1_000;
    let mut out = Vec::new();
    for (pick, data_type) in v4_body_types().into_iter().enumerate() {
        let column: ArrayRef = match &data_type {
            DataType::Int8 => Arc::new(arrow_array::Int8Array::from_iter(
                (0..rows).map(|i| (i % 7 != 0).then_some((i % 5) as i8)),
            )),
            DataType::Int16 => Arc::new(arrow_array::Int16Array::from_iter_values(
                (0..rows).map(|i| 300 + i as i16),
            )),
            DataType::Int32 => Arc::new(arrow_array::Int32Array::from_iter_values(
                (0..rows).map(|_| 42),
            )),
            DataType::Int64 => Arc::new(arrow_array::Int64Array::from_iter_values(
                (0..rows).map(ints),
            )),
            DataType::Decimal128(p, s) => Arc::new(
                arrow_array::Decimal128Array::from_iter_values(
                    (0..rows).map(|i| [5i128, -1 << 40, 99][i % 3]),
                )
                .with_precision_and_scale(*p, *s)
                .expect("decimal"),
            ),
            DataType::Float64 => Arc::new(arrow_array::Float64Array::from_iter(
                (0..rows).map(|i| (i % 9 != 0).then_some(i as f64 * 0.5)),
            )),
            DataType::Date32 => Arc::new(arrow_array::Date32Array::from_iter_values(
                (0..rows).map(|i| 19_000 + (i / 20) as i32),
            )),
            DataType::Boolean => Arc::new(arrow_array::BooleanArray::from_iter(
                (0..rows).map(|i| Some(i % 3 == 0)),
            )),
            DataType::Utf8 => Arc::new(arrow_array::StringArray::from_iter(
                (0..rows).map(|i| (i % 11 != 0).then(|| format!("k{}", i % 4))),
            )),
            DataType::LargeBinary => Arc::new(arrow_array::LargeBinaryArray::from_iter_values(
                (0..rows).map(|i| vec![i as u8; i % 3]),
            )),
            // Text for FSST: log lines with numbers in them.
            DataType::Binary => Arc::new(arrow_array::BinaryArray::from_iter_values(
                (0..rows).map(|i| {
                    format!(
                        "GET /api/v{}/orders/{} took {} ms — ok",
                        i % 3,
                        i * 7919,
                        i % 97
                    )
                }),
            )),
            // A string dictionary below a list.
            DataType::List(item) if item.data_type() == &DataType::Utf8 => {
                let mut b = ListBuilder::new(StringBuilder::new());
                for i in 0..rows {
                    for k in 0..i % 4 {
                        b.values()
                            .append_value(["warn", "info", "", "error"][(i + k) % 4]);
                    }
                    b.append(i % 17 != 0);
                }
                Arc::new(b.finish())
            }
            DataType::List(_) => {
                let mut b = ListBuilder::new(Int64Builder::new());
                for i in 0..rows {
                    b.values().append_slice(&[7, 7, i as i64]);
                    b.append(i % 13 != 0);
                }
                Arc::new(b.finish())
            }
            _ => {
                let a = arrow_array::Int32Array::from_iter_values((0..rows).map(|i| i as i32 * 2));
                let b = arrow_array::StringArray::from_iter_values(
                    (0..rows).map(|i| ["x", "yy"][i % 2]),
                );
                Arc::new(arrow_array::StructArray::from(vec![
                    (
                        Arc::new(arrow_schema::Field::new("a", DataType::Int32, true)),
                        Arc::new(a) as ArrayRef,
                    ),
                    (
                        Arc::new(arrow_schema::Field::new("b", DataType::Utf8, true)),
                        Arc::new(b) as ArrayRef,
                    ),
                ]))
            }
        };
        let schema =
            arrow_schema::Schema::new(vec![arrow_schema::Field::new("c", data_type, true)]);
        let batch = RecordBatch::try_new(Arc::new(schema), vec![column]).expect("seed batch");
        let frame = write(
            &batch,
            &WriteOptions {
                format: Format::V4,
                codec: Codec::None,
                stats: false,
                ..Default::default()
            },
        )
        .expect("write seed");
        let parsed = Frame::parse(&frame).expect("parse seed");
        let start = parsed.payload_start + parsed.directory[0].offset as usize;
        let body = &frame[start..start + parsed.directory[0].stored_len as usize];
        let mut input = vec![pick as u8];
        input.extend_from_slice(&(rows as u16).to_le_bytes());
        input.extend_from_slice(body);
        out.push(input);
    }
    out
}

/// Separates the schema byte strings of a `schema_cache` input.
pub const SCHEMA_SEPARATOR: &[u8] = b"|SCHEMA|";

fn split_schemas(data: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = data;
    while out.len() < 3 {
        match rest
            .windows(SCHEMA_SEPARATOR.len())
            .position(|w| w == SCHEMA_SEPARATOR)
        {
            Some(at) => {
                out.push(&rest[..at]);
                rest = &rest[at + SCHEMA_SEPARATOR.len()..];
            }
            None => break,
        }
    }
    out.push(rest);
    out
}

/// The comparable result of one lookup: the schema and its canonical bytes, or the error.
type Lookup = Result<(arrow_schema::Schema, Vec<u8>), (ErrorKind, String)>;

fn lookup(result: &tablecache_format::Result<Arc<InternedSchema>>) -> Lookup {
    match result {
        Ok(interned) => Ok((interned.schema.as_ref().clone(), interned.encoded.clone())),
        Err(e) => Err((checked(e), e.to_string())),
    }
}

/// A small cache shared by all inputs of one process, so eviction and hits across inputs are
/// exercised, and the last results by key, to check them against later lookups.
struct CacheState {
    cache: SchemaCache,
    recent: Mutex<VecDeque<(Vec<u8>, Lookup)>>,
}

fn cache_state() -> &'static CacheState {
    static STATE: OnceLock<CacheState> = OnceLock::new();
    STATE.get_or_init(|| CacheState {
        cache: SchemaCache::new(3),
        recent: Mutex::new(VecDeque::new()),
    })
}

/// Target `schema_cache`: the intern cache fed with hostile schema bytes never panics, agrees
/// with an uncached parse, and returns the same result for the same bytes every time.
pub fn schema_cache(data: &[u8]) -> Outcome {
    let state = cache_state();
    let mut first = None;
    for key in split_schemas(data) {
        let a = lookup(&state.cache.get_or_parse(key));
        let b = lookup(&state.cache.get_or_parse(key));
        assert_eq!(a, b, "two lookups of the same bytes differ");
        let uncached = match parse_schema(key) {
            Ok(schema) => Ok(schema),
            Err(e) => Err((checked(&e), e.to_string())),
        };
        match (&a, &uncached) {
            (Ok((schema, encoded)), Ok(plain)) => {
                assert_eq!(schema, plain, "cached and uncached parses differ");
                let again = encode_schema(schema).expect("encode a parsed schema");
                assert!(&again == encoded, "schema encoding is not deterministic");
                let reparsed = parse_schema(encoded).expect("parse the canonical encoding");
                assert_eq!(&reparsed, schema, "canonical encoding does not round trip");
            }
            (Err((kind, message)), Err((plain_kind, plain_message))) => {
                assert_eq!(*kind, ErrorKind::CorruptFrame, "{message}");
                assert_eq!((kind, message), (plain_kind, plain_message));
            }
            _ => panic!("cached {a:?} but uncached {uncached:?}"),
        }
        let mut recent = state.recent.lock().expect("recent results");
        if let Some((_, earlier)) = recent.iter().find(|(k, _)| k.as_slice() == key) {
            assert_eq!(earlier, &a, "the same bytes gave another result earlier");
        } else {
            if recent.len() == 16 {
                recent.pop_front();
            }
            recent.push_back((key.to_vec(), a.clone()));
        }
        drop(recent);
        first.get_or_insert(a.map(|_| ()).map_err(|(kind, _)| kind));
    }
    first.unwrap_or(Ok(()))
}

/// The buffer kinds a `v4_buffer_*` input's byte 0 picks from: every kind a V4 body holds.
pub const V4_BUFFER_KINDS: [BufferKind; 10] = [
    BufferKind::Values(1),
    BufferKind::Values(2),
    BufferKind::Values(4),
    BufferKind::Values(8),
    BufferKind::Values(16),
    BufferKind::Offsets(4),
    BufferKind::Offsets(8),
    BufferKind::Bits,
    BufferKind::Validity,
    BufferKind::Bytes,
];

/// Decoded buffers up to this many bytes are encoded again by [`v4_buffer`]: training an FSST
/// symbol table on every accepted buffer of up to 512 KiB held `v4_buffer_fsst` to under 300
/// executions a second; the format crate's property tests round-trip large buffers.
const ROUND_TRIP_LIMIT: usize = 4096;

/// Targets `v4_buffer_<encoding>`: one stored buffer straight into encoding `id`'s decoder (see
/// the input layout above). A buffer it accepts has exactly the declared length, and encoding
/// it again in the same encoding (where that encoding can store it, and it is at most
/// [`ROUND_TRIP_LIMIT`] bytes) decodes back the same.
pub fn v4_buffer(id: u8, data: &[u8]) -> Outcome {
    let (Some(&pick), Some(count)) = (data.first(), data.get(1..3)) else {
        return Ok(());
    };
    let kind = V4_BUFFER_KINDS[usize::from(pick & 0x7F) % V4_BUFFER_KINDS.len()];
    let elements = usize::from(u16::from_le_bytes([count[0], count[1]]));
    let decoded_len = elements * kind.width();
    let row_bound = (pick & 0x80 != 0).then_some(decoded_len as u64);
    let stored = &data[3..];
    match tablecache_format::decode_buffer(id, kind, decoded_len, row_bound, stored) {
        Ok(decoded) => {
            assert_eq!(decoded.len(), elements * kind.width());
            if decoded.len() > ROUND_TRIP_LIMIT {
                return Ok(());
            }
            match tablecache_format::encode_buffer(id, kind, &decoded) {
                // Larger than decoded: what the writer never stores, and the reader refuses.
                Ok(Some(again)) if again.len() > decoded.len() => {}
                Ok(Some(again)) => {
                    let bound = Some(decoded.len() as u64);
                    let back =
                        tablecache_format::decode_buffer(id, kind, decoded.len(), bound, &again)
                            .expect("a buffer the encoder wrote decodes");
                    assert_eq!(back, decoded, "re-encoded buffer decodes back the same");
                }
                Ok(None) => {}
                Err(e) => panic!("encoding a decoded buffer failed: {e}"),
            }
            Ok(())
        }
        Err(e) => Err(decoder_refusal(&e)),
    }
}

/// Target `v4_buffer_string_dictionary`: a stored string dictionary (both halves) into its
/// decoder. Decoded offsets start at 0, never decrease and end at the value bytes' length.
pub fn v4_string_dictionary(data: &[u8]) -> Outcome {
    let Some(head) = data.get(..7) else {
        return Ok(());
    };
    let width = if head[0] & 1 == 0 { 4 } else { 8 };
    let u16_at = |at: usize| usize::from(u16::from_le_bytes([head[at], head[at + 1]]));
    let (strings, values_len, split) = (u16_at(1), u16_at(3), u16_at(5));
    let stored = &data[7..];
    let (offsets_stored, values_stored) = stored.split_at(split.min(stored.len()));
    let offsets_len = (strings + 1) * width;
    match tablecache_format::decode_string_dictionary(
        offsets_stored,
        values_stored,
        width,
        offsets_len,
        values_len,
    ) {
        Ok((offsets, values)) => {
            assert_eq!((offsets.len(), values.len()), (offsets_len, values_len));
            let offset = |i: usize| {
                let mut b = [0u8; 8];
                b[..width].copy_from_slice(&offsets[i * width..(i + 1) * width]);
                i64::from_le_bytes(b)
            };
            assert_eq!(offset(0), 0);
            assert!((0..strings).all(|i| offset(i) <= offset(i + 1)));
            assert_eq!(offset(strings), values_len as i64);
            Ok(())
        }
        Err(e) => Err(decoder_refusal(&e)),
    }
}

/// The kinds a buffer decoder may refuse an input with: damage, or an encoding it does not know.
fn decoder_refusal(e: &Error) -> ErrorKind {
    let kind = checked(e);
    assert!(
        matches!(kind, ErrorKind::CorruptFrame | ErrorKind::UnsupportedCodec),
        "{e}"
    );
    kind
}

/// Seeds for the `v4_buffer_*` targets: for each buffer encoding, the buffers the writer stores
/// in it for integer, double, offset and text columns, as `(target, input)` pairs.
pub fn v4_buffer_seeds() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut columns: Vec<(BufferKind, Vec<u8>)> = Vec::new();
    for width in [1usize, 2, 4, 8, 16] {
        for shape in 0..4i64 {
            let bytes: Vec<u8> = (0..300i64)
                .flat_map(|i| {
                    let v: i64 = match shape {
                        0 => 7,
                        1 => 1_000 + i * 3,
                        2 => [3, -9, 3, 1 << 12][(i as usize / 37) % 4],
                        _ => (i * 7919) % 13 - 6,
                    };
                    let mut b = v.to_le_bytes().to_vec();
                    b.resize(width, if v < 0 { 0xFF } else { 0 });
                    b.truncate(width);
                    b
                })
                .collect();
            columns.push((BufferKind::Values(width), bytes));
        }
    }
    columns.push((
        BufferKind::Values(8),
        (0..300)
            .flat_map(|i| (1000.0 + f64::from(i) * 0.25).to_le_bytes())
            .collect(),
    ));
    columns.push((
        BufferKind::Offsets(4),
        (0..=300i32).flat_map(|i| (i * 5).to_le_bytes()).collect(),
    ));
    let text: String = (0..200)
        .map(|i| format!("GET /api/v1/orders/{} took {} ms", i * 37 % 1000, i % 90))
        .collect();
    columns.push((BufferKind::Bytes, text.into_bytes()));
    let digests: String = (0..301u64)
        .map(|i| format!("{:016x}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15)))
        .collect();
    columns.push((
        BufferKind::Bytes,
        digests.as_bytes()[..digests.len() - 1].to_vec(),
    ));
    for (name, id) in V4_BUFFER_ENCODINGS {
        for (kind, bytes) in &columns {
            // Only what the writer could choose: stored no larger than decoded.
            let stored = match tablecache_format::encode_buffer(id, *kind, bytes) {
                Ok(Some(stored)) if stored.len() <= bytes.len() => stored,
                _ => continue,
            };
            let Some(pick) = V4_BUFFER_KINDS.iter().position(|k| k == kind) else {
                continue;
            };
            let elements = u16::try_from(bytes.len() / kind.width()).expect("small seed");
            let mut input = vec![pick as u8 | 0x80];
            input.extend_from_slice(&elements.to_le_bytes());
            input.extend_from_slice(&stored);
            out.push((format!("v4_buffer_{name}"), input));
        }
    }
    // The string dictionary: a column of a few paths, with 4- and 8-byte offsets.
    let paths = ["/api/v1/orders", "/health", "", "/api/v2/users/é"];
    let values: Vec<&str> = (0..300).map(|i| paths[i * 7 % 4]).collect();
    let bytes = values.concat().into_bytes();
    for width in [4usize, 8] {
        let mut offsets = Vec::new();
        let mut at = 0usize;
        offsets.extend_from_slice(&at.to_le_bytes()[..width]);
        for v in &values {
            at += v.len();
            offsets.extend_from_slice(&at.to_le_bytes()[..width]);
        }
        let (offsets_stored, values_stored) =
            tablecache_format::encode_string_dictionary(&offsets, width, &bytes)
                .expect("a few distinct paths take the dictionary");
        let mut input = vec![u8::from(width == 8)];
        input.extend_from_slice(&(values.len() as u16).to_le_bytes());
        input.extend_from_slice(&(bytes.len() as u16).to_le_bytes());
        input.extend_from_slice(&(offsets_stored.len() as u16).to_le_bytes());
        input.extend_from_slice(&offsets_stored);
        input.extend_from_slice(&values_stored);
        out.push(("v4_buffer_string_dictionary".into(), input));
    }
    out
}
