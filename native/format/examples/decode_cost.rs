//! Decodes one column of an Arrow IPC file's rows, cut into cached batches and written in one
//! format, `REPEATS` times: a fixed amount of decoding to count under
//! `valgrind --tool=callgrind` (instructions do not depend on a noisy machine). Run it with
//! `REPEATS` 0 and N and divide the difference by N for the cost of one decode of every batch.
//!
//! `cargo run --release -p tablecache-format --example decode_cost -- FILE.arrow COLUMN v3|v4 REPEATS [lz4|zstd|adaptive|none]`

#[path = "shared/cost.rs"]
mod cost;

use tablecache_format::{decode, write};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = cost::parse("FILE.arrow COLUMN v3|v4 REPEATS [lz4|zstd|adaptive|none]")?;
    let index = args.all.schema().index_of(&args.column)?;
    let frames = cost::batches(args.all.num_rows())
        .map(|(start, rows)| write(&args.all.slice(start, rows), &args.options))
        .collect::<Result<Vec<_>, _>>()?;
    let mut decoded_rows = 0;
    for _ in 0..args.repeats {
        for frame in &frames {
            decoded_rows += std::hint::black_box(decode(frame, Some(&[index]))?).num_rows();
        }
    }
    println!("{decoded_rows} rows decoded");
    Ok(())
}
