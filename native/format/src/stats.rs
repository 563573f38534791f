//! Per-column partition statistics in Spark's pruning semantics (FORMAT.md §4).

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrowPrimitiveType, OffsetSizeTrait, PrimitiveArray};
use arrow_schema::DataType;

use crate::cursor::{to_u32, Cursor};
use crate::error::{Error, Result};

/// Default byte limit for string bounds.
pub const DEFAULT_STRING_BOUND_LIMIT: usize = 256;

const FLAG_UNSUPPORTED: u8 = 1;
const FLAG_HAS_NAN: u8 = 2;
const FLAG_HAS_LOWER: u8 = 4;
const FLAG_HAS_UPPER: u8 = 8;

/// One lower or upper bound, typed by the column's Arrow type.
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    /// Boolean columns.
    Bool(bool),
    /// Int8..Int64, Date32 (days), Timestamp (raw value in the column's unit).
    Int(i64),
    /// Float32 (widened) and Float64; NaN is the largest value.
    Float(f64),
    /// Utf8 and LargeUtf8.
    Utf8(String),
    /// Decimal128 unscaled value.
    Decimal128(i128),
}

/// The bound kind id stored in the stats section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum BoundKind {
    /// No bound present.
    None = 0,
    /// [`Bound::Bool`].
    Bool = 1,
    /// [`Bound::Int`].
    Int = 2,
    /// [`Bound::Float`].
    Float = 3,
    /// [`Bound::Utf8`].
    Utf8 = 4,
    /// [`Bound::Decimal128`].
    Decimal128 = 5,
}

impl BoundKind {
    /// The kind a column of `data_type` carries, or `None` if it has no bounds.
    pub fn for_type(data_type: &DataType) -> Option<BoundKind> {
        Some(match data_type {
            DataType::Boolean => BoundKind::Bool,
            DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::Date32 => BoundKind::Int,
            DataType::Timestamp(_, _) => BoundKind::Int,
            DataType::Float32 | DataType::Float64 => BoundKind::Float,
            DataType::Utf8 | DataType::LargeUtf8 => BoundKind::Utf8,
            DataType::Decimal128(_, _) => BoundKind::Decimal128,
            _ => return None,
        })
    }

    fn from_id(id: u8) -> Result<BoundKind> {
        Ok(match id {
            0 => BoundKind::None,
            1 => BoundKind::Bool,
            2 => BoundKind::Int,
            3 => BoundKind::Float,
            4 => BoundKind::Utf8,
            5 => BoundKind::Decimal128,
            other => return Err(Error::CorruptStats(format!("unknown bound kind {other}"))),
        })
    }
}

impl Bound {
    /// This bound's kind.
    pub fn kind(&self) -> BoundKind {
        match self {
            Bound::Bool(_) => BoundKind::Bool,
            Bound::Int(_) => BoundKind::Int,
            Bound::Float(_) => BoundKind::Float,
            Bound::Utf8(_) => BoundKind::Utf8,
            Bound::Decimal128(_) => BoundKind::Decimal128,
        }
    }
}

/// Statistics of one column of one batch.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnStats {
    /// Null values.
    pub null_count: u32,
    /// Rows, nulls included.
    pub row_count: u32,
    /// The column's Arrow buffer bytes (its uncompressed body length).
    pub size_in_bytes: u64,
    /// The type carries no bounds; never prune on it.
    pub unsupported: bool,
    /// Some value is NaN (then `upper` is NaN).
    pub has_nan: bool,
    /// Lower bound; `None` for all-null and unsupported columns.
    pub lower: Option<Bound>,
    /// Upper bound; `None` also when no finite string upper bound exists.
    pub upper: Option<Bound>,
}

impl ColumnStats {
    /// The kind stored for this column's bounds.
    pub fn bound_kind(&self) -> BoundKind {
        self.lower
            .as_ref()
            .or(self.upper.as_ref())
            .map_or(BoundKind::None, Bound::kind)
    }
}

