//! Legacy format: a plain Arrow IPC stream of one record batch (FORMAT.md §5).

use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use arrow_ipc::reader::StreamDecoder;
use arrow_ipc::writer::{IpcWriteOptions, StreamWriter};
use arrow_ipc::CompressionType;

use crate::codec::Codec;
use crate::error::{Error, Result};

/// Writes `batch` as an Arrow IPC stream (schema, one batch, end-of-stream).
pub(crate) fn write(batch: &RecordBatch, codec: Codec) -> Result<Vec<u8>> {
    let compression = match codec {
        Codec::None => None,
        Codec::Lz4 | Codec::Auto => Some(CompressionType::LZ4_FRAME),
        Codec::Zstd => Some(CompressionType::ZSTD),
    };
    let fail = |e: arrow_schema::ArrowError| Error::Internal(format!("Arrow IPC writer: {e}"));
    let options = IpcWriteOptions::try_new(8, false, arrow_ipc::MetadataVersion::V5)
        .and_then(|o| o.try_with_compression(compression))
        .map_err(fail)?;
    let mut writer = StreamWriter::try_new_with_options(Vec::new(), batch.schema_ref(), options)
        .map_err(fail)?;
    writer.write(batch).map_err(|e| match e {
        arrow_schema::ArrowError::NotYetImplemented(m) => Error::UnsupportedType(m),
        other => fail(other),
    })?;
    writer.finish().map_err(fail)?;
    writer.into_inner().map_err(fail)
}

/// Reads a legacy stream; exactly one record batch, nothing after the end-of-stream marker.
pub(crate) fn read(bytes: &[u8]) -> Result<RecordBatch> {
    let corrupt = |e: arrow_schema::ArrowError| Error::CorruptLegacy(e.to_string());
    let mut buffer = Buffer::from_slice_ref(bytes);
    let mut decoder = StreamDecoder::new();
    let batch = loop {
        if buffer.is_empty() {
            return Err(Error::CorruptLegacy(
                "the stream holds no record batch".into(),
            ));
        }
        if let Some(batch) = decoder.decode(&mut buffer).map_err(corrupt)? {
            break batch;
        }
    };
    while !buffer.is_empty() {
        let before = buffer.len();
        match decoder.decode(&mut buffer) {
            Ok(Some(_)) => return Err(Error::CorruptLegacy("more than one record batch".into())),
            Ok(None) if buffer.len() == before => break,
            Ok(None) => {}
            Err(_) => {
                return Err(Error::TrailingBytes {
                    what: "Arrow IPC stream",
                    extra: buffer.len(),
                })
            }
        }
    }
    if !buffer.is_empty() {
        return Err(Error::TrailingBytes {
            what: "Arrow IPC stream",
            extra: buffer.len(),
        });
    }
    decoder.finish().map_err(corrupt)?;
    Ok(batch)
}
