//! Column bodies that describe their own encoding (V4, FORMAT.md §3.2): the nodes, then one
//! descriptor per buffer (decoded length, stored length, encoding), then the stored buffers. The
//! writer chooses each buffer's encoding ([`crate::select::choose_buffer`]); the reader decodes
//! every buffer into the plain body of §3, which the V3 reader's tree walk then reads.

use arrow_buffer::MutableBuffer;
use arrow_schema::DataType;

use crate::body::BodyParts;
use crate::budget;
use crate::codec::{Codec, CodecSample};
use crate::cursor::{pad8, to_u32, Cursor};
use crate::error::{Error, Result};
use crate::layout::{self, BufferKind};
use crate::lightweight::{string_dictionary, Analysis, BufferEncoding, PairSide};
use crate::select::{self, BufferChoice, EncodingPolicy};

/// Bytes of one buffer descriptor: `u32 decoded_len, u32 stored_len, u8 encoding, 3 zero`.
pub(crate) const DESCRIPTOR_LEN: usize = 12;

/// A V4 body declares at most this many decoded bytes per stored byte of a buffer whose size
/// its rows do not set, plus [`FREE_BYTES`]: what stops a few stored bytes (a constant) from
/// asking for gigabytes in a list's child. Buffers whose size the row count sets are held to
/// that size instead (`budget::row_bounds`), however few bytes they store.
pub(crate) const MAX_EXPANSION: u64 = 1024;
/// See [`MAX_EXPANSION`].
pub(crate) const FREE_BYTES: u64 = 4096;

/// Whether a buffer of `decoded` bytes may be stored in `stored` bytes (the reader's rule,
/// which the writer keeps so that it never writes what the reader refuses): at most its
/// `row_bound` where the rows set its size, else at most [`MAX_EXPANSION`] times its stored
/// bytes plus [`FREE_BYTES`].
pub(crate) fn expansion_allowed(decoded: u64, stored: u64, row_bound: Option<u64>) -> bool {
    match row_bound {
        Some(bound) => decoded <= bound,
        None => {
            decoded
                <= stored
                    .saturating_mul(MAX_EXPANSION)
                    .saturating_add(FREE_BYTES)
        }
    }
}

/// What [`write`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WrittenBody {
    /// The plain body's length (what the reader decodes to).
    pub(crate) decoded_len: usize,
    /// Whether some buffer is stored in an encoding other than plain.
    pub(crate) encoded: bool,
    /// Whether zstd pays for this body under [`Codec::Adaptive`], where the samples the choice
    /// of encodings compressed both ways cover at least three quarters of it (`None` else).
    pub(crate) zstd_evidence: Option<bool>,
}

/// The codecs' evidence over a body's buffers: each buffer's sample (where the choice of its
/// encoding compressed one both ways) scaled to the bytes the buffer stores.
#[derive(Debug, Default)]
struct BodyEvidence {
    covered: Option<CodecSample>,
}

impl BodyEvidence {
    fn add(&mut self, stored: usize, sample: Option<CodecSample>) {
        let Some(CodecSample {
            sampled,
            lz4,
            zstd: Some(zstd),
        }) = sample
        else {
            return;
        };
        if sampled == 0 {
            return;
        }
        let stored = stored as u64;
        let scaled = CodecSample {
            sampled: stored,
            lz4: (stored * lz4).div_ceil(sampled),
            zstd: Some((stored * zstd).div_ceil(sampled)),
        };
        self.covered = Some(self.covered.map_or(scaled, |c| c.plus(scaled)));
    }

    /// Whether zstd pays, if the evidence covers three quarters of the `body_len` bytes.
    fn zstd_pays(&self, body_len: usize) -> Option<bool> {
        let covered = self.covered?;
        if covered.sampled * 4 < body_len as u64 * 3 {
            return None;
        }
        covered.zstd_pays()
    }
}

