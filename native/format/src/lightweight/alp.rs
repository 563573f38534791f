//! ALP (id 6; Afroozeh, Kuffó and Boncz, SIGMOD 2024): doubles and floats that are decimals in
//! disguise (prices, measurements, ratios of a few digits) stored as the integers they scale to,
//! frame of reference and bit-packed, with the values that do not scale back exactly kept aside
//! as exceptions. Value `v` is stored as `n = round(v × 10^e × 10^-f)` when `n × 10^f × 10^-e`
//! (the decoder's arithmetic in doubles, [`decode_one`], then rounded to a float for 4-byte
//! elements) gives back `v`'s exact bits; anything else (NaN, ±∞, -0.0, a value with more
//! digits, one whose scaled magnitude reaches 2^51) is an exception. Lossless for every bit
//! pattern: the writer checks each value through the decoder's own function, and IEEE-754
//! multiplication and rounding are deterministic on every target this crate builds for.
//!
//! The element width (8: doubles, 4: floats) comes from the column's type. Stored: `u8 exponent
//! e` (≤ 18), `u8 factor f` (≤ e), `u8 bit_width`, 5 zero bytes, `i64 reference`, `u32
//! exception_count`, 4 zero bytes; then `n` packed values `n_i − reference` ([`super::bitpack`];
//! an exception's slot holds 0, i.e. the reference); then `exception_count` `u32` positions,
//! strictly increasing, each below `n`; then the exceptions' values, of the element width.
//!
//! Written by hand rather than through `vortex-alp`: Vortex's arrays are its own types and its
//! layout is not one this format can pin, while the decoder here is a few checked loops. The
//! choice of `(e, f)` follows the paper's sampling idea, simplified: every pair is tried on a
//! sample and the smallest estimated size wins.

use super::{bitpack, element_count, split_params, Analysis, BufferUnit};
use crate::error::{Error, Result};
use crate::layout::BufferKind;

/// The ALP unit (doubles and floats).
#[derive(Debug)]
pub(crate) struct Alp;

const PARAMS: usize = 24;
const MAX_EXPONENT: usize = 18;
/// Values every `(e, f)` pair is tried on, to find [`FINALISTS`] of them.
const FIRST_SAMPLE: usize = 32;
/// Pairs tried on the full sample of [`SAMPLE`] values.
const FINALISTS: usize = 3;
/// Values the finalists are tried on.
const SAMPLE: usize = 256;
/// Bytes an exception of `width`-byte elements costs: its position and its value.
const fn exception_bytes(width: usize) -> usize {
    4 + width
}
/// Scaled magnitudes at or above this are exceptions: below it [`ROUND`] rounds exactly.
const MAX_SCALED: f64 = 2_251_799_813_685_248.0; // 2^51
/// Adding and subtracting `2^52 + 2^51` rounds a double of magnitude below 2^51 to an integer
/// (to even on ties) with two additions, where `f64::round` is a libm call on x86-64's baseline.
/// Any rounding would do: the writer checks every value through [`decode_one`].
const ROUND: f64 = 6_755_399_441_055_744.0;

const POW10: [f64; MAX_EXPONENT + 1] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18,
];
const NEG_POW10: [f64; MAX_EXPONENT + 1] = [
    1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13, 1e-14,
    1e-15, 1e-16, 1e-17, 1e-18,
];

/// The decoder's arithmetic; the writer stores `n` only when this gives back the exact value.
fn decode_one(n: i64, e: usize, f: usize) -> f64 {
    n as f64 * POW10[f] * NEG_POW10[e]
}

/// The elements ALP stores: doubles, and floats, which it scales as the doubles they widen to
/// (exactly) and decodes through [`decode_one`] rounded to a float.
trait Element: Copy {
    /// Bytes per element.
    const WIDTH: usize;
    /// The element read from `WIDTH` little-endian bytes.
    fn read(bytes: &[u8]) -> Self;
    /// The element as a double (exact).
    fn widen(self) -> f64;
    /// Whether `d`, what [`decode_one`] gives, is this element, bit for bit.
    fn is(self, d: f64) -> bool;
    /// The bits of the element [`decode_one`] decodes `n` to, with its two factors `10^f` and
    /// `10^-e` looked up once by the caller (zero-extended to 64 bits).
    fn decoded_bits(n: i64, up: f64, down: f64) -> i64;
}

