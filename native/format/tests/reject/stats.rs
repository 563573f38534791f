//! Cases in the stats section (FORMAT.md §4), each rule with the checksum re-forged so the
//! stats checks are reached.

use arrow_array::{
    BinaryArray, BooleanArray, Float64Array, Int64Array, NullArray, RecordBatch, StringArray,
};
use tablecache_format::stats::Bound;

use super::forge::{
    batch, col, frame_of, layout, reseal, set, set_u32, stats_entry_at, with_stats,
    with_stats_section,
};
use super::{RejectCase, Section};

const I: usize = 0; // Int64 with a null
const F: usize = 1; // Float64 with a NaN
const G: usize = 2; // Float64 without NaN
const S: usize = 3; // Utf8
const N: usize = 4; // Int64, all null
const NF: usize = 5; // Float64, all null
const Z: usize = 6; // Null type
const BIN: usize = 7; // Binary (UNSUPPORTED)
const B: usize = 8; // Boolean

fn columns() -> RecordBatch {
    batch(vec![
        ("i", col(Int64Array::from(vec![Some(1), None, Some(3)]))),
        (
            "f",
            col(Float64Array::from(vec![
                Some(1.0),
                Some(f64::NAN),
                Some(2.0),
            ])),
        ),
        (
            "g",
            col(Float64Array::from(vec![Some(1.0), Some(2.0), None])),
        ),
        (
            "s",
            col(StringArray::from(vec![Some("b"), None, Some("a")])),
        ),
        ("n", col(Int64Array::from(vec![None::<i64>; 3]))),
        ("nf", col(Float64Array::from(vec![None::<f64>; 3]))),
        ("z", col(NullArray::new(3))),
        (
            "bin",
            col(BinaryArray::from(vec![Some(&b"x"[..]), Some(b"y"), None])),
        ),
        (
            "b",
            col(BooleanArray::from(vec![Some(true), Some(false), None])),
        ),
    ])
}

fn case(name: &'static str, what: &'static str, bytes: Vec<u8>) -> RejectCase {
    RejectCase {
        name,
        kind: "CORRUPT_FRAME",
        section: Section::Stats,
        what,
        bytes,
    }
}

