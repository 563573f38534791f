//! Test columns of every type the format carries (nested ones included), filled randomly or
//! adversarially, and the round trip every encoding unit must pass on each of them.

use arrow_buffer::{bit_util, Buffer, MutableBuffer};
use arrow_data::{ArrayData, ArrayDataBuilder};
use arrow_schema::{DataType, Field, Fields, IntervalUnit, TimeUnit};
use std::sync::Arc;

use super::{ColumnEncoding, StoredColumn};
use crate::body::{BodyLayout, BodyParts, PartsReader};
use crate::cursor::pad8;
use crate::layout::{self, BufferSpec, Layout};

/// How a test column's buffers are filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fill {
    /// Random bytes (any bit pattern: NaN payloads, subnormals) and about a quarter nulls.
    Random,
    /// Slowly increasing values that share their high bytes, no nulls: what encodings exploit.
    Correlated,
    /// Edge patterns: zero, all ones, the sign bit alone (-0.0, MIN), MAX, NaNs with payloads,
    /// infinities; some nulls.
    Special,
    /// Every slot null, with garbage under the nulls that must come back untouched.
    AllNull,
}

/// Every fill.
pub(crate) const FILLS: [Fill; 4] = [Fill::Random, Fill::Correlated, Fill::Special, Fill::AllNull];

/// A deterministic xorshift64* generator.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// Every type the format carries that a column can have, nested ones included.
pub(crate) fn every_type() -> Vec<DataType> {
    let item = |t: DataType| Arc::new(Field::new("item", t, true));
    let entries = Fields::from(vec![
        Field::new("key", DataType::Utf8, false),
        Field::new("value", DataType::Int64, true),
    ]);
    vec![
        DataType::Null,
        DataType::Boolean,
        DataType::Int8,
        DataType::Int16,
        DataType::Int32,
        DataType::Int64,
        DataType::UInt8,
        DataType::UInt16,
        DataType::UInt32,
        DataType::UInt64,
        DataType::Float16,
        DataType::Float32,
        DataType::Float64,
        DataType::Date32,
        DataType::Date64,
        DataType::Time32(TimeUnit::Second),
        DataType::Time64(TimeUnit::Nanosecond),
        DataType::Timestamp(TimeUnit::Microsecond, None),
        DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
        DataType::Duration(TimeUnit::Millisecond),
        DataType::Interval(IntervalUnit::YearMonth),
        DataType::Interval(IntervalUnit::DayTime),
        DataType::Interval(IntervalUnit::MonthDayNano),
        DataType::Decimal128(38, 2),
        DataType::Decimal256(76, 10),
        DataType::FixedSizeBinary(1),
        DataType::FixedSizeBinary(3),
        DataType::FixedSizeBinary(16),
        DataType::FixedSizeBinary(33),
        DataType::Utf8,
        DataType::LargeUtf8,
        DataType::Binary,
        DataType::LargeBinary,
        DataType::List(item(DataType::Int64)),
        DataType::LargeList(item(DataType::Float32)),
        DataType::FixedSizeList(item(DataType::Int16), 3),
        DataType::Struct(Fields::from(vec![
            Field::new("f", DataType::Float64, true),
            Field::new("s", DataType::Utf8, true),
            Field::new("l", DataType::List(item(DataType::Int32)), true),
        ])),
        DataType::Map(
            Arc::new(Field::new("entries", DataType::Struct(entries), false)),
            false,
        ),
        DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
        DataType::Dictionary(Box::new(DataType::UInt16), Box::new(DataType::Float64)),
    ]
}

/// One column of `data_type`, `len` rows, filled per `fill`.
pub(crate) fn column(data_type: &DataType, len: usize, fill: Fill, seed: u64) -> ArrayData {
    build(data_type, len, fill, true, &mut Rng::new(seed))
}

/// A column of every type in every fill, `len` rows each.
pub(crate) fn every_column(seed: u64, len: usize) -> Vec<ArrayData> {
    let mut rng = Rng::new(seed);
    every_type()
        .iter()
        .flat_map(|t| FILLS.map(|fill| (t.clone(), fill)))
        .map(|(t, fill)| build(&t, len, fill, true, &mut rng))
        .collect()
}

