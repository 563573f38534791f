//! Which encodings the writer chooses for each column of a table, and what each column takes:
//! the rows of an Arrow IPC file, cut into cached batches, written as V3 (today's default) and
//! V4, with a markdown table per file of bytes per column, the buffer encodings chosen (how
//! many batches chose each) and how fast each column alone decodes (GiB/s of plain body, the
//! fastest of a few decodes per batch, one thread). `scripts/bench/column_encodings.py` makes the IPC files from the benchmark
//! tables.
//!
//! `cargo run --release -p tablecache-format --example encoding_report -- [--rows 10000]
//!  [--codec lz4|zstd|adaptive|none] FILE.arrow...`

use std::collections::BTreeMap;
use std::fs::File;

use arrow_array::RecordBatch;
use arrow_ipc::reader::FileReader;
use arrow_select::concat::concat_batches;
use tablecache_format::{
    buffer_encodings, decode, write, Codec, EncodingPolicy, Format, Frame, StoredCodec,
    WriteOptions,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rows = 10_000usize;
    let mut codec = Codec::Lz4;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--rows" => rows = args.next().ok_or("--rows N")?.parse()?,
            "--codec" => {
                codec = match args.next().as_deref() {
                    Some("lz4") => Codec::Lz4,
                    Some("zstd") => Codec::Zstd,
                    Some("adaptive") => Codec::Adaptive,
                    Some("none") => Codec::None,
                    other => return Err(format!("--codec {other:?}").into()),
                }
            }
            _ => files.push(arg),
        }
    }
    for path in files {
        report(&path, rows, codec)?;
    }
    Ok(())
}

/// Per column: plain bytes, V3 and V4 stored bytes, V4's buffer encodings, and the seconds
/// decoding the column alone (projected) took in V3 and V4.
#[derive(Default)]
struct Column {
    plain: u64,
    v3: u64,
    v4: u64,
    encodings: BTreeMap<String, usize>,
    v3_seconds: f64,
    v4_seconds: f64,
}

/// Decodes of each column per batch whose fastest is kept (the machine is shared and noisy).
const DECODE_REPEATS: usize = 5;

/// The fastest of [`DECODE_REPEATS`] projected decodes of column `i` of `frame`.
fn decode_seconds(frame: &[u8], i: usize) -> Result<f64, Box<dyn std::error::Error>> {
    let mut best = f64::MAX;
    for _ in 0..DECODE_REPEATS {
        let began = std::time::Instant::now();
        std::hint::black_box(decode(frame, Some(&[i]))?);
        best = best.min(began.elapsed().as_secs_f64());
    }
    Ok(best)
}

fn report(path: &str, rows: usize, codec: Codec) -> Result<(), Box<dyn std::error::Error>> {
    let reader = FileReader::try_new(File::open(path)?, None)?;
    let schema = reader.schema();
    let batches = reader.collect::<Result<Vec<_>, _>>()?;
    let all = concat_batches(&schema, &batches)?;
    let mut columns: Vec<Column> = schema.fields().iter().map(|_| Column::default()).collect();
    let (mut v3_total, mut v4_total) = (0u64, 0u64);
    let options = |format, codec, encoding| WriteOptions {
        format,
        codec,
        encoding,
        stats: true,
        ..Default::default()
    };
    let mut start = 0;
    while start < all.num_rows() {
        let batch: RecordBatch = all.slice(start, rows.min(all.num_rows() - start));
        start += batch.num_rows();
        let plain = write(
            &batch,
            &options(Format::V3, Codec::None, EncodingPolicy::Auto),
        )?;
        let v3 = write(&batch, &options(Format::V3, codec, EncodingPolicy::Auto))?;
        let v4 = write(&batch, &options(Format::V4, codec, EncodingPolicy::Auto))?;
        v3_total += v3.len() as u64;
        v4_total += v4.len() as u64;
        let (plain_frame, v3_frame, v4_frame) = (
            Frame::parse(&plain)?,
            Frame::parse(&v3)?,
            Frame::parse(&v4)?,
        );
        let chosen = buffer_encodings(&v4)?.ok_or("not a V4 frame")?;
        for (i, column) in columns.iter_mut().enumerate() {
            column.plain += u64::from(plain_frame.directory[i].stored_len);
            column.v3 += u64::from(v3_frame.directory[i].stored_len);
            column.v4 += u64::from(v4_frame.directory[i].stored_len);
            column.v3_seconds += decode_seconds(&v3, i)?;
            column.v4_seconds += decode_seconds(&v4, i)?;
            let names: Vec<&str> = chosen[i].iter().map(|e| e.name()).collect();
            let codec = if v4_frame.directory[i].codec == StoredCodec::None {
                ""
            } else {
                " + codec"
            };
            *column
                .encodings
                .entry(format!("{}{codec}", names.join(", ")))
                .or_default() += 1;
        }
    }
    println!(
        "\n### {path}: {} rows, batches of {rows}, codec {codec:?}\n",
        all.num_rows()
    );
    println!(
        "| column | type | plain | V3 | V4 | V4 / V3 | decode V3, GiB/s | decode V4, GiB/s | V4 buffer encodings (batches) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (field, c) in schema.fields().iter().zip(&columns) {
        let chosen: Vec<String> = c
            .encodings
            .iter()
            .map(|(k, n)| format!("{k} ({n})"))
            .collect();
        let rate = |seconds: f64| c.plain as f64 / seconds / f64::from(1u32 << 30);
        println!(
            "| {} | {} | {} | {} | {} | {:.2} | {:.1} | {:.1} | {} |",
            field.name(),
            field.data_type(),
            c.plain,
            c.v3,
            c.v4,
            c.v4 as f64 / c.v3.max(1) as f64,
            rate(c.v3_seconds),
            rate(c.v4_seconds),
            chosen.join("; ")
        );
    }
    println!(
        "| **all** (frames) | | | {v3_total} | {v4_total} | {:.2} | | | |",
        v4_total as f64 / v3_total.max(1) as f64
    );
    Ok(())
}