/// Appends the V4 body of `column` (of `data_type`, in a frame of `rows` rows) to `out`, each
/// buffer in the encoding `policy` chooses for it under `codec`.
pub(crate) fn write(
    column: &BodyParts<'_>,
    data_type: &DataType,
    rows: u32,
    policy: EncodingPolicy,
    codec: Codec,
    out: &mut Vec<u8>,
) -> Result<WrittenBody> {
    let bounds = budget::row_bounds(data_type, u64::from(rows));
    let start = out.len();
    let buffers = column.buffers();
    out.extend_from_slice(&to_u32(column.nodes().len(), "node count")?.to_le_bytes());
    out.extend_from_slice(&to_u32(buffers.len(), "buffer count")?.to_le_bytes());
    for (len, nulls) in column.nodes() {
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&nulls.to_le_bytes());
    }
    let descriptors = out.len();
    out.resize(descriptors + DESCRIPTOR_LEN * buffers.len(), 0);
    out.resize(start + pad8(out.len() - start), 0);
    let specs = column.specs();
    let mut encoded = false;
    let mut evidence = BodyEvidence::default();
    let mut i = 0;
    while i < buffers.len() {
        let analysis = Analysis::of(buffers[i], specs[i].kind).with_floats(matches!(
            specs[i].node_type,
            DataType::Float64 | DataType::Float32
        ));
        let bound = bounds.get(i).copied().flatten();
        let values_follow = specs.get(i + 1).map(|s| s.kind) == Some(BufferKind::Bytes);
        if values_follow && matches!(specs[i].kind, BufferKind::Offsets(4 | 8)) {
            let values = Analysis::of(buffers[i + 1], BufferKind::Bytes);
            let values_bound = bounds.get(i + 1).copied().flatten();
            let chosen = choose_var_len(policy, codec, &analysis, bound, &values, values_bound);
            match chosen {
                VarLenChoice::Dictionary(plan) => {
                    let (mut offsets_stored, mut values_stored) = (Vec::new(), Vec::new());
                    string_dictionary::encode(
                        &plan,
                        buffers[i + 1],
                        &mut offsets_stored,
                        &mut values_stored,
                    );
                    for (k, encoding, stored) in [
                        (i, BufferEncoding::StringDictionary, offsets_stored),
                        (
                            i + 1,
                            BufferEncoding::StringDictionaryEntries,
                            values_stored,
                        ),
                    ] {
                        out.extend_from_slice(&stored);
                        let decoded = buffers[k].len();
                        put_descriptor(
                            out,
                            descriptors + DESCRIPTOR_LEN * k,
                            decoded,
                            stored.len(),
                            encoding,
                        )?;
                        out.resize(start + pad8(out.len() - start), 0);
                    }
                    encoded = true;
                }
                VarLenChoice::Apart(offsets_choice, values_choice) => {
                    for (k, buffer, choice) in [
                        (i, &analysis, offsets_choice),
                        (i + 1, &values, values_choice),
                    ] {
                        let stored = write_buffer(
                            out,
                            start,
                            descriptors + DESCRIPTOR_LEN * k,
                            buffer,
                            choice.encoding,
                        )?;
                        evidence.add(stored, choice.sample);
                        encoded |= choice.encoding != BufferEncoding::Plain;
                    }
                }
            }
            i += 2;
            continue;
        }
        let choice = select::choose_buffer(policy, codec, &analysis, bound);
        let stored = write_buffer(
            out,
            start,
            descriptors + DESCRIPTOR_LEN * i,
            &analysis,
            choice.encoding,
        )?;
        evidence.add(stored, choice.sample);
        encoded |= choice.encoding != BufferEncoding::Plain;
        i += 1;
    }
    Ok(WrittenBody {
        decoded_len: column.plain_len(),
        encoded,
        zstd_evidence: evidence.zstd_pays(out.len() - start),
    })
}

/// Appends one buffer in `encoding`, fills its descriptor at `at` and pads the body (which
/// began at `start`) to 8 bytes; the bytes the buffer stores.
fn write_buffer(
    out: &mut Vec<u8>,
    start: usize,
    at: usize,
    buffer: &Analysis<'_>,
    encoding: BufferEncoding,
) -> Result<usize> {
    let buffer_start = out.len();
    encoding.unit().encode(buffer, out)?;
    let stored = out.len() - buffer_start;
    put_descriptor(out, at, buffer.bytes.len(), stored, encoding)?;
    out.resize(start + pad8(out.len() - start), 0);
    Ok(stored)
}

fn put_descriptor(
    out: &mut [u8],
    at: usize,
    decoded: usize,
    stored: usize,
    encoding: BufferEncoding,
) -> Result<()> {
    out[at..at + 4].copy_from_slice(&to_u32(decoded, "buffer length")?.to_le_bytes());
    out[at + 4..at + 8].copy_from_slice(&to_u32(stored, "stored buffer length")?.to_le_bytes());
    out[at + 8] = encoding.id();
    Ok(())
}

/// How a variable-length node's offsets and value bytes are stored.
enum VarLenChoice {
    /// Together, as a string dictionary.
    Dictionary(string_dictionary::Plan),
    /// Each in its own encoding.
    Apart(BufferChoice, BufferChoice),
}

