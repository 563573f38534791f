//! Writes an Arrow IPC file's rows (all columns, or one), cut into cached batches of 10,000 rows,
//! in one format `REPEATS` times: a fixed amount of writing to count under
//! `valgrind --tool=callgrind`, as `decode_cost` does for decoding. Run it with `REPEATS` 0 and
//! N and divide the difference by N for the cost of writing every batch once.
//!
//! `cargo run --release -p tablecache-format --example write_cost -- FILE.arrow all|COLUMN v3|v4 REPEATS [lz4|zstd|adaptive|none]`

#[path = "shared/cost.rs"]
mod cost;

use tablecache_format::write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = cost::parse("FILE.arrow all|COLUMN v3|v4 REPEATS [lz4|zstd|adaptive|none]")?;
    let mut all = args.all;
    if args.column != "all" {
        all = all.project(&[all.schema().index_of(&args.column)?])?;
    }
    let mut written = 0usize;
    for _ in 0..args.repeats {
        for (start, rows) in cost::batches(all.num_rows()) {
            written += std::hint::black_box(write(&all.slice(start, rows), &args.options)?).len();
        }
    }
    println!("{written} bytes written");
    Ok(())
}