/// Computes the stats of one column.
pub fn compute(array: &dyn Array, size_in_bytes: u64, string_limit: usize) -> Result<ColumnStats> {
    // Logical nulls: a Null-typed array has no validity buffer, yet every slot is null.
    let null_count = to_u32(array.logical_null_count(), "null count")?;
    let row_count = to_u32(array.len(), "row count")?;
    let mut stats = ColumnStats {
        null_count,
        row_count,
        size_in_bytes,
        unsupported: false,
        has_nan: false,
        lower: None,
        upper: None,
    };
    let (lower, upper) = match array.data_type() {
        DataType::Boolean => {
            let a = array.as_boolean();
            let valid = a.len() - a.null_count();
            let trues = match a.nulls() {
                Some(n) => (a.values() & n.inner()).count_set_bits(),
                None => a.values().count_set_bits(),
            };
            if valid == 0 {
                (None, None)
            } else {
                (
                    Some(Bound::Bool(trues == valid)),
                    Some(Bound::Bool(trues > 0)),
                )
            }
        }
        DataType::Int8 => int_bounds(array.as_primitive::<Int8Type>(), |v| v as i64),
        DataType::Int16 => int_bounds(array.as_primitive::<Int16Type>(), |v| v as i64),
        DataType::Int32 => int_bounds(array.as_primitive::<Int32Type>(), |v| v as i64),
        DataType::Int64 => int_bounds(array.as_primitive::<Int64Type>(), |v| v),
        DataType::Date32 => int_bounds(array.as_primitive::<Date32Type>(), |v| v as i64),
        DataType::Timestamp(unit, _) => match unit {
            arrow_schema::TimeUnit::Second => {
                int_bounds(array.as_primitive::<TimestampSecondType>(), |v| v)
            }
            arrow_schema::TimeUnit::Millisecond => {
                int_bounds(array.as_primitive::<TimestampMillisecondType>(), |v| v)
            }
            arrow_schema::TimeUnit::Microsecond => {
                int_bounds(array.as_primitive::<TimestampMicrosecondType>(), |v| v)
            }
            arrow_schema::TimeUnit::Nanosecond => {
                int_bounds(array.as_primitive::<TimestampNanosecondType>(), |v| v)
            }
        },
        DataType::Decimal128(_, _) => {
            let (lo, hi) = min_max(array.as_primitive::<Decimal128Type>()).unzip();
            (lo.map(Bound::Decimal128), hi.map(Bound::Decimal128))
        }
        DataType::Float32 => float_bounds(
            array.as_primitive::<Float32Type>(),
            &mut stats.has_nan,
            |v| v as f64,
        ),
        DataType::Float64 => float_bounds(
            array.as_primitive::<Float64Type>(),
            &mut stats.has_nan,
            |v| v,
        ),
        DataType::Utf8 => string_bounds(array.as_string::<i32>(), string_limit),
        DataType::LargeUtf8 => string_bounds(array.as_string::<i64>(), string_limit),
        _ => {
            stats.unsupported = true;
            (None, None)
        }
    };
    stats.lower = lower;
    stats.upper = upper;
    Ok(stats)
}

fn min_max<T>(a: &PrimitiveArray<T>) -> Option<(T::Native, T::Native)>
where
    T: ArrowPrimitiveType,
    T::Native: Ord,
{
    let values = a.values();
    match a.nulls() {
        None => Some((*values.iter().min()?, *values.iter().max()?)),
        Some(nulls) => {
            let mut valid = nulls.valid_indices().map(|i| values[i]);
            let first = valid.next()?;
            Some(valid.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v))))
        }
    }
}

fn int_bounds<T>(
    a: &PrimitiveArray<T>,
    widen: impl Fn(T::Native) -> i64,
) -> (Option<Bound>, Option<Bound>)
where
    T: ArrowPrimitiveType,
    T::Native: Ord,
{
    match min_max(a) {
        Some((lo, hi)) => (Some(Bound::Int(widen(lo))), Some(Bound::Int(widen(hi)))),
        None => (None, None),
    }
}

