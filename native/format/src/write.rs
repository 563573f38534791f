//! The writer: a record batch to V3, V2 or legacy bytes.

use std::sync::Arc;

use arrow_array::{Array, RecordBatch};
use arrow_data::ArrayData;

use crate::body::{check_supported, normalized, BodyParts};
use crate::codec::Codec;
use crate::cursor::to_u32;
use crate::error::{Error, Result};
use crate::frame::{
    meta_checksum, ChecksumKind, Format, Header, FLAG_ENCODED, FLAG_STATS, HEADER_LEN,
};
use crate::payload::PayloadWriter;
use crate::schema::{encode_schema, InternedSchema};
use crate::select::EncodingPolicy;
use crate::stats::{self, ColumnStats, DEFAULT_STRING_BOUND_LIMIT};

/// How to write a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOptions {
    /// Output format.
    pub format: Format,
    /// Write the stats section (V2 and V3; legacy has none).
    pub stats: bool,
    /// Payload codec.
    pub codec: Codec,
    /// How each payload's encoding is chosen (V2 and V3; an encoding goes only on payloads
    /// that are compressed, as it saves nothing on its own).
    pub encoding: EncodingPolicy,
    /// Byte limit of string bounds.
    pub string_bound_limit: usize,
    /// Checksums over metadata and payloads.
    pub checksum: ChecksumKind,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            format: Format::V3,
            stats: true,
            codec: Codec::Lz4,
            encoding: EncodingPolicy::Auto,
            string_bound_limit: DEFAULT_STRING_BOUND_LIMIT,
            checksum: ChecksumKind::Crc32c,
        }
    }
}

/// Writes `batch` in the requested format.
pub fn write(batch: &RecordBatch, options: &WriteOptions) -> Result<Vec<u8>> {
    if options.format == Format::Legacy {
        return crate::legacy::write(batch, options.codec);
    }
    write_frame(batch, &encode_schema(batch.schema_ref())?, options)
}

/// Writes `batch` in the requested format, embedding the already encoded schema of an
/// interned `schema` (the JNI path: the schema cache has encoded it once per schema). A batch
/// whose own schema differs (a string column stored as binary, [`crate::raw_strings`]) embeds
/// its own.
pub fn write_interned(
    batch: &RecordBatch,
    schema: &InternedSchema,
    options: &WriteOptions,
) -> Result<Vec<u8>> {
    if options.format == Format::Legacy {
        return crate::legacy::write(batch, options.codec);
    }
    let own = batch.schema_ref();
    if Arc::ptr_eq(own, &schema.schema) || **own == *schema.schema {
        write_frame(batch, &schema.encoded, options)
    } else {
        write_frame(batch, &encode_schema(own)?, options)
    }
}

/// Writes a V2/V3 frame embedding `schema_bytes` (the canonical encoding of
/// `batch`'s schema, e.g. from the intern cache).
pub(crate) fn write_frame(
    batch: &RecordBatch,
    schema_bytes: &[u8],
    options: &WriteOptions,
) -> Result<Vec<u8>> {
    for field in batch.schema_ref().fields() {
        check_supported(field.data_type())?;
    }
    let columns = batch
        .columns()
        .iter()
        .map(|c| normalized(&c.to_data()))
        .collect::<Result<Vec<ArrayData>>>()?;
    let parts = columns
        .iter()
        .map(BodyParts::collect)
        .collect::<Result<Vec<_>>>()?;
    let stats = if options.stats {
        batch
            .columns()
            .iter()
            .zip(&parts)
            .map(|(c, p)| {
                stats::compute(
                    c.as_ref() as &dyn Array,
                    p.plain_len() as u64,
                    options.string_bound_limit,
                )
            })
            .collect::<Result<Vec<ColumnStats>>>()?
    } else {
        Vec::new()
    };
    let mut stats_bytes = Vec::new();
    if options.stats {
        stats::encode(&stats, &mut stats_bytes)?;
    }

    let row_count = to_u32(batch.num_rows(), "row count")?;
    if row_count > crate::frame::MAX_ROW_COUNT {
        return Err(Error::TooLarge(format!(
            "{row_count} rows in one batch (at most {})",
            crate::frame::MAX_ROW_COUNT
        )));
    }
    let column_count = to_u32(batch.num_columns(), "column count")?;
    let entries = match options.format {
        Format::V3 | Format::V4 => batch.num_columns(),
        _ => 1,
    };
    let raw_total: usize = parts.iter().map(BodyParts::plain_len).sum();
    let entry_len = options.format.directory_entry_len();
    let mut out = Vec::with_capacity(
        HEADER_LEN
            + schema_bytes.len()
            + stats_bytes.len()
            + entries * entry_len
            + raw_total / 2
            + 64,
    );
    let mut flags = options.checksum.flag_bits();
    if options.stats {
        flags |= FLAG_STATS;
    }
    let mut header = Header {
        version: options.format.version().unwrap_or(3),
        flags,
        row_count,
        column_count,
        schema_len: to_u32(schema_bytes.len(), "schema length")?,
        stats_len: to_u32(stats_bytes.len(), "stats length")?,
        meta_checksum: 0, // filled in below, once the directory is written
    };
    out.extend_from_slice(&header.encode());
    out.extend_from_slice(schema_bytes);
    out.extend_from_slice(&stats_bytes);
    let directory_start = out.len();
    out.resize(directory_start + entries * entry_len, 0);
    let payload_start = out.len();

    // V3 and V4: one payload per column; V2: one payload of every column.
    let payload_columns: Vec<&[BodyParts<'_>]> = match options.format {
        Format::V3 | Format::V4 => parts.chunks(1).collect(),
        _ => vec![&parts],
    };
    let mut payloads = PayloadWriter::new(options.encoding, options.codec, options.checksum);
    let schema = batch.schema_ref();
    for (index, columns) in payload_columns.into_iter().enumerate() {
        let entry = if options.format == Format::V4 {
            let data_type = schema.field(index).data_type();
            payloads.write_self_describing(
                &columns[0],
                data_type,
                row_count,
                &mut out,
                payload_start,
            )?
        } else {
            payloads.write(columns, &mut out, payload_start)?
        }
        .encode(options.format);
        let at = directory_start + index * entry_len;
        out[at..at + entry_len].copy_from_slice(&entry);
    }
    if payloads.any_encoded() {
        header.flags |= FLAG_ENCODED;
    }
    if options.checksum == ChecksumKind::Crc32c {
        out[..HEADER_LEN].copy_from_slice(&header.encode());
        header.meta_checksum = meta_checksum(&out, payload_start);
    }
    out[..HEADER_LEN].copy_from_slice(&header.encode());
    Ok(out)
}
