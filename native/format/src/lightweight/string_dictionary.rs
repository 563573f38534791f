//! STRING_DICTIONARY (ids 9 and 10): a variable-length column (strings, binary) of few distinct
//! values, stored as its distinct values once and a bit-packed index per value. It spans the
//! node's two buffers, so both descriptors name it and are decoded together:
//!
//! * the offsets buffer (id 9, `STRING_DICTIONARY`): `u32 count` (1 ≤ count ≤ min(n, 65536)),
//!   `u8 index_width`, `u8 length_width`, 2 × 0, then the `count` entries' byte lengths packed at
//!   `length_width` bits, then the `n` values' indices packed at `index_width` bits, each
//!   `< count` (`n` = offsets − 1);
//! * the value bytes (id 10, `STRING_DICTIONARY_ENTRIES`): the entries' bytes, one after another,
//!   in order of first appearance: exactly the lengths' sum.
//!
//! Decoded, offset 0 is 0, offset `i + 1` is offset `i` plus the length of value `i`'s entry, and
//! the value bytes are the entries in index order: exactly the value buffer's decoded length.
//! User agents, log levels, service and host names, categories, paths: lz4 sees each repeat as a
//! match of tens of bytes, the dictionary as a few bits.

use ahash::AHashMap;

use super::bitpack;
use crate::error::{Error, Result};

/// The most entries a dictionary is built with.
pub(crate) const MAX_ENTRIES: usize = 1 << 16;
/// Bytes of the parameters in front of the packed lengths.
const PARAMS: usize = 8;
/// Values sampled before a dictionary is built.
const SAMPLE: usize = 512;

/// A column's dictionary form, built by [`plan`].
#[derive(Debug)]
pub(crate) struct Plan {
    /// Where each entry starts and ends in the value bytes (of its first appearance).
    entries: Vec<(usize, usize)>,
    /// Each value's entry.
    indices: Vec<u32>,
    /// Bytes the offsets buffer stores.
    pub(crate) offsets_len: usize,
    /// Bytes the value buffer stores.
    pub(crate) values_len: usize,
}

impl Plan {
    fn index_width(&self) -> u8 {
        bitpack::width_of(self.entries.len().saturating_sub(1) as u64)
    }

    fn length_width(&self) -> u8 {
        let longest = self.entries.iter().map(|(s, e)| e - s).max().unwrap_or(0);
        bitpack::width_of(longest as u64)
    }
}

/// The dictionary form of the column whose offsets (as integers, starting at 0) and value bytes
/// these are, or `None` when it does not apply (offsets not starting at 0 or not ending at the
/// value bytes' end, no values, more than [`MAX_ENTRIES`] distinct ones) or a sample says it
/// cannot be smaller than `beat` bytes.
pub(crate) fn plan(offsets: &[i64], bytes: &[u8], beat: u64) -> Option<Plan> {
    let n = offsets.len().checked_sub(1).filter(|&n| n > 0)?;
    if offsets[0] != 0 || usize::try_from(offsets[n]).ok()? != bytes.len() {
        return None;
    }
    let value = |i: usize| -> Option<(usize, usize)> {
        let (s, e) = (
            usize::try_from(offsets[i]).ok()?,
            usize::try_from(offsets[i + 1]).ok()?,
        );
        (s <= e && e <= bytes.len()).then_some((s, e))
    };
    // A sample first: a column of nearly all distinct values (ids, text) is never hashed in
    // full. A sample of 512 from 1,000 distinct values in 10,000 sees about 400 of them, so
    // the cut is at nine in ten.
    let step = n.div_ceil(SAMPLE).max(1);
    let mut seen: AHashMap<&[u8], ()> = AHashMap::with_capacity(SAMPLE.min(n));
    let mut sampled = 0usize;
    for i in (0..n).step_by(step) {
        let (s, e) = value(i)?;
        seen.insert(&bytes[s..e], ());
        sampled += 1;
    }
    if seen.len() * 10 > sampled * 9 && sampled >= 16 {
        return None;
    }
    let mut index = EntryIndex::with_capacity(seen.len() * 2);
    let mut entries = Vec::new();
    let mut indices = Vec::with_capacity(n);
    let mut entry_bytes = PARAMS as u64;
    for i in 0..n {
        let (s, e) = value(i)?;
        let next = entries.len() as u32;
        let code = index.code_of(&bytes[s..e], next);
        if code == next {
            entry_bytes += (e - s) as u64;
            if entries.len() == MAX_ENTRIES || entry_bytes >= beat {
                return None;
            }
            entries.push((s, e));
        }
        indices.push(code);
    }
    let mut plan = Plan {
        entries,
        indices,
        offsets_len: 0,
        values_len: 0,
    };
    plan.values_len = plan.entries.iter().map(|(s, e)| e - s).sum();
    plan.offsets_len = PARAMS
        + bitpack::packed_len(plan.entries.len(), plan.length_width())?
        + bitpack::packed_len(n, plan.index_width())?;
    (((plan.offsets_len + plan.values_len) as u64) < beat).then_some(plan)
}