impl Element for f64 {
    const WIDTH: usize = 8;
    fn read(bytes: &[u8]) -> Self {
        let mut b = [0u8; 8];
        b.copy_from_slice(bytes);
        f64::from_le_bytes(b)
    }
    fn widen(self) -> f64 {
        self
    }
    fn is(self, d: f64) -> bool {
        d.to_bits() == self.to_bits()
    }
    fn decoded_bits(n: i64, up: f64, down: f64) -> i64 {
        (n as f64 * up * down).to_bits() as i64
    }
}

impl Element for f32 {
    const WIDTH: usize = 4;
    fn read(bytes: &[u8]) -> Self {
        let mut b = [0u8; 4];
        b.copy_from_slice(bytes);
        f32::from_le_bytes(b)
    }
    fn widen(self) -> f64 {
        f64::from(self)
    }
    fn is(self, d: f64) -> bool {
        (d as f32).to_bits() == self.to_bits()
    }
    fn decoded_bits(n: i64, up: f64, down: f64) -> i64 {
        i64::from(((n as f64 * up * down) as f32).to_bits())
    }
}

/// `v` as the integer ALP stores for `(e, f)`, or `None` when `v` is an exception.
fn encode_one<T: Element>(v: T, e: usize, f: usize) -> Option<i64> {
    let scaled = v.widen() * POW10[e] * NEG_POW10[f];
    if scaled.is_nan() || scaled.abs() >= MAX_SCALED {
        return None;
    }
    let n = ((scaled + ROUND) - ROUND) as i64;
    v.is(decode_one(n, e, f)).then_some(n)
}

fn elements<T: Element>(bytes: &[u8]) -> Vec<T> {
    bytes.chunks_exact(T::WIDTH).map(T::read).collect()
}

/// How one buffer is stored: the chosen pair, the frame of reference and the exceptions, with
/// each value's differences from the reference already computed (the plan has to encode every
/// value to size the buffer, so the encoder does not do it again).
#[derive(Debug)]
pub(crate) struct Plan {
    e: usize,
    f: usize,
    reference: i64,
    bit_width: u8,
    /// Each value's encoded integer minus the reference; 0 for an exception.
    deltas: Vec<u64>,
    /// The exceptions' positions, ascending.
    exceptions: Vec<usize>,
    len: usize,
}

/// The estimated bits of `sample` stored with `(e, f)`: packed values plus exceptions.
fn estimate<T: Element>(sample: &[T], e: usize, f: usize) -> usize {
    let (mut lo, mut hi, mut exceptions) = (i64::MAX, i64::MIN, 0usize);
    for &v in sample {
        match encode_one(v, e, f) {
            Some(n) => {
                lo = lo.min(n);
                hi = hi.max(n);
            }
            None => exceptions += 1,
        }
    }
    let width = if lo > hi {
        0
    } else {
        bitpack::width_of(hi.wrapping_sub(lo) as u64)
    };
    sample.len() * usize::from(width) + exceptions * exception_bytes(T::WIDTH) * 8
}

/// Every `count`-th value of `values`, up to `count` of them.
fn sample_of<T: Element>(values: &[T], count: usize) -> Vec<T> {
    let step = values.len().div_ceil(count).max(1);
    values.iter().step_by(step).copied().collect()
}

/// The `(e, f)` pair with the smallest estimated size: every pair on a small sample, the best
/// few of them on a larger one (the paper's two-level sampling, on one buffer).
fn choose_pair<T: Element>(values: &[T]) -> (usize, usize) {
    let first = sample_of(values, FIRST_SAMPLE);
    let mut ranked: Vec<(usize, usize, usize)> = (0..=MAX_EXPONENT)
        .flat_map(|e| (0..=e).map(move |f| (e, f)))
        .map(|(e, f)| (estimate(&first, e, f), e, f))
        .collect();
    // Stable: of equal estimates the smaller exponent stays first.
    ranked.sort_by_key(|&(cost, _, _)| cost);
    let sample = sample_of(values, SAMPLE);
    ranked
        .iter()
        .take(FINALISTS)
        .map(|&(_, e, f)| (estimate(&sample, e, f), e, f))
        .min_by_key(|&(cost, _, _)| cost)
        .map_or((0, 0), |(_, e, f)| (e, f))
}

/// The analysed buffer's plan, made on first use, or `None` when it holds no doubles or floats.
fn plan<'b>(buffer: &'b Analysis<'_>) -> Option<&'b Plan> {
    buffer
        .alp_plan
        .get_or_init(|| match buffer.kind {
            _ if !buffer.floats || buffer.bytes.is_empty() => None,
            BufferKind::Values(8) => make_plan::<f64>(buffer.bytes),
            BufferKind::Values(4) => make_plan::<f32>(buffer.bytes),
            _ => None,
        })
        .as_ref()
}