fn build(data_type: &DataType, len: usize, fill: Fill, nullable: bool, rng: &mut Rng) -> ArrayData {
    let layout = Layout::of(data_type).expect("a type the format carries");
    let mut builder = ArrayDataBuilder::new(data_type.clone()).len(len);
    if layout != Layout::Null && nullable {
        let valid = |rng: &mut Rng| match fill {
            Fill::Random | Fill::Special => rng.below(4) != 0,
            Fill::Correlated => true,
            Fill::AllNull => false,
        };
        let mut validity = MutableBuffer::from_len_zeroed(bit_util::ceil(len, 8));
        for i in 0..len {
            if valid(rng) {
                bit_util::set_bit(validity.as_slice_mut(), i);
            }
        }
        builder = builder.null_bit_buffer(Some(validity.into()));
    }
    // Children are never all null (only a column's own slots are), so nested values vary.
    let child_fill = if fill == Fill::AllNull {
        Fill::Random
    } else {
        fill
    };
    let child = |field: &Field, len: usize, rng: &mut Rng| {
        build(field.data_type(), len, child_fill, field.is_nullable(), rng)
    };
    builder = match (layout, data_type) {
        (Layout::Null, _) => builder,
        (Layout::Boolean, _) => builder.add_buffer(Buffer::from(rng.bytes(bit_util::ceil(len, 8)))),
        (Layout::Fixed(width), _) => builder.add_buffer(fixed_values(len, width, fill, rng)),
        (Layout::Dictionary { key_width }, DataType::Dictionary(_, value_type)) => {
            let values_len = 1 + rng.below(8);
            let values = build(value_type, values_len, child_fill, true, rng);
            let mut keys = Vec::with_capacity(len * key_width);
            for _ in 0..len {
                let key = rng.below(values_len) as u64;
                keys.extend_from_slice(&key.to_le_bytes()[..key_width]);
            }
            builder
                .add_buffer(Buffer::from(keys))
                .add_child_data(values)
        }
        (Layout::VarLen { offset_width }, _) => {
            let lengths = lengths(len, fill, 12, rng);
            let total = lengths.iter().sum();
            let bytes = match data_type {
                DataType::Utf8 | DataType::LargeUtf8 => {
                    (0..total).map(|_| b'a' + rng.below(26) as u8).collect()
                }
                _ => rng.bytes(total),
            };
            builder
                .add_buffer(offsets(&lengths, offset_width))
                .add_buffer(Buffer::from(bytes))
        }
        (
            Layout::List { offset_width },
            DataType::List(f) | DataType::LargeList(f) | DataType::Map(f, _),
        ) => {
            let lengths = lengths(len, fill, 4, rng);
            let total = lengths.iter().sum();
            builder
                .add_buffer(offsets(&lengths, offset_width))
                .add_child_data(child(f, total, rng))
        }
        (Layout::FixedSizeList, DataType::FixedSizeList(f, size)) => {
            builder.add_child_data(child(f, len * *size as usize, rng))
        }
        (Layout::Struct, DataType::Struct(fields)) => {
            builder.child_data(fields.iter().map(|f| child(f, len, rng)).collect())
        }
        (layout, t) => panic!("no test column for {t} ({layout:?})"),
    };
    builder
        .align_buffers(true)
        .build()
        .expect("a valid test column")
}

/// Element lengths of a variable-length column: random below `max`, or a constant for
/// correlated columns, with empty ones among the special.
fn lengths(len: usize, fill: Fill, max: usize, rng: &mut Rng) -> Vec<usize> {
    (0..len)
        .map(|i| match fill {
            Fill::Correlated => max / 2,
            Fill::Special if i % 3 == 0 => 0,
            _ => rng.below(max),
        })
        .collect()
}

fn offsets(lengths: &[usize], width: usize) -> Buffer {
    let mut out = Vec::with_capacity((lengths.len() + 1) * width);
    let mut at = 0u64;
    out.extend_from_slice(&at.to_le_bytes()[..width]);
    for l in lengths {
        at += *l as u64;
        out.extend_from_slice(&at.to_le_bytes()[..width]);
    }
    Buffer::from(out)
}

fn fixed_values(len: usize, width: usize, fill: Fill, rng: &mut Rng) -> Buffer {
    let mut out = Vec::with_capacity(len * width);
    let base = rng.next() >> 16;
    for i in 0..len {
        let start = out.len();
        match fill {
            Fill::Random | Fill::AllNull => out.extend(rng.bytes(width)),
            Fill::Correlated => {
                let value = (base + 3 * i as u64).to_le_bytes();
                out.extend((0..width).map(|j| value.get(j).copied().unwrap_or(0)));
            }
            Fill::Special => out.extend(special(width, i)),
        }
        debug_assert_eq!(out.len() - start, width);
    }
    Buffer::from(out)
}

