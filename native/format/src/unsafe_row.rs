//! Spark `UnsafeRow`s → an Arrow record batch, for caching rows without a per-value JVM writer.
//!
//! The JVM copies each row's bytes, as Spark laid them out, one after another into one buffer;
//! this module transposes them into columns. An `UnsafeRow` of `n` fields is:
//! * a null bitset of `ceil(n / 64)` little-endian 64-bit words (bit `i` set: field `i` is null);
//! * `n` 8-byte slots: a fixed-width value in its low bytes (little-endian), or, for strings,
//!   binary and wide decimals, `(offset << 32) | size` of bytes later in the same row;
//! * the variable-length bytes.
//!
//! Every offset and size is checked against its row: malformed rows are an
//! [`Error::InvalidArgument`], never a panic or an out-of-bounds read.

use arrow_array::{make_array, ArrayRef, BinaryArray, RecordBatch, StringArray};
use arrow_buffer::{BooleanBufferBuilder, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_data::ArrayDataBuilder;
use arrow_schema::{DataType, IntervalUnit, SchemaRef, TimeUnit};
use std::ops::Range;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::raw_strings;

/// Whether every field of `schema` has a type whose `UnsafeRow` form this module reads.
pub fn supports(schema: &SchemaRef) -> bool {
    schema
        .fields()
        .iter()
        .all(|f| slot_kind(f.data_type()).is_some())
}

/// How a column's value sits in its row.
#[derive(Clone, Copy)]
enum SlotKind {
    /// A value of this many bytes at the start of the slot.
    Fixed(usize),
    /// A boolean byte.
    Bool,
    /// A decimal of precision ≤ 18: the unscaled value as a long in the slot.
    CompactDecimal,
    /// A decimal of precision > 18: big-endian two's complement bytes in the variable region.
    WideDecimal,
    /// Bytes in the variable region (string or binary).
    Bytes,
    /// Spark's NullType: every value is null.
    Null,
}

fn slot_kind(t: &DataType) -> Option<SlotKind> {
    Some(match t {
        DataType::Boolean => SlotKind::Bool,
        DataType::Int8 => SlotKind::Fixed(1),
        DataType::Int16 => SlotKind::Fixed(2),
        // Spark's year-month interval is an int of months, its day-time interval a long of
        // microseconds: the Arrow types Spark maps them to hold the same values.
        DataType::Int32
        | DataType::Date32
        | DataType::Float32
        | DataType::Interval(IntervalUnit::YearMonth) => SlotKind::Fixed(4),
        DataType::Int64
        | DataType::Float64
        | DataType::Timestamp(TimeUnit::Microsecond, _)
        | DataType::Duration(TimeUnit::Microsecond) => SlotKind::Fixed(8),
        DataType::Decimal128(p, _) if *p <= 18 => SlotKind::CompactDecimal,
        DataType::Decimal128(_, _) => SlotKind::WideDecimal,
        DataType::Utf8 | DataType::Binary => SlotKind::Bytes,
        DataType::Null => SlotKind::Null,
        _ => return None,
    })
}

/// The rows of one batch, checked once: every row holds at least its null bitset and slots.
struct Rows<'a> {
    data: &'a [u8],
    /// `len() + 1` entries: row `i` is `data[starts[i]..starts[i + 1]]`.
    starts: Vec<usize>,
    bitset_len: usize,
    fixed_len: usize,
    /// The null bitsets of all rows OR-ed together: a field whose bit is clear here has no
    /// nulls in the batch, and its column skips the validity work.
    null_union: Vec<u64>,
}