/// Float bounds in Spark's order: NaN above everything, -0.0 equal to 0.0.
fn float_bounds<T>(
    a: &PrimitiveArray<T>,
    has_nan: &mut bool,
    widen: impl Fn(T::Native) -> f64,
) -> (Option<Bound>, Option<Bound>)
where
    T: ArrowPrimitiveType,
{
    let values = a.values();
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    let mut any = false;
    let mut visit = |v: f64| {
        any = true;
        if v.is_nan() {
            *has_nan = true;
        } else {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    };
    match a.nulls() {
        None => values.iter().for_each(|&v| visit(widen(v))),
        Some(nulls) => nulls.valid_indices().for_each(|i| visit(widen(values[i]))),
    }
    if !any {
        return (None, None);
    }
    let zero_normalized = |v: f64| if v == 0.0 { 0.0 } else { v };
    if *has_nan {
        // All non-null values NaN: lo is still +inf.
        let lower = if lo == f64::INFINITY && hi == f64::NEG_INFINITY {
            f64::NAN
        } else {
            zero_normalized(lo)
        };
        (Some(Bound::Float(lower)), Some(Bound::Float(f64::NAN)))
    } else {
        (
            Some(Bound::Float(zero_normalized(lo))),
            Some(Bound::Float(zero_normalized(hi))),
        )
    }
}

fn string_bounds<O: OffsetSizeTrait>(
    a: &arrow_array::GenericStringArray<O>,
    limit: usize,
) -> (Option<Bound>, Option<Bound>) {
    let mut lo: Option<&str> = None;
    let mut hi: Option<&str> = None;
    for s in a.iter().flatten() {
        if lo.is_none_or(|l| s < l) {
            lo = Some(s);
        }
        if hi.is_none_or(|h| s > h) {
            hi = Some(s);
        }
    }
    (
        lo.map(|l| Bound::Utf8(truncate_at_char_boundary(l, limit).to_owned())),
        hi.and_then(|h| string_upper_bound(h, limit))
            .map(Bound::Utf8),
    )
}

/// The longest prefix of `s` that is at most `limit` bytes and ends on a character boundary.
pub fn truncate_at_char_boundary(s: &str, limit: usize) -> &str {
    if s.len() <= limit {
        return s;
    }
    let mut end = limit;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// A string ≥ `max` of at most `limit` bytes plus one character, or `None` if
/// no such bound exists (the prefix is all `U+10FFFF`).
pub fn string_upper_bound(max: &str, limit: usize) -> Option<String> {
    if max.len() <= limit {
        return Some(max.to_owned());
    }
    let mut chars: Vec<char> = truncate_at_char_boundary(max, limit).chars().collect();
    while let Some(c) = chars.pop() {
        let next = match c {
            '\u{D7FF}' => Some('\u{E000}'),
            char::MAX => None,
            c => char::from_u32(c as u32 + 1),
        };
        if let Some(next) = next {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

/// Appends the stats section (FORMAT.md §4).
pub fn encode(stats: &[ColumnStats], out: &mut Vec<u8>) -> Result<()> {
    out.extend_from_slice(&to_u32(stats.len(), "stats column count")?.to_le_bytes());
    for s in stats {
        out.extend_from_slice(&s.null_count.to_le_bytes());
        out.extend_from_slice(&s.row_count.to_le_bytes());
        out.extend_from_slice(&s.size_in_bytes.to_le_bytes());
        let mut flags = 0;
        if s.unsupported {
            flags |= FLAG_UNSUPPORTED;
        }
        if s.has_nan {
            flags |= FLAG_HAS_NAN;
        }
        if s.lower.is_some() {
            flags |= FLAG_HAS_LOWER;
        }
        if s.upper.is_some() {
            flags |= FLAG_HAS_UPPER;
        }
        out.push(flags);
        out.push(s.bound_kind() as u8);
        for bound in [&s.lower, &s.upper].into_iter().flatten() {
            match bound {
                Bound::Bool(b) => out.push(*b as u8),
                Bound::Int(v) => out.extend_from_slice(&v.to_le_bytes()),
                Bound::Float(v) => out.extend_from_slice(&v.to_le_bytes()),
                Bound::Utf8(s) => {
                    out.extend_from_slice(&to_u32(s.len(), "string bound")?.to_le_bytes());
                    out.extend_from_slice(s.as_bytes());
                }
                Bound::Decimal128(v) => out.extend_from_slice(&v.to_le_bytes()),
            }
        }
    }
    Ok(())
}

fn read_bound(cur: &mut Cursor<'_>, kind: BoundKind) -> Result<Bound> {
    Ok(match kind {
        BoundKind::Bool => match cur.u8("bool bound")? {
            0 => Bound::Bool(false),
            1 => Bound::Bool(true),
            other => return Err(Error::CorruptStats(format!("bool bound {other}"))),
        },
        BoundKind::Int => Bound::Int(cur.i64("int bound")?),
        BoundKind::Float => Bound::Float(cur.f64("float bound")?),
        BoundKind::Utf8 => {
            let len = cur.u32("string bound length")? as usize;
            let bytes = cur.take(len, "string bound")?;
            Bound::Utf8(
                std::str::from_utf8(bytes)
                    .map_err(|e| Error::CorruptStats(format!("string bound is not UTF-8: {e}")))?
                    .to_owned(),
            )
        }
        BoundKind::Decimal128 => Bound::Decimal128(cur.i128("decimal bound")?),
        BoundKind::None => {
            return Err(Error::CorruptStats(
                "bound present with bound kind 0".into(),
            ))
        }
    })
}

/// Parses a stats section of exactly `bytes.len()` bytes for `column_count`
/// columns of `row_count` rows.
pub fn decode(bytes: &[u8], column_count: usize, row_count: u32) -> Result<Vec<ColumnStats>> {
    let mut cur = Cursor::new(bytes);
    let n = cur.u32("stats column count")? as usize;
    if n != column_count {
        return Err(Error::CorruptStats(format!(
            "stats for {n} columns, frame has {column_count}"
        )));
    }
    // Each entry takes at least 18 bytes, which bounds the allocation by the input.
    let mut out = Vec::with_capacity(n.min(bytes.len() / 18));
    for i in 0..n {
        let null_count = cur.u32("stats null count")?;
        let rows = cur.u32("stats row count")?;
        let size_in_bytes = cur.u64("stats size")?;
        let flags = cur.u8("stats flags")?;
        let kind = BoundKind::from_id(cur.u8("stats bound kind")?)?;
        let bad = |why: String| Error::CorruptStats(format!("column {i}: {why}"));
        if flags & 0xF0 != 0 {
            return Err(bad(format!("reserved flag bits 0x{flags:02x}")));
        }
        if rows != row_count || null_count > rows {
            return Err(bad(format!(
                "{null_count} nulls in {rows} rows, frame has {row_count} rows"
            )));
        }
        let (has_lower, has_upper) = (flags & FLAG_HAS_LOWER != 0, flags & FLAG_HAS_UPPER != 0);
        if (kind == BoundKind::None) == (has_lower || has_upper) {
            return Err(bad("bound kind disagrees with bound flags".into()));
        }
        let (unsupported, has_nan) = (flags & FLAG_UNSUPPORTED != 0, flags & FLAG_HAS_NAN != 0);
        if unsupported && (has_lower || has_upper || has_nan) {
            return Err(bad("unsupported column carries bounds".into()));
        }
        // The writer never produces these (FORMAT.md §4): a frame that has them is damaged, and
        // the pure-Java parser rejects them the same way.
        if !unsupported {
            let any_value = null_count < rows;
            if any_value != has_lower {
                return Err(bad(if any_value {
                    "a column with non-null values has no lower bound".into()
                } else {
                    "an all-null column carries a lower bound".into()
                }));
            }
            if has_upper && !has_lower {
                return Err(bad("an upper bound without a lower bound".into()));
            }
            if has_lower && !has_upper && kind != BoundKind::Utf8 {
                return Err(bad("only string columns may lack an upper bound".into()));
            }
        }
        if has_nan && kind != BoundKind::Float {
            return Err(bad("HAS_NAN on a non-float column".into()));
        }
        let lower = if has_lower {
            Some(read_bound(&mut cur, kind)?)
        } else {
            None
        };
        let upper = if has_upper {
            Some(read_bound(&mut cur, kind)?)
        } else {
            None
        };
        let upper_is_nan = matches!(upper, Some(Bound::Float(v)) if v.is_nan());
        if kind == BoundKind::Float && has_nan != upper_is_nan {
            return Err(bad(format!(
                "HAS_NAN is {has_nan} but the upper bound is {upper:?}"
            )));
        }
        out.push(ColumnStats {
            null_count,
            row_count: rows,
            size_in_bytes,
            unsupported,
            has_nan,
            lower,
            upper,
        });
    }
    if cur.remaining() != 0 {
        return Err(Error::TrailingBytes {
            what: "stats section",
            extra: cur.remaining(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, BooleanArray, Float64Array, Int32Array, StringArray};

    use super::*;

    fn stats_of(array: ArrayRef, limit: usize) -> ColumnStats {
        compute(array.as_ref(), 0, limit).expect("stats")
    }

    #[test]
    fn upper_bound_truncation_increments_the_last_incrementable_char() {
        assert_eq!(string_upper_bound("abc", 3).as_deref(), Some("abc"));
        assert_eq!(string_upper_bound("abcd", 3).as_deref(), Some("abd"));
        assert_eq!(
            string_upper_bound("ab\u{10FFFF}x", 6).as_deref(),
            Some("ac")
        );
        assert_eq!(
            string_upper_bound("a\u{D7FF}x", 4).as_deref(),
            Some("a\u{E000}")
        );
        assert_eq!(string_upper_bound("\u{10FFFF}\u{10FFFF}x", 8), None);
        // A cut inside a multibyte character backs off to its start.
        assert_eq!(truncate_at_char_boundary("aü", 2), "a");
        assert_eq!(string_upper_bound("aüü", 2).as_deref(), Some("b"));
    }

    #[test]
    fn truncated_bounds_still_enclose_every_value() {
        let values = [
            "zzzzzz\u{10FFFF}",
            "zzzzzz",
            "a",
            "zzzzzy\u{10FFFF}\u{10FFFF}",
        ];
        let s = stats_of(Arc::new(StringArray::from(values.to_vec())), 7);
        let (Some(Bound::Utf8(lo)), Some(Bound::Utf8(hi))) = (&s.lower, &s.upper) else {
            panic!("bounds {s:?}")
        };
        for v in values {
            assert!(
                lo.as_str() <= v && v <= hi.as_str(),
                "{lo:?} <= {v:?} <= {hi:?}"
            );
        }
    }

    #[test]
    fn nan_is_the_largest_float_and_zeros_are_equal() {
        let s = stats_of(
            Arc::new(Float64Array::from(vec![
                Some(1.0),
                Some(f64::NAN),
                None,
                Some(-0.0),
            ])),
            8,
        );
        assert!(s.has_nan);
        assert_eq!(s.lower, Some(Bound::Float(0.0)));
        assert!(matches!(s.upper, Some(Bound::Float(v)) if v.is_nan()));
        let Some(Bound::Float(lo)) = s.lower else {
            unreachable!()
        };
        assert!(lo.is_sign_positive(), "-0.0 bound is normalized to +0.0");
        let s = stats_of(Arc::new(Float64Array::from(vec![f64::NAN, f64::NAN])), 8);
        assert!(
            matches!((s.lower, s.upper), (Some(Bound::Float(a)), Some(Bound::Float(b))) if a.is_nan() && b.is_nan())
        );
    }

    #[test]
    fn all_null_and_unsupported_columns_have_no_bounds() {
        let s = stats_of(Arc::new(Int32Array::from(vec![None, None])), 8);
        assert_eq!(
            (s.lower, s.upper, s.unsupported, s.null_count, s.row_count),
            (None, None, false, 2, 2)
        );
        let s = stats_of(Arc::new(arrow_array::NullArray::new(4)), 8);
        assert_eq!(
            (s.null_count, s.row_count, s.unsupported, s.lower),
            (4, 4, true, None)
        );
        let s = stats_of(Arc::new(arrow_array::BinaryArray::from(vec![&b"x"[..]])), 8);
        assert!(s.unsupported && s.lower.is_none() && s.upper.is_none());
    }

    #[test]
    fn booleans_ignore_values_under_nulls() {
        let s = stats_of(
            Arc::new(BooleanArray::from(vec![Some(true), None, Some(true)])),
            8,
        );
        assert_eq!(
            (s.lower, s.upper),
            (Some(Bound::Bool(true)), Some(Bound::Bool(true)))
        );
    }

    #[test]
    fn encode_decode_round_trip_and_rejections() {
        let stats = [
            stats_of(
                Arc::new(StringArray::from(vec![Some("b"), None, Some("a")])),
                8,
            ),
            stats_of(Arc::new(Float64Array::from(vec![f64::NAN])), 8),
        ];
        let mut bytes = Vec::new();
        // The two columns have different row counts, so each is its own section.
        encode(&stats[..1], &mut bytes).expect("encode");
        assert_eq!(decode(&bytes, 1, 3).expect("decode"), stats[..1].to_vec());
        assert!(decode(&bytes, 2, 3).is_err(), "column count mismatch");
        assert!(decode(&bytes, 1, 4).is_err(), "row count mismatch");
        assert!(
            decode(&bytes[..bytes.len() - 1], 1, 3).is_err(),
            "truncated"
        );
        let mut extra = bytes.clone();
        extra.push(0);
        assert!(decode(&extra, 1, 3).is_err(), "trailing");
        let mut nan = Vec::new();
        encode(&stats[1..], &mut nan).expect("encode");
        assert_eq!(
            format!("{:?}", decode(&nan, 1, 1).expect("decode")),
            format!("{:?}", &stats[1..])
        );
        let mut bad_kind = bytes.clone();
        bad_kind[4 + 16 + 1] = 9;
        assert!(decode(&bad_kind, 1, 3).is_err(), "unknown kind");
    }
}
