//! FSST (id 8): variable-length value bytes through a static table of up to 255 symbols of 1–8
//! bytes (Boncz, Neumann, Leis, VLDB 2020). Each stored code byte below the symbol count stands
//! for its symbol; 255 escapes the next byte, stored as it is. Text made of recurring fragments
//! (URLs, JSON keys, log templates, hex digits, words) takes 2–4 bits per byte and decodes with
//! one table lookup and one 8-byte store per code, faster than any general-purpose codec.
//!
//! Stored: `u8 symbols` (s ≤ 255), `s` symbol lengths (`u8`, each 1–8), the symbols' bytes
//! (their lengths summed), then the codes. The buffer is compressed as one stream (symbols may
//! span two values): the offsets beside it say where each value starts, and a reader decodes a
//! whole buffer, so nothing needs per-value access.
//!
//! The symbol table is trained and the bytes compressed by the `fsst-rs` crate (the encoder sees
//! only the writer's own data); decoding is written here, because it reads stored bytes: every
//! code, symbol length and output position is checked, and the output is exactly the descriptor's
//! decoded length. Because `fsst-rs` calls itself not yet production ready, the writer decodes
//! what it encoded and keeps FSST only when that gives back the buffer's bytes.

use std::cell::OnceCell;

use super::{Analysis, BufferUnit};
use crate::error::{Error, Result};
use crate::layout::BufferKind;

/// The FSST unit.
#[derive(Debug)]
pub(crate) struct Fsst;

/// The code that escapes one literal byte.
const ESCAPE: u8 = 255;
/// The most symbols a table holds (every code but the escape).
const MAX_SYMBOLS: usize = 255;
/// Bytes of the longest symbol.
const MAX_SYMBOL_LEN: usize = 8;
/// Buffers shorter than this are left to plain: a table costs up to 2 KiB.
const MIN_BYTES: usize = 4096;
/// Pieces the trainer samples are cut at this length; FSST's own sampler takes 512-byte lines.
const SAMPLE_PIECE: usize = 512;

/// A buffer's FSST table and, once asked for, its whole FSST form: made once per [`Analysis`],
/// since the estimate, the exact size and the encoding all need them.
#[derive(Debug, Default)]
pub(crate) struct Cell {
    table: OnceCell<Option<Table>>,
    encoded: OnceCell<Option<Vec<u8>>>,
}

/// A table trained on one buffer, with its stored form (the count, lengths and symbols).
struct Table {
    compressor: fsst::Compressor,
    header: Vec<u8>,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("header_len", &self.header.len())
            .finish()
    }
}

fn table_of<'b>(buffer: &'b Analysis<'_>) -> Option<&'b Table> {
    buffer
        .fsst
        .table
        .get_or_init(|| train(buffer.bytes))
        .as_ref()
}

/// The whole FSST form of the analysed buffer's bytes, if FSST applies to them (it must be
/// smaller and decode back).
pub(crate) fn stored<'b>(buffer: &'b Analysis<'_>) -> Option<&'b [u8]> {
    buffer
        .fsst
        .encoded
        .get_or_init(|| {
            let table = table_of(buffer)?;
            encode_with(table, buffer.bytes)
        })
        .as_deref()
}

/// FSST's form of evenly spaced pieces of the buffer (`pieces` name them): what its size and a
/// codec's effect on it are estimated from without compressing the whole buffer. `None` where
/// FSST does not apply.
pub(crate) fn sampled(
    buffer: &Analysis<'_>,
    pieces: &[std::ops::Range<usize>],
) -> Option<(usize, Vec<Vec<u8>>)> {
    let table = table_of(buffer)?;
    let compressed = pieces
        .iter()
        .map(|range| table.compressor.compress(&buffer.bytes[range.clone()]))
        .collect();
    Some((table.header.len(), compressed))
}