/// The `i`-th edge pattern of `width` bytes, little-endian.
fn special(width: usize, i: usize) -> Vec<u8> {
    let from_u64 = |v: u64| v.to_le_bytes()[..width].to_vec();
    let float_patterns: &[u64] = match width {
        // NaN with a payload, negative signalling NaN, +inf.
        8 => &[
            0x7FF8_0000_0000_0001,
            0xFFF0_0000_0000_0001,
            0x7FF0_0000_0000_0000,
        ],
        4 => &[0x7FC0_0001, 0xFF80_0001, 0x7F80_0000],
        2 => &[0x7E01, 0xFC01, 0x7C00],
        _ => &[],
    };
    let generic = 4;
    match i % (generic + float_patterns.len()) {
        0 => vec![0; width],
        1 => vec![0xFF; width],
        2 => {
            // The sign bit alone: -0.0, or a signed type's MIN.
            let mut v = vec![0; width];
            v[width - 1] = 0x80;
            v
        }
        3 => {
            let mut v = vec![0xFF; width];
            v[width - 1] = 0x7F;
            v
        }
        k => from_u64(float_patterns[k - generic]),
    }
}

/// The plain body of `parts` (FORMAT.md §3), written naively from the spec.
pub(crate) fn reference_plain_body(parts: &BodyParts<'_>) -> Vec<u8> {
    reference_body(parts, |_, src| src.to_vec())
}

/// The body of `parts` with each buffer's contents replaced by `contents(spec, buffer)`.
pub(crate) fn reference_body(
    parts: &BodyParts<'_>,
    contents: impl Fn(&BufferSpec<'_>, &[u8]) -> Vec<u8>,
) -> Vec<u8> {
    let mut out = Vec::new();
    let u32_le = |v: usize| (v as u32).to_le_bytes();
    out.extend(u32_le(parts.nodes().len()));
    out.extend(u32_le(parts.buffers().len()));
    for (len, nulls) in parts.nodes() {
        out.extend(len.to_le_bytes());
        out.extend(nulls.to_le_bytes());
    }
    for b in parts.buffers() {
        out.extend(u32_le(b.len()));
    }
    out.resize(pad8(out.len()), 0);
    for (b, spec) in parts.buffers().iter().zip(parts.specs()) {
        out.extend(contents(spec, b));
        out.resize(pad8(out.len()), 0);
    }
    out
}

/// `unit` encodes `data`'s body after other bytes of a payload (as in a V2 body) and decodes
/// it back to the plain body bit for bit, which the reader turns into `data` again.
pub(crate) fn round_trip(unit: &dyn ColumnEncoding, data: &ArrayData) {
    let what = format!("{:?} on {}", unit.encoding(), data.data_type());
    let parts = BodyParts::collect(data).expect("collect");
    let plain = reference_plain_body(&parts);
    let prefix = 16;
    let mut payload = vec![0x5A; prefix];
    let encoded = unit.encode(&parts, &mut payload).expect("encode");
    assert!(encoded.fits_directory_entry(), "{what}");
    assert_eq!(encoded.stored_len, payload.len() - prefix, "{what}");
    assert_eq!(encoded.decoded_len, plain.len(), "{what}");

    let mut body = MutableBuffer::from_len_zeroed(payload.len());
    body.as_slice_mut().copy_from_slice(&payload);
    let body_layout = BodyLayout::parse(&body, prefix, &what).expect("parse");
    assert_eq!(body_layout.end, body.len(), "{what}");
    let specs = layout::buffer_specs(data.data_type()).expect("specs");
    let column = StoredColumn {
        body: body.as_slice_mut(),
        buffers: body_layout.buffers(),
        specs: &specs,
    };
    unit.decode(column, &mut Vec::new()).expect("decode");
    assert_eq!(
        &body[..prefix],
        &payload[..prefix],
        "{what}: bytes before the body"
    );
    assert_eq!(
        &body[prefix..],
        &plain[..],
        "{what}: decode(encode) is the plain body"
    );

    let mut reader = PartsReader::over(&body.into(), body_layout, what.clone());
    let back = reader.read_array(data.data_type()).expect("read");
    reader.finish().expect("every buffer read");
    assert_eq!(&back, data, "{what}");
}

/// [`round_trip`] on every type in every fill, at lengths around the 8-element blocks of the
/// transposes and empty.
pub(crate) fn round_trip_all(unit: &dyn ColumnEncoding) {
    for (seed, len) in [0, 1, 7, 8, 9, 63, 64, 65, 1000].into_iter().enumerate() {
        for data in every_column(seed as u64, len) {
            round_trip(unit, &data);
        }
    }
}