fn make_plan<T: Element>(bytes: &[u8]) -> Option<Plan> {
    if !bytes.len().is_multiple_of(T::WIDTH) {
        return None;
    }
    let values: Vec<T> = elements(bytes);
    let (e, f) = choose_pair(&values);
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    let mut exceptions = Vec::new();
    // Each value's integer (the exceptions' 0 is never read), reused below as its difference.
    let mut encoded: Vec<u64> = values
        .iter()
        .enumerate()
        .map(|(i, &v)| match encode_one(v, e, f) {
            Some(n) => {
                lo = lo.min(n);
                hi = hi.max(n);
                n as u64
            }
            None => {
                exceptions.push(i);
                0
            }
        })
        .collect();
    let (reference, bit_width) = if lo > hi {
        (0, 0)
    } else {
        (lo, bitpack::width_of(hi.wrapping_sub(lo) as u64))
    };
    for n in &mut encoded {
        *n = (*n as i64).wrapping_sub(reference) as u64;
    }
    for &i in &exceptions {
        encoded[i] = 0;
    }
    let len = PARAMS
        .checked_add(bitpack::packed_len(values.len(), bit_width)?)?
        .checked_add(exceptions.len().checked_mul(exception_bytes(T::WIDTH))?)?;
    Some(Plan {
        e,
        f,
        reference,
        bit_width,
        deltas: encoded,
        exceptions,
        len,
    })
}

impl BufferUnit for Alp {
    fn applies_to(&self, kind: BufferKind) -> bool {
        matches!(kind, BufferKind::Values(4 | 8))
    }

    fn stored_len(&self, buffer: &Analysis<'_>) -> Option<usize> {
        plan(buffer).map(|p| p.len)
    }

    fn encode(&self, buffer: &Analysis<'_>, out: &mut Vec<u8>) -> Result<()> {
        let p =
            plan(buffer).ok_or_else(|| Error::Internal("alp of a buffer of no doubles".into()))?;
        out.extend_from_slice(&[p.e as u8, p.f as u8, p.bit_width, 0, 0, 0, 0, 0]);
        out.extend_from_slice(&p.reference.to_le_bytes());
        let count = u32::try_from(p.exceptions.len())
            .map_err(|_| Error::Internal("alp exception count".into()))?;
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        bitpack::pack(p.deltas.iter().copied(), p.bit_width, out);
        for &i in &p.exceptions {
            out.extend_from_slice(&(i as u32).to_le_bytes());
        }
        let width = buffer.width();
        for &i in &p.exceptions {
            out.extend_from_slice(&buffer.bytes[i * width..(i + 1) * width]);
        }
        Ok(())
    }

    fn decode(&self, stored: &[u8], width: usize, out: &mut [u8], what: &str) -> Result<()> {
        match width {
            8 => decode_as::<f64>(stored, out, what),
            4 => decode_as::<f32>(stored, out, what),
            _ => Err(Error::CorruptEncoding(format!(
                "{what}: alp of {width}-byte elements (it stores doubles and floats)"
            ))),
        }
    }
}