/// Trains a table on `bytes` (FSST samples them itself).
fn train(bytes: &[u8]) -> Option<Table> {
    if bytes.len() < MIN_BYTES {
        return None;
    }
    let pieces: Vec<&[u8]> = bytes.chunks(SAMPLE_PIECE).collect();
    let compressor = fsst::Compressor::train(&pieces);
    let symbols = compressor.symbol_table();
    let lengths = compressor.symbol_lengths();
    if symbols.len() > MAX_SYMBOLS || symbols.len() != lengths.len() {
        return None;
    }
    let mut header = Vec::with_capacity(1 + 9 * symbols.len());
    header.push(symbols.len() as u8);
    header.extend_from_slice(lengths);
    for (symbol, &len) in symbols.iter().zip(lengths) {
        let len = usize::from(len);
        if !(1..=MAX_SYMBOL_LEN).contains(&len) {
            return None;
        }
        header.extend_from_slice(&symbol.to_u64().to_le_bytes()[..len]);
    }
    Some(Table { compressor, header })
}

/// Compresses `bytes` with `table`, and checks that the result is smaller and decodes back.
fn encode_with(table: &Table, bytes: &[u8]) -> Option<Vec<u8>> {
    let mut stored = Vec::with_capacity(table.header.len() + bytes.len() / 2);
    stored.extend_from_slice(&table.header);
    stored.extend_from_slice(&table.compressor.compress(bytes));
    if stored.len() >= bytes.len() {
        return None;
    }
    let mut back = vec![0u8; bytes.len()];
    decode_into(&stored, &mut back, "fsst check").ok()?;
    (back == bytes).then_some(stored)
}

impl BufferUnit for Fsst {
    fn applies_to(&self, kind: BufferKind) -> bool {
        kind == BufferKind::Bytes
    }

    fn stored_len(&self, buffer: &Analysis<'_>) -> Option<usize> {
        stored(buffer).map(<[u8]>::len)
    }

    fn encode(&self, buffer: &Analysis<'_>, out: &mut Vec<u8>) -> Result<()> {
        let stored =
            stored(buffer).ok_or_else(|| Error::Internal("fsst of a buffer it refused".into()))?;
        out.extend_from_slice(stored);
        Ok(())
    }

    fn decode(&self, stored: &[u8], _width: usize, out: &mut [u8], what: &str) -> Result<()> {
        decode_into(stored, out, what)
    }
}

/// The symbol table at the start of `stored`, as 8-byte words (bytes past a symbol's length
/// zero) and lengths, and the codes after it.
fn table<'s>(stored: &'s [u8], what: &str) -> Result<([u64; 256], [u8; 256], &'s [u8])> {
    let corrupt = |m: String| Error::CorruptEncoding(format!("{what}: {m}"));
    let (&count, rest) = stored
        .split_first()
        .ok_or_else(|| corrupt("no symbol count".into()))?;
    let count = usize::from(count);
    if count > MAX_SYMBOLS {
        return Err(corrupt(format!("{count} symbols, at most {MAX_SYMBOLS}")));
    }
    if rest.len() < count {
        return Err(corrupt(format!(
            "{count} symbol lengths, {} bytes stored",
            rest.len()
        )));
    }
    let (lengths, mut rest) = rest.split_at(count);
    let mut words = [0u64; 256];
    let mut lens = [0u8; 256];
    for (code, &len) in lengths.iter().enumerate() {
        let len_usize = usize::from(len);
        if !(1..=MAX_SYMBOL_LEN).contains(&len_usize) {
            return Err(corrupt(format!(
                "symbol {code} is {len} bytes long (1 to 8)"
            )));
        }
        if rest.len() < len_usize {
            return Err(corrupt(format!("symbol {code} is cut short")));
        }
        let (symbol, after) = rest.split_at(len_usize);
        let mut word = [0u8; 8];
        word[..len_usize].copy_from_slice(symbol);
        words[code] = u64::from_le_bytes(word);
        lens[code] = len;
        rest = after;
    }
    Ok((words, lens, rest))
}