/// Each distinct value's entry, by value. Values of up to 15 bytes (most low-cardinality
/// strings: codes, names, levels, hosts) are keyed as one integer, which hashes and compares in
/// a few instructions where a byte slice takes a hash loop and a `memcmp`.
///
/// In front of each map, a direct-mapped table of recently seen values: a column of a few
/// hundred distinct values finds nearly every value there with one multiply and one compare,
/// where the map's probe and entry took about half of writing such a column (perf). Longer
/// values (user agents, URL paths, log templates) are slotted by their length and outer 16
/// bytes, and a hit still compares the whole value: the map's hash of the whole value (ahash
/// without AES instructions), its probe and compare took half of planning such a column (perf).
struct EntryIndex<'b> {
    /// Slot `h(key)`: a key and its entry + 1 (0: an empty slot).
    recent: Vec<(u128, u32)>,
    short: AHashMap<u128, u32>,
    /// Slot `h(length, first and last 8 bytes)`: a value and its entry + 1 (0: an empty slot).
    recent_long: Vec<(&'b [u8], u32)>,
    long: AHashMap<&'b [u8], u32>,
}

/// log2 of the slots of [`EntryIndex::recent`] (24 KiB: it stays in the L1/L2 cache).
const RECENT_BITS: u32 = 10;
/// log2 of the slots of [`EntryIndex::recent_long`] (96 KiB, made on the first long value):
/// the most distinct values the sample lets through, about 2,400, mostly hit.
const RECENT_LONG_BITS: u32 = 12;

impl<'b> EntryIndex<'b> {
    fn with_capacity(capacity: usize) -> Self {
        EntryIndex {
            recent: vec![(0, 0); 1 << RECENT_BITS],
            short: AHashMap::with_capacity(capacity),
            recent_long: Vec::new(),
            long: AHashMap::new(),
        }
    }

    /// The entry of `value`, which becomes `next` if `value` is new.
    fn code_of(&mut self, value: &'b [u8], next: u32) -> u32 {
        if value.len() < 16 {
            // The bytes, then the length in the top byte: distinct values, distinct keys.
            let mut key = [0u8; 16];
            key[..value.len()].copy_from_slice(value);
            key[15] = value.len() as u8;
            let key = u128::from_le_bytes(key);
            let folded = (key as u64) ^ ((key >> 64) as u64);
            let slot = slot_of(folded, RECENT_BITS);
            // The slot index is below the table's length by construction; `get_mut` keeps it
            // checked all the same.
            if let Some(recent) = self.recent.get_mut(slot) {
                if recent.1 != 0 && recent.0 == key {
                    return recent.1 - 1;
                }
                let code = *self.short.entry(key).or_insert(next);
                *recent = (key, code + 1);
                code
            } else {
                *self.short.entry(key).or_insert(next)
            }
        } else {
            self.long_code_of(value, next)
        }
    }

