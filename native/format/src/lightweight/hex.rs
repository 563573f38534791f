//! HEX (id 11): variable-length value bytes that are all hexadecimal digits of one case (hashes,
//! trace and span ids, MD5 and SHA digests, hex-encoded keys), stored as their nibbles, two
//! digits per byte: exactly half the bytes, however random the digits. A general-purpose codec
//! finds little in random hex and FSST gets close to half only through a trained table of digit
//! pairs; this takes no table, encodes and decodes with one lookup per byte, and leaves the
//! repeats between values (a trace id on each line of a request) to the codec on top.
//!
//! Stored: `u8 case` (0: the letters are `a`–`f`, 1: `A`–`F`; digits are digits either way),
//! 7 zero bytes, then `ceil(n / 2)` bytes: byte `j` holds digit `2j` in its high nibble and digit
//! `2j + 1` in its low one; for an odd `n` the last low nibble is 0. `n` is the buffer's decoded
//! length; the string offsets beside it say where each value starts, so a digit pair may span
//! two values.

use super::{split_params, Analysis, BufferUnit};
use crate::error::{Error, Result};
use crate::layout::BufferKind;

/// The HEX unit.
#[derive(Debug)]
pub(crate) struct Hex;

const PARAMS: usize = 8;

/// The digits of each case, by nibble.
const DIGITS: [[u8; 16]; 2] = [*b"0123456789abcdef", *b"0123456789ABCDEF"];

/// What each byte is, as a hex digit: [`DIGIT`], [`LOWER`] or [`UPPER`] with its nibble in the
/// low 4 bits, or 0 for any other byte.
const CLASSES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = DIGIT | i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = LOWER | (10 + i as u8);
        t[b'A' as usize + i] = UPPER | (10 + i as u8);
        i += 1;
    }
    t
};
const DIGIT: u8 = 0x10;
const LOWER: u8 = 0x20;
const UPPER: u8 = 0x40;

/// The case of `bytes` (0 lower, 1 upper; lower when there are no letters) if every byte is a
/// hex digit and every letter has one case; `None` otherwise. One table lookup and two ORs per
/// byte, in blocks, so text is ruled out after its first block.
fn case_of(bytes: &[u8]) -> Option<u8> {
    let mut seen = 0u8;
    for block in bytes.chunks(256) {
        let mut invalid = false;
        for &b in block {
            let class = CLASSES[usize::from(b)];
            seen |= class;
            invalid |= class == 0;
        }
        if invalid || seen & (LOWER | UPPER) == LOWER | UPPER {
            return None;
        }
    }
    Some(u8::from(seen & UPPER != 0))
}

/// The analysed buffer's [`case_of`], scanned once: the selector sizes HEX and the writer
/// encodes it from the same analysis.
fn case(buffer: &Analysis<'_>) -> Option<u8> {
    *buffer.hex_case.get_or_init(|| case_of(buffer.bytes))
}

/// Appends the nibbles of `bytes` (hex digits; anything else packs as 0), two per byte, the last
/// low nibble 0 for an odd count.
fn pack_into(bytes: &[u8], out: &mut Vec<u8>) {
    let nibble = |b: u8| CLASSES[usize::from(b)] & 15;
    let start = out.len();
    out.resize(start + bytes.len().div_ceil(2), 0);
    let dst = &mut out[start..];
    let pairs = bytes.chunks_exact(2);
    if let Some(&last) = pairs.remainder().first() {
        dst[dst.len() - 1] = nibble(last) << 4;
    }
    for (d, p) in dst.iter_mut().zip(pairs) {
        *d = nibble(p[0]) << 4 | nibble(p[1]);
    }
}

/// The packed nibbles of `bytes`, as [`pack_into`].
pub(super) fn packed(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len().div_ceil(2));
    pack_into(bytes, &mut out);
    out
}

impl BufferUnit for Hex {
    fn applies_to(&self, kind: BufferKind) -> bool {
        kind == BufferKind::Bytes
    }

    fn stored_len(&self, buffer: &Analysis<'_>) -> Option<usize> {
        if buffer.bytes.is_empty() {
            return None;
        }
        case(buffer)?;
        Some(PARAMS + buffer.bytes.len().div_ceil(2))
    }

    fn encode(&self, buffer: &Analysis<'_>, out: &mut Vec<u8>) -> Result<()> {
        let case = case(buffer)
            .ok_or_else(|| Error::Internal("hex of bytes that are not hex digits".into()))?;
        out.push(case);
        out.extend_from_slice(&[0; PARAMS - 1]);
        pack_into(buffer.bytes, out);
        Ok(())
    }

