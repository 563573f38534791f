//! The one description of how each Arrow type is laid out in a column body (FORMAT.md §3):
//! its buffers, their element widths, its children, and whether it is dictionary encoded.
//! The writer, the frame and legacy readers, the stats and the JNI export all read it, so a
//! type the format carries is described here only.

use arrow_schema::{DataType, FieldRef};

use crate::error::{Error, Result};

/// How one node of a type is laid out (its own buffers, not its children's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// No buffers at all (not even validity).
    Null,
    /// Validity and a bitmap of values.
    Boolean,
    /// Validity and `width`-byte values.
    Fixed(usize),
    /// Validity, offsets of `offset_width` bytes, value bytes.
    VarLen {
        /// Bytes per offset.
        offset_width: usize,
    },
    /// Validity and offsets of `offset_width` bytes; one child.
    List {
        /// Bytes per offset.
        offset_width: usize,
    },
    /// Validity only; one child.
    FixedSizeList,
    /// Validity only; one child per field.
    Struct,
    /// Validity and keys of `key_width` bytes; the values are its child.
    Dictionary {
        /// Bytes per key.
        key_width: usize,
    },
}

/// One buffer a node owns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BufferKind {
    /// The validity bitmap.
    Validity,
    /// A bitmap of boolean values.
    Bits,
    /// Fixed-width values (or dictionary keys) of this many bytes.
    Values(usize),
    /// Offsets of this many bytes (must hold whole elements).
    Offsets(usize),
    /// Variable-length value bytes.
    Bytes,
}

impl BufferKind {
    /// The element width: what byte stream split transposes by (1 for bitmaps and bytes).
    pub fn width(self) -> usize {
        match self {
            BufferKind::Values(w) | BufferKind::Offsets(w) => w,
            BufferKind::Validity | BufferKind::Bits | BufferKind::Bytes => 1,
        }
    }

    /// The width a buffer's length must be a multiple of before arrow-data reads it as a typed
    /// slice (offsets and dictionary keys), if any.
    pub fn whole_elements(self, layout: Layout) -> Option<usize> {
        match (self, layout) {
            (BufferKind::Offsets(w), _) => Some(w),
            (BufferKind::Values(w), Layout::Dictionary { .. }) => Some(w),
            _ => None,
        }
    }
}

impl Layout {
    /// The layout of `data_type`'s node; an error for a type the format does not carry.
    pub fn of(data_type: &DataType) -> Result<Layout> {
        if let Some(width) = data_type.primitive_width() {
            return Ok(Layout::Fixed(width));
        }
        let unsupported = || Error::UnsupportedType(data_type.to_string());
        Ok(match data_type {
            DataType::Null => Layout::Null,
            DataType::Boolean => Layout::Boolean,
            DataType::FixedSizeBinary(width) => {
                Layout::Fixed(usize::try_from(*width).map_err(|_| unsupported())?)
            }
            DataType::Utf8 | DataType::Binary => Layout::VarLen { offset_width: 4 },
            DataType::LargeUtf8 | DataType::LargeBinary => Layout::VarLen { offset_width: 8 },
            DataType::List(_) | DataType::Map(_, _) => Layout::List { offset_width: 4 },
            DataType::LargeList(_) => Layout::List { offset_width: 8 },
            DataType::FixedSizeList(_, _) => Layout::FixedSizeList,
            DataType::Struct(_) => Layout::Struct,
            DataType::Dictionary(key, _) => match key.primitive_width() {
                Some(key_width) if key.is_integer() => Layout::Dictionary { key_width },
                _ => return Err(unsupported()),
            },
            _ => return Err(unsupported()),
        })
    }

    /// The buffers this node owns, in Arrow IPC order.
    pub fn buffers(self) -> impl ExactSizeIterator<Item = BufferKind> {
        use BufferKind::*;
        let (kinds, n) = match self {
            Layout::Null => ([Validity; 3], 0),
            Layout::Struct | Layout::FixedSizeList => ([Validity; 3], 1),
            Layout::Boolean => ([Validity, Bits, Bits], 2),
            Layout::Fixed(w) | Layout::Dictionary { key_width: w } => {
                ([Validity, Values(w), Values(w)], 2)
            }
            Layout::VarLen { offset_width } => ([Validity, Offsets(offset_width), Bytes], 3),
            Layout::List { offset_width } => {
                ([Validity, Offsets(offset_width), Offsets(offset_width)], 2)
            }
        };
        kinds.into_iter().take(n)
    }
}

