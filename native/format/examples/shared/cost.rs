//! The arguments `decode_cost` and `write_cost` share: an Arrow IPC file's rows, a format, a
//! repeat count and a codec.

use std::fs::File;

use arrow_array::RecordBatch;
use arrow_ipc::reader::FileReader;
use arrow_select::concat::concat_batches;
use tablecache_format::{Codec, Format, WriteOptions};

/// One run's inputs.
pub struct CostArgs {
    /// Every row of the file, as one batch.
    pub all: RecordBatch,
    /// The column argument as given (a name, or `all` where the tool allows it).
    pub column: String,
    /// The options frames are written with (stats on).
    pub options: WriteOptions,
    /// How many times the work is done.
    pub repeats: usize,
}

/// Parses `FILE.arrow COLUMN v3|v4 REPEATS [lz4|zstd|adaptive|none]`.
pub fn parse(usage: &str) -> Result<CostArgs, Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, column, format, repeats, rest @ ..] = args.as_slice() else {
        return Err(format!("usage: {usage}").into());
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
    let reader = FileReader::try_new(File::open(path)?, None)?;
    let schema = reader.schema();
    let batches = reader.collect::<Result<Vec<_>, _>>()?;
    Ok(CostArgs {
        all: concat_batches(&schema, &batches)?,
        column: column.clone(),
        options: WriteOptions {
            format,
            codec,
            stats: true,
            ..Default::default()
        },
        repeats: repeats.parse()?,
    })
}

/// The row ranges of the cached batches the file's rows are cut into (10,000 rows each).
pub fn batches(rows: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..rows)
        .step_by(10_000)
        .map(move |start| (start, 10_000.min(rows - start)))
}