    fn decode(&self, stored: &[u8], _width: usize, out: &mut [u8], what: &str) -> Result<()> {
        let (params, packed) = split_params(stored, PARAMS, what)?;
        let case = params[0];
        super::reserved_zero(&params[1..], what)?;
        let digits = DIGITS.get(usize::from(case)).ok_or_else(|| {
            Error::CorruptEncoding(format!("{what}: hex case {case} (0 lower, 1 upper)"))
        })?;
        if packed.len() != out.len().div_ceil(2) {
            return Err(Error::CorruptEncoding(format!(
                "{what}: {} packed bytes for {} hex digits",
                packed.len(),
                out.len()
            )));
        }
        let (whole, odd) = out.split_at_mut(out.len() / 2 * 2);
        let whole_pairs = whole.len() / 2;
        // Sixteen stored bytes to thirty-two digits at a time, by arithmetic the compiler turns
        // into vector instructions; the rest through a table of digit pairs.
        let letter_offset = digits[10] - b'0' - 10;
        let mut wide = whole.chunks_exact_mut(32);
        let mut sixteens = packed[..whole_pairs].chunks_exact(16);
        for (dst, src) in (&mut wide).zip(&mut sixteens) {
            let mut bytes = [0u8; 16];
            bytes.copy_from_slice(src);
            let mut block = [0u8; 32];
            for i in 0..16 {
                block[2 * i] = digit(bytes[i] >> 4, letter_offset);
                block[2 * i + 1] = digit(bytes[i] & 15, letter_offset);
            }
            dst.copy_from_slice(&block);
        }
        let mut pairs = [[0u8; 2]; 256];
        for (b, pair) in pairs.iter_mut().enumerate() {
            *pair = [digits[b >> 4], digits[b & 15]];
        }
        for (dst, &b) in wide
            .into_remainder()
            .chunks_exact_mut(2)
            .zip(sixteens.remainder())
        {
            dst.copy_from_slice(&pairs[usize::from(b)]);
        }
        if let Some(last) = odd.first_mut() {
            let b = packed[packed.len() - 1];
            if b & 15 != 0 {
                return Err(Error::CorruptEncoding(format!(
                    "{what}: an odd count of hex digits whose last low nibble is not 0"
                )));
            }
            *last = digits[usize::from(b >> 4)];
        }
        Ok(())
    }
}

/// The digit of nibble `n`: `'0' + n`, plus `letter_offset` (39 lower case, 7 upper) from 10 on,
/// where `n + 6` reaches 16. Branch-free, so a loop of it vectorises.
#[inline(always)]
fn digit(n: u8, letter_offset: u8) -> u8 {
    n + b'0' + (((n + 6) >> 4).wrapping_neg() & letter_offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(bytes: &[u8]) -> Option<usize> {
        let analysis = Analysis::of(bytes, BufferKind::Bytes);
        let len = Hex.stored_len(&analysis)?;
        let mut stored = Vec::new();
        Hex.encode(&analysis, &mut stored).unwrap();
        assert_eq!(stored.len(), len);
        let mut out = vec![0xAAu8; bytes.len()];
        Hex.decode(&stored, 1, &mut out, "t").unwrap();
        assert_eq!(out, bytes);
        Some(len)
    }

    #[test]
    fn hex_digits_of_one_case_take_half_and_round_trip() {
        let lower: Vec<u8> = (0..1001u32)
            .flat_map(|i| format!("{:08x}", i.wrapping_mul(0x9E37_79B9)).into_bytes())
            .collect();
        assert_eq!(round_trip(&lower), Some(8 + lower.len().div_ceil(2)));
        let upper = lower.to_ascii_uppercase();
        assert_eq!(round_trip(&upper), Some(8 + upper.len().div_ceil(2)));
        assert!(round_trip(b"0123456789").is_some(), "digits alone");
        assert!(round_trip(b"f").is_some(), "one digit");
        assert!(round_trip(b"abc").is_some(), "odd count");
    }

    #[test]
    fn every_byte_value_in_every_lane_decodes_to_its_digits_at_every_length() {
        // Every byte value at each of the eight positions of a word, both cases, and every
        // digit count from 0 to 40 (words, the rest after them, an odd last digit).
        for case in 0..2u8 {
            let digits = DIGITS[usize::from(case)];
            let expected = |packed: &[u8], n: usize| -> Vec<u8> {
                packed
                    .iter()
                    .flat_map(|&b| [digits[usize::from(b >> 4)], digits[usize::from(b & 15)]])
                    .take(n)
                    .collect()
            };
            let decode = |packed: &[u8], n: usize| {
                let mut stored = vec![case, 0, 0, 0, 0, 0, 0, 0];
                stored.extend_from_slice(packed);
                let mut out = vec![0xAAu8; n];
                Hex.decode(&stored, 1, &mut out, "t").unwrap();
                out
            };
            for lane in 0..8 {
                for b in 0..=255u8 {
                    let mut packed = [0x5Au8; 8];
                    packed[lane] = b;
                    assert_eq!(decode(&packed, 16), expected(&packed, 16), "{b} at {lane}");
                }
            }
            let packed: Vec<u8> = (0..20u8).map(|i| i.wrapping_mul(37) ^ 0xC3).collect();
            for n in 0..=40usize {
                let mut packed = packed[..n.div_ceil(2)].to_vec();
                if n % 2 == 1 {
                    *packed.last_mut().unwrap() &= 0xF0;
                }
                assert_eq!(decode(&packed, n), expected(&packed, n), "{n} digits");
            }
        }
    }

    #[test]
    fn anything_else_is_not_hex() {
        for bytes in [
            &b"abcdefg"[..],
            b"aB",
            b"12 34",
            b"",
            b"0x1f",
            "é".as_bytes(),
        ] {
            assert_eq!(round_trip(bytes), None, "{bytes:?}");
        }
    }

    #[test]
    fn damaged_stored_bytes_are_refused() {
        let analysis = Analysis::of(b"abc", BufferKind::Bytes);
        let mut stored = Vec::new();
        Hex.encode(&analysis, &mut stored).unwrap();
        let mut out = [0u8; 3];
        let mut bad_case = stored.clone();
        bad_case[0] = 2;
        assert!(Hex.decode(&bad_case, 1, &mut out, "t").is_err());
        let mut reserved = stored.clone();
        reserved[3] = 1;
        assert!(Hex.decode(&reserved, 1, &mut out, "t").is_err());
        let mut low_nibble = stored.clone();
        *low_nibble.last_mut().unwrap() |= 1;
        assert!(Hex.decode(&low_nibble, 1, &mut out, "t").is_err());
        assert!(Hex
            .decode(&stored[..stored.len() - 1], 1, &mut out, "t")
            .is_err());
        assert!(Hex.decode(&stored, 1, &mut [0u8; 5], "t").is_err());
    }
}
