//! Column bodies: one column's Arrow data as a list of nodes and buffers in
//! Arrow IPC order (FORMAT.md §3), plus the tree walk that turns nodes and
//! buffers back into validated `ArrayData`. The same walk imports batches that
//! arrive from the JVM by address.

use arrow_buffer::{bit_util, Buffer};
use arrow_data::{ArrayData, ArrayDataBuilder};
use arrow_schema::DataType;

use crate::cursor::{pad8, to_u32, Cursor};
use crate::error::{Error, Result};
use crate::layout::{self, BufferKind, BufferSpec, Layout};
use std::ops::Range;

/// Checks that every node of `data_type` can be carried, before any work is done.
pub(crate) fn check_supported(data_type: &DataType) -> Result<()> {
    layout::walk(data_type, &mut |t, _| match t {
        DataType::Decimal128(precision, scale) => {
            check_decimal::<arrow_array::types::Decimal128Type>(t, *precision, *scale)
        }
        DataType::Decimal256(precision, scale) => {
            check_decimal::<arrow_array::types::Decimal256Type>(t, *precision, *scale)
        }
        _ => Ok(()),
    })
}

/// A decimal type's precision is 1..=its maximum and its scale at most its precision (what
/// Arrow Java and Spark require); a damaged schema without a checksum can say otherwise.
fn check_decimal<T: arrow_array::types::DecimalType>(
    data_type: &DataType,
    precision: u8,
    scale: i8,
) -> Result<()> {
    arrow_array::types::validate_decimal_precision_and_scale::<T>(precision, scale)
        .map_err(|e| Error::InvalidSchema(format!("{data_type}: {e}")))
}

/// True when some array in the tree starts at a non-zero offset, or its offsets do not start at
/// 0 (arrow-rs slices a string or list array by slicing its offsets, so its value bytes or child
/// still hold every value before the slice); such data is copied once so that every stored array
/// starts at offset 0 and holds only its own values.
pub(crate) fn needs_normalizing(data: &ArrayData) -> bool {
    data.offset() != 0
        || data.nulls().is_some_and(|n| n.offset() != 0)
        || first_offset_is_not_zero(data)
        || data.child_data().iter().any(needs_normalizing)
}

fn first_offset_is_not_zero(data: &ArrayData) -> bool {
    let width = match Layout::of(data.data_type()) {
        Ok(Layout::VarLen { offset_width } | Layout::List { offset_width }) => offset_width,
        _ => return false,
    };
    data.buffers()
        .first()
        .and_then(|offsets| offsets.as_slice().get(..width))
        .is_some_and(|first| first.iter().any(|&b| b != 0))
}

/// Returns `data` with every array starting at offset 0 (a copy only when needed).
pub fn normalized(data: &ArrayData) -> Result<ArrayData> {
    if !needs_normalizing(data) {
        return Ok(data.clone());
    }
    let mut copy = arrow_data::transform::MutableArrayData::new(vec![data], true, data.len());
    copy.try_extend(0, 0, data.len())
        .map_err(|e| Error::TooLarge(format!("cannot copy sliced array: {e}")))?;
    Ok(copy.freeze())
}

/// The nodes and buffer slices of one column, borrowed from its arrays.
#[derive(Debug, Default)]
pub struct BodyParts<'a> {
    nodes: Vec<(u32, u32)>,
    buffers: Vec<&'a [u8]>,
    /// What each buffer holds, for the encodings.
    specs: Vec<BufferSpec<'a>>,
}

impl<'a> BodyParts<'a> {
    /// Collects one column (its offsets must all be 0: see [`normalized`]).
    pub fn collect(data: &'a ArrayData) -> Result<Self> {
        let mut parts = BodyParts::default();
        parts.push(data)?;
        Ok(parts)
    }