/// The choice for a variable-length node: a string dictionary where it stores fewer bytes than
/// the two buffers apart (each as [`select::choose_buffer`] chooses), and the reader's rules
/// allow it. A dictionary that keeps an eighth of the bytes or less is taken without weighing
/// the buffers apart (which would train FSST on the value bytes for nothing).
fn choose_var_len(
    policy: EncodingPolicy,
    codec: Codec,
    offsets: &Analysis<'_>,
    offsets_bound: Option<u64>,
    values: &Analysis<'_>,
    values_bound: Option<u64>,
) -> VarLenChoice {
    let raw = (offsets.bytes.len() + values.bytes.len()) as u64;
    let dictionary = match (policy, &offsets.values) {
        (EncodingPolicy::Auto, Some(o)) => string_dictionary::plan(&o.values, values.bytes, raw)
            .filter(|plan| dictionary_allowed(plan, offsets, offsets_bound, values, values_bound)),
        _ => None,
    };
    if let Some(plan) = dictionary {
        if (plan.offsets_len + plan.values_len) as u64 * 8 <= raw {
            return VarLenChoice::Dictionary(plan);
        }
        let o = select::choose_buffer(policy, codec, offsets, offsets_bound);
        let v = select::choose_buffer(policy, codec, values, values_bound);
        return if ((plan.offsets_len + plan.values_len) as u64) < o.cost + v.cost {
            VarLenChoice::Dictionary(plan)
        } else {
            VarLenChoice::Apart(o, v)
        };
    }
    VarLenChoice::Apart(
        select::choose_buffer(policy, codec, offsets, offsets_bound),
        select::choose_buffer(policy, codec, values, values_bound),
    )
}

/// Whether the reader's rules take the dictionary's two stored halves (the writer never writes
/// what the reader refuses).
fn dictionary_allowed(
    plan: &string_dictionary::Plan,
    offsets: &Analysis<'_>,
    offsets_bound: Option<u64>,
    values: &Analysis<'_>,
    values_bound: Option<u64>,
) -> bool {
    let (offsets_len, values_len) = (offsets.bytes.len() as u64, values.bytes.len() as u64);
    let strings = (offsets_len / offsets.width() as u64).saturating_sub(1);
    plan.offsets_len as u64 <= offsets_len
        && plan.values_len as u64 <= values_len
        && expansion_allowed(offsets_len, plan.offsets_len as u64, offsets_bound)
        && values_bound.is_none_or(|b| values_len <= b)
        && values_len <= string_dictionary::values_bound(strings, plan.values_len as u64)
}

/// One buffer descriptor as stored.
#[derive(Debug, Clone, Copy)]
struct Descriptor {
    decoded_len: usize,
    stored_len: usize,
    encoding: BufferEncoding,
}

/// A V4 column body whose header, descriptors and stored buffers were checked: the node
/// lengths, each buffer's descriptor and its stored range, the plain body's header length and
/// its whole decoded length.
struct Checked<'s> {
    nodes: &'s [u8],
    descriptors: Vec<Descriptor>,
    ranges: Vec<std::ops::Range<usize>>,
    header_len: usize,
    decoded_total: u64,
}