    /// [`Self::code_of`] a value of 16 bytes or more.
    fn long_code_of(&mut self, value: &'b [u8], next: u32) -> u32 {
        let word = |bytes: Option<&[u8; 8]>| bytes.map_or(0, |b| u64::from_le_bytes(*b));
        let (first, last) = (word(value.first_chunk()), word(value.last_chunk()));
        let folded = first ^ last.rotate_left(29) ^ (value.len() as u64).wrapping_mul(0xFF51_AFD7);
        let slot = slot_of(folded, RECENT_LONG_BITS);
        if self.recent_long.is_empty() {
            self.recent_long = vec![(&[][..], 0); 1 << RECENT_LONG_BITS];
        }
        // In range by construction, as in code_of.
        let Some(recent) = self.recent_long.get_mut(slot) else {
            return *self.long.entry(value).or_insert(next);
        };
        if recent.1 != 0 && recent.0 == value {
            return recent.1 - 1;
        }
        let code = *self.long.entry(value).or_insert(next);
        *recent = (value, code + 1);
        code
    }
}

/// The slot of a table of `2^bits` slots that `folded` falls in (Fibonacci hashing).
fn slot_of(folded: u64, bits: u32) -> usize {
    (folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize
}

/// Appends the offsets buffer's stored form to `offsets_out` and the value buffer's to
/// `values_out`.
pub(crate) fn encode(
    plan: &Plan,
    bytes: &[u8],
    offsets_out: &mut Vec<u8>,
    values_out: &mut Vec<u8>,
) {
    let (index_width, length_width) = (plan.index_width(), plan.length_width());
    offsets_out.extend_from_slice(&(plan.entries.len() as u32).to_le_bytes());
    offsets_out.extend_from_slice(&[index_width, length_width, 0, 0]);
    bitpack::pack(
        plan.entries.iter().map(|(s, e)| (e - s) as u64),
        length_width,
        offsets_out,
    );
    bitpack::pack(
        plan.indices.iter().map(|&i| u64::from(i)),
        index_width,
        offsets_out,
    );
    for &(s, e) in &plan.entries {
        values_out.extend_from_slice(&bytes[s..e]);
    }
}

/// The longest a value buffer of `entries_len` stored entry bytes may decode to for `values`
/// values: each value is at most every entry's bytes together. The reader's rule, which the
/// writer keeps.
pub(crate) fn values_bound(values: u64, entries_len: u64) -> u64 {
    values.saturating_mul(entries_len)
}

/// A stored pair's dictionary, checked: each entry's start and end in the entry bytes, and the
/// packed indices with their width.
struct Stored<'s> {
    entries: Vec<(usize, usize)>,
    packed_indices: &'s [u8],
    index_width: u8,
}

/// Reads and checks the parameters and entry lengths of a pair holding `n` values. Every count,
/// width and length is checked before it is used.
fn stored<'s>(
    offsets_stored: &'s [u8],
    values_stored: &[u8],
    n: usize,
    what: &str,
) -> Result<Stored<'s>> {
    let corrupt = |m: String| Error::CorruptEncoding(format!("{what}: {m}"));
    let (params, rest) = super::split_params(offsets_stored, PARAMS, what)?;
    let count = u32::from_le_bytes([params[0], params[1], params[2], params[3]]) as usize;
    let (index_width, length_width) = (params[4], params[5]);
    super::reserved_zero(&params[6..], what)?;
    if count == 0 || count > MAX_ENTRIES || count > n {
        return Err(corrupt(format!(
            "a dictionary of {count} entries for {n} values"
        )));
    }
    // Entries are distinct, so all but one (the empty value) take a byte at least: a count the
    // entry bytes cannot hold is damage, and never sizes the table below.
    if count > values_stored.len() + 1 {
        return Err(corrupt(format!(
            "{count} distinct entries in {} entry bytes",
            values_stored.len()
        )));
    }
    if index_width > 16 || length_width > 32 {
        return Err(corrupt(format!(
            "index width {index_width} (at most 16) or length width {length_width} (at most 32)"
        )));
    }
    let lengths_len = bitpack::packed_len(count, length_width)
        .ok_or_else(|| corrupt("entry lengths overflow".into()))?;
    let (packed_lengths, packed_indices) = super::split_params(rest, lengths_len, what)?;
    let mut entries = Vec::with_capacity(count);
    let mut end = 0usize;
    bitpack::unpack(packed_lengths, count, length_width, what, |_, lengths| {
        for &len in lengths {
            let start = end;
            end = usize::try_from(len)
                .ok()
                .and_then(|len| start.checked_add(len))
                .filter(|&e| e <= values_stored.len())
                .ok_or_else(|| corrupt("entries longer than the stored entry bytes".into()))?;
            entries.push((start, end));
        }
        Ok(())
    })?;
    if end != values_stored.len() {
        return Err(corrupt(format!(
            "entries of {end} bytes, {} stored",
            values_stored.len()
        )));
    }
    Ok(Stored {
        entries,
        packed_indices,
        index_width,
    })
}

