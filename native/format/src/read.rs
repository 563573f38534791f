//! The reader: any format back to a record batch, decoding only projected columns of V3.

use std::sync::Arc;

use arrow_array::{make_array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_buffer::MutableBuffer;
use arrow_schema::{Schema, SchemaRef};

use crate::body::{BodyLayout, PartsReader};
use crate::body_v4;
use crate::budget;
use crate::codec::{self, StoredCodec};
use crate::encodings::{Encoding, StoredColumn};
use crate::error::{Error, Result};
use crate::frame::{detect, DirectoryEntry, Format, Frame};
use crate::layout;
use crate::lightweight::BufferEncoding;

/// How [`decode_fetched`] hands decoded columns back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// A top-level `Utf8` or `Binary` column of a V4 frame whose values are stored as a string
    /// dictionary comes back as a `DictionaryArray<Int32, _>` over its entries, with the field's
    /// type changed to match, instead of one string per value: for readers that can follow a
    /// key (the JVM's flat column vectors). Every other column, and every column of the other
    /// formats, comes back as [`decode`] gives it. Off: exactly [`decode`]'s batch.
    pub dictionary_strings: bool,
}

/// Decodes `bytes` (any format). `projection` selects columns by index, in
/// the given order; `None` means all, an empty slice yields only the row count.
pub fn decode(bytes: &[u8], projection: Option<&[usize]>) -> Result<RecordBatch> {
    match detect(bytes)? {
        Format::Legacy => {
            let batch = crate::legacy::read(bytes)?;
            // A stream's batch length is an i64: hold it to the frames' limit.
            if batch.num_rows() > crate::frame::MAX_ROW_COUNT as usize {
                return Err(Error::RowCountTooLarge(batch.num_rows() as u64));
            }
            project(batch, projection)
        }
        Format::V2 => {
            let frame = Frame::parse(bytes)?;
            check_projection(projection, frame.column_count as usize)?;
            let columns = decode_whole_batch(&frame)?;
            let batch = assemble(
                frame.schema.schema.clone(),
                columns,
                frame.row_count as usize,
            )?;
            project(batch, projection)
        }
        Format::V3 | Format::V4 => {
            let frame = Frame::parse(bytes)?;
            decode_v3(&frame, projection, |index| {
                let (stored, entry) = frame.payload(index)?;
                decode_column(&frame, index, stored, entry, ReadOptions::default())
            })
        }
    }
}