/// Checks the V4 body `stored` of a column of `data_type` in a frame of `rows` rows (as
/// [`decode`] says) without decoding a buffer.
fn checked<'s>(
    stored: &'s [u8],
    data_type: &DataType,
    rows: u32,
    declared: Option<u64>,
    what: &str,
) -> Result<Checked<'s>> {
    let mut cur = Cursor::new(stored);
    let node_count = cur.u32("column body node count")? as usize;
    let buffer_count = cur.u32("column body buffer count")? as usize;
    let (nodes_expected, buffers_expected) = layout::counts(data_type)?;
    if node_count != nodes_expected || buffer_count != buffers_expected {
        return Err(Error::SchemaMismatch(format!(
            "{what}: {node_count} nodes and {buffer_count} buffers present, the schema's {data_type} \
             has {nodes_expected} and {buffers_expected}"
        )));
    }
    let nodes = cur.take(node_count * 8, "column body nodes")?;
    let top_rows = Cursor::new(nodes).u32("node length")?;
    if top_rows != rows {
        return Err(Error::SchemaMismatch(format!(
            "{what} has {top_rows} rows, the frame {rows}"
        )));
    }
    let descriptor_bytes = cur.take(buffer_count * DESCRIPTOR_LEN, "buffer descriptors")?;
    let specs = layout::buffer_specs(data_type)?;
    let bounds = budget::row_bounds(data_type, u64::from(rows));
    let mut descriptors = Vec::with_capacity(buffer_count);
    let header_len = pad8(8 + nodes.len() + 4 * buffer_count);
    let mut decoded_total = header_len as u64;
    for (i, chunk) in descriptor_bytes.chunks_exact(DESCRIPTOR_LEN).enumerate() {
        let mut d = Cursor::new(chunk);
        let decoded_len = d.u32("decoded length")?;
        let stored_len = d.u32("stored length")?;
        let id = d.u8("buffer encoding")?;
        if chunk[9..].iter().any(|&b| b != 0) {
            return Err(Error::CorruptEncoding(format!(
                "{what}: buffer {i}: descriptor reserved bytes are not zero"
            )));
        }
        let encoding =
            BufferEncoding::from_stored(id).ok_or(Error::UnsupportedBufferEncoding(id))?;
        let kind = specs.get(i).map(|s| s.kind).unwrap_or(BufferKind::Bytes);
        if !encoding.unit().applies_to(kind) {
            return Err(Error::CorruptEncoding(format!(
                "{what}: buffer {i} ({kind:?}) cannot be {}",
                encoding.name()
            )));
        }
        // The halves of a pair sit side by side: offsets, then the same node's value bytes.
        let paired = match encoding.pair() {
            None => true,
            Some((PairSide::Offsets, partner)) => {
                specs.get(i + 1).map(|s| s.kind) == Some(BufferKind::Bytes)
                    && descriptor_bytes
                        .get((i + 1) * DESCRIPTOR_LEN + 8)
                        .copied()
                        .and_then(BufferEncoding::from_stored)
                        == Some(partner)
            }
            Some((PairSide::Values, partner)) => {
                descriptors.last().map(|d: &Descriptor| d.encoding) == Some(partner)
            }
        };
        if !paired {
            return Err(Error::CorruptEncoding(format!(
                "{what}: buffer {i} is half of a {} without its other half beside it",
                encoding.name()
            )));
        }
        if stored_len > decoded_len {
            return Err(Error::CorruptEncoding(format!(
                "{what}: buffer {i} stores {stored_len} bytes for {decoded_len} decoded (an \
                 encoding is only chosen where it is smaller)"
            )));
        }
        let bound = bounds.get(i).copied().flatten();
        let allowed = match (encoding.pair(), descriptors.last()) {
            // A string dictionary's values are at most every entry once per value.
            (Some((PairSide::Values, _)), Some(offsets)) => {
                let width = specs.get(i - 1).map_or(1, |s| s.kind.width()) as u64;
                let strings = (offsets.decoded_len as u64 / width).saturating_sub(1);
                bound.is_none_or(|b| u64::from(decoded_len) <= b)
                    && u64::from(decoded_len)
                        <= string_dictionary::values_bound(strings, u64::from(stored_len))
            }
            _ => expansion_allowed(u64::from(decoded_len), u64::from(stored_len), bound),
        };
        if !allowed {
            return Err(Error::OverBudget(format!(
                "{what}: buffer {i} declares {decoded_len} decoded bytes from {stored_len} stored"
            )));
        }
        decoded_total += pad8(decoded_len as usize) as u64;
        descriptors.push(Descriptor {
            decoded_len: decoded_len as usize,
            stored_len: stored_len as usize,
            encoding,
        });
    }
    if let Some(max) = budget::fixed_body_len(data_type, u64::from(rows)) {
        if decoded_total > max {
            return Err(Error::OverBudget(format!(
                "{what} ({data_type}) declares {decoded_total} decoded bytes, but {rows} rows of \
                 it take at most {max}"
            )));
        }
    }
    match declared {
        Some(declared) if declared != decoded_total => {
            return Err(Error::CorruptEncoding(format!(
                "{what}: its buffers decode to {decoded_total} bytes, the directory says {declared}"
            )));
        }
        None if decoded_total > budget::MAX_DECODED_FRAME_BYTES => {
            return Err(Error::OverBudget(format!(
                "{what} declares {decoded_total} decoded bytes, above a frame's decode budget \
                 ({})",
                budget::MAX_DECODED_FRAME_BYTES
            )));
        }
        _ => {}
    }
    // The stored buffers, each within the body, before anything is allocated for them.
    let mut pos = pad8(cur.position());
    let mut ranges = Vec::with_capacity(buffer_count);
    for (i, d) in descriptors.iter().enumerate() {
        let end = pos
            .checked_add(d.stored_len)
            .filter(|&e| e <= stored.len())
            .ok_or_else(|| Error::LengthOutOfBounds {
                what: format!("{what}: stored buffer {i}"),
                start: pos as u64,
                end: pos as u64 + d.stored_len as u64,
                len: stored.len(),
            })?;
        ranges.push(pos..end);
        pos = pad8(end);
    }
    if pos != stored.len() {
        return Err(if pos > stored.len() {
            Error::Truncated {
                what: "column body padding",
                offset: pos,
                needed: 0,
                len: stored.len(),
            }
        } else {
            Error::TrailingBytes {
                what: "column body",
                extra: stored.len() - pos,
            }
        });
    }
    Ok(Checked {
        nodes,
        descriptors,
        ranges,
        header_len,
        decoded_total,
    })
}