/// Cases in the stats section.
pub fn cases() -> Vec<RejectCase> {
    let f = frame_of(&columns(), |_| {});
    let at = |c: usize| stats_entry_at(&f, c);
    let (stats_start, directory, _) = layout(&f);
    let section = f[stats_start..directory].to_vec();
    vec![
        case(
            "stats_value_without_bounds",
            "an Int64 column with non-null values but no bounds at all (bound kind 0)",
            with_stats(&f, |s| {
                s[I].lower = None;
                s[I].upper = None;
            }),
        ),
        case(
            "stats_upper_without_lower",
            "an Int64 column with values, an upper bound and no lower bound",
            with_stats(&f, |s| s[I].lower = None),
        ),
        case(
            "stats_string_upper_without_lower",
            "a Utf8 column with values, an upper bound and no lower bound",
            with_stats(&f, |s| s[S].lower = None),
        ),
        case(
            "stats_int_without_upper",
            "an Int64 column with a lower bound and no upper bound (only strings may lack one)",
            with_stats(&f, |s| s[I].upper = None),
        ),
        case(
            "stats_float_without_upper",
            "a Float64 column with a lower bound and no upper bound",
            with_stats(&f, |s| s[G].upper = None),
        ),
        case(
            "stats_all_null_with_bounds",
            "an all-null Int64 column that carries bounds",
            with_stats(&f, |s| {
                s[N].lower = Some(Bound::Int(0));
                s[N].upper = Some(Bound::Int(0));
            }),
        ),
        case(
            "stats_all_null_with_upper",
            "an all-null Int64 column that carries only an upper bound",
            with_stats(&f, |s| s[N].upper = Some(Bound::Int(0))),
        ),
        case(
            "stats_all_null_with_has_nan",
            "an all-null Float64 column with HAS_NAN (and so no NaN upper bound)",
            with_stats(&f, |s| s[NF].has_nan = true),
        ),
        case(
            "stats_has_nan_on_int",
            "HAS_NAN on an Int64 column",
            with_stats(&f, |s| s[I].has_nan = true),
        ),
        case(
            "stats_has_nan_on_unsupported",
            "HAS_NAN on a Binary column (UNSUPPORTED)",
            with_stats(&f, |s| s[BIN].has_nan = true),
        ),
        case(
            "stats_has_nan_with_finite_upper",
            "HAS_NAN on a Float64 column whose upper bound is 2.0",
            with_stats(&f, |s| s[G].has_nan = true),
        ),
        case(
            "stats_nan_upper_without_has_nan",
            "a Float64 column whose upper bound is NaN but HAS_NAN is clear",
            with_stats(&f, |s| s[F].has_nan = false),
        ),
        case(
            "stats_null_column_zero_nulls",
            "a Null-typed column whose stats count 0 nulls in 3 rows",
            with_stats(&f, |s| s[Z].null_count = 0),
        ),
        case(
            "stats_unsupported_with_bounds",
            "a Binary column (UNSUPPORTED) that carries bounds",
            with_stats(&f, |s| {
                s[BIN].lower = Some(Bound::Utf8("x".into()));
                s[BIN].upper = Some(Bound::Utf8("y".into()));
            }),
        ),
        case(
            "stats_unsupported_flag_on_int",
            "an all-null Int64 column flagged UNSUPPORTED",
            with_stats(&f, |s| s[N].unsupported = true),
        ),
        case(
            "stats_supported_binary",
            "a Binary column whose UNSUPPORTED flag is clear",
            with_stats(&f, |s| s[BIN].unsupported = false),
        ),
        case(
            "stats_kind_does_not_fit_type",
            "an Int64 column with UTF8 bounds",
            with_stats(&f, |s| {
                s[I].lower = Some(Bound::Utf8("1".into()));
                s[I].upper = Some(Bound::Utf8("3".into()));
            }),
        ),
        case(
            "stats_bool_bounds_on_int",
            "an Int64 column with BOOL bounds",
            with_stats(&f, |s| {
                s[I].lower = Some(Bound::Bool(false));
                s[I].upper = Some(Bound::Bool(true));
            }),
        ),
        case(
            "stats_reserved_flag_bit",
            "stats flag bit 4 (reserved) set on an Int64 column",
            set(&f, at(I) + 16, f[at(I) + 16] | 0x10),
        ),
        case(
            "stats_unknown_bound_kind",
            "bound kind 9 on an Int64 column",
            set(&f, at(I) + 17, 9),
        ),
        case(
            "stats_bound_kind_without_bounds",
            "bound kind INT on an all-null column that has no bound flags",
            set(&f, at(N) + 17, 2),
        ),
        case(
            "stats_bool_bound_2",
            "a Boolean lower bound byte of 2",
            set(&f, at(B) + 18, 2),
        ),
        case(
            "stats_string_bound_not_utf8",
            "a Utf8 lower bound whose one byte is 0xFF",
            set(&f, at(S) + 22, 0xFF),
        ),
        case(
            "stats_string_bound_past_section",
            "a Utf8 lower bound whose length runs past the stats section",
            set_u32(&f, at(S) + 18, 4096),
        ),
        case(
            "stats_row_count_disagrees",
            "an entry's row_count is 4 in a 3-row frame",
            set_u32(&f, at(I) + 4, 4),
        ),
        case(
            "stats_null_count_above_rows",
            "null_count 4 in 3 rows",
            set_u32(&f, at(N), 4),
        ),
        case(
            "stats_column_count_disagrees",
            "the stats section counts one column less than the header",
            set_u32(&f, stats_start, 8),
        ),
        case(
            "stats_trailing_byte",
            "one byte after the last stats entry",
            with_stats_section(&f, &[section.as_slice(), &[0]].concat()),
        ),
        case(
            "stats_cut_short",
            "the stats section ends in the middle of the last entry",
            with_stats_section(&f, &section[..section.len() - 1]),
        ),
        case(
            "stats_four_bytes",
            "a stats section of only its column count",
            with_stats_section(&f, &section[..4]),
        ),
        case(
            "stats_v2_column_count_4g",
            "a V2 frame's header says 4 billion columns; its stats section says 9",
            {
                let v2 = frame_of(&columns(), |o| o.format = tablecache_format::Format::V2);
                let mut b = v2.clone();
                b[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
                reseal(b)
            },
        ),
    ]
}