/// A code's entry in the decoder's table: its symbol's length, or one of these flags.
const ESCAPE_FLAG: u8 = 0x40;
/// See [`ESCAPE_FLAG`]: a code past the symbol table.
const UNKNOWN_FLAG: u8 = 0x80;

/// Decodes the FSST buffer `stored` into exactly `out`.
fn decode_into(stored: &[u8], out: &mut [u8], what: &str) -> Result<()> {
    let (words, lens, codes) = table(stored, what)?;
    // Each code's length, or a flag for the escape and for codes past the table, so that one
    // OR of four entries tells whether a group of codes needs the careful path.
    let mut info = [UNKNOWN_FLAG; 256];
    for (entry, &len) in info.iter_mut().zip(&lens) {
        if len > 0 {
            *entry = len;
        }
    }
    info[usize::from(ESCAPE)] = ESCAPE_FLAG;
    let total = out.len();
    let mut pos = 0usize;
    let mut i = 0usize;
    // Fast loop, four codes at a time while 32 bytes of room are left: each symbol is one
    // unaligned 8-byte store into a fixed 32-byte window (the bytes past its length are
    // overwritten by what follows, or checked below). Lengths are at most 8 (the table says
    // so; `min` lets the compiler see it), so every store lies inside the window.
    while let (Some(&[c0, c1, c2, c3]), Some(window)) = (
        codes
            .get(i..i + 4)
            .and_then(|c| <&[u8; 4]>::try_from(c).ok()),
        out.get_mut(pos..pos + 32)
            .and_then(|w| <&mut [u8; 32]>::try_from(w).ok()),
    ) {
        let (r0, r1, r2, r3) = (
            info[usize::from(c0)],
            info[usize::from(c1)],
            info[usize::from(c2)],
            info[usize::from(c3)],
        );
        if (r0 | r1 | r2 | r3) & (ESCAPE_FLAG | UNKNOWN_FLAG) != 0 {
            // The group's first code alone: an escape, a code past the table, or a symbol.
            if r0 & UNKNOWN_FLAG != 0 {
                return Err(unknown_code(c0, what));
            }
            if r0 & ESCAPE_FLAG != 0 {
                window[0] = c1;
                pos += 1;
                i += 2;
            } else {
                window[..8].copy_from_slice(&words[usize::from(c0)].to_le_bytes());
                pos += usize::from(r0).min(MAX_SYMBOL_LEN);
                i += 1;
            }
            continue;
        }
        let l0 = usize::from(r0).min(MAX_SYMBOL_LEN);
        let l1 = usize::from(r1).min(MAX_SYMBOL_LEN);
        let l2 = usize::from(r2).min(MAX_SYMBOL_LEN);
        let l3 = usize::from(r3).min(MAX_SYMBOL_LEN);
        window[..8].copy_from_slice(&words[usize::from(c0)].to_le_bytes());
        let o1 = l0;
        window[o1..o1 + 8].copy_from_slice(&words[usize::from(c1)].to_le_bytes());
        let o2 = o1 + l1;
        window[o2..o2 + 8].copy_from_slice(&words[usize::from(c2)].to_le_bytes());
        let o3 = o2 + l2;
        window[o3..o3 + 8].copy_from_slice(&words[usize::from(c3)].to_le_bytes());
        pos += o3 + l3;
        i += 4;
    }
    // The last codes: each store checked against the end.
    while i < codes.len() {
        let code = codes[i];
        i += 1;
        let (bytes, len): ([u8; 8], usize) = if code == ESCAPE {
            let &byte = codes.get(i).ok_or_else(|| {
                Error::CorruptEncoding(format!("{what}: an escape at the end of the codes"))
            })?;
            i += 1;
            ([byte, 0, 0, 0, 0, 0, 0, 0], 1)
        } else {
            let len = usize::from(lens[usize::from(code)]);
            if len == 0 {
                return Err(unknown_code(code, what));
            }
            (words[usize::from(code)].to_le_bytes(), len)
        };
        let dst = out
            .get_mut(pos..pos + len)
            .ok_or_else(|| over(total, what))?;
        dst.copy_from_slice(&bytes[..len]);
        pos += len;
    }
    if pos != total {
        return Err(Error::CorruptEncoding(format!(
            "{what}: the codes decode to {pos} bytes, the descriptor says {total}"
        )));
    }
    Ok(())
}