/// Decodes the V4 body `stored` (a whole decompressed payload) of a column of `data_type` in a
/// frame of `rows` rows into its plain body (§3), checking every declared length against the
/// bytes present and the decode budget before allocating. `declared` is the plain body's length
/// as the frame's directory states it, which the descriptors must add up to (`None`, for a body
/// read without its frame: any length within the frame's decode budget).
pub(crate) fn decode(
    stored: &[u8],
    data_type: &DataType,
    rows: u32,
    declared: Option<u64>,
    what: &str,
) -> Result<MutableBuffer> {
    let Checked {
        nodes,
        descriptors,
        ranges,
        header_len,
        decoded_total,
    } = checked(stored, data_type, rows, declared, what)?;
    let specs = layout::buffer_specs(data_type)?;
    let total = usize::try_from(decoded_total)
        .map_err(|_| Error::OverBudget(format!("{what}: {decoded_total} bytes")))?;
    let mut plain = MutableBuffer::from_len_zeroed(total);
    let out = plain.as_slice_mut();
    out[0..8].copy_from_slice(&stored[0..8]);
    out[8..8 + nodes.len()].copy_from_slice(nodes);
    let mut at = 8 + nodes.len();
    for d in &descriptors {
        out[at..at + 4].copy_from_slice(&(d.decoded_len as u32).to_le_bytes());
        at += 4;
    }
    let mut at = header_len;
    let mut i = 0;
    while i < descriptors.len() {
        let d = &descriptors[i];
        let width = specs.get(i).map_or(1, |s| s.kind.width());
        let what = format!("{what}: buffer {i} ({})", d.encoding.name());
        if let Some((PairSide::Offsets, _)) = d.encoding.pair() {
            // Checked above: the values half is descriptor i + 1.
            let v = &descriptors[i + 1];
            let values_at = at + pad8(d.decoded_len);
            let (offsets_out, rest) = out[at..].split_at_mut(values_at - at);
            string_dictionary::decode(
                &stored[ranges[i].clone()],
                &stored[ranges[i + 1].clone()],
                width,
                &mut offsets_out[..d.decoded_len],
                &mut rest[..v.decoded_len],
                &what,
            )?;
            at = values_at + pad8(v.decoded_len);
            i += 2;
            continue;
        }
        d.encoding.unit().decode(
            &stored[ranges[i].clone()],
            width,
            &mut out[at..at + d.decoded_len],
            &what,
        )?;
        at += pad8(d.decoded_len);
        i += 1;
    }
    Ok(plain)
}

/// A flat string or binary column's V4 body whose values are a string dictionary, decoded as
/// that dictionary rather than value by value: its validity bitmap as the plain body holds it
/// (empty without nulls), its null count, its entries' bytes (borrowed from the body) and
/// the keyed decode.
pub(crate) struct KeyedBody<'s> {
    pub(crate) validity: Vec<u8>,
    pub(crate) null_count: u32,
    pub(crate) entries: &'s [u8],
    pub(crate) keyed: string_dictionary::Keyed,
}

/// Decodes the V4 body `stored` of a `Utf8` or `Binary` column as its dictionary when its value
/// buffers are a string dictionary (`None` for every other body, which [`decode`] decodes),
/// after every check [`decode`] makes of the body and its declared lengths: the offsets as many
/// as the rows and one, and the values as long as the keys' entries together.
pub(crate) fn decode_keyed<'s>(
    stored: &'s [u8],
    data_type: &DataType,
    rows: u32,
    declared: Option<u64>,
    what: &str,
) -> Result<Option<KeyedBody<'s>>> {
    if !matches!(data_type, DataType::Utf8 | DataType::Binary) {
        return Ok(None);
    }
    let Checked {
        nodes,
        descriptors,
        ranges,
        ..
    } = checked(stored, data_type, rows, declared, what)?;
    let [validity, offsets, values] = descriptors.as_slice() else {
        return Err(Error::Internal(format!(
            "{what}: {} buffers of a {data_type} body",
            descriptors.len()
        )));
    };
    if !matches!(offsets.encoding.pair(), Some((PairSide::Offsets, _))) {
        return Ok(None);
    }
    let corrupt = |m: String| Error::CorruptEncoding(format!("{what}: {m}"));
    let n = rows as usize;
    if offsets.decoded_len != (n + 1) * 4 {
        return Err(corrupt(format!(
            "{} offset bytes for {n} values",
            offsets.decoded_len
        )));
    }
    let mut validity_bits = vec![0u8; validity.decoded_len];
    validity.encoding.unit().decode(
        &stored[ranges[0].clone()],
        1,
        &mut validity_bits,
        &format!("{what}: buffer 0 ({})", validity.encoding.name()),
    )?;
    let null_count = Cursor::new(&nodes[4..]).u32("node null count")?;
    let entries = &stored[ranges[2].clone()];
    let keyed = string_dictionary::decode_keyed(
        &stored[ranges[1].clone()],
        entries,
        n,
        &format!("{what}: buffer 1 ({})", offsets.encoding.name()),
    )?;
    let offsets_of = &keyed.entry_offsets;
    let values_len: u64 = keyed
        .keys
        .iter()
        .map(|&k| (offsets_of[k as usize + 1] - offsets_of[k as usize]) as u64)
        .sum();
    if values_len != values.decoded_len as u64 {
        return Err(corrupt(format!(
            "the values decode to {values_len} bytes, the descriptor says {}",
            values.decoded_len
        )));
    }
    Ok(Some(KeyedBody {
        validity: validity_bits,
        null_count,
        entries,
        keyed,
    }))
}

