//! Legacy format: a plain Arrow IPC stream of one record batch (FORMAT.md §5).

use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use arrow_ipc::reader::StreamDecoder;
use arrow_ipc::writer::{IpcWriteOptions, StreamWriter};
use arrow_ipc::CompressionType;
use arrow_schema::{DataType, Field};

use crate::body::check_supported;
use crate::codec::{Codec, LZ4_MAX_RATIO, MAX_PAYLOAD, ZSTD_MAX_RATIO};
use crate::cursor::Cursor;
use crate::error::{Error, Result};
use crate::layout::{self, BufferKind, Layout};
use crate::schema::global_schema_cache;

/// Writes `batch` as an Arrow IPC stream (schema, one batch, end-of-stream).
pub(crate) fn write(batch: &RecordBatch, codec: Codec) -> Result<Vec<u8>> {
    // The reader accepts the same types as in frames; refuse the others here too.
    for field in batch.schema_ref().fields() {
        check_supported(field.data_type())?;
    }
    let compression = match codec {
        Codec::None => None,
        Codec::Lz4 | Codec::Auto | Codec::Adaptive => Some(CompressionType::LZ4_FRAME),
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

/// The Arrow IPC end-of-stream marker: continuation + zero length.
const END_OF_STREAM: [u8; 8] = [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0];

/// Reads a legacy stream: the schema, exactly one record batch, the end-of-stream marker.
///
/// arrow-ipc trusts some length fields of corrupt input (it can allocate by a
/// compressed buffer's declared size, and panics on some malformed messages),
/// so lengths are checked first and a panic inside the reader becomes a
/// `CorruptLegacy` error instead of reaching the caller (except under `cfg(fuzzing)`, where a
/// panic is a finding: each one found is a check to add before calling arrow-ipc).
pub(crate) fn read(bytes: &[u8]) -> Result<RecordBatch> {
    check_message_lengths(bytes)?;
    // Under the fuzzers a panic must surface as a finding, not be turned into an error.
    if cfg!(fuzzing) {
        return read_checked(bytes);
    }
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read_checked(bytes))) {
        Ok(result) => result,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(Error::CorruptLegacy(format!(
                "the Arrow IPC reader failed: {message}"
            )))
        }
    }
}

fn read_checked(bytes: &[u8]) -> Result<RecordBatch> {
    let corrupt = |e: arrow_schema::ArrowError| Error::CorruptLegacy(e.to_string());
    let mut buffer = Buffer::from_slice_ref(bytes);
    let mut decoder = StreamDecoder::new();
    let batch = loop {
        if buffer.is_empty() {
            return Err(Error::CorruptLegacy(
                "the stream ends before its record batch".into(),
            ));
        }
        if let Some(batch) = decoder.decode(&mut buffer).map_err(corrupt)? {
            break batch;
        }
    };
    match buffer.as_slice() {
        rest if rest == END_OF_STREAM => Ok(batch),
        rest if rest.len() > END_OF_STREAM.len() => Err(Error::TrailingBytes {
            what: "record batch (expected only the end-of-stream marker)",
            extra: rest.len(),
        }),
        _ => Err(Error::CorruptLegacy(
            "the end-of-stream marker is missing or damaged".into(),
        )),
    }
}