fn unknown_code(code: u8, what: &str) -> Error {
    Error::CorruptEncoding(format!("{what}: code {code} names no symbol"))
}

fn over(total: usize, what: &str) -> Error {
    Error::CorruptEncoding(format!(
        "{what}: the codes decode to more than the descriptor's {total} bytes"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(n: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let mut x = 12345u64;
        while out.len() < n {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let id = x >> 40;
            out.extend_from_slice(
                format!("GET /api/v2/orders/{id} HTTP/1.1 user={} ok; ", id % 97).as_bytes(),
            );
        }
        out.truncate(n);
        out
    }

    /// Encodes `bytes` with FSST where it applies and checks that they decode back: the stored
    /// length, or None where FSST does not apply.
    fn round_trip(bytes: &[u8]) -> Option<usize> {
        let analysis = Analysis::of(bytes, BufferKind::Bytes);
        let len = Fsst.stored_len(&analysis)?;
        let mut stored = Vec::new();
        Fsst.encode(&analysis, &mut stored).unwrap();
        assert_eq!(stored.len(), len);
        let mut back = vec![0u8; bytes.len()];
        Fsst.decode(&stored, 1, &mut back, "t").unwrap();
        assert_eq!(back, bytes);
        Some(len)
    }

    #[test]
    fn text_round_trips_smaller() {
        let bytes = text(50_000);
        let len = round_trip(&bytes).expect("fsst applies to text");
        assert!(len < bytes.len() / 2, "{len} of {}", bytes.len());
    }

    #[test]
    fn every_byte_value_and_zeros_round_trip() {
        let mut bytes: Vec<u8> = (0..=255u8).cycle().take(20_000).collect();
        bytes.extend(std::iter::repeat_n(0u8, 10_000));
        bytes.extend_from_slice(b"a\0a\0a\0a\0\0\0\0\0\0\0\0\0b");
        round_trip(&bytes);
    }

    #[test]
    fn short_buffers_and_random_bytes_are_not_fsst() {
        let analysis = Analysis::of(b"short", BufferKind::Bytes);
        assert_eq!(Fsst.stored_len(&analysis), None);
        let random = crate::test_bytes::random(20_000, 7);
        assert_eq!(
            Fsst.stored_len(&Analysis::of(&random, BufferKind::Bytes)),
            None
        );
    }

    #[test]
    fn hostile_tables_and_codes_are_refused() {
        let mut out = [0u8; 16];
        for (stored, why) in [
            (&[][..], "empty"),
            (&[1][..], "no lengths"),
            (&[1, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9][..], "symbol of 9 bytes"),
            (&[1, 0][..], "symbol of 0 bytes"),
            (&[1, 3, b'a'][..], "symbol cut short"),
            (&[1, 1, b'a', 1][..], "code past the table"),
            (&[0, ESCAPE][..], "escape at the end"),
            (
                &[1, 8, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0][..],
                "24 bytes into 16",
            ),
            (&[1, 1, b'a', 0][..], "1 byte for 16"),
        ] {
            assert!(
                decode_into(stored, &mut out, "t").is_err(),
                "{why} was accepted"
            );
        }
        let mut exact = [0u8; 3];
        decode_into(&[1, 2, b'a', b'b', 0, ESCAPE, b'z'], &mut exact, "t").unwrap();
        assert_eq!(&exact, b"abz");
    }
}