impl<'a> Rows<'a> {
    fn new(data: &'a [u8], starts: &[i64], num_fields: usize) -> Result<Self> {
        let bitset_len = num_fields.div_ceil(64) * 8;
        let fixed_len = bitset_len + num_fields * 8;
        let mut checked = Vec::with_capacity(starts.len());
        for (i, &s) in starts.iter().enumerate() {
            let s = usize::try_from(s)
                .map_err(|_| Error::InvalidArgument(format!("row start {s} is negative")))?;
            let previous = checked.last().copied().unwrap_or(0);
            if s > data.len() || s < previous {
                return Err(Error::InvalidArgument(format!(
                    "row {i} starts at {s}: outside 0..={} or before row {}",
                    data.len(),
                    i.saturating_sub(1)
                )));
            }
            if i > 0 && s - previous < fixed_len {
                return Err(Error::InvalidArgument(format!(
                    "row {} has {} bytes; {num_fields} fields need at least {fixed_len}",
                    i - 1,
                    s - previous
                )));
            }
            checked.push(s);
        }
        let mut null_union = vec![0u64; bitset_len / 8];
        for row in checked.windows(2) {
            for (w, union) in null_union.iter_mut().enumerate() {
                *union |= word(&data[row[0]..row[1]], w * 8);
            }
        }
        Ok(Rows {
            data,
            starts: checked,
            bitset_len,
            fixed_len,
            null_union,
        })
    }

    fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Row `i`'s bytes (at least `fixed_len` of them, checked by [`Rows::new`]).
    #[inline]
    fn row(&self, i: usize) -> &'a [u8] {
        &self.data[self.starts[i]..self.starts[i + 1]]
    }

    /// The variable-length bytes a slot word points at, checked against row `i` (`row`).
    fn var_bytes(&self, i: usize, field: usize, row: &'a [u8], word: u64) -> Result<&'a [u8]> {
        let (offset, size) = self.var_range(i, field, row, word)?;
        Ok(&row[offset..offset + size])
    }

    /// The (offset, size) a slot word points at, checked to lie in row `i`'s variable region.
    fn var_range(&self, i: usize, field: usize, row: &[u8], word: u64) -> Result<(usize, usize)> {
        let (offset, size) = ((word >> 32) as usize, (word & 0xffff_ffff) as usize);
        match offset.checked_add(size) {
            Some(end) if offset >= self.fixed_len && end <= row.len() => Ok((offset, size)),
            _ => Err(Error::InvalidArgument(format!(
                "row {i}, field {field}: {size} bytes at offset {offset} are outside the \
                 row's variable region {}..{}",
                self.fixed_len,
                row.len()
            ))),
        }
    }
}

/// Appends the `len` bytes at `row[offset..]` (already checked to be inside the row) to
/// `bytes`. Spark pads each variable-length value to whole 8-byte words, so a value of up to 16
/// bytes is copied as one or two words, which compile to plain moves where `extend_from_slice`
/// of a short slice calls `memmove`; the padding past `len` is truncated away.
#[inline]
fn append_padded(bytes: &mut Vec<u8>, row: &[u8], offset: usize, len: usize) {
    let old = bytes.len();
    if len <= 8 && offset + 8 <= row.len() {
        bytes.extend_from_slice(&word(row, offset).to_le_bytes());
    } else if len <= 16 && offset + 16 <= row.len() {
        bytes.extend_from_slice(&word(row, offset).to_le_bytes());
        bytes.extend_from_slice(&word(row, offset + 8).to_le_bytes());
    } else {
        bytes.extend_from_slice(&row[offset..offset + len]);
    }
    bytes.truncate(old + len);
}

/// The little-endian word at byte `at` of a row's fixed part (`at + 8 <= fixed_len`).
#[inline]
fn word(row: &[u8], at: usize) -> u64 {
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&row[at..at + 8]);
    u64::from_le_bytes(bytes)
}

/// Bytes of rows transposed together: small enough that a block's rows stay in L1 cache while
/// every column reads them.
const BLOCK_BYTES: usize = 16 * 1024;