    fn push(&mut self, data: &'a ArrayData) -> Result<()> {
        let len = data.len();
        let null_count = data.null_count();
        self.nodes.push((
            to_u32(len, "array length")?,
            to_u32(null_count, "null count")?,
        ));
        let buffer = |i: usize, n: usize| -> Result<&'a [u8]> {
            data.buffers()
                .get(i)
                .and_then(|b| b.as_slice().get(..n))
                .ok_or_else(|| {
                    Error::Internal(format!(
                        "buffer {i} of {} shorter than {n}",
                        data.data_type()
                    ))
                })
        };
        // Arrow's buffers, less validity, in layout order; values end at the last offset.
        let (mut next, mut values_end) = (0, 0);
        for kind in Layout::of(data.data_type())?.buffers() {
            let slice = match kind {
                BufferKind::Validity => match data.nulls() {
                    Some(nulls) if null_count > 0 => {
                        &nulls.buffer().as_slice()[..bit_util::ceil(len, 8)]
                    }
                    _ => &[][..],
                },
                BufferKind::Bits => buffer(next, bit_util::ceil(len, 8))?,
                BufferKind::Values(width) => buffer(next, len * width)?,
                BufferKind::Offsets(width) => {
                    let offsets = buffer(next, (len + 1) * width)?;
                    values_end = last_offset(offsets, width)?;
                    offsets
                }
                BufferKind::Bytes => buffer(next, values_end)?,
            };
            if kind != BufferKind::Validity {
                next += 1;
            }
            self.buffers.push(slice);
            self.specs.push(BufferSpec {
                node_type: data.data_type(),
                kind,
            });
        }
        for child in data.child_data() {
            self.push(child)?;
        }
        Ok(())
    }

    /// The nodes as `(length, null_count)`, in traversal order.
    pub fn nodes(&self) -> &[(u32, u32)] {
        &self.nodes
    }

    /// The buffer slices, in traversal order.
    pub fn buffers(&self) -> &[&'a [u8]] {
        &self.buffers
    }

    /// What each buffer holds, in traversal order.
    pub(crate) fn specs(&self) -> &[BufferSpec<'a>] {
        &self.specs
    }

    /// The size of this column's plain body (FORMAT.md §3).
    pub(crate) fn plain_len(&self) -> usize {
        pad8(8 + 8 * self.nodes.len() + 4 * self.buffers.len())
            + self.buffers.iter().map(|b| pad8(b.len())).sum::<usize>()
    }

    /// Appends the column body (FORMAT.md §3) to `out`, each buffer's contents laid out by
    /// `lay_out(spec, buffer, out)`, and returns the bytes written. The body records each
    /// buffer's plain length, so `lay_out` must append exactly as many bytes as it is given.
    pub(crate) fn write_with(
        &self,
        out: &mut Vec<u8>,
        mut lay_out: impl FnMut(&BufferSpec<'a>, &[u8], &mut Vec<u8>),
    ) -> Result<usize> {
        let start = out.len();
        out.reserve(self.plain_len());
        out.extend_from_slice(&to_u32(self.nodes.len(), "node count")?.to_le_bytes());
        out.extend_from_slice(&to_u32(self.buffers.len(), "buffer count")?.to_le_bytes());
        for (len, nulls) in &self.nodes {
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(&nulls.to_le_bytes());
        }
        for b in &self.buffers {
            out.extend_from_slice(&to_u32(b.len(), "buffer length")?.to_le_bytes());
        }
        out.resize(start + pad8(out.len() - start), 0);
        for (b, spec) in self.buffers.iter().zip(&self.specs) {
            let buffer_start = out.len();
            lay_out(spec, b, out);
            if out.len() - buffer_start != b.len() {
                return Err(Error::Internal(format!(
                    "a {:?} buffer of {} bytes was laid out in {}: this body records plain lengths",
                    spec.kind,
                    b.len(),
                    out.len() - buffer_start
                )));
            }
            out.resize(start + pad8(out.len() - start), 0);
        }
        Ok(out.len() - start)
    }
}

