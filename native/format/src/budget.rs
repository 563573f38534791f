//! The decode budget (FORMAT.md §2.3): before any payload of a frame is decompressed, the
//! decoded sizes its directory declares for the projected columns are checked against what the
//! frame's row count and schema allow. So a frame whose checksums are valid, but whose payloads
//! decode to far more than its data justifies (a decompression bomb: zstd turns 32 KiB into
//! 1 GiB), fails before it allocates.
//!
//! Two limits:
//! - a column whose every buffer has a fixed width per row (numbers, booleans, dates,
//!   timestamps, decimals, fixed-size binary, and structs and fixed-size lists of those) decodes
//!   to at most its exact plain body size for the frame's row count;
//! - the projected columns together declare at most [`MAX_DECODED_FRAME_BYTES`] (strings,
//!   binaries, lists and dictionaries have no per-row bound).
//!
//! The writer checks the same limits, so it never writes a frame the reader refuses.

use arrow_schema::{DataType, Schema};

use crate::cursor::pad8;
use crate::error::{Error, Result};
use crate::frame::DirectoryEntry;
use crate::layout::{self, BufferKind, Layout};

/// The most decoded bytes the projected columns of one frame may declare together: 4 GiB. A
/// batch closes at `spark.tablecache.batchBytes` (at most 1 GiB of Arrow buffers) plus its last
/// row, and one column payload is below 2 GiB, so no batch the writer makes comes near it.
pub const MAX_DECODED_FRAME_BYTES: u64 = 4 << 30;

/// The plain body size of a column of `data_type` with `rows` rows, when every buffer of its
/// tree has a fixed size per row; `None` when some buffer's size is not set by the row count
/// (value bytes of strings and binaries, list children, dictionary values).
pub fn fixed_body_len(data_type: &DataType, rows: u64) -> Option<u64> {
    let mut nodes = 0u64;
    let mut buffers = 0u64;
    let mut bytes = 0u64;
    fixed_tree(data_type, rows, &mut nodes, &mut buffers, &mut bytes)?;
    let header = pad8_u64(
        8u64.checked_add(nodes.checked_mul(8)?)?
            .checked_add(buffers.checked_mul(4)?)?,
    )?;
    header.checked_add(bytes)
}

fn fixed_tree(
    data_type: &DataType,
    rows: u64,
    nodes: &mut u64,
    buffers: &mut u64,
    bytes: &mut u64,
) -> Option<()> {
    let node = Layout::of(data_type).ok()?;
    *nodes += 1;
    for kind in node.buffers() {
        *buffers += 1;
        let len = match kind {
            BufferKind::Validity | BufferKind::Bits => rows.div_ceil(8),
            BufferKind::Values(width) => rows.checked_mul(width as u64)?,
            BufferKind::Offsets(_) | BufferKind::Bytes => return None,
        };
        *bytes = bytes.checked_add(pad8_u64(len)?)?;
    }
    let child_rows = match (node, data_type) {
        (Layout::Struct, _) => rows,
        (Layout::FixedSizeList, DataType::FixedSizeList(_, size)) => {
            rows.checked_mul(u64::try_from(*size).ok()?)?
        }
        (Layout::Null | Layout::Boolean | Layout::Fixed(_), _) => return Some(()),
        _ => return None,
    };
    for child in layout::children(data_type) {
        fixed_tree(child, child_rows, nodes, buffers, bytes)?;
    }
    Some(())
}

/// For each buffer of `data_type`'s tree (traversal order), the size `rows` rows of it take when
/// the row count sets it: buffers of the top node and of struct fields and fixed-size-list items
/// below it (validity and boolean values `ceil(r / 8)`, values `r × width`, offsets
/// `(r + 1) × width`); `None` for value bytes and for everything under a list, map or dictionary.
/// A V4 body's buffers are held to these (`body_v4::expansion_allowed`).
pub(crate) fn row_bounds(data_type: &DataType, rows: u64) -> Vec<Option<u64>> {
    let mut out = Vec::new();
    row_bounds_into(data_type, Some(rows), &mut out);
    out
}

fn row_bounds_into(data_type: &DataType, rows: Option<u64>, out: &mut Vec<Option<u64>>) {
    let Ok(node) = Layout::of(data_type) else {
        return;
    };
    for kind in node.buffers() {
        out.push(rows.and_then(|r| match kind {
            BufferKind::Validity | BufferKind::Bits => Some(r.div_ceil(8)),
            BufferKind::Values(w) => r.checked_mul(w as u64),
            BufferKind::Offsets(w) => r.checked_add(1)?.checked_mul(w as u64),
            BufferKind::Bytes => None,
        }));
    }
    let child_rows = match (node, data_type) {
        (Layout::Struct, _) => rows,
        (Layout::FixedSizeList, DataType::FixedSizeList(_, size)) => {
            rows.and_then(|r| r.checked_mul(u64::try_from(*size).ok()?))
        }
        _ => None,
    };
    for child in layout::children(data_type) {
        row_bounds_into(child, child_rows, out);
    }
}