/// A pair decoded as a dictionary rather than as values: for a reader that serves the column as
/// dictionary ids (Spark's column vectors can), so that no value is materialised per row.
#[derive(Debug, PartialEq)]
pub(crate) struct Keyed {
    /// The entries' offsets into the entry bytes: `count + 1` of them, from 0 to their length.
    pub(crate) entry_offsets: Vec<i32>,
    /// Each value's entry, every one below the entry count.
    pub(crate) keys: Vec<i32>,
}

/// Decodes the pair holding `n` values into its entries' offsets (into `values_stored`, which
/// stays the entry bytes) and one key per value, checked as [`decode`] checks them.
pub(crate) fn decode_keyed(
    offsets_stored: &[u8],
    values_stored: &[u8],
    n: usize,
    what: &str,
) -> Result<Keyed> {
    let corrupt = |m: String| Error::CorruptEncoding(format!("{what}: {m}"));
    if n == 0 {
        return Err(corrupt("no values".into()));
    }
    if values_stored.len() > i32::MAX as usize {
        return Err(corrupt(format!(
            "{} entry bytes do not fit 4-byte offsets",
            values_stored.len()
        )));
    }
    let stored = stored(offsets_stored, values_stored, n, what)?;
    let mut entry_offsets = Vec::with_capacity(stored.entries.len() + 1);
    entry_offsets.push(0);
    // Below i32::MAX: the entries end inside the entry bytes, checked above.
    entry_offsets.extend(stored.entries.iter().map(|&(_, e)| e as i32));
    let mut key_bytes = vec![0u8; n * 4];
    let mut largest = 0u64;
    bitpack::unpack_map_into(
        stored.packed_indices,
        stored.index_width,
        &mut key_bytes,
        4,
        what,
        |index| {
            largest = largest.max(index);
            index as i64
        },
    )?;
    let count = stored.entries.len();
    if largest >= count as u64 {
        let (at, index) = key_bytes
            .chunks_exact(4)
            .map(|k| u32::from_le_bytes([k[0], k[1], k[2], k[3]]))
            .enumerate()
            .find(|&(_, k)| k as usize >= count)
            .unwrap_or((0, largest as u32));
        return Err(corrupt(format!(
            "value {at} has index {index} into {count} entries"
        )));
    }
    let keys = key_bytes
        .chunks_exact(4)
        .map(|k| i32::from_le_bytes([k[0], k[1], k[2], k[3]]))
        .collect();
    Ok(Keyed {
        entry_offsets,
        keys,
    })
}

