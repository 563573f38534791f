//! Shared tools of the corpus groups: frames to damage, and edits that keep the metadata
//! checksum valid so a case reaches the check behind it.

use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch};
use tablecache_format::stats::{self, ColumnStats};
use tablecache_format::{write, ChecksumKind, Codec, Encoding, Format, Frame, WriteOptions};

use crate::common;

/// Writes `batch` with the default options changed by `edit`.
pub fn frame_of(batch: &RecordBatch, edit: impl FnOnce(&mut WriteOptions)) -> Vec<u8> {
    let mut options = WriteOptions::default();
    edit(&mut options);
    write(batch, &options).expect("write")
}

/// The default V3 frame (stats, lz4, byte stream split, CRC32C) of the primitives batch.
pub fn v3() -> Vec<u8> {
    frame_of(&common::primitives(), |_| {})
}

/// A frame of the primitives batch with these format, stats, codec, encoding and checksum.
pub fn primitives(
    format: Format,
    stats: bool,
    codec: Codec,
    encoding: Encoding,
    checksum: ChecksumKind,
) -> Vec<u8> {
    frame_of(&common::primitives(), |o| {
        o.format = format;
        o.stats = stats;
        o.codec = codec;
        o.encoding = encoding.into();
        o.checksum = checksum;
    })
}

/// One batch from named columns.
pub fn batch(cols: Vec<(&str, ArrayRef)>) -> RecordBatch {
    common::batch(cols)
}

/// An `Arc`ed array, for [`batch`].
pub fn col<A: arrow_array::Array + 'static>(a: A) -> ArrayRef {
    Arc::new(a)
}

/// The little-endian u32 at `at`.
pub fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes")) as usize
}

/// Overwrites the little-endian u32 at `at`.
pub fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// The directory entry length of the frame `b` (V4 states a decoded length; V2, V3 do not).
pub fn entry_len(b: &[u8]) -> usize {
    if b[4] == 4 {
        tablecache_format::V4_DIRECTORY_ENTRY_LEN
    } else {
        tablecache_format::DIRECTORY_ENTRY_LEN
    }
}

/// Start of the stats section, start of the directory and of the payload area, from the header.
pub fn layout(b: &[u8]) -> (usize, usize, usize) {
    // V3 and V4 have one entry per column, V2 one.
    let entries = if b[4] >= 3 { u32_at(b, 12) } else { 1 };
    let stats = 28 + u32_at(b, 16);
    let directory = stats + u32_at(b, 20);
    (stats, directory, directory + entry_len(b) * entries)
}

/// Recomputes the metadata checksum after a deliberate edit (no-op for checksum kind NONE).
pub fn reseal(mut b: Vec<u8>) -> Vec<u8> {
    if (b[5] >> 1) & 3 == 1 {
        let (_, _, payload_start) = layout(&b);
        let crc = crc32c::crc32c_append(crc32c::crc32c(&b[..24]), &b[28..payload_start]);
        put_u32(&mut b, 24, crc);
    }
    b
}

/// Recomputes every payload checksum, then the metadata checksum, after a deliberate edit of a
/// payload (no-op for checksum kind NONE).
pub fn reseal_all(mut b: Vec<u8>) -> Vec<u8> {
    if (b[5] >> 1) & 3 == 1 {
        let (_, directory, payloads) = layout(&b);
        for entry in (directory..payloads).step_by(entry_len(&b)) {
            let start = payloads + u32_at(&b, entry);
            let crc = crc32c::crc32c(&b[start..start + u32_at(&b, entry + 4)]);
            put_u32(&mut b, entry + 12, crc);
        }
    }
    reseal(b)
}

/// `frame` with byte `at` set to `v`, resealed.
pub fn set(frame: &[u8], at: usize, v: u8) -> Vec<u8> {
    let mut b = frame.to_vec();
    b[at] = v;
    reseal(b)
}

/// `frame` with the u32 at `at` set to `v`, resealed.
pub fn set_u32(frame: &[u8], at: usize, v: u32) -> Vec<u8> {
    let mut b = frame.to_vec();
    put_u32(&mut b, at, v);
    reseal(b)
}

/// `frame` with its stats section replaced by `section` (header length fixed up), resealed.
pub fn with_stats_section(frame: &[u8], section: &[u8]) -> Vec<u8> {
    let (stats, directory, _) = layout(frame);
    let mut b = frame[..stats].to_vec();
    put_u32(&mut b, 20, section.len() as u32);
    b.extend_from_slice(section);
    b.extend_from_slice(&frame[directory..]);
    reseal(b)
}

/// The stats the writer put in `frame`.
pub fn stats_of(frame: &[u8]) -> Vec<ColumnStats> {
    Frame::parse(frame)
        .expect("valid frame")
        .stats
        .expect("frame has stats")
}

/// `frame` with its stats re-encoded after `edit` changed them, resealed.
pub fn with_stats(frame: &[u8], edit: impl FnOnce(&mut Vec<ColumnStats>)) -> Vec<u8> {
    let mut s = stats_of(frame);
    edit(&mut s);
    let mut section = Vec::new();
    stats::encode(&s, &mut section).expect("encode stats");
    with_stats_section(frame, &section)
}

/// Byte offset of column `i`'s stats entry (its null_count) inside `frame`.
pub fn stats_entry_at(frame: &[u8], i: usize) -> usize {
    let (stats, _, _) = layout(frame);
    let mut at = stats + 4;
    for s in stats_of(frame).iter().take(i) {
        let mut one = Vec::new();
        stats::encode(std::slice::from_ref(s), &mut one).expect("encode");
        at += one.len() - 4;
    }
    at
}