fn pad8_u64(n: u64) -> Option<u64> {
    let n = usize::try_from(n).ok()?;
    n.checked_add(7)?;
    Some(pad8(n) as u64)
}

/// Checks the decoded sizes that `entries` (the projected columns' directory entries, each with
/// its column index) declare for a frame of `rows` rows over `schema`. A V4 entry states its
/// decoded length beside its encoded body's, whose descriptors take at most 8 bytes per buffer
/// more than a plain body's lengths, and whose buffers each store no more than they decode to.
pub(crate) fn check_columns<'e>(
    schema: &Schema,
    rows: u32,
    self_describing: bool,
    entries: impl IntoIterator<Item = (usize, &'e DirectoryEntry)>,
) -> Result<()> {
    let mut total = 0u64;
    for (index, entry) in entries {
        let field = schema.fields().get(index).ok_or(Error::ColumnOutOfRange {
            index,
            count: schema.fields().len(),
        })?;
        let declared = u64::from(entry.decoded_len);
        if let Some(max) = fixed_body_len(field.data_type(), u64::from(rows)) {
            if declared > max {
                return Err(Error::OverBudget(format!(
                    "column {index} ({}) declares {declared} decoded bytes, but {rows} rows of it \
                     take at most {max}",
                    field.data_type()
                )));
            }
        }
        // (A type without a layout fails as a schema mismatch when the body is read.)
        if let (true, Ok((_, buffers))) = (self_describing, layout::counts(field.data_type())) {
            let max_encoded = declared + 8 * buffers as u64;
            if u64::from(entry.raw_len) > max_encoded {
                return Err(Error::OverBudget(format!(
                    "column {index} declares an encoded body of {} bytes for {declared} decoded \
                     bytes (at most {max_encoded})",
                    entry.raw_len
                )));
            }
        }
        total += declared;
    }
    check_total(total)
}

/// Checks that one whole-batch payload (V2) of a frame of `rows` rows over `schema` declares
/// no more than all its columns can take.
pub(crate) fn check_whole_batch(schema: &Schema, rows: u32, entry: &DirectoryEntry) -> Result<()> {
    let declared = u64::from(entry.raw_len);
    let fixed: Option<u64> = schema
        .fields()
        .iter()
        .map(|f| fixed_body_len(f.data_type(), u64::from(rows)))
        .try_fold(0u64, |sum, len| sum.checked_add(len?));
    if let Some(max) = fixed {
        if declared > max {
            return Err(Error::OverBudget(format!(
                "whole-batch payload declares {declared} decoded bytes, but {rows} rows of its \
                 columns take at most {max}"
            )));
        }
    }
    check_total(declared)
}

fn check_total(total: u64) -> Result<()> {
    if total > MAX_DECODED_FRAME_BYTES {
        return Err(Error::OverBudget(format!(
            "the projected columns declare {total} decoded bytes together, above the per-frame \
             budget of {MAX_DECODED_FRAME_BYTES}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_schema::Field;
    use std::sync::Arc;

    #[test]
    fn fixed_width_trees_have_an_exact_bound() {
        // header pad8(8 + 8 + 8) = 24; validity pad8(2) = 8; values 10 × 8 = 80.
        assert_eq!(fixed_body_len(&DataType::Int64, 10), Some(24 + 8 + 80));
        assert_eq!(fixed_body_len(&DataType::Boolean, 10), Some(24 + 8 + 8));
        assert_eq!(fixed_body_len(&DataType::Null, 10), Some(16));
        let point = DataType::Struct(
            vec![
                Field::new("x", DataType::Float64, true),
                Field::new("y", DataType::Int32, true),
            ]
            .into(),
        );
        // 3 nodes, 5 buffers: header pad8(8 + 24 + 20) = 56; 3 validity 8 each; 80 + 40.
        assert_eq!(fixed_body_len(&point, 10), Some(56 + 24 + 80 + 40));
        let triple = DataType::FixedSizeList(Arc::new(Field::new("i", DataType::Int16, true)), 3);
        // child rows 30: header pad8(8 + 16 + 12) = 40; validity 8 + 8; values 60 → 64.
        assert_eq!(fixed_body_len(&triple, 10), Some(40 + 8 + 8 + 64));
    }

    #[test]
    fn variable_width_trees_have_none() {
        assert_eq!(fixed_body_len(&DataType::Utf8, 10), None);
        let list = DataType::List(Arc::new(Field::new("i", DataType::Int32, true)));
        assert_eq!(fixed_body_len(&list, 10), None);
        let dict = DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Int64));
        assert_eq!(fixed_body_len(&dict, 10), None);
    }

    #[test]
    fn huge_row_counts_do_not_overflow() {
        assert!(fixed_body_len(&DataType::Decimal256(76, 0), u64::MAX / 2).is_none());
        assert_eq!(
            fixed_body_len(&DataType::Int64, u64::from(u32::MAX)),
            Some(24 + pad8(u32::MAX.div_ceil(8) as usize) as u64 + 8 * u64::from(u32::MAX))
        );
    }
}
