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

use arrow_array::{make_array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_buffer::{Buffer, MutableBuffer};
use arrow_data::ArrayDataBuilder;
use arrow_schema::{DataType, IntervalUnit, SchemaRef, TimeUnit};

use crate::error::{Error, Result};

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
        Ok(Rows {
            data,
            starts: checked,
            bitset_len,
            fixed_len,
        })
    }

    fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// The little-endian word at byte `at` of row `i`'s fixed part (`at + 8 <= fixed_len`).
    #[inline]
    fn word(&self, i: usize, at: usize) -> u64 {
        let s = self.starts[i] + at;
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&self.data[s..s + 8]);
        u64::from_le_bytes(bytes)
    }

    /// The variable-length bytes a slot word points at, checked against row `i`.
    fn var_bytes(&self, i: usize, field: usize, word: u64) -> Result<&'a [u8]> {
        let (offset, size) = ((word >> 32) as usize, (word & 0xffff_ffff) as usize);
        let (row_start, row_end) = (self.starts[i], self.starts[i + 1]);
        let row_len = row_end - row_start;
        match offset.checked_add(size) {
            Some(end) if offset >= self.fixed_len && end <= row_len => {
                Ok(&self.data[row_start + offset..row_start + end])
            }
            _ => Err(Error::InvalidArgument(format!(
                "row {i}, field {field}: {size} bytes at offset {offset} are outside the \
                 row's variable region {}..{row_len}",
                self.fixed_len
            ))),
        }
    }
}

/// Where one field sits in every row.
#[derive(Clone, Copy)]
struct FieldAt {
    null_word: usize,
    null_mask: u64,
    slot: usize,
}

impl FieldAt {
    fn new(rows: &Rows<'_>, index: usize) -> Self {
        FieldAt {
            null_word: (index / 64) * 8,
            null_mask: 1u64 << (index % 64),
            slot: rows.bitset_len + index * 8,
        }
    }
}

/// A validity bitmap under construction (bit set: valid).
struct Validity {
    bits: Vec<u8>,
    nulls: usize,
}

impl Validity {
    fn new(n: usize) -> Self {
        Validity {
            bits: vec![0; n.div_ceil(8)],
            nulls: 0,
        }
    }

    /// Records row `i`; returns whether it is null.
    #[inline]
    fn record(&mut self, rows: &Rows<'_>, f: FieldAt, i: usize) -> bool {
        let null = rows.word(i, f.null_word) & f.null_mask != 0;
        self.bits[i / 8] |= u8::from(!null) << (i % 8);
        self.nulls += usize::from(null);
        null
    }
}

/// Transposes `UnsafeRow`s of `schema` into a record batch. Row `i` is
/// `data[starts[i]..starts[i + 1]]`, so `starts` holds one entry more than there are rows.
///
/// Errors: [`Error::UnsupportedType`] for a field type outside [`supports`];
/// [`Error::InvalidArgument`] for rows that do not fit the schema (too short, an offset outside
/// its row, a wide decimal over 16 bytes); strings are validated as UTF-8, as arrays from Arrow
/// Java are, and fail as [`Error::InvalidData`].
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
                    f.name(),
                    f.data_type()
                ))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let rows = Rows::new(data, starts, kinds.len())?;
    let columns = schema
        .fields()
        .iter()
        .zip(kinds)
        .enumerate()
        .map(|(i, (f, kind))| column(&rows, i, f.data_type(), kind))
        .collect::<Result<Vec<ArrayRef>>>()?;
    RecordBatch::try_new_with_options(
        schema.clone(),
        columns,
        &RecordBatchOptions::new().with_row_count(Some(rows.len())),
    )
    .map_err(|e| Error::SchemaMismatch(e.to_string()))
}