/// The encoding each buffer of the V4 body `stored` (a whole decompressed payload) states, in
/// traversal order; the descriptors are read, nothing is decoded.
pub(crate) fn buffer_encodings(stored: &[u8], what: &str) -> Result<Vec<BufferEncoding>> {
    let mut cur = Cursor::new(stored);
    let node_count = cur.u32("column body node count")? as usize;
    let buffer_count = cur.u32("column body buffer count")? as usize;
    cur.take(node_count.saturating_mul(8), "column body nodes")?;
    let descriptors = cur.take(
        buffer_count.saturating_mul(DESCRIPTOR_LEN),
        "buffer descriptors",
    )?;
    descriptors
        .chunks_exact(DESCRIPTOR_LEN)
        .map(|d| {
            BufferEncoding::from_stored(d[8]).ok_or_else(|| {
                Error::CorruptEncoding(format!("{what}: unknown buffer encoding {}", d[8]))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int32Type;
    use arrow_array::{Array, ArrayRef, StringArray};
    use std::sync::Arc;

    /// The exact bytes the best per-buffer encoding stores for `buffer` without a codec.
    fn best_apart(buffer: &Analysis<'_>, bound: Option<u64>) -> u64 {
        let chosen =
            select::choose_buffer(EncodingPolicy::Auto, Codec::None, buffer, bound).encoding;
        let mut out = Vec::new();
        chosen.unit().encode(buffer, &mut out).unwrap();
        out.len() as u64
    }

    /// The oracle for a variable-length node: the string dictionary is chosen when it stores
    /// fewer bytes than both buffers apart (or an eighth of the plain bytes, where it is taken at
    /// once), and the buffers apart otherwise; both decode back.
    #[test]
    fn a_var_len_node_takes_the_smaller_of_dictionary_and_apart() {
        let agents = [
            "Mozilla/5.0 (X11; Linux x86_64)",
            "curl/8.4.0",
            "",
            "Wget/1.21 é",
        ];
        let shapes: Vec<(&str, Vec<Option<String>>)> = vec![
            (
                "four values",
                (0..3000)
                    .map(|i| Some(agents[i * 7 % 4].to_string()))
                    .collect(),
            ),
            (
                "ids",
                (0..3000).map(|i| Some(format!("id-{i:08}"))).collect(),
            ),
            (
                "half repeats",
                (0..3000)
                    .map(|i| Some(format!("k{}", if i % 2 == 0 { i } else { 7 })))
                    .collect(),
            ),
            (
                "a thousand paths",
                (0..3000)
                    .map(|i| Some(format!("/api/v2/items/{}", i * 7919 % 1000)))
                    .collect(),
            ),
            (
                "levels with nulls",
                (0..3000)
                    .map(|i| {
                        (i % 11 != 0).then(|| ["INFO", "WARN", "ERROR"][i * 13 % 3].to_string())
                    })
                    .collect(),
            ),
            (
                "nulls and text",
                (0..3000)
                    .map(|i| (i % 3 != 0).then(|| format!("GET /x/{} took {} ms", i % 50, i % 7)))
                    .collect(),
            ),
        ];
        let mut dictionaries = 0;
        for (name, values) in shapes {
            let array = StringArray::from(values);
            let data = array.to_data();
            let parts = BodyParts::collect(&data).unwrap();
            let (offsets, bytes) = (parts.buffers()[1], parts.buffers()[2]);
            let offsets_a = Analysis::of(offsets, BufferKind::Offsets(4));
            let values_a = Analysis::of(bytes, BufferKind::Bytes);
            let bound = budget::row_bounds(&DataType::Utf8, array.len() as u64)[1];
            let apart = best_apart(&offsets_a, bound) + best_apart(&values_a, None);
            let raw = (offsets.len() + bytes.len()) as u64;
            let choice = choose_var_len(
                EncodingPolicy::Auto,
                Codec::None,
                &offsets_a,
                bound,
                &values_a,
                None,
            );
            match choice {
                VarLenChoice::Dictionary(plan) => {
                    dictionaries += 1;
                    let dict = (plan.offsets_len + plan.values_len) as u64;
                    assert!(
                        dict < apart || dict * 8 <= raw,
                        "{name}: {dict} vs {apart} apart"
                    );
                }
                VarLenChoice::Apart(..) => {
                    if let Some(plan) = string_dictionary::plan(
                        &offsets_a.values.as_ref().unwrap().values,
                        bytes,
                        raw,
                    ) {
                        let dict = (plan.offsets_len + plan.values_len) as u64;
                        assert!(
                            dict >= apart,
                            "{name}: apart {apart} but a dictionary of {dict}"
                        );
                    }
                }
            }
            // And the whole body round-trips.
            let mut body = Vec::new();
            write(
                &parts,
                &DataType::Utf8,
                array.len() as u32,
                EncodingPolicy::Auto,
                Codec::None,
                &mut body,
            )
            .unwrap();
            let plain = decode(&body, &DataType::Utf8, array.len() as u32, None, name).unwrap();
            let mut expected = Vec::new();
            parts
                .write_with(&mut expected, |_, b, out| out.extend_from_slice(b))
                .unwrap();
            assert_eq!(plain.as_slice(), &expected[..], "{name}");
        }
        assert!(
            dictionaries >= 2,
            "the low-cardinality shapes take the dictionary"
        );
    }
    /// Under the adaptive codec, the evidence the choice of encodings gathered says what the
    /// payload's own sampling says (zstd or not), so skipping that sampling changes no payload;
    /// it exists for bodies made mostly of sampled text, and not where the samples were too
    /// small to judge zstd.
    #[test]
    fn the_codecs_evidence_agrees_with_sampling_the_body() {
        let mut rng = crate::encodings::test_columns::Rng::new(41);
        let mut word = |alphabet: &[u8], len: usize| -> String {
            (0..len)
                .map(|_| alphabet[(rng.next() % alphabet.len() as u64) as usize] as char)
                .collect()
        };
        let events = ["click", "view", "buy", "scroll"];
        // A name, the strings, and the evidence expected (where the shape decides it).
        type Shape = (&'static str, Vec<Option<String>>, Option<bool>);
        let shapes: Vec<Shape> = vec![
            (
                "json events",
                (0..10_000)
                    .map(|i| {
                        Some(format!(
                            "{{\"user_id\":{},\"event\":\"{}\",\"amount\":{}}}",
                            word(b"0123456789", 7),
                            events[i % 4],
                            word(b"0123456789", 5)
                        ))
                    })
                    .collect(),
                Some(true),
            ),
            (
                "random ids",
                (0..10_000)
                    .map(|_| Some(word(b"abcdefghijklmnopqrstuvwxyz0123456789", 12)))
                    .collect(),
                // Few bits a byte, which zstd's entropy coding takes and lz4 cannot.
                Some(true),
            ),
            (
                "urls with nulls",
                (0..10_000)
                    .map(|i| {
                        (i % 9 != 0).then(|| {
                            format!(
                                "https://shop.example.com/{}/item/{}?ref={}",
                                ["en", "de", "fr"][i % 3],
                                word(b"0123456789", 6),
                                word(b"abcdef", 4)
                            )
                        })
                    })
                    .collect(),
                None,
            ),
            (
                "a short column",
                (0..300).map(|i| Some(format!("row {i}"))).collect(),
                None,
            ),
        ];
        for (name, values, expected) in shapes {
            let array = StringArray::from(values);
            let data = array.to_data();
            let parts = BodyParts::collect(&data).unwrap();
            let mut body = Vec::new();
            let written = write(
                &parts,
                &DataType::Utf8,
                array.len() as u32,
                EncodingPolicy::Auto,
                Codec::Adaptive,
                &mut body,
            )
            .unwrap();
            if let Some(expected) = expected {
                assert_eq!(written.zstd_evidence, Some(expected), "{name}");
            }
            let (mut sampled, mut told) = (Vec::new(), Vec::new());
            let by_sampling =
                crate::codec::compress_with_evidence(&body, Codec::Adaptive, None, &mut sampled)
                    .unwrap();
            let by_evidence = crate::codec::compress_with_evidence(
                &body,
                Codec::Adaptive,
                written.zstd_evidence,
                &mut told,
            )
            .unwrap();
            assert_eq!(
                by_evidence, by_sampling,
                "{name}: {:?}",
                written.zstd_evidence
            );
            assert_eq!(told, sampled, "{name}");
        }
        // Not every buffer is sampled: a body of integers chosen by their exact encoded sizes.
        let ints = arrow_array::Int64Array::from_iter_values((0..10_000).map(|i| i * 3 + 7));
        let data = ints.to_data();
        let mut body = Vec::new();
        let written = write(
            &BodyParts::collect(&data).unwrap(),
            &DataType::Int64,
            10_000,
            EncodingPolicy::Auto,
            Codec::Adaptive,
            &mut body,
        )
        .unwrap();
        assert_eq!(written.zstd_evidence, None);
    }

    /// The V4 body `write` makes of `array` (policy auto, no codec).
    fn body_of(array: &dyn Array) -> Vec<u8> {
        let data = array.to_data();
        let parts = BodyParts::collect(&data).unwrap();
        let mut body = Vec::new();
        write(
            &parts,
            array.data_type(),
            array.len() as u32,
            EncodingPolicy::Auto,
            Codec::None,
            &mut body,
        )
        .unwrap();
        body
    }

    #[test]
    fn a_string_dictionary_body_decodes_keyed_to_the_same_values() {
        use arrow_array::BinaryArray;
        use arrow_schema::{Field, Schema};

        let agents = [
            "Mozilla/5.0 (X11; Linux x86_64)",
            "curl/8.4.0",
            "",
            "Wget/1.21 é",
        ];
        let columns: Vec<(&str, ArrayRef, bool)> = vec![
            (
                "four values",
                Arc::new(StringArray::from_iter_values(
                    (0..3000).map(|i| agents[i * 7 % 4]),
                )),
                true,
            ),
            (
                "levels with nulls",
                Arc::new(StringArray::from_iter((0..3000).map(|i| {
                    (i % 11 != 0).then(|| ["INFO", "WARN", "ERROR"][i * 13 % 3])
                }))),
                true,
            ),
            (
                "binary",
                Arc::new(BinaryArray::from_iter_values(
                    (0..3000).map(|i| [&[0xffu8, 0][..], b"x"][i % 2]),
                )),
                true,
            ),
            (
                "ids",
                Arc::new(StringArray::from_iter_values(
                    (0..3000).map(|i| format!("id-{i:08}")),
                )),
                false,
            ),
        ];
        for (name, array, dictionary) in columns {
            let schema = Schema::new(vec![Field::new("c", array.data_type().clone(), true)]);
            let body = body_of(array.as_ref());
            let rows = array.len() as u32;
            let plain = crate::read::decode_column_body_v4(&body, &schema, rows).unwrap();
            assert_eq!(plain.as_ref(), array.as_ref(), "{name}: plain");
            let keyed = crate::read::decode_column_body_v4_keyed(&body, &schema, rows).unwrap();
            let Some(keyed) = keyed else {
                assert!(!dictionary, "{name}: not decoded keyed");
                continue;
            };
            assert!(dictionary, "{name}: decoded keyed");
            let keyed = keyed.as_dictionary::<Int32Type>();
            assert_eq!(keyed.null_count(), array.null_count(), "{name}");
            let values = arrow_select::take::take(keyed.values(), keyed.keys(), None).unwrap();
            assert_eq!(values.as_ref(), array.as_ref(), "{name}: materialised");
        }
    }

    #[test]
    fn a_damaged_keyed_body_is_refused_where_the_plain_decode_refuses_it() {
        use arrow_schema::{Field, Schema};

        let array =
            StringArray::from_iter((0..600).map(|i| (i % 7 != 0).then(|| ["a", "bb"][i % 2])));
        let schema = Schema::new(vec![Field::new("c", DataType::Utf8, true)]);
        let body = body_of(&array);
        let keyed = crate::read::decode_column_body_v4_keyed(&body, &schema, 600).unwrap();
        assert!(keyed.is_some(), "a dictionary body");
        let mut both_accept = 0;
        // Every single-byte change: the keyed decode may refuse more (an entry no key uses that
        // is not UTF-8), never less, and whatever both accept is the same column.
        for at in 0..body.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut damaged = body.clone();
                damaged[at] ^= flip;
                let plain = crate::read::decode_column_body_v4(&damaged, &schema, 600);
                let keyed = crate::read::decode_column_body_v4_keyed(&damaged, &schema, 600);
                match (plain, keyed) {
                    (Ok(plain), Ok(Some(keyed))) => {
                        let keyed = keyed.as_dictionary::<Int32Type>();
                        let values =
                            arrow_select::take::take(keyed.values(), keyed.keys(), None).unwrap();
                        assert_eq!(values.as_ref(), plain.as_ref(), "byte {at} ^ {flip:#x}");
                        both_accept += 1;
                    }
                    (Err(_), Ok(Some(_))) => panic!("byte {at} ^ {flip:#x}: only keyed accepts"),
                    _ => {}
                }
            }
        }
        // Without checksums (the frame's), some changes decode: the bytes of the entries.
        assert!(both_accept > 0, "no damage both decodes accept");
    }
}