/// Walks the stream's messages before arrow-ipc decodes them, and rejects what arrow-ipc would
/// panic on or allocate by: a schema with a type the format does not carry (its union reader
/// panics on short buffers), a buffer outside its message body, a compressed buffer whose
/// declared uncompressed length the compressed bytes cannot produce, and an offsets or
/// dictionary-keys buffer that ends in a partial element (arrow-data panics on it).
fn check_message_lengths(bytes: &[u8]) -> Result<()> {
    let corrupt = |m: String| Error::CorruptLegacy(m);
    let mut cur = Cursor::new(bytes);
    let mut schema = None;
    while cur.remaining() > 0 {
        let start = cur.position();
        if cur.take(4, "IPC continuation marker")? != [0xFF; 4] {
            return Err(corrupt("missing IPC continuation marker".into()));
        }
        let meta_len = cur.u32("IPC metadata length")? as usize;
        if meta_len == 0 {
            return Ok(());
        }
        let meta = cur.take(meta_len, "IPC message metadata")?;
        // Before the verifier, so a schema bomb fails on the limit it passes.
        crate::schema_bounds::check_message(meta)?;
        let message = arrow_ipc::root_as_message(meta)
            .map_err(|e| corrupt(format!("invalid IPC message: {e}")))?;
        let body_len = usize::try_from(message.bodyLength())
            .map_err(|_| corrupt("negative IPC body length".into()))?;
        if message.header_as_schema().is_some() {
            // Only the types the format carries, as in a frame's schema.
            schema = Some(global_schema_cache().get_or_parse(&bytes[start..cur.position()])?);
        }
        let body = cur.take(body_len, "IPC message body")?;
        let (batch, data_type) = if let Some(batch) = message.header_as_record_batch() {
            let fields = schema.as_ref().map(|s| s.schema.fields().clone());
            (batch, fields.map(DataType::Struct))
        } else if let Some(dictionary) = message.header_as_dictionary_batch() {
            let Some(batch) = dictionary.data() else {
                continue;
            };
            #[allow(deprecated)] // arrow-ipc itself finds a dictionary's type this way
            let value_type = schema.as_ref().and_then(|s| {
                match s
                    .schema
                    .fields_with_dict_id(dictionary.id())
                    .first()?
                    .data_type()
                {
                    DataType::Dictionary(_, value) => Some(value.as_ref().clone()),
                    _ => None,
                }
            });
            (
                batch,
                value_type.map(|v| DataType::Struct(vec![Field::new("", v, true)].into())),
            )
        } else {
            continue;
        };
        let max_ratio: Option<u64> = match batch.compression().map(|c| c.codec()) {
            None => None,
            Some(CompressionType::LZ4_FRAME) => Some(LZ4_MAX_RATIO),
            Some(CompressionType::ZSTD) => Some(ZSTD_MAX_RATIO),
            Some(other) => {
                return Err(corrupt(format!(
                    "unknown IPC compression codec {}",
                    other.0
                )))
            }
        };
        // Every buffer's length once decoded (arrow-ipc checks a decompressed size).
        let mut lengths = Vec::new();
        for (i, b) in batch.buffers().into_iter().flatten().enumerate() {
            let (offset, len) = (b.offset(), b.length());
            let range = usize::try_from(offset)
                .ok()
                .zip(usize::try_from(len).ok())
                .and_then(|(o, l)| Some(o..o.checked_add(l)?))
                .filter(|r| r.end <= body.len())
                .ok_or_else(|| {
                    corrupt(format!(
                        "buffer {i} at {offset}+{len} is outside the {body_len}-byte body"
                    ))
                })?;
            let data = &body[range];
            let Some(max_ratio) = max_ratio.filter(|_| !data.is_empty()) else {
                lengths.push(data.len());
                continue;
            };
            let declared = Cursor::new(data).i64("compressed buffer length prefix")?;
            let reachable = (data.len() as u64 - 8)
                .saturating_mul(max_ratio)
                .saturating_add(1024)
                .min(MAX_PAYLOAD);
            if declared != -1 && !(0..=reachable as i64).contains(&declared) {
                return Err(corrupt(format!(
                    "buffer {i} declares {declared} uncompressed bytes, at most {reachable} are possible"
                )));
            }
            lengths.push(usize::try_from(declared).unwrap_or(data.len() - 8));
        }
        if let Some(data_type) = data_type {
            check_whole_elements(&data_type, &mut lengths.into_iter(), true)?;
        }
    }
    Ok(())
}

/// Follows `data_type` over buffer lengths in Arrow IPC order and fails on an offsets or
/// dictionary-keys buffer that is not a whole number of elements. `top` is the batch itself
/// (a struct without a validity buffer).
fn check_whole_elements(
    data_type: &DataType,
    lengths: &mut impl Iterator<Item = usize>,
    top: bool,
) -> Result<()> {
    let node = Layout::of(data_type)?;
    for kind in node.buffers() {
        if top && kind == BufferKind::Validity {
            continue; // the batch's own struct node has no validity buffer
        }
        if let Some((len, width)) = lengths.next().zip(kind.whole_elements(node)) {
            if !len.is_multiple_of(width) {
                return Err(Error::CorruptLegacy(format!(
                    "a {len}-byte buffer of {data_type} holds a partial {width}-byte element"
                )));
            }
        }
    }
    // A dictionary's values travel in dictionary batches, not with its keys.
    if matches!(node, Layout::Dictionary { .. }) {
        return Ok(());
    }
    layout::children(data_type)
        .into_iter()
        .try_for_each(|child| check_whole_elements(child, lengths, false))
}
