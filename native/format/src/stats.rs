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
        None => min_max_dense(values),
        Some(nulls) => {
            let mut valid = nulls.valid_indices().map(|i| values[i]);
            let first = valid.next()?;
            Some(valid.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v))))
        }
    }
}

/// Lanes of independent minimum and maximum chains: one chain per value waits on the previous
/// comparison, so several in flight (and one pass for both bounds) keep the core busy.
const LANES: usize = 8;

/// The minimum and maximum of `values` in one pass.
fn min_max_dense<N: Ord + Copy>(values: &[N]) -> Option<(N, N)> {
    let first = *values.first()?;
    let (mut lo, mut hi) = ([first; LANES], [first; LANES]);
    let chunks = values.chunks_exact(LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        for k in 0..LANES {
            lo[k] = lo[k].min(chunk[k]);
            hi[k] = hi[k].max(chunk[k]);
        }
    }
    let mut lo = lo.into_iter().fold(first, N::min);
    let mut hi = hi.into_iter().fold(first, N::max);
    for &v in rest {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    Some((lo, hi))
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
    let (mut lo, mut hi, mut nan) = (f64::INFINITY, f64::NEG_INFINITY, false);
    let mut visit = |v: f64| {
        // f64::min and max skip a NaN operand: NaN is only recorded, never a bound here.
        lo = lo.min(v);
        hi = hi.max(v);
        nan |= v.is_nan();
    };
    let any = match a.nulls() {
        None => {
            float_min_max_dense(values, &widen, &mut lo, &mut hi, &mut nan);
            !values.is_empty()
        }
        Some(nulls) => {
            nulls.valid_indices().for_each(|i| visit(widen(values[i])));
            nulls.null_count() < values.len()
        }
    };
    *has_nan |= nan;
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

/// [`float_bounds`] over values without nulls, in independent lanes as [`min_max_dense`].
fn float_min_max_dense<N: Copy>(
    values: &[N],
    widen: &impl Fn(N) -> f64,
    lo: &mut f64,
    hi: &mut f64,
    nan: &mut bool,
) {
    let (mut los, mut his, mut nans) = ([*lo; LANES], [*hi; LANES], [false; LANES]);
    let chunks = values.chunks_exact(LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        for k in 0..LANES {
            let v = widen(chunk[k]);
            los[k] = los[k].min(v);
            his[k] = his[k].max(v);
            nans[k] |= v.is_nan();
        }
    }
    for &v in rest {
        let v = widen(v);
        *lo = lo.min(v);
        *hi = hi.max(v);
        *nan |= v.is_nan();
    }
    *lo = los.into_iter().fold(*lo, f64::min);
    *hi = his.into_iter().fold(*hi, f64::max);
    *nan |= nans.contains(&true);
}

fn string_bounds<'a, O: OffsetSizeTrait>(
    a: &'a arrow_array::GenericStringArray<O>,
    limit: usize,
) -> (Option<Bound>, Option<Bound>) {
    let data = a.value_data();
    let offsets = a.value_offsets();
    // Each value is compared by its first 8 bytes as a big-endian word first, which orders
    // like the bytes; only a tie on that word compares the whole strings (`memcmp`).
    let value = |i: usize| keyed(data, offsets, i);
    // Seeded with the first valid value, then one plain loop (a closure called per value was
    // not inlined, and the call cost more than the comparisons).
    let mut valid = a.nulls().map(|n| n.valid_indices());
    let first = match &mut valid {
        None => (!a.is_empty()).then_some(0),
        Some(indices) => indices.next(),
    };
    let Some(first) = first else {
        return (None, None);
    };
    let (mut lo, mut hi) = (value(first), value(first));
    let mut visit = |v: Keyed<'a>| {
        if keyed_less(v, lo) {
            lo = v;
        }
        if keyed_less(hi, v) {
            hi = v;
        }
    };
    match valid {
        None => {
            for i in 1..a.len() {
                visit(value(i));
            }
        }
        Some(indices) => {
            for i in indices {
                visit(value(i));
            }
        }
    }
    let ((_, lo), (_, hi)) = (lo, hi);
    // The array's values are UTF-8 (arrow validated them), so these conversions cannot fail.
    let (Ok(lo), Ok(hi)) = (std::str::from_utf8(lo), std::str::from_utf8(hi)) else {
        return (None, None);
    };
    (
        Some(Bound::Utf8(truncate_at_char_boundary(lo, limit).to_owned())),
        string_upper_bound(hi, limit).map(Bound::Utf8),
    )
}