/// Decodes `stored` into `out`, elements of `T`.
fn decode_as<T: Element>(stored: &[u8], out: &mut [u8], what: &str) -> Result<()> {
    let width = T::WIDTH;
    let n = element_count(out.len(), width, what)?;
    let (params, rest) = split_params(stored, PARAMS, what)?;
    let (e, f, bit_width) = (usize::from(params[0]), usize::from(params[1]), params[2]);
    super::reserved_zero(&params[3..8], what)?;
    super::reserved_zero(&params[20..24], what)?;
    let reference = super::param_i64(params, 8);
    let exceptions = u32::from_le_bytes([params[16], params[17], params[18], params[19]]) as usize;
    if e > MAX_EXPONENT || f > e || exceptions > n {
        return Err(Error::CorruptEncoding(format!(
            "{what}: exponent {e}, factor {f}, {exceptions} exceptions for {n} values"
        )));
    }
    let packed_len = bitpack::packed_len(n, bit_width)
        .ok_or_else(|| Error::CorruptEncoding(format!("{what}: {n} values of {bit_width} bits")))?;
    let (packed, rest) = split_params(rest, packed_len, what)?;
    let exceptions_len = exceptions * exception_bytes(width);
    if rest.len() != exceptions_len {
        return Err(Error::CorruptEncoding(format!(
            "{what}: {} bytes after the packed values, {exceptions} exceptions take \
                 {exceptions_len}",
            rest.len()
        )));
    }
    let (positions, values) = rest.split_at(exceptions * 4);
    let (up, down) = (POW10[f], NEG_POW10[e]);
    bitpack::unpack_map_into(packed, bit_width, out, width, what, |delta| {
        T::decoded_bits(reference.wrapping_add(delta as i64), up, down)
    })?;
    let mut next = 0usize;
    for (position, value) in positions.chunks_exact(4).zip(values.chunks_exact(width)) {
        let at = u32::from_le_bytes([position[0], position[1], position[2], position[3]]) as usize;
        if at < next || at >= n {
            return Err(Error::CorruptEncoding(format!(
                "{what}: exception at {at} (positions rise strictly, below {n})"
            )));
        }
        out[at * width..(at + 1) * width].copy_from_slice(value);
        next = at + 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::BufferKind;

    fn analysed(values: &[f64]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    fn round_trip(values: &[f64]) -> usize {
        let bytes = analysed(values);
        let analysis = Analysis::of(&bytes, BufferKind::Values(8)).with_floats(true);
        let len = Alp.stored_len(&analysis).expect("doubles");
        let mut stored = Vec::new();
        Alp.encode(&analysis, &mut stored).unwrap();
        assert_eq!(stored.len(), len);
        let mut out = vec![0u8; bytes.len()];
        Alp.decode(&stored, 8, &mut out, "t").unwrap();
        assert_eq!(out, bytes, "bit for bit");
        len
    }

    #[test]
    fn decimals_in_disguise_shrink_and_everything_round_trips() {
        let prices: Vec<f64> = (0..1000)
            .map(|i| (100_000 + i * 37 % 5000) as f64 / 100.0)
            .collect();
        assert!(
            round_trip(&prices) < prices.len() * 3,
            "two-decimal prices take under 3 bytes"
        );
        let mut odd = prices.clone();
        odd.extend([
            f64::NAN,
            -0.0,
            0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1.0 / 3.0,
        ]);
        odd.push(f64::from_bits(0x7FF8_0000_0000_1234)); // a NaN with a payload
        odd.push(f64::MIN_POSITIVE / 2.0); // subnormal
        odd.push(f64::MAX);
        odd.push(-123.456);
        round_trip(&odd);
        round_trip(&[f64::NAN; 10]);
        round_trip(&[0.1, 0.2, 0.30000000000000004]);
        let randoms: Vec<f64> = (0..500u64)
            .map(|i| f64::from_bits(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 2))
            .collect();
        round_trip(&randoms);
    }

    fn round_trip_floats(values: &[f32]) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let analysis = Analysis::of(&bytes, BufferKind::Values(4)).with_floats(true);
        let len = Alp.stored_len(&analysis).expect("floats");
        let mut stored = Vec::new();
        Alp.encode(&analysis, &mut stored).unwrap();
        assert_eq!(stored.len(), len);
        let mut out = vec![0u8; bytes.len()];
        Alp.decode(&stored, 4, &mut out, "t").unwrap();
        assert_eq!(out, bytes, "bit for bit");
        len
    }

    #[test]
    fn floats_that_are_decimals_shrink_and_every_float_round_trips() {
        // Floats of 1 and 2 decimals (the doubles they widen to are not: 12.34f32 widens to
        // 12.340000152587890625), as a FloatType column of readings or prices holds them.
        let readings: Vec<f32> = (0..1000)
            .map(|i| (150 + i * 7 % 250) as f32 / 10.0)
            .collect();
        assert!(
            round_trip_floats(&readings) < readings.len() * 2,
            "one-decimal floats take under 2 bytes"
        );
        let prices: Vec<f32> = (0..1000)
            .map(|i| (10_000 + i * 37 % 5000) as f32 / 100.0)
            .collect();
        assert!(round_trip_floats(&prices) < prices.len() * 3);
        let mut odd = prices.clone();
        odd.extend([
            f32::NAN,
            -0.0,
            0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1.0 / 3.0,
            f32::from_bits(0x7FC0_1234), // a NaN with a payload
            f32::MIN_POSITIVE / 2.0,     // subnormal
            f32::MAX,
            -123.456,
        ]);
        round_trip_floats(&odd);
        round_trip_floats(&[f32::NAN; 10]);
        let randoms: Vec<f32> = (0..500u32)
            .map(|i| f32::from_bits(i.wrapping_mul(0x9E37_79B9) >> 2))
            .collect();
        round_trip_floats(&randoms);
    }

    #[test]
    fn not_doubles_is_not_alp() {
        let bytes = analysed(&[1.5, 2.5]);
        let analysis = Analysis::of(&bytes, BufferKind::Values(8));
        assert_eq!(Alp.stored_len(&analysis), None);
    }
}