/// Decodes the pair: `offsets_stored` into `offsets_out` (offsets of `width` bytes, 4 or 8) and
/// `values_stored` into `values_out`. Every count, width, index and length is checked before
/// it is used, and both outputs must come out exactly full.
pub(crate) fn decode(
    offsets_stored: &[u8],
    values_stored: &[u8],
    width: usize,
    offsets_out: &mut [u8],
    values_out: &mut [u8],
    what: &str,
) -> Result<()> {
    let corrupt = |m: String| Error::CorruptEncoding(format!("{what}: {m}"));
    if !matches!(width, 4 | 8) {
        return Err(corrupt(format!("string offsets of {width} bytes")));
    }
    let n = super::element_count(offsets_out.len(), width, what)?
        .checked_sub(1)
        .ok_or_else(|| corrupt("no offsets".into()))?;
    let Stored {
        entries,
        packed_indices,
        index_width,
    } = stored(offsets_stored, values_stored, n, what)?;
    let limit = if width == 4 {
        i32::MAX as usize
    } else {
        i64::MAX as usize
    };
    if values_out.len() > limit {
        return Err(corrupt(format!(
            "{} value bytes do not fit {width}-byte offsets",
            values_out.len()
        )));
    }
    // The entries with SLACK zero bytes after them, so that a value of up to CHUNKED_UP_TO bytes
    // is copied in fixed-size chunks of SLACK (a memcpy call per value costs more than a value
    // of a few dozen bytes): the last chunk may read into the next entry or the padding, and
    // write past the value's end, which the next value overwrites; values near the output's end,
    // and longer ones, are copied exactly.
    let mut padded = Vec::with_capacity(values_stored.len() + SLACK);
    padded.extend_from_slice(values_stored);
    padded.resize(values_stored.len() + SLACK, 0);
    let entries: Vec<(u32, u32)> = entries
        .iter()
        .map(|&(s, e)| (s as u32, (e - s) as u32))
        .collect();
    let mut values = Values {
        entries: &entries,
        padded: &padded,
        exact: values_stored,
        out: values_out,
        pos: 0,
    };
    let result = if width == 4 {
        fill::<4>(
            &mut values,
            offsets_out,
            packed_indices,
            n,
            index_width,
            what,
        )
    } else {
        fill::<8>(
            &mut values,
            offsets_out,
            packed_indices,
            n,
            index_width,
            what,
        )
    };
    result?;
    if values.pos != values.out.len() {
        return Err(corrupt(format!(
            "the values decode to {} bytes, the descriptor says {}",
            values.pos,
            values.out.len()
        )));
    }
    Ok(())
}

/// The size of the chunks a value is copied in, and so the bytes past each entry its last
/// chunk may read.
const SLACK: usize = 32;

/// The longest value copied in chunks of [`SLACK`]; a longer one is one exact copy.
const CHUNKED_UP_TO: usize = 256;

/// The value bytes being decoded: the entries (start and length in the entry bytes, which the
/// caller checked lie inside them), the entry bytes with [`SLACK`] after them and without, and
/// the output with the position reached.
struct Values<'a> {
    entries: &'a [(u32, u32)],
    padded: &'a [u8],
    exact: &'a [u8],
    out: &'a mut [u8],
    pos: usize,
}