/// A string with its [`prefix_key`].
type Keyed<'a> = (u64, &'a [u8]);

/// Value `i` of a string array's `data` and `offsets`, keyed.
#[inline(always)]
fn keyed<'a, O: OffsetSizeTrait>(data: &'a [u8], offsets: &[O], i: usize) -> Keyed<'a> {
    let (start, end) = (offsets[i].as_usize(), offsets[i + 1].as_usize());
    (prefix_key(data, start, end), &data[start..end])
}

/// `a < b` by key first; on equal keys, strings of up to 8 bytes are their key plus their
/// length (the shorter is less), and only longer ones compare their bytes.
#[inline(always)]
fn keyed_less(a: Keyed<'_>, b: Keyed<'_>) -> bool {
    if a.0 != b.0 {
        a.0 < b.0
    } else if a.1.len() <= 8 && b.1.len() <= 8 {
        a.1.len() < b.1.len()
    } else {
        a.1 < b.1
    }
}

/// The first 8 bytes of `data[start..end]` as a big-endian word, zero-padded: a greater key
/// means a greater string, equal keys decide nothing. Reads a whole word when the buffer has
/// one there (no short copy), masking off bytes past the value.
#[inline(always)]
fn prefix_key(data: &[u8], start: usize, end: usize) -> u64 {
    let len = end - start;
    let word = match data.get(start..start + 8) {
        Some(w) => {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(w);
            u64::from_be_bytes(bytes)
        }
        None => {
            let mut bytes = [0u8; 8];
            let n = len.min(8);
            bytes[..n].copy_from_slice(&data[start..start + n]);
            return u64::from_be_bytes(bytes);
        }
    };
    if len >= 8 {
        word
    } else {
        // len < 8: keep the top `len` bytes.
        word & !(u64::MAX >> (8 * len))
    }
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

    /// The bounds by the obvious method (sort the valid values), for checking the fast paths.
    mod oracle {
        use super::*;
        use arrow_array::Int64Array;
        use proptest::prelude::*;

        fn long_bounds(values: &[Option<i64>]) -> (Option<Bound>, Option<Bound>) {
            let valid: Vec<i64> = values.iter().flatten().copied().collect();
            (
                valid.iter().min().map(|&v| Bound::Int(v)),
                valid.iter().max().map(|&v| Bound::Int(v)),
            )
        }

        /// Spark's order: NaN above everything, -0.0 equal to 0.0 (stored as 0.0).
        fn double_bounds(values: &[Option<f64>]) -> (Option<Bound>, Option<Bound>, bool) {
            let valid: Vec<f64> = values.iter().flatten().copied().collect();
            let nan = valid.iter().any(|v| v.is_nan());
            let numbers: Vec<f64> = valid.iter().copied().filter(|v| !v.is_nan()).collect();
            let norm = |v: f64| if v == 0.0 { 0.0 } else { v };
            let lo = numbers.iter().copied().reduce(f64::min).map(norm);
            let hi = numbers.iter().copied().reduce(f64::max).map(norm);
            match (valid.is_empty(), nan) {
                (true, _) => (None, None, false),
                (false, true) => (
                    Some(Bound::Float(lo.unwrap_or(f64::NAN))),
                    Some(Bound::Float(f64::NAN)),
                    true,
                ),
                (false, false) => (lo.map(Bound::Float), hi.map(Bound::Float), false),
            }
        }

        fn string_bounds(
            values: &[Option<String>],
            limit: usize,
        ) -> (Option<Bound>, Option<Bound>) {
            let mut valid: Vec<&str> = values.iter().flatten().map(String::as_str).collect();
            valid.sort_unstable();
            (
                valid
                    .first()
                    .map(|v| Bound::Utf8(truncate_at_char_boundary(v, limit).to_owned())),
                valid
                    .last()
                    .and_then(|v| string_upper_bound(v, limit))
                    .map(Bound::Utf8),
            )
        }

        fn same_float(a: &Option<Bound>, b: &Option<Bound>) -> bool {
            match (a, b) {
                (Some(Bound::Float(x)), Some(Bound::Float(y))) => {
                    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
                }
                (None, None) => true,
                _ => false,
            }
        }

        fn doubles() -> impl Strategy<Value = Option<f64>> {
            prop_oneof![
                Just(None),
                Just(Some(f64::NAN)),
                Just(Some(-0.0)),
                Just(Some(0.0)),
                Just(Some(f64::INFINITY)),
                Just(Some(f64::NEG_INFINITY)),
                any::<f64>().prop_map(Some),
                (-1000i32..1000).prop_map(|v| Some(v as f64 / 8.0)),
            ]
        }

        /// Short strings with shared prefixes and lengths around the 8-byte comparison word,
        /// plus multibyte characters.
        fn strings() -> impl Strategy<Value = Option<String>> {
            prop_oneof![
                Just(None),
                "(pre|prefix|prefix_0|é|\\u{0}){0,3}[a-c\\u{0}é]{0,12}".prop_map(Some),
                any::<String>().prop_map(Some),
            ]
        }

        proptest! {
            #[test]
            fn long_bounds_match(values in prop::collection::vec(
                prop_oneof![Just(None), any::<i64>().prop_map(Some), (-3i64..3).prop_map(Some)],
                0..70,
            )) {
                let s = compute(&Int64Array::from(values.clone()), 0, 16).expect("stats");
                let (lo, hi) = long_bounds(&values);
                prop_assert_eq!(format!("{:?}", (s.lower, s.upper)), format!("{:?}", (lo, hi)));
            }

            #[test]
            fn dense_long_bounds_match(values in prop::collection::vec(
                prop_oneof![any::<i64>(), (-3i64..3)],
                0..70,
            )) {
                // No validity buffer: the lane-parallel path.
                let array = Int64Array::from(values.clone());
                prop_assert!(array.nulls().is_none());
                let s = compute(&array, 0, 16).expect("stats");
                let values: Vec<Option<i64>> = values.into_iter().map(Some).collect();
                let (lo, hi) = long_bounds(&values);
                prop_assert_eq!(format!("{:?}", (s.lower, s.upper)), format!("{:?}", (lo, hi)));
            }

            #[test]
            fn dense_double_bounds_match(values in prop::collection::vec(
                doubles().prop_map(|v| v.unwrap_or(1.5)),
                0..70,
            )) {
                let array = Float64Array::from(values.clone());
                prop_assert!(array.nulls().is_none());
                let s = compute(&array, 0, 16).expect("stats");
                let values: Vec<Option<f64>> = values.into_iter().map(Some).collect();
                let (lo, hi, nan) = double_bounds(&values);
                prop_assert!(same_float(&s.lower, &lo), "lower {:?} vs {:?}", s.lower, lo);
                prop_assert!(same_float(&s.upper, &hi), "upper {:?} vs {:?}", s.upper, hi);
                prop_assert_eq!(s.has_nan, nan);
            }

            #[test]
            fn double_bounds_match(values in prop::collection::vec(doubles(), 0..70)) {
                let s = compute(&Float64Array::from(values.clone()), 0, 16).expect("stats");
                let (lo, hi, nan) = double_bounds(&values);
                prop_assert!(same_float(&s.lower, &lo), "lower {:?} vs {:?}", s.lower, lo);
                prop_assert!(same_float(&s.upper, &hi), "upper {:?} vs {:?}", s.upper, hi);
                prop_assert_eq!(s.has_nan, nan);
            }

            #[test]
            fn string_bounds_match(
                values in prop::collection::vec(strings(), 0..40),
                limit in 1usize..24,
            ) {
                let s = compute(&StringArray::from(values.clone()), 0, limit).expect("stats");
                let (lo, hi) = string_bounds(&values, limit);
                prop_assert_eq!(format!("{:?}", (s.lower, s.upper)), format!("{:?}", (lo, hi)));
            }

            #[test]
            fn sliced_string_bounds_match(
                values in prop::collection::vec(strings(), 1..40),
                start in 0usize..40,
            ) {
                // A slice starts its values mid-buffer: the prefix word must stay inside it.
                let start = start % values.len();
                let array = StringArray::from(values.clone());
                let sliced = array.slice(start, values.len() - start);
                let s = compute(&sliced, 0, 64).expect("stats");
                let (lo, hi) = string_bounds(&values[start..], 64);
                prop_assert_eq!(format!("{:?}", (s.lower, s.upper)), format!("{:?}", (lo, hi)));
            }
        }
    }
}
