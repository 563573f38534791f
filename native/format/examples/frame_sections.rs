//! Prints where a V2/V3 frame's sections lie, for scripts (scripts/fuzz.sh seeds its corpora with
//! them) that must not repeat the header layout: one line per file,
//! `<file> <row count> <schema start> <schema length> <stats start> <stats length>`.
//!
//! `cargo run -q -p tablecache-format --example frame_sections -- golden/*.bin`

use tablecache_format::{detect, header, Format, Header};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path)?;
        if detect(&bytes)? == Format::Legacy {
            continue;
        }
        let h = Header::decode(&bytes).ok_or_else(|| format!("{path}: truncated header"))?;
        let schema_start = header::LEN;
        let stats_start = schema_start + h.schema_len as usize;
        println!(
            "{path} {} {schema_start} {} {stats_start} {}",
            h.row_count, h.schema_len, h.stats_len
        );
    }
    Ok(())
}