/// Decodes the `n` packed indices into the values and `W`-byte offsets (one loop per width).
fn fill<const W: usize>(
    values: &mut Values<'_>,
    offsets_out: &mut [u8],
    packed_indices: &[u8],
    n: usize,
    index_width: u8,
    what: &str,
) -> Result<()> {
    let total = values.out.len();
    offsets_out[..W].fill(0);
    bitpack::unpack(packed_indices, n, index_width, what, |first, indices| {
        let offsets = offsets_out
            .get_mut((first + 1) * W..(first + 1 + indices.len()) * W)
            .ok_or_else(|| Error::Internal(format!("{what}: offsets outside")))?;
        for (k, (&index, offset)) in indices.iter().zip(offsets.chunks_exact_mut(W)).enumerate() {
            let Some(&(s, len)) = usize::try_from(index)
                .ok()
                .and_then(|i| values.entries.get(i))
            else {
                return Err(Error::CorruptEncoding(format!(
                    "{what}: value {} has index {index} into {} entries",
                    first + k,
                    values.entries.len()
                )));
            };
            let (s, len) = (s as usize, len as usize);
            let pos = values.pos;
            let next = pos + len;
            let chunked_end = pos + len.next_multiple_of(SLACK);
            if len <= CHUNKED_UP_TO && chunked_end <= total {
                for at in (0..len).step_by(SLACK) {
                    values.out[pos + at..pos + at + SLACK]
                        .copy_from_slice(&values.padded[s + at..s + at + SLACK]);
                }
            } else if next <= total {
                values.out[pos..next].copy_from_slice(&values.exact[s..s + len]);
            } else {
                return Err(Error::CorruptEncoding(format!(
                    "{what}: the values decode past the value bytes"
                )));
            }
            values.pos = next;
            offset.copy_from_slice(&(next as u64).to_le_bytes()[..W]);
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(values: &[&str]) -> (Vec<i64>, Vec<u8>) {
        let mut offsets = vec![0i64];
        let mut bytes = Vec::new();
        for v in values {
            bytes.extend_from_slice(v.as_bytes());
            offsets.push(bytes.len() as i64);
        }
        (offsets, bytes)
    }

    fn offsets_bytes(offsets: &[i64], width: usize) -> Vec<u8> {
        offsets
            .iter()
            .flat_map(|&o| o.to_le_bytes()[..width].to_vec())
            .collect()
    }

    fn round_trip(values: &[&str], width: usize) -> Option<(usize, usize)> {
        let (offsets, bytes) = column(values);
        let plan = plan(&offsets, &bytes, u64::MAX)?;
        let (mut o, mut v) = (Vec::new(), Vec::new());
        encode(&plan, &bytes, &mut o, &mut v);
        assert_eq!((o.len(), v.len()), (plan.offsets_len, plan.values_len));
        let mut offsets_out = vec![0xAA; offsets.len() * width];
        let mut values_out = vec![0xAA; bytes.len()];
        decode(&o, &v, width, &mut offsets_out, &mut values_out, "t").unwrap();
        assert_eq!(offsets_out, offsets_bytes(&offsets, width));
        assert_eq!(values_out, bytes);
        assert_eq!(
            materialise(&decode_keyed(&o, &v, values.len(), "t").unwrap(), &v),
            bytes
        );
        Some((o.len(), v.len()))
    }

    /// The values a keyed decode stands for, one after another.
    fn materialise(keyed: &Keyed, entries: &[u8]) -> Vec<u8> {
        let offsets = &keyed.entry_offsets;
        assert_eq!(offsets[0], 0);
        assert_eq!(offsets[offsets.len() - 1] as usize, entries.len());
        keyed
            .keys
            .iter()
            .flat_map(|&k| {
                let k = k as usize;
                entries[offsets[k] as usize..offsets[k + 1] as usize].to_vec()
            })
            .collect()
    }

    #[test]
    fn few_distinct_values_round_trip_small() {
        let agents = [
            "Mozilla/5.0 (X11; Linux x86_64)",
            "curl/8.4.0",
            "",
            "Wget/1.21 é",
        ];
        let values: Vec<&str> = (0..10_000).map(|i| agents[(i * 7 + i / 3) % 4]).collect();
        for width in [4, 8] {
            let (o, v) = round_trip(&values, width).expect("applies");
            assert!(o < 10_000 / 4 + 64, "2-bit indices: {o}");
            assert_eq!(v, agents.iter().map(|a| a.len()).sum::<usize>());
        }
        assert!(round_trip(&["only"], 4).is_some());
        assert!(round_trip(&[""; 5], 4).is_some(), "empty strings only");
    }

    /// More distinct short values than the recent-keys table has slots, and long values that
    /// collide in the long values' table, revisited in a scrambled order: slots are overwritten
    /// by colliding keys, and every value still gets the entry it got first (one entry per
    /// distinct value, the values given back).
    #[test]
    fn values_past_the_recent_tables_keep_their_first_entry() {
        // Short: 1.25 keys a slot. Long: as many distinct values as the writer's sample still
        // takes for a dictionary, hundreds of them sharing a slot with another.
        let short: Vec<String> = (0..5 << (RECENT_BITS - 2))
            .map(|i| format!("v{i}"))
            .collect();
        let long: Vec<String> = (0..2_000)
            .map(|i| format!("Mozilla/5.0 (a long value, number {i}) Gecko"))
            .collect();
        for names in [short, long] {
            let distinct = names.len();
            let mut state = 1u64;
            let values: Vec<&str> = (0..40_000)
                .map(|_| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    names[(state >> 33) as usize % distinct].as_str()
                })
                .collect();
            let (offsets, bytes) = column(&values);
            let plan = plan(&offsets, &bytes, u64::MAX).expect("applies");
            assert_eq!(plan.entries.len(), distinct, "one entry per distinct value");
            for (i, &code) in plan.indices.iter().enumerate() {
                let (s, e) = plan.entries[code as usize];
                assert_eq!(&bytes[s..e], values[i].as_bytes(), "value {i}");
            }
            round_trip(&values, 4).expect("round trips");
        }
    }

    #[test]
    fn values_that_differ_only_in_length_or_past_15_bytes_or_in_the_middle_get_their_own_entries() {
        // Short keys pad with zeros: "a" and "a\0" must stay apart, and so must values on
        // either side of the 16-byte cut.
        let distinct = [
            "",
            "\0",
            "a",
            "a\0",
            "a\0\0",
            "fifteen-bytes-x",
            "fifteen-bytes-x\0",
            "sixteen-bytes-xy",
            "sixteen-bytes-xz",
            // Same length and outer 16 bytes: one slot of the long values' table.
            "01234567-A-abcdefgh",
            "01234567-B-abcdefgh",
        ];
        let values: Vec<&str> = (0..900)
            .map(|i| distinct[(i * 5) % distinct.len()])
            .collect();
        let (offsets, bytes) = column(&values);
        let plan = plan(&offsets, &bytes, u64::MAX).expect("applies");
        assert_eq!(plan.entries.len(), distinct.len());
        for (i, &code) in plan.indices.iter().enumerate() {
            let (s, e) = plan.entries[code as usize];
            assert_eq!(&bytes[s..e], values[i].as_bytes(), "value {i}");
        }
        for width in [4, 8] {
            round_trip(&values, width).expect("applies");
        }
    }

    #[test]
    fn distinct_values_and_odd_offsets_are_not_planned() {
        let distinct: Vec<String> = (0..5000).map(|i| format!("value-{i}")).collect();
        let refs: Vec<&str> = distinct.iter().map(String::as_str).collect();
        let (offsets, bytes) = column(&refs);
        assert!(plan(&offsets, &bytes, u64::MAX).is_none());
        let (mut offsets, bytes) = column(&["a", "b", "a"]);
        assert!(plan(&offsets, &bytes, 0).is_none(), "nothing beats 0 bytes");
        offsets[0] = 1;
        assert!(plan(&offsets, &bytes, u64::MAX).is_none(), "offsets from 1");
        assert!(plan(&[0], &[], u64::MAX).is_none(), "no values");
    }

    #[test]
    fn hostile_pairs_are_refused() {
        let (offsets, bytes) = column(&["ab", "c", "ab", "ab"]);
        let plan = plan(&offsets, &bytes, u64::MAX).unwrap();
        let (mut o, mut v) = (Vec::new(), Vec::new());
        encode(&plan, &bytes, &mut o, &mut v);
        let mut oo = vec![0u8; 20];
        let mut vo = vec![0u8; bytes.len()];
        decode(&o, &v, 4, &mut oo, &mut vo, "t").unwrap();
        // (offsets stored, values stored, offsets decoded length, values decoded length, why)
        type Attempt = (Vec<u8>, Vec<u8>, usize, usize, &'static str);
        let attempts: Vec<Attempt> = vec![
            (o.clone(), v[..2].to_vec(), 20, 7, "entries cut short"),
            (
                o.clone(),
                [&v[..], b"x"].concat(),
                20,
                7,
                "entry bytes left over",
            ),
            (o.clone(), v.clone(), 20, 6, "values shorter than decoded"),
            (o.clone(), v.clone(), 20, 8, "values longer than decoded"),
            (o.clone(), v.clone(), 16, 7, "fewer offsets"),
            (
                o[..o.len() - 1].to_vec(),
                v.clone(),
                20,
                7,
                "indices cut short",
            ),
            (
                [&[0u8, 0, 0, 0][..], &o[4..]].concat(),
                v.clone(),
                20,
                7,
                "no entries",
            ),
            (
                [&[9u8, 0, 0, 0][..], &o[4..]].concat(),
                v.clone(),
                20,
                7,
                "more entries than values",
            ),
            (
                [&o[..4], &[17, 2][..], &o[6..]].concat(),
                v.clone(),
                20,
                7,
                "index width 17",
            ),
            (
                [&o[..4], &[1, 33][..], &o[6..]].concat(),
                v.clone(),
                20,
                7,
                "length width 33",
            ),
            (
                [&o[..6], &[1][..], &o[7..]].concat(),
                v.clone(),
                20,
                7,
                "reserved byte",
            ),
            (o.clone(), v.clone(), 4, 7, "one offset"),
        ];
        for (o, v, olen, vlen, why) in attempts {
            let mut oo = vec![0u8; olen];
            let mut vo = vec![0u8; vlen];
            assert!(
                decode(&o, &v, 4, &mut oo, &mut vo, "t").is_err(),
                "{why} accepted"
            );
        }
        // An index past the entries: two entries, widths 1; index stream says 3 → width 2 needed,
        // so set the width to 2 and the indices to 3.
        let mut bad = o.clone();
        bad[4] = 2;
        let lengths_len = bitpack::packed_len(2, o[5]).unwrap();
        bad.truncate(PARAMS + lengths_len);
        bitpack::pack([3u64, 0, 0, 0], 2, &mut bad);
        let mut oo = vec![0u8; 20];
        let mut vo = vec![0u8; bytes.len()];
        let err = decode(&bad, &v, 4, &mut oo, &mut vo, "t").expect_err("index 3 of 2");
        assert!(
            err.to_string()
                .contains("value 0 has index 3 into 2 entries"),
            "{err}"
        );
        assert!(
            decode(&o, &v, 2, &mut oo, &mut vo, "t").is_err(),
            "2-byte offsets"
        );
        // The keyed decode refuses what the values decode refuses of the stored pair.
        let err = decode_keyed(&bad, &v, 4, "t").expect_err("index 3 of 2");
        assert!(
            err.to_string()
                .contains("value 0 has index 3 into 2 entries"),
            "{err}"
        );
        for (o, v, n, why) in [
            (o.clone(), v.clone(), 0, "no values"),
            (
                o.clone(),
                v.clone(),
                100,
                "more values than the indices hold",
            ),
            (o.clone(), v[..2].to_vec(), 4, "entries cut short"),
            (
                [&o[..4], &[17, 2][..], &o[6..]].concat(),
                v.clone(),
                4,
                "index width 17",
            ),
            (
                [&[9u8, 0, 0, 0][..], &o[4..]].concat(),
                v.clone(),
                4,
                "more entries than values",
            ),
        ] {
            assert!(decode_keyed(&o, &v, n, "t").is_err(), "{why} accepted");
        }
        assert_eq!(
            decode_keyed(&o, &v, 4, "t").unwrap(),
            Keyed {
                entry_offsets: vec![0, 2, 3],
                keys: vec![0, 1, 0, 0],
            }
        );
    }

    proptest::proptest! {
        /// Values copied in chunks, exactly, or both, whatever their lengths against the chunk
        /// size and the longest chunked value, and wherever the output's end falls.
        #[test]
        fn values_of_any_length_round_trip(
            lengths in proptest::collection::vec(
                proptest::prop_oneof![0usize..70, 250usize..300], 1..6),
            picks in proptest::collection::vec(proptest::prelude::any::<u8>(), 40..200),
            wide in proptest::prelude::any::<bool>(),
        ) {
            let distinct: Vec<String> = lengths
                .iter()
                .enumerate()
                .map(|(i, &len)| (0..len).map(|k| char::from(b'a' + ((i * 7 + k) % 26) as u8)).collect())
                .collect();
            let values: Vec<&str> = picks
                .iter()
                .map(|&p| distinct[usize::from(p) % distinct.len()].as_str())
                .collect();
            let width = if wide { 8 } else { 4 };
            proptest::prop_assert!(round_trip(&values, width).is_some(), "the dictionary applies");
        }
    }
}
