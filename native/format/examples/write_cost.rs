//! Writes an Arrow IPC file's rows (all columns, or one), cut into cached batches of 10,000 rows,
//! in one format `REPEATS` times: a fixed amount of writing to count under
//! `valgrind --tool=callgrind`, as `decode_cost` does for decoding. Run it with `REPEATS` 0 and
//! N and divide the difference by N for the cost of writing every batch once.
//!
//! `cargo run --release -p tablecache-format --example write_cost -- FILE.arrow all|COLUMN v3|v4 REPEATS [lz4|zstd|adaptive|none]`

use std::fs::File;

use arrow_ipc::reader::FileReader;
use arrow_select::concat::concat_batches;
use tablecache_format::{write, Codec, Format, WriteOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, column, format, repeats, rest @ ..] = args.as_slice() else {
        return Err("usage: FILE.arrow all|COLUMN v3|v4 REPEATS [lz4|zstd|adaptive|none]".into());
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
    let batches = reader.collect::<Result<Vec<_>, _>>()?;
    let mut all = concat_batches(&schema, &batches)?;
    if column != "all" {
        all = all.project(&[schema.index_of(column)?])?;
    }
    let options = WriteOptions {
        format,
        codec,
        stats: true,
        ..Default::default()
    };
    let mut written = 0usize;
    for _ in 0..repeats {
        let mut start = 0;
        while start < all.num_rows() {
            let rows = 10_000.min(all.num_rows() - start);
            written += std::hint::black_box(write(&all.slice(start, rows), &options)?).len();
            start += rows;
        }
    }
    println!("{written} bytes written");
    Ok(())
}