fn column(rows: &Rows<'_>, field: usize, data_type: &DataType, kind: SlotKind) -> Result<ArrayRef> {
    let n = rows.len();
    let f = FieldAt::new(rows, field);
    let mut validity = Validity::new(n);
    let mut builder = ArrayDataBuilder::new(data_type.clone()).len(n);
    match kind {
        SlotKind::Null => validity.nulls = n,
        SlotKind::Fixed(1) => builder = builder.add_buffer(fixed::<1>(rows, f, &mut validity)),
        SlotKind::Fixed(2) => builder = builder.add_buffer(fixed::<2>(rows, f, &mut validity)),
        SlotKind::Fixed(4) => builder = builder.add_buffer(fixed::<4>(rows, f, &mut validity)),
        SlotKind::Fixed(_) => builder = builder.add_buffer(fixed::<8>(rows, f, &mut validity)),
        SlotKind::Bool => {
            let mut values = vec![0u8; n.div_ceil(8)];
            for i in 0..n {
                let null = validity.record(rows, f, i);
                let set = !null && rows.word(i, f.slot) & 0xff != 0;
                values[i / 8] |= u8::from(set) << (i % 8);
            }
            builder = builder.add_buffer(Buffer::from_vec(values));
        }
        SlotKind::CompactDecimal => {
            let mut values = vec![0i128; n];
            for (i, v) in values.iter_mut().enumerate() {
                let word = rows.word(i, f.slot);
                // A null's slot is zeroed by Spark, but its value must not depend on that.
                if !validity.record(rows, f, i) {
                    *v = word as i64 as i128;
                }
            }
            builder = builder.add_buffer(Buffer::from_vec(values));
        }
        SlotKind::WideDecimal => {
            let mut values = vec![0i128; n];
            for (i, v) in values.iter_mut().enumerate() {
                if !validity.record(rows, f, i) {
                    let bytes = rows.var_bytes(i, field, rows.word(i, f.slot))?;
                    *v = big_endian_i128(bytes, i, field)?;
                }
            }
            builder = builder.add_buffer(Buffer::from_vec(values));
        }
        SlotKind::Bytes => {
            let mut offsets = Vec::with_capacity(n + 1);
            let mut bytes = Vec::new();
            offsets.push(0i32);
            for i in 0..n {
                if !validity.record(rows, f, i) {
                    bytes.extend_from_slice(rows.var_bytes(i, field, rows.word(i, f.slot))?);
                }
                offsets.push(i32::try_from(bytes.len()).map_err(|_| {
                    Error::InvalidArgument(format!(
                        "field {field}: over 2 GiB of bytes in one batch (Arrow's 32-bit offsets)"
                    ))
                })?);
            }
            builder = builder
                .add_buffer(Buffer::from_vec(offsets))
                .add_buffer(Buffer::from_vec(bytes));
        }
    }
    if validity.nulls > 0 && !matches!(kind, SlotKind::Null) {
        builder = builder
            .null_bit_buffer(Some(Buffer::from_vec(validity.bits)))
            .null_count(validity.nulls);
    }
    let data = builder.build().map_err(|source| Error::InvalidData {
        what: format!("UnsafeRow column {field}"),
        source,
    })?;
    Ok(make_array(data))
}

/// The low `W` bytes of every row's slot, little-endian as Arrow stores them.
fn fixed<const W: usize>(rows: &Rows<'_>, f: FieldAt, validity: &mut Validity) -> Buffer {
    // MutableBuffer: aligned for any element width, as Arrow requires.
    let mut values = MutableBuffer::from_len_zeroed(rows.len() * W);
    for (i, out) in values.as_slice_mut().chunks_exact_mut(W).enumerate() {
        validity.record(rows, f, i);
        // A null's slot is zeroed by Spark; copying it keeps the loop branch-free.
        out.copy_from_slice(&rows.word(i, f.slot).to_le_bytes()[..W]);
    }
    values.into()
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
        // invalid UTF-8 in a string column
        let bad = unsafe_row(&[
            V::Long(1),
            V::Int(2),
            V::Bool(true),
            V::Bytes(vec![0xff, 0xfe]),
            V::Wide(5),
            V::Long(1),
        ]);
        assert_eq!(
            fail(&bad, &[0, bad.len() as i64]),
            crate::error::ErrorKind::CorruptFrame
        );
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