/// Transposes `UnsafeRow`s of `schema` into a record batch. Row `i` is
/// `data[starts[i]..starts[i + 1]]`, so `starts` holds one entry more than there are rows.
///
/// Errors: [`Error::UnsupportedType`] for a field type outside [`supports`];
/// [`Error::InvalidArgument`] for rows that do not fit the schema (too short, an offset outside
/// its row, a wide decimal over 16 bytes). A string column whose bytes are not UTF-8 comes out
/// as `Binary`, and so does its field in the batch's schema ([`crate::raw_strings`]).
pub fn to_record_batch(schema: &SchemaRef, data: &[u8], starts: &[i64]) -> Result<RecordBatch> {
    if starts.is_empty() {
        return Err(Error::InvalidArgument(
            "row starts are empty (they need one entry past the last row)".into(),
        ));
    }
    let kinds = schema
        .fields()
        .iter()
        .map(|f| {
            slot_kind(f.data_type()).ok_or_else(|| {
                Error::UnsupportedType(format!(
                    "field {:?}: {} has no UnsafeRow reader",
                    crate::names::quoted(f.name()),
                    f.data_type()
                ))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let rows = Rows::new(data, starts, kinds.len())?;
    let mut sinks = schema
        .fields()
        .iter()
        .zip(kinds)
        .enumerate()
        .map(|(i, (f, kind))| ColumnSink::new(&rows, i, f.data_type(), kind))
        .collect::<Vec<_>>();
    // Column by column within blocks of rows: a block's row bytes stay in cache while every
    // column reads them (a pass per column over the whole batch re-read it from memory).
    let row_block = (BLOCK_BYTES / (data.len() / rows.len().max(1)).max(1)).clamp(16, 1024);
    for start in (0..rows.len()).step_by(row_block) {
        let block = start..rows.len().min(start + row_block);
        for sink in &mut sinks {
            sink.push_block(&rows, block.clone())?;
        }
    }
    let columns = sinks
        .into_iter()
        .map(|sink| sink.finish(rows.len()))
        .collect::<Result<Vec<ArrayRef>>>()?;
    raw_strings::batch_of(schema, columns, rows.len())
}

/// One column under construction: where its field sits in every row, and what it has read.
struct ColumnSink {
    field: usize,
    data_type: DataType,
    /// Byte offset of the field's null word in the row.
    null_word: usize,
    null_mask: u64,
    /// Byte offset of the field's slot in the row.
    slot: usize,
    values: Values,
    /// The validity bitmap, only for a column with a null somewhere in the batch (`null_union`):
    /// the others skip the validity work.
    validity: Option<BooleanBufferBuilder>,
}

/// A column's values so far, one variant per [`SlotKind`].
enum Values {
    W1(Vec<u8>),
    W2(Vec<u16>),
    W4(Vec<u32>),
    W8(Vec<u64>),
    Bool(BooleanBufferBuilder),
    Decimal(Vec<i128>),
    WideDecimal(Vec<i128>),
    Bytes { offsets: Vec<i32>, bytes: Vec<u8> },
    Null,
}

impl ColumnSink {
    fn new(rows: &Rows<'_>, field: usize, data_type: &DataType, kind: SlotKind) -> Self {
        let n = rows.len();
        let values = match kind {
            SlotKind::Fixed(1) => Values::W1(Vec::with_capacity(n)),
            SlotKind::Fixed(2) => Values::W2(Vec::with_capacity(n)),
            SlotKind::Fixed(4) => Values::W4(Vec::with_capacity(n)),
            SlotKind::Fixed(_) => Values::W8(Vec::with_capacity(n)),
            SlotKind::Bool => Values::Bool(BooleanBufferBuilder::new(n)),
            SlotKind::CompactDecimal => Values::Decimal(Vec::with_capacity(n)),
            SlotKind::WideDecimal => Values::WideDecimal(Vec::with_capacity(n)),
            SlotKind::Bytes => {
                let mut offsets = Vec::with_capacity(n + 1);
                offsets.push(0);
                Values::Bytes {
                    offsets,
                    bytes: Vec::new(),
                }
            }
            SlotKind::Null => Values::Null,
        };
        ColumnSink {
            field,
            data_type: data_type.clone(),
            null_word: (field / 64) * 8,
            null_mask: 1u64 << (field % 64),
            slot: rows.bitset_len + field * 8,
            values,
            validity: None,
        }
    }

    /// Reads the field from the rows `block`: one tight loop per column and block, so the
    /// block's rows stay in cache across the columns and no value pays a dispatch.
    fn push_block(&mut self, rows: &Rows<'_>, block: Range<usize>) -> Result<()> {
        let has_nulls = rows.null_union[self.null_word / 8] & self.null_mask != 0;
        let (null_word, null_mask, slot) = (self.null_word, self.null_mask, self.slot);
        let row = |i: usize| rows.row(i);
        let data = rows.data;
        let starts = &rows.starts[block.clone()];
        // Every row holds its fixed part (Rows::new), so these reads stay inside their row.
        let is_null =
            |i: usize| has_nulls && word(data, rows.starts[i] + null_word) & null_mask != 0;
        if has_nulls {
            let validity = self
                .validity
                .get_or_insert_with(|| BooleanBufferBuilder::new(rows.len()));
            for i in block.clone() {
                validity.append(!is_null(i));
            }
        }
        // A null's slot is zeroed by Spark: copying it keeps the fixed-width loops branch-free.
        let slots = starts.iter().map(|&start| word(data, start + slot));
        match &mut self.values {
            Values::W1(v) => v.extend(slots.map(|w| w as u8)),
            Values::W2(v) => v.extend(slots.map(|w| w as u16)),
            Values::W4(v) => v.extend(slots.map(|w| w as u32)),
            Values::W8(v) => v.extend(slots),
            Values::Bool(v) => {
                for i in block {
                    v.append(!is_null(i) && word(row(i), slot) & 0xff != 0);
                }
            }
            Values::Decimal(v) => v.extend(block.map(|i| {
                if is_null(i) {
                    0
                } else {
                    word(row(i), slot) as i64 as i128
                }
            })),
            Values::WideDecimal(v) => {
                for i in block {
                    v.push(if is_null(i) {
                        0
                    } else {
                        let bytes = rows.var_bytes(i, self.field, row(i), word(row(i), slot))?;
                        big_endian_i128(bytes, i, self.field)?
                    });
                }
            }
            Values::Bytes { offsets, bytes } => {
                let first_block = block.start == 0;
                let block_rows = block.len();
                for i in block {
                    if !is_null(i) {
                        let r = row(i);
                        let (offset, len) = rows.var_range(i, self.field, r, word(r, slot))?;
                        append_padded(bytes, r, offset, len);
                    }
                    offsets.push(i32::try_from(bytes.len()).map_err(|_| {
                        Error::InvalidArgument(format!(
                            "field {}: over 2 GiB of bytes in one batch (Arrow's 32-bit offsets)",
                            self.field
                        ))
                    })?);
                }
                if first_block && block_rows < rows.len() {
                    // Size the rest from the first block: growing by doubling re-copied the
                    // bytes (realloc) about as often as it appended them.
                    let expected = bytes.len() / block_rows * (rows.len() - block_rows);
                    bytes.reserve(expected + expected / 8);
                }
            }
            Values::Null => {}
        }
        Ok(())
    }

    fn finish(self, n: usize) -> Result<ArrayRef> {
        let invalid = |source| Error::InvalidData {
            what: format!("UnsafeRow column {}", self.field),
            source,
        };
        let nulls = |validity: Option<BooleanBufferBuilder>| {
            validity.map(|mut v| NullBuffer::new(v.finish()))
        };
        let buffer = match self.values {
            Values::Bytes { offsets, bytes } => {
                // The offsets are monotonic by construction. Strings are checked as UTF-8 once
                // over the whole buffer plus a char boundary per offset, not value by value as a
                // full ArrayData validation does; Spark strings that are not UTF-8 stay binary.
                let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
                let values = Buffer::from_vec(bytes);
                let nulls = nulls(self.validity);
                if self.data_type == DataType::Utf8 {
                    // Buffer clones share the bytes; a column that is not UTF-8 is rare.
                    let strings =
                        StringArray::try_new(offsets.clone(), values.clone(), nulls.clone());
                    if let Ok(strings) = strings {
                        return Ok(Arc::new(strings));
                    }
                }
                return Ok(Arc::new(
                    BinaryArray::try_new(offsets, values, nulls).map_err(invalid)?,
                ));
            }
            // Spark's NullType maps to Arrow's Null array, which has no buffers at all.
            Values::Null => {
                let data = ArrayDataBuilder::new(self.data_type).len(n).build();
                return Ok(make_array(data.map_err(invalid)?));
            }
            Values::W1(v) => Buffer::from_vec(v),
            Values::W2(v) => Buffer::from_vec(v),
            Values::W4(v) => Buffer::from_vec(v),
            Values::W8(v) => Buffer::from_vec(v),
            Values::Bool(mut v) => v.finish().into_inner(),
            Values::Decimal(v) | Values::WideDecimal(v) => Buffer::from_vec(v),
        };
        let builder = ArrayDataBuilder::new(self.data_type)
            .len(n)
            .add_buffer(buffer)
            .nulls(nulls(self.validity));
        Ok(make_array(builder.build().map_err(invalid)?))
    }
}

/// A wide decimal's unscaled value: Java's `BigInteger.toByteArray()`, 1 to 16 bytes.
fn big_endian_i128(bytes: &[u8], row: usize, field: usize) -> Result<i128> {
    if bytes.is_empty() || bytes.len() > 16 {
        return Err(Error::InvalidArgument(format!(
            "row {row}, field {field}: a decimal of {} bytes (1 to 16 expected)",
            bytes.len()
        )));
    }
    let fill = if bytes[0] & 0x80 != 0 { 0xff } else { 0 };
    let mut be = [fill; 16];
    be[16 - bytes.len()..].copy_from_slice(bytes);
    Ok(i128::from_be_bytes(be))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Decimal128Type, Int32Type, Int64Type};
    use arrow_array::Array;
    use arrow_schema::{Field, Schema};
    use std::sync::Arc;

    /// Lays out rows as Spark's UnsafeRowWriter does, for `schema`'s types.
    enum V {
        Null,
        Long(i64),
        Int(i32),
        Bool(bool),
        Bytes(Vec<u8>),
        Wide(i128),
    }

    fn unsafe_row(values: &[V]) -> Vec<u8> {
        let n = values.len();
        let bitset = n.div_ceil(64) * 8;
        let mut row = vec![0u8; bitset + 8 * n];
        for (i, v) in values.iter().enumerate() {
            let slot = bitset + 8 * i;
            match v {
                V::Null => row[(i / 64) * 8 + (i % 64) / 8] |= 1 << (i % 8),
                V::Long(x) => row[slot..slot + 8].copy_from_slice(&x.to_le_bytes()),
                V::Int(x) => row[slot..slot + 4].copy_from_slice(&x.to_le_bytes()),
                V::Bool(b) => row[slot] = u8::from(*b),
                V::Bytes(b) => {
                    let offset = row.len() as u64;
                    row.extend_from_slice(b);
                    row.resize(row.len().div_ceil(8) * 8, 0);
                    let word = (offset << 32) | b.len() as u64;
                    row[slot..slot + 8].copy_from_slice(&word.to_le_bytes());
                }
                V::Wide(x) => {
                    let be = x.to_be_bytes();
                    // minimal two's complement, as BigInteger.toByteArray
                    let mut skip = 0;
                    while skip < 15
                        && ((be[skip] == 0 && be[skip + 1] & 0x80 == 0)
                            || (be[skip] == 0xff && be[skip + 1] & 0x80 != 0))
                    {
                        skip += 1;
                    }
                    let offset = row.len() as u64;
                    row.extend_from_slice(&be[skip..]);
                    row.resize(offset as usize + 16, 0);
                    let word = (offset << 32) | (16 - skip) as u64;
                    row[slot..slot + 8].copy_from_slice(&word.to_le_bytes());
                }
            }
        }
        row
    }

    fn pack(rows: &[Vec<u8>]) -> (Vec<u8>, Vec<i64>) {
        let mut data = Vec::new();
        let mut starts = vec![0i64];
        for r in rows {
            data.extend_from_slice(r);
            starts.push(data.len() as i64);
        }
        (data, starts)
    }

    fn schema() -> SchemaRef {
        Arc::new(Schema::new(vec![
            Field::new("l", DataType::Int64, true),
            Field::new("i", DataType::Int32, true),
            Field::new("b", DataType::Boolean, true),
            Field::new("s", DataType::Utf8, true),
            Field::new("w", DataType::Decimal128(38, 2), true),
            Field::new("c", DataType::Decimal128(10, 2), true),
        ]))
    }

    /// Spark strings need not be UTF-8 (`CAST(binary AS STRING)`): such a column is written as
    /// binary with its exact bytes, no bounds, and its frame's schema says so.
    #[test]
    fn strings_that_are_not_utf8_are_kept_as_binary() {
        let rows: Vec<Vec<u8>> = [&b"ok"[..], &[0xFF, b'A'], &"é".as_bytes()[..1], b"zz"]
            .iter()
            .map(|b| unsafe_row(&[V::Long(1), V::Null, V::Bool(true), V::Bytes(b.to_vec())]))
            .collect();
        let schema: SchemaRef = Arc::new(Schema::new(schema().fields()[..4].to_vec()));
        let (data, starts) = pack(&rows);
        let batch = to_record_batch(&schema, &data, &starts).expect("valid rows");
        assert_eq!(batch.schema().field(3).data_type(), &DataType::Binary);
        assert_eq!(batch.schema().field(3).name(), "s");
        assert_eq!(batch.schema().field(0), schema.field(0));
        let s = batch.column(3).as_binary::<i32>();
        assert_eq!(s.value(1), &[0xFF, b'A']);
        assert_eq!(s.value(2), &"é".as_bytes()[..1]);

        let interned = crate::schema::InternedSchema {
            schema: schema.clone(),
            encoded: crate::schema::encode_schema(&schema).expect("encodes"),
        };
        let frame = crate::write_interned(&batch, &interned, &crate::WriteOptions::default())
            .expect("writes");
        let parsed = crate::Frame::parse(&frame).expect("parses");
        let stats = parsed.stats.as_ref().expect("stats");
        assert!(stats[3].lower.is_none() && stats[3].upper.is_none());
        assert_eq!(stats[3].row_count, 4);
        let back = crate::decode(&frame, None).expect("decodes");
        assert_eq!(back.schema().field(3).data_type(), &DataType::Binary);
        assert_eq!(back.column(3).as_ref(), batch.column(3).as_ref());

        // The same rows, all UTF-8: a string column, under the interned schema.
        let valid: Vec<Vec<u8>> = ["ok", "é"]
            .iter()
            .map(|t| {
                unsafe_row(&[
                    V::Long(1),
                    V::Null,
                    V::Bool(true),
                    V::Bytes(t.as_bytes().to_vec()),
                ])
            })
            .collect();
        let (data, starts) = pack(&valid);
        let batch = to_record_batch(&schema, &data, &starts).expect("valid rows");
        assert!(Arc::ptr_eq(&batch.schema(), &schema));
        assert_eq!(batch.column(3).as_string::<i32>().value(1), "é");
    }

    #[test]
    fn transposes_every_kind_with_nulls() {
        let rows = vec![
            unsafe_row(&[
                V::Long(-5),
                V::Int(7),
                V::Bool(true),
                V::Bytes("ünï ✓".as_bytes().to_vec()),
                V::Wide(-12345678901234567890123456789),
                V::Long(-250),
            ]),
            unsafe_row(&[V::Null, V::Null, V::Null, V::Null, V::Null, V::Null]),
            unsafe_row(&[
                V::Long(i64::MAX),
                V::Int(i32::MIN),
                V::Bool(false),
                V::Bytes(Vec::new()),
                V::Wide(i128::from(u64::MAX) * 1000),
                V::Long(99),
            ]),
        ];
        let (data, starts) = pack(&rows);
        let batch = to_record_batch(&schema(), &data, &starts).expect("valid rows");
        assert_eq!(batch.num_rows(), 3);
        let l = batch.column(0).as_primitive::<Int64Type>();
        assert_eq!((l.value(0), l.is_null(1), l.value(2)), (-5, true, i64::MAX));
        let i = batch.column(1).as_primitive::<Int32Type>();
        assert_eq!((i.value(0), i.is_null(1), i.value(2)), (7, true, i32::MIN));
        let b = batch.column(2).as_boolean();
        assert_eq!((b.value(0), b.is_null(1), b.value(2)), (true, true, false));
        let s = batch.column(3).as_string::<i32>();
        assert_eq!((s.value(0), s.is_null(1), s.value(2)), ("ünï ✓", true, ""));
        let w = batch.column(4).as_primitive::<Decimal128Type>();
        assert_eq!(w.value(0), -12345678901234567890123456789);
        assert!(w.is_null(1));
        assert_eq!(w.value(2), i128::from(u64::MAX) * 1000);
        let c = batch.column(5).as_primitive::<Decimal128Type>();
        assert_eq!((c.value(0), c.is_null(1), c.value(2)), (-250, true, 99));
    }

    /// A row of `schema()`; `None` is a null.
    type RowValues = (
        Option<i64>,
        Option<i32>,
        Option<bool>,
        Option<String>,
        Option<i128>,
        Option<i64>,
    );

    fn row_values() -> impl proptest::strategy::Strategy<Value = RowValues> {
        use proptest::prelude::*;
        (
            proptest::option::weighted(0.9, any::<i64>()),
            proptest::option::weighted(0.9, any::<i32>()),
            proptest::option::weighted(0.9, any::<bool>()),
            // Around the 8- and 16-byte word copies, and multibyte characters.
            proptest::option::weighted(0.9, "[a-zé✓]{0,20}"),
            proptest::option::weighted(0.9, -(10i128.pow(37))..10i128.pow(37)),
            proptest::option::weighted(0.9, -999_999_999i64..999_999_999),
        )
    }

    fn encode(r: &RowValues) -> Vec<u8> {
        let or_null = |v: Option<V>| v.unwrap_or(V::Null);
        unsafe_row(&[
            or_null(r.0.map(V::Long)),
            or_null(r.1.map(V::Int)),
            or_null(r.2.map(V::Bool)),
            or_null(r.3.clone().map(|s| V::Bytes(s.into_bytes()))),
            or_null(r.4.map(V::Wide)),
            or_null(r.5.map(V::Long)),
        ])
    }

    proptest::proptest! {
        /// Batches of up to 3 blocks of rows (nulls starting anywhere) transpose to the
        /// arrays built value by value; with `unpadded`, each row's last string is not padded
        /// to a whole word, so the word-wise string copy must fall back inside the row.
        #[test]
        fn transposes_like_value_by_value(
            values in proptest::collection::vec(row_values(), 0..300),
            unpadded in proptest::bool::ANY,
        ) {
            let rows: Vec<Vec<u8>> = values
                .iter()
                .map(|r| {
                    let mut row = encode(r);
                    if unpadded {
                        if let Some(s) = &r.3 {
                            if !s.is_empty() && r.4.is_none() {
                                row.truncate(row.len() - (8 - s.len() % 8) % 8);
                            }
                        }
                    }
                    row
                })
                .collect();
            let (data, starts) = pack(&rows);
            let batch = to_record_batch(&schema(), &data, &starts).expect("valid rows");
            let expected: Vec<ArrayRef> = vec![
                Arc::new(arrow_array::Int64Array::from_iter(values.iter().map(|r| r.0))),
                Arc::new(arrow_array::Int32Array::from_iter(values.iter().map(|r| r.1))),
                Arc::new(arrow_array::BooleanArray::from_iter(values.iter().map(|r| r.2))),
                Arc::new(StringArray::from_iter(values.iter().map(|r| r.3.clone()))),
                Arc::new(
                    arrow_array::Decimal128Array::from_iter(values.iter().map(|r| r.4))
                        .with_precision_and_scale(38, 2)
                        .expect("decimal type"),
                ),
                Arc::new(
                    arrow_array::Decimal128Array::from_iter(
                        values.iter().map(|r| r.5.map(i128::from)),
                    )
                    .with_precision_and_scale(10, 2)
                    .expect("decimal type"),
                ),
            ];
            for (i, e) in expected.iter().enumerate() {
                proptest::prop_assert_eq!(batch.column(i).as_ref(), e.as_ref(), "column {}", i);
            }
        }
    }

    #[test]
    fn null_type_and_intervals() {
        let s: SchemaRef = Arc::new(Schema::new(vec![
            Field::new("n", DataType::Null, true),
            Field::new("ym", DataType::Interval(IntervalUnit::YearMonth), true),
            Field::new("dt", DataType::Duration(TimeUnit::Microsecond), true),
        ]));
        let rows = vec![
            unsafe_row(&[V::Null, V::Int(-14), V::Long(86_400_000_000)]),
            unsafe_row(&[V::Null, V::Null, V::Null]),
        ];
        let (data, starts) = pack(&rows);
        let batch = to_record_batch(&s, &data, &starts).expect("valid rows");
        assert_eq!(batch.column(0).logical_null_count(), 2);
        let ym = batch
            .column(1)
            .as_primitive::<arrow_array::types::IntervalYearMonthType>();
        assert_eq!((ym.value(0), ym.is_null(1)), (-14, true));
        let dt = batch
            .column(2)
            .as_primitive::<arrow_array::types::DurationMicrosecondType>();
        assert_eq!((dt.value(0), dt.is_null(1)), (86_400_000_000, true));
    }

    #[test]
    fn zero_rows_and_zero_fields() {
        let batch = to_record_batch(&schema(), &[], &[0]).expect("no rows");
        assert_eq!(batch.num_rows(), 0);
        let empty: SchemaRef = Arc::new(Schema::empty());
        let (data, starts) = pack(&[Vec::new(), Vec::new()]);
        let batch = to_record_batch(&empty, &data, &starts).expect("rows without fields");
        assert_eq!((batch.num_rows(), batch.num_columns()), (2, 0));
    }

    #[test]
    fn rejects_malformed_rows() {
        let good = unsafe_row(&[
            V::Long(1),
            V::Int(2),
            V::Bool(true),
            V::Bytes(b"abc".to_vec()),
            V::Wide(5),
            V::Long(1),
        ]);
        let s = schema();
        let fail = |data: &[u8], starts: &[i64]| {
            let e = to_record_batch(&s, data, starts).expect_err("malformed");
            e.kind()
        };
        use crate::error::ErrorKind::InvalidArgument;
        // too short for the fixed part
        assert_eq!(fail(&good[..40], &[0, 40]), InvalidArgument);
        // starts out of range, decreasing, negative, empty
        assert_eq!(fail(&good, &[0, good.len() as i64 + 1]), InvalidArgument);
        assert_eq!(fail(&good, &[8, 0]), InvalidArgument);
        assert_eq!(fail(&good, &[-1, 8]), InvalidArgument);
        assert_eq!(fail(&good, &[]), InvalidArgument);
        // a string slot pointing past the row, or into the fixed region
        let mut bad = good.clone();
        let slot = 8 + 3 * 8;
        bad[slot + 4..slot + 8].copy_from_slice(&10_000u32.to_le_bytes());
        assert_eq!(fail(&bad, &[0, bad.len() as i64]), InvalidArgument);
        let mut bad = good.clone();
        bad[slot..slot + 4].copy_from_slice(&3u32.to_le_bytes());
        bad[slot + 4..slot + 8].copy_from_slice(&0u32.to_le_bytes());
        assert_eq!(fail(&bad, &[0, bad.len() as i64]), InvalidArgument);
        // a wide decimal of 17 bytes
        let mut bad = good.clone();
        let slot = 8 + 4 * 8;
        let word = u64::from_le_bytes(bad[slot..slot + 8].try_into().expect("8 bytes"));
        let widened = (word & !0xffff_ffff) | 17;
        bad.resize(bad.len() + 16, 0);
        bad[slot..slot + 8].copy_from_slice(&widened.to_le_bytes());
        assert_eq!(fail(&bad, &[0, bad.len() as i64]), InvalidArgument);
    }

    #[test]
    fn refuses_types_without_a_reader() {
        let s: SchemaRef = Arc::new(Schema::new(vec![Field::new(
            "a",
            DataType::List(Arc::new(Field::new("item", DataType::Int32, true))),
            true,
        )]));
        assert!(!supports(&s));
        assert_eq!(
            to_record_batch(&s, &[], &[0]).expect_err("list").kind(),
            crate::error::ErrorKind::UnsupportedType
        );
    }
}