fn last_offset(offsets: &[u8], width: usize) -> Result<usize> {
    let tail = &offsets[offsets.len() - width..];
    let value = if width == 4 {
        i32::from_le_bytes(
            tail.try_into()
                .map_err(|_| Error::Internal("offset width".into()))?,
        ) as i64
    } else {
        i64::from_le_bytes(
            tail.try_into()
                .map_err(|_| Error::Internal("offset width".into()))?,
        )
    };
    usize::try_from(value).map_err(|_| Error::Internal(format!("negative offset {value}")))
}

/// Where one column body's nodes and buffers are, within a payload (FORMAT.md §3).
#[derive(Debug)]
pub(crate) struct BodyLayout {
    nodes: Vec<(usize, usize)>,
    buffers: Vec<Range<usize>>,
    /// The offset just past the body (after the last buffer's padding).
    pub(crate) end: usize,
}

impl BodyLayout {
    /// Parses the column body header at `start` of `body` and checks that every buffer lies
    /// within `body`.
    pub(crate) fn parse(body: &[u8], start: usize, what: &str) -> Result<Self> {
        let mut cur = Cursor::at(body, start);
        let node_count = cur.u32("column body node count")? as usize;
        let buffer_count = cur.u32("column body buffer count")? as usize;
        // Each node and length occupies bytes in the body, so these reads bound the counts.
        let node_bytes = cur.take(node_count.saturating_mul(8), "column body nodes")?;
        let length_bytes =
            cur.take(buffer_count.saturating_mul(4), "column body buffer lengths")?;
        let nodes = node_bytes
            .chunks_exact(8)
            .map(|c| {
                let mut n = Cursor::new(c);
                Ok((
                    n.u32("node length")? as usize,
                    n.u32("node null count")? as usize,
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        let mut pos = start + pad8(8 + node_bytes.len() + length_bytes.len());
        let mut buffers = Vec::with_capacity(buffer_count);
        for chunk in length_bytes.chunks_exact(4) {
            let len = Cursor::new(chunk).u32("buffer length")? as usize;
            let end = pos
                .checked_add(len)
                .filter(|&e| e <= body.len())
                .ok_or_else(|| Error::LengthOutOfBounds {
                    what: format!("{what}: buffer {}", buffers.len()),
                    start: pos as u64,
                    end: pos as u64 + len as u64,
                    len: body.len(),
                })?;
            buffers.push(pos..end);
            pos = start + pad8(end - start);
        }
        if pos > body.len() {
            return Err(Error::Truncated {
                what: "column body padding",
                offset: pos,
                needed: 0,
                len: body.len(),
            });
        }
        Ok(BodyLayout {
            nodes,
            buffers,
            end: pos,
        })
    }

    /// Where each buffer lies, in traversal order.
    pub(crate) fn buffers(&self) -> &[Range<usize>] {
        &self.buffers
    }
}

/// Nodes and buffers to rebuild arrays from, consumed in traversal order.
#[derive(Debug)]
pub struct PartsReader {
    nodes: Vec<(usize, usize)>,
    buffers: Vec<Buffer>,
    next_node: usize,
    next_buffer: usize,
    what: String,
}

impl PartsReader {
    /// Parts given directly (the JNI import path).
    pub fn new(nodes: Vec<(usize, usize)>, buffers: Vec<Buffer>, what: String) -> Self {
        PartsReader {
            nodes,
            buffers,
            next_node: 0,
            next_buffer: 0,
            what,
        }
    }

    /// A reader over `body` (a decompressed payload) for the column body whose layout is `layout`.
    pub(crate) fn over(body: &Buffer, layout: BodyLayout, what: String) -> Self {
        let buffers = layout
            .buffers
            .into_iter()
            .map(|r| body.slice_with_length(r.start, r.len()))
            .collect();
        PartsReader::new(layout.nodes, buffers, what)
    }

    fn node(&mut self) -> Result<(usize, usize)> {
        let node = self.nodes.get(self.next_node).copied().ok_or_else(|| {
            Error::SchemaMismatch(format!(
                "{}: the schema needs more than {} nodes",
                self.what,
                self.nodes.len()
            ))
        })?;
        self.next_node += 1;
        Ok(node)
    }

    fn buffer(&mut self) -> Result<Buffer> {
        let buffer = self.buffers.get(self.next_buffer).cloned().ok_or_else(|| {
            Error::SchemaMismatch(format!(
                "{}: the schema needs more than {} buffers",
                self.what,
                self.buffers.len()
            ))
        })?;
        self.next_buffer += 1;
        Ok(buffer)
    }

    /// Fails unless every node and buffer was consumed.
    pub fn finish(&self) -> Result<()> {
        if self.next_node != self.nodes.len() || self.next_buffer != self.buffers.len() {
            return Err(Error::SchemaMismatch(format!(
                "{}: {} nodes and {} buffers present, the schema uses {} and {}",
                self.what,
                self.nodes.len(),
                self.buffers.len(),
                self.next_node,
                self.next_buffer
            )));
        }
        Ok(())
    }

    /// `buffer` if it holds whole `width`-byte elements: arrow-data's validation reads offsets
    /// and dictionary keys as typed slices and panics on a partial trailing element.
    fn whole_elements(&self, buffer: Buffer, width: usize, data_type: &DataType) -> Result<Buffer> {
        if buffer.len().is_multiple_of(width) {
            return Ok(buffer);
        }
        Err(Error::InvalidData {
            what: self.what.clone(),
            source: arrow_schema::ArrowError::InvalidArgumentError(format!(
                "a {}-byte buffer of {data_type} holds a partial {width}-byte element",
                buffer.len()
            )),
        })
    }

    /// Rebuilds one array of `data_type`, fully validated by arrow-rs.
    pub fn read_array(&mut self, data_type: &DataType) -> Result<ArrayData> {
        let layout = Layout::of(data_type).map_err(|_| {
            Error::SchemaMismatch(format!(
                "{}: schema has unsupported type {data_type}",
                self.what
            ))
        })?;
        let (len, null_count) = self.node()?;
        let mut validity = None;
        let mut buffers = Vec::with_capacity(2);
        for kind in layout.buffers() {
            let mut buffer = self.buffer()?;
            if kind == BufferKind::Validity {
                validity = Some(buffer);
                continue;
            }
            if let BufferKind::Offsets(width) = kind {
                buffer = offsets_or_zero(buffer, len, width);
            }
            if let Some(width) = kind.whole_elements(layout) {
                buffer = self.whole_elements(buffer, width, data_type)?;
            }
            buffers.push(buffer);
        }
        let children = layout::children(data_type)
            .into_iter()
            .map(|child| self.read_array(child))
            .collect::<Result<Vec<_>>>()?;
        let mut builder = ArrayDataBuilder::new(data_type.clone())
            .len(len)
            .buffers(buffers)
            .child_data(children)
            .align_buffers(true);
        if null_count > 0 && !matches!(layout, Layout::Null) {
            builder = builder.null_bit_buffer(validity);
        }
        let data = builder.build().map_err(|source| Error::InvalidData {
            what: self.what.clone(),
            source,
        })?;
        if !matches!(layout, Layout::Null) && data.null_count() != null_count {
            return Err(Error::InvalidData {
                what: self.what.clone(),
                source: arrow_schema::ArrowError::InvalidArgumentError(format!(
                    "node declares {null_count} nulls, validity has {}",
                    data.null_count()
                )),
            });
        }
        Ok(data)
    }
}

/// Arrow allows an empty offsets buffer for an empty array; arrow-rs wants one entry.
fn offsets_or_zero(buffer: Buffer, len: usize, offset_width: usize) -> Buffer {
    if len == 0 && buffer.is_empty() {
        Buffer::from_slice_ref(&[0u8; 8][..offset_width])
    } else {
        buffer
    }
}