/// The buffer encodings of each column of a V4 frame, in traversal order (what the selector
/// chose, for tests, benchmarks and tools); `None` for the other formats, which state one
/// encoding per payload in the directory.
pub fn buffer_encodings(bytes: &[u8]) -> Result<Option<Vec<Vec<BufferEncoding>>>> {
    if detect(bytes)? != Format::V4 {
        return Ok(None);
    }
    let frame = Frame::parse(bytes)?;
    (0..frame.column_count as usize)
        .map(|index| {
            let what = format!("column {index}");
            let (stored, entry) = frame.payload(index)?;
            let body = codec::decompress(stored, entry.codec, entry.raw_len as usize, &|| {
                what.clone()
            })?;
            body_v4::buffer_encodings(&body, &what)
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

/// Decodes column `index` of a V3 or V4 frame from its stored payload.
fn decode_column(
    frame: &Frame<'_>,
    index: usize,
    stored: &[u8],
    entry: &DirectoryEntry,
    options: ReadOptions,
) -> Result<ArrayRef> {
    if frame.format != Format::V4 {
        return decode_v3_column(frame, index, stored, entry);
    }
    let what = || format!("column {index}");
    let raw_len = entry.raw_len as usize;
    // The body is only read: decoding writes every buffer anew, so a stored body is not copied.
    let decompressed;
    let body = if entry.codec == StoredCodec::None {
        codec::uncompressed(stored, raw_len, &what)?
    } else {
        decompressed = codec::decompress(stored, entry.codec, raw_len, &what)?;
        decompressed.as_slice()
    };
    let schema = frame.schema.schema.as_ref();
    let declared = Some(u64::from(entry.decoded_len));
    if options.dictionary_strings {
        if let Some(keyed) = decode_v4_keyed(body, schema, index, frame.row_count, declared)? {
            return Ok(keyed);
        }
    }
    decode_v4_body(body, schema, index, frame.row_count, declared)
}

/// Decodes the V4 column body `body` (a whole decompressed payload) of field `index` of
/// `schema` in a frame of `rows` rows into a plain body of `declared` bytes (the directory's
/// decoded length; `None`: any length within the frame's decode budget).
fn decode_v4_body(
    body: &[u8],
    schema: &Schema,
    index: usize,
    rows: u32,
    declared: Option<u64>,
) -> Result<ArrayRef> {
    let what = format!("column {index}");
    let data_type = schema.field(index).data_type();
    let plain = body_v4::decode(body, data_type, rows, declared, &what)?;
    let layout = BodyLayout::parse(&plain, 0, &what)?;
    if layout.end != plain.len() {
        return Err(Error::TrailingBytes {
            what: "column body",
            extra: plain.len() - layout.end,
        });
    }
    let mut reader = PartsReader::over(&plain.into(), layout, what);
    read_column(&mut reader, schema, index, rows as usize)
}

/// Decodes one V4 column body (FORMAT.md §3.2), a whole decompressed payload, as the only
/// column of a frame of `rows` rows over `schema`, under the frame's decode budget: every check
/// a frame's reader makes of a body. For the fuzz target `v4_body` and tools, which reach the
/// body's decoders without the frame's checksums around it.
pub fn decode_column_body_v4(body: &[u8], schema: &Schema, rows: u32) -> Result<ArrayRef> {
    if schema.fields().len() != 1 {
        return Err(Error::InvalidArgument(format!(
            "a column body is one column, the schema has {}",
            schema.fields().len()
        )));
    }
    decode_v4_body(body, schema, 0, rows, None)
}

/// [`decode_column_body_v4`] for a `Utf8` or `Binary` column whose body keeps its values as a
/// string dictionary: the column as a `DictionaryArray<Int32, _>`, whose entries are validated
/// once and whose values are never materialised (`None` for every other body). It refuses every
/// body [`decode_column_body_v4`] refuses, and may refuse more (an entry no value uses that is
/// not UTF-8); a body both accept is the same column.
pub fn decode_column_body_v4_keyed(
    body: &[u8],
    schema: &Schema,
    rows: u32,
) -> Result<Option<ArrayRef>> {
    if schema.fields().len() != 1 {
        return Err(Error::InvalidArgument(format!(
            "a column body is one column, the schema has {}",
            schema.fields().len()
        )));
    }
    decode_v4_keyed(body, schema, 0, rows, None)
}

/// [`decode_v4_body`] as a dictionary when the body of field `index` is a string dictionary
/// ([`decode_column_body_v4_keyed`]), else `None`.
fn decode_v4_keyed(
    body: &[u8],
    schema: &Schema,
    index: usize,
    rows: u32,
    declared: Option<u64>,
) -> Result<Option<ArrayRef>> {
    use arrow_array::types::Int32Type;
    use arrow_array::{BinaryArray, DictionaryArray, Int32Array, StringArray};
    use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
    use arrow_schema::DataType;

    let what = format!("column {index}");
    let field = schema.field(index);
    let data_type = field.data_type();
    let Some(keyed) = body_v4::decode_keyed(body, data_type, rows, declared, &what)? else {
        return Ok(None);
    };
    let invalid = |source| Error::InvalidData {
        what: what.clone(),
        source,
    };
    let n = rows as usize;
    let nulls = if keyed.null_count == 0 {
        None
    } else if keyed.validity.len() * 8 < n {
        return Err(Error::CorruptEncoding(format!(
            "{what}: {} validity bytes for {n} values",
            keyed.validity.len()
        )));
    } else {
        let nulls = NullBuffer::new(BooleanBuffer::new(Buffer::from(keyed.validity), 0, n));
        if nulls.null_count() != keyed.null_count as usize {
            return Err(Error::CorruptEncoding(format!(
                "{what}: node declares {} nulls, validity has {}",
                keyed.null_count,
                nulls.null_count()
            )));
        }
        Some(nulls)
    };
    // The check read_column makes of a plain column.
    if !field.is_nullable() && keyed.null_count > 0 {
        return Err(Error::SchemaMismatch(format!(
            "non-nullable column {index} holds {} nulls",
            keyed.null_count
        )));
    }
    // Cumulative entry lengths: never decreasing, as OffsetBuffer::new requires.
    let offsets = OffsetBuffer::new(ScalarBuffer::from(keyed.keyed.entry_offsets));
    let entries = Buffer::from(keyed.entries);
    let values: ArrayRef = match data_type {
        DataType::Utf8 => Arc::new(StringArray::try_new(offsets, entries, None).map_err(invalid)?),
        _ => Arc::new(BinaryArray::try_new(offsets, entries, None).map_err(invalid)?),
    };
    let keys = Int32Array::try_new(ScalarBuffer::from(keyed.keyed.keys), nulls).map_err(invalid)?;
    if keys.len() != n {
        return Err(Error::SchemaMismatch(format!(
            "column {index} has {} rows, the frame {n}",
            keys.len()
        )));
    }
    let dictionary = DictionaryArray::<Int32Type>::try_new(keys, values).map_err(invalid)?;
    Ok(Some(Arc::new(dictionary)))
}

/// [`decode`] for bytes the caller cannot lend for the whole decode (the JNI layer copies them
/// out of a Java `byte[]`, which may be pinned only briefly). `read(offset, dst)` copies
/// `dst.len()` bytes of the cached batch, which is `len` bytes long, starting at `offset`. Of a
/// V3 frame only the metadata and the projected payloads are copied, each once; V2 and legacy
/// batches, which decode whole, are copied whole. With default `options`, the result and every
/// error are exactly those of [`decode`] over the whole bytes; [`ReadOptions`] says what each
/// option changes.
pub fn decode_fetched<F>(
    len: usize,
    mut read: F,
    projection: Option<&[usize]>,
    options: ReadOptions,
) -> Result<RecordBatch>
where
    F: FnMut(usize, &mut [u8]) -> Result<()>,
{
    let mut header = [0u8; crate::frame::HEADER_LEN];
    let header = &mut header[..len.min(crate::frame::HEADER_LEN)];
    read(0, header)?;
    let metadata_end = match crate::frame::per_column_metadata_end(header) {
        Some(end) if end <= len => end,
        _ => {
            let mut whole = vec![0u8; len];
            read(0, &mut whole)?;
            return decode(&whole, projection);
        }
    };
    let mut metadata = vec![0u8; metadata_end];
    metadata[..header.len()].copy_from_slice(header);
    read(header.len(), &mut metadata[header.len()..])?;
    let frame = Frame::parse_metadata(&metadata, len)?;
    let mut stored = Vec::new();
    decode_v3(&frame, projection, |index| {
        let (range, entry) = frame.payload_range(index)?;
        stored.clear();
        stored.resize(range.len(), 0);
        read(range.start, &mut stored)?;
        let verified = frame.verified(index, &stored)?;
        decode_column(&frame, index, verified, entry, options)
    })
}

/// The projected columns of a V3 or V4 frame, each decoded by `column(index)`.
fn decode_v3(
    frame: &Frame<'_>,
    projection: Option<&[usize]>,
    mut column: impl FnMut(usize) -> Result<ArrayRef>,
) -> Result<RecordBatch> {
    let count = frame.column_count as usize;
    check_projection(projection, count)?;
    let all: Vec<usize>;
    let indices = match projection {
        Some(p) => p,
        None => {
            all = (0..count).collect();
            &all
        }
    };
    let entries = indices
        .iter()
        .map(|&i| {
            frame
                .directory
                .get(i)
                .map(|e| (i, e))
                .ok_or_else(|| Error::Internal(format!("directory entry {i} missing")))
        })
        .collect::<Result<Vec<_>>>()?;
    budget::check_columns(
        &frame.schema.schema,
        frame.row_count,
        frame.format == Format::V4,
        entries,
    )?;
    let columns = indices
        .iter()
        .map(|&i| column(i))
        .collect::<Result<Vec<_>>>()?;
    let projected = frame
        .schema
        .schema
        .project(indices)
        .map_err(|e| Error::Internal(e.to_string()))?;
    // A column served as a dictionary (ReadOptions) says so in its field; every other field is
    // the frame's, which assemble holds each column to.
    let fields: Vec<_> = projected
        .fields()
        .iter()
        .zip(&columns)
        .map(|(field, column)| match column.data_type() {
            keyed @ arrow_schema::DataType::Dictionary(_, values)
                if values.as_ref() == field.data_type() =>
            {
                Arc::new(field.as_ref().clone().with_data_type(keyed.clone()))
            }
            _ => field.clone(),
        })
        .collect();
    let schema = Arc::new(Schema::new_with_metadata(
        fields,
        projected.metadata().clone(),
    ));
    assemble(schema, columns, frame.row_count as usize)
}

fn check_projection(projection: Option<&[usize]>, count: usize) -> Result<()> {
    match projection.and_then(|p| p.iter().find(|&&i| i >= count)) {
        Some(&index) => Err(Error::ColumnOutOfRange { index, count }),
        None => Ok(()),
    }
}

fn project(batch: RecordBatch, projection: Option<&[usize]>) -> Result<RecordBatch> {
    let Some(indices) = projection else {
        return Ok(batch);
    };
    check_projection(projection, batch.num_columns())?;
    let schema = Arc::new(
        batch
            .schema_ref()
            .project(indices)
            .map_err(|e| Error::Internal(e.to_string()))?,
    );
    let columns = indices.iter().map(|&i| batch.column(i).clone()).collect();
    assemble(schema, columns, batch.num_rows())
}

fn assemble(schema: SchemaRef, columns: Vec<ArrayRef>, rows: usize) -> Result<RecordBatch> {
    RecordBatch::try_new_with_options(
        schema,
        columns,
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )
    .map_err(|e| Error::SchemaMismatch(e.to_string()))
}

fn decode_v3_column(
    frame: &Frame<'_>,
    index: usize,
    stored: &[u8],
    entry: &DirectoryEntry,
) -> Result<ArrayRef> {
    let what = || format!("column {index}");
    let mut body = codec::decompress(stored, entry.codec, entry.raw_len as usize, &what)?;
    let schema = frame.schema.schema.as_ref();
    let layout = plain_body_at(&mut body, 0, schema, index, entry.encoding, &mut Vec::new())?;
    if layout.end != body.len() {
        return Err(Error::TrailingBytes {
            what: "column body",
            extra: body.len() - layout.end,
        });
    }
    let mut reader = PartsReader::over(&body.into(), layout, what());
    read_column(&mut reader, schema, index, frame.row_count as usize)
}

fn decode_whole_batch(frame: &Frame<'_>) -> Result<Vec<ArrayRef>> {
    let (stored, entry) = frame.payload(0)?;
    budget::check_whole_batch(&frame.schema.schema, frame.row_count, entry)?;
    let mut body = codec::decompress(stored, entry.codec, entry.raw_len as usize, &|| {
        "whole-batch payload".to_string()
    })?;
    let schema = frame.schema.schema.as_ref();
    let mut scratch = Vec::new();
    let mut pos = 0;
    let mut layouts = Vec::with_capacity(frame.column_count as usize);
    for index in 0..frame.column_count as usize {
        let layout = plain_body_at(&mut body, pos, schema, index, entry.encoding, &mut scratch)?;
        pos = layout.end;
        layouts.push(layout);
    }
    if pos != body.len() {
        return Err(Error::TrailingBytes {
            what: "whole-batch payload",
            extra: body.len() - pos,
        });
    }
    let body = body.into();
    layouts
        .into_iter()
        .enumerate()
        .map(|(index, layout)| {
            let mut reader = PartsReader::over(&body, layout, format!("column {index}"));
            read_column(&mut reader, schema, index, frame.row_count as usize)
        })
        .collect()
}

/// Parses the body of column `index` at `pos` of a decompressed payload and has the unit of
/// its `encoding` decode it in place, so that its buffers hold plain Arrow data.
fn plain_body_at(
    body: &mut MutableBuffer,
    pos: usize,
    schema: &Schema,
    index: usize,
    encoding: Encoding,
    scratch: &mut Vec<u8>,
) -> Result<BodyLayout> {
    let what = format!("column {index}");
    let layout = BodyLayout::parse(body, pos, &what)?;
    // A plain body has nothing to undo; skipping it also skips the walk of its type.
    if encoding == Encoding::Plain {
        return Ok(layout);
    }
    // The schema says what each buffer holds; the body must have as many.
    let specs = layout::buffer_specs(schema.field(index).data_type())?;
    if specs.len() != layout.buffers().len() {
        return Err(Error::SchemaMismatch(format!(
            "{what}: {} buffers present, the schema uses {}",
            layout.buffers().len(),
            specs.len()
        )));
    }
    let column = StoredColumn {
        body: body.as_slice_mut(),
        buffers: layout.buffers(),
        specs: &specs,
    };
    encoding.unit().decode(column, scratch)?;
    Ok(layout)
}

fn read_column(
    reader: &mut PartsReader,
    schema: &Schema,
    index: usize,
    rows: usize,
) -> Result<ArrayRef> {
    let field = schema.field(index);
    let data = reader.read_array(field.data_type())?;
    reader.finish()?;
    if data.len() != rows {
        return Err(Error::SchemaMismatch(format!(
            "column {index} has {} rows, the frame {rows}",
            data.len()
        )));
    }
    if !field.is_nullable() && data.null_count() > 0 {
        return Err(Error::SchemaMismatch(format!(
            "non-nullable column {index} holds {} nulls",
            data.null_count()
        )));
    }
    Ok(make_array(data))
}