/// The child types of `data_type`, in traversal order (a dictionary's values are its child).
pub fn children(data_type: &DataType) -> Vec<&DataType> {
    match data_type {
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::Map(f, _)
        | DataType::FixedSizeList(f, _) => vec![f.data_type()],
        DataType::Struct(fields) => fields
            .iter()
            .map(FieldRef::as_ref)
            .map(|f| f.data_type())
            .collect(),
        DataType::Dictionary(_, value) => vec![value.as_ref()],
        _ => Vec::new(),
    }
}

/// Visits every node of `data_type`'s tree in traversal order, with its layout; fails on the
/// first type the format does not carry.
pub fn walk(
    data_type: &DataType,
    visit: &mut impl FnMut(&DataType, Layout) -> Result<()>,
) -> Result<()> {
    visit(data_type, Layout::of(data_type)?)?;
    children(data_type)
        .into_iter()
        .try_for_each(|child| walk(child, visit))
}

/// Whether some node of `data_type` is dictionary encoded (Arrow Java cannot import those).
pub fn has_dictionary(data_type: &DataType) -> bool {
    matches!(data_type, DataType::Dictionary(_, _))
        || children(data_type).into_iter().any(has_dictionary)
}

/// `(nodes, buffers)` a column of `data_type` has in a column body and in the JNI descriptor.
pub fn counts(data_type: &DataType) -> Result<(usize, usize)> {
    let (mut nodes, mut buffers) = (0, 0);
    walk(data_type, &mut |_, layout| {
        nodes += 1;
        buffers += layout.buffers().len();
        Ok(())
    })?;
    Ok((nodes, buffers))
}

/// The element widths of every buffer in `data_type`'s tree, in traversal order.
pub fn buffer_widths(data_type: &DataType) -> Result<Vec<usize>> {
    Ok(buffer_specs(data_type)?
        .iter()
        .map(|spec| spec.kind.width())
        .collect())
}

/// What one buffer of a column body holds: its kind and the type of the node that owns it.
/// Encodings decide from this which buffers they transform; the node type tells apart buffers of
/// one width (an Int64's values from a Float64's, for an encoding of doubles).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferSpec<'t> {
    /// The type of the node that owns the buffer.
    pub node_type: &'t DataType,
    /// What the buffer holds.
    pub kind: BufferKind,
}

/// Every buffer of `data_type`'s tree, in traversal order (the order of a column body).
pub fn buffer_specs(data_type: &DataType) -> Result<Vec<BufferSpec<'_>>> {
    let mut specs = Vec::new();
    push_buffer_specs(data_type, &mut specs)?;
    Ok(specs)
}

fn push_buffer_specs<'t>(data_type: &'t DataType, specs: &mut Vec<BufferSpec<'t>>) -> Result<()> {
    specs.extend(Layout::of(data_type)?.buffers().map(|kind| BufferSpec {
        node_type: data_type,
        kind,
    }));
    children(data_type)
        .into_iter()
        .try_for_each(|child| push_buffer_specs(child, specs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_schema::Field;
    use std::sync::Arc;

    #[test]
    fn counts_follow_the_arrow_ipc_layout() {
        let utf8 = DataType::Utf8;
        assert_eq!(counts(&utf8).unwrap(), (1, 3));
        assert_eq!(counts(&DataType::Null).unwrap(), (1, 0));
        let list = DataType::List(Arc::new(Field::new("item", DataType::Int32, true)));
        assert_eq!(counts(&list).unwrap(), (2, 4));
        let dict = DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Utf8));
        assert_eq!(counts(&dict).unwrap(), (2, 5));
        assert!(has_dictionary(&dict));
        assert_eq!(buffer_widths(&dict).unwrap(), vec![1, 1, 1, 4, 1]);
        assert_eq!(
            buffer_widths(&DataType::FixedSizeBinary(3)).unwrap(),
            vec![1, 3]
        );
        assert!(counts(&DataType::Utf8View).is_err());
        let specs = buffer_specs(&dict).unwrap();
        assert_eq!(specs[3].node_type, &DataType::Utf8, "the values' offsets");
        assert_eq!(specs[3].kind, BufferKind::Offsets(4));
        assert_eq!(specs[1].node_type, &dict);
        assert_eq!(specs[1].kind, BufferKind::Values(1), "Int8 keys");
    }
}
