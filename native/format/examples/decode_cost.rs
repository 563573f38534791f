//! Decodes one column of an Arrow IPC file's rows, cut into cached batches and written in one
//! format, `REPEATS` times: a fixed amount of decoding to count under
//! `valgrind --tool=callgrind` (instructions do not depend on a noisy machine). Run it with
//! `REPEATS` 0 and N and divide the difference by N for the cost of one decode of every batch.
//!
//! `cargo run --release -p tablecache-format --example decode_cost -- FILE.arrow COLUMN v3|v4 REPEATS [lz4|zstd|adaptive|none]`

use std::fs::File;

use arrow_ipc::reader::FileReader;
use arrow_select::concat::concat_batches;
use tablecache_format::{decode, write, Codec, Format, WriteOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, column, format, repeats, rest @ ..] = args.as_slice() else {
        return Err("usage: FILE.arrow COLUMN v3|v4 REPEATS [lz4|zstd|adaptive|none]".into());
    };
    let format = match format.as_str() {
        "v3" => Format::V3,
        "v4" => Format::V4,
        other => return Err(format!("format {other}").into()),
    };
    let codec = match rest.first().map(String::as_str) {
        None | Some("lz4") => Codec::Lz4,
        Some("zstd") => Codec::Zstd,
        Some("adaptive") => Codec::Adaptive,
        Some("none") => Codec::None,
        Some(other) => return Err(format!("codec {other}").into()),
    };
    let repeats: usize = repeats.parse()?;
    let reader = FileReader::try_new(File::open(path)?, None)?;
    let schema = reader.schema();
    let index = schema.index_of(column)?;
    let batches = reader.collect::<Result<Vec<_>, _>>()?;
    let all = concat_batches(&schema, &batches)?;
    let options = WriteOptions {
        format,
        codec,
        stats: true,
        ..Default::default()
    };
    let mut frames = Vec::new();
    let mut start = 0;
    while start < all.num_rows() {
        let rows = 10_000.min(all.num_rows() - start);
        frames.push(write(&all.slice(start, rows), &options)?);
        start += rows;
    }
    let mut decoded_rows = 0;
    for _ in 0..repeats {
        for frame in &frames {
            decoded_rows += std::hint::black_box(decode(frame, Some(&[index]))?).num_rows();
        }
    }
    println!("{decoded_rows} rows decoded");
    Ok(())
}
