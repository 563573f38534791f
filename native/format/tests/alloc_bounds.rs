//! Allocation bounds: frames whose length and count fields claim gigabytes (row and column
//! counts, schema, stats and directory lengths, column-body counts and lengths, legacy IPC
//! message, body, node and buffer lengths, and the uncompressed-length prefixes of compressed
//! IPC buffers) fail quickly with an error, and the peak heap allocation while reading each stays
//! far below what the field claims.
//!
//! The peak is measured per thread, each case on a fresh thread: this binary installs a counting
//! `#[global_allocator]` over the system allocator (the format crate has no allocator of its
//! own; jemalloc belongs to the JNI library) that tracks the bytes live on the current thread,
//! their peak and the largest single request.

mod common;
mod reject;
use reject::schema_bombs;

use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::{ArrayRef, Int64Array, NullArray, StringArray};
use tablecache_format::{decode, write, ChecksumKind, Codec, ErrorKind, Format, WriteOptions};

/// The most a single case may allocate at its peak.
const PEAK_LIMIT: usize = 64 << 20;

mod meter {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        static LIVE: Cell<isize> = const { Cell::new(0) };
        static PEAK: Cell<isize> = const { Cell::new(0) };
        static LARGEST: Cell<usize> = const { Cell::new(0) };
    }

    /// The system allocator, counting this thread's live bytes, peak and largest request.
    pub struct Counting;

    fn grew(size: usize) {
        // try_with: thread-local storage may already be gone while a thread exits.
        let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
        let _ = LIVE.try_with(|live| {
            live.set(live.get() + size as isize);
            let _ = PEAK.try_with(|p| p.set(p.get().max(live.get())));
        });
    }

    fn shrank(size: usize) {
        let _ = LIVE.try_with(|live| live.set(live.get() - size as isize));
    }

    // SAFETY: every call is forwarded to `System` unchanged; only counters are updated.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            grew(layout.size());
            // SAFETY: forwarded with the caller's layout.
            unsafe { System.alloc(layout) }
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            grew(layout.size());
            // SAFETY: forwarded with the caller's layout.
            unsafe { System.alloc_zeroed(layout) }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            shrank(layout.size());
            // SAFETY: `ptr` came from `System` with this layout.
            unsafe { System.dealloc(ptr, layout) }
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            shrank(layout.size());
            grew(new_size);
            // SAFETY: forwarded unchanged.
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }

    #[global_allocator]
    static GLOBAL: Counting = Counting;

    pub const HOW: &str = "counting global allocator";

    /// Bytes allocated at the peak since the thread started (largest single request as well).
    pub fn thread_peak() -> usize {
        let peak = PEAK.with(Cell::get).max(0) as usize;
        peak.max(LARGEST.with(Cell::get))
    }
}

#[test]
fn the_meter_sees_a_large_allocation() {
    let peak = std::thread::spawn(|| {
        let baseline = meter::thread_peak();
        let big = vec![1u8; 100 << 20];
        std::hint::black_box(&big);
        drop(big);
        meter::thread_peak() - baseline
    })
    .join()
    .expect("thread");
    assert!(
        peak >= 99 << 20,
        "{} saw a peak of {peak} bytes",
        meter::HOW
    );
}

/// Decodes `bytes` on a fresh thread; returns the result kind, its peak allocation and duration.
fn measure(bytes: Vec<u8>) -> (Result<usize, ErrorKind>, usize, Duration) {
    std::thread::spawn(move || {
        let baseline = meter::thread_peak();
        let start = Instant::now();
        let result = decode(&bytes, None).map(|b| b.num_rows());
        let elapsed = start.elapsed();
        let result = result.map_err(|e| {
            assert_ne!(e.kind(), ErrorKind::Internal, "{e}");
            e.kind()
        });
        drop(bytes);
        (
            result,
            meter::thread_peak().saturating_sub(baseline),
            elapsed,
        )
    })
    .join()
    .expect("case thread")
}

/// Runs every case: each must fail with its kind, with a small peak. The time is printed, not
/// asserted (a timed assertion fails on a loaded machine, under valgrind in particular); a case
/// that did work exponential in its input would not finish at all, which fails the run.
fn check(cases: Vec<(&str, Vec<u8>, ErrorKind)>) {
    for (name, bytes, expected) in cases {
        let (result, peak, elapsed) = measure(bytes);
        println!(
            "{name}: {result:?}, peak {peak} bytes ({}), {elapsed:?}",
            meter::HOW
        );
        assert_eq!(result, Err(expected), "{name}");
        assert!(peak < PEAK_LIMIT, "{name}: peak allocation {peak} bytes");
    }
}

fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes")) as usize
}

/// `(stats start, directory start, payload start)` from the header.
fn layout(b: &[u8]) -> (usize, usize, usize) {
    let entries = if b[4] == 3 { u32_at(b, 12) } else { 1 };
    let stats = 28 + u32_at(b, 16);
    let directory = stats + u32_at(b, 20);
    (stats, directory, directory + 20 * entries)
}

/// Recomputes the metadata checksum after an edit, so the reader gets past it (a frame with
/// checksums whose metadata still fits the bytes; anything else stays as is).
fn reseal(b: &mut [u8]) {
    if b[..4] != tablecache_format::MAGIC || b[5] & 0x06 == 0 {
        return;
    }
    let (_, _, payload_start) = layout(b);
    if payload_start > b.len() {
        return;
    }
    let crc = tablecache_format::meta_checksum(b, payload_start);
    put_u32(b, tablecache_format::header::META_CHECKSUM_AT, crc);
}

fn frame_of(
    batch: &arrow_array::RecordBatch,
    format: Format,
    stats: bool,
    codec: Codec,
) -> Vec<u8> {
    let checksum = ChecksumKind::Crc32c;
    let options = WriteOptions {
        format,
        stats,
        codec,
        checksum,
        ..Default::default()
    };
    write(batch, &options).expect("write")
}

fn frame(format: Format, stats: bool, codec: Codec) -> Vec<u8> {
    frame_of(&common::primitives(), format, stats, codec)
}

/// A copy of `clean` with the `u32` at `at` set to `value`, resealed.
fn edited(clean: &[u8], at: usize, value: u32) -> Vec<u8> {
    let mut b = clean.to_vec();
    put_u32(&mut b, at, value);
    reseal(&mut b);
    b
}

#[test]
fn huge_header_and_directory_fields_fail_with_a_small_peak() {
    use ErrorKind::*;
    let v3 = frame(Format::V3, true, Codec::Lz4);
    let v3_plain = frame(Format::V3, false, Codec::None);
    let v2 = frame(Format::V2, true, Codec::Lz4);
    let v2_plain = frame(Format::V2, false, Codec::None);
    let (_, dir, _) = layout(&v3);
    let (_, dir_plain, _) = layout(&v3_plain);
    let (_, dir_v2, _) = layout(&v2);
    let max = u32::MAX;
    let max_raw = i32::MAX as u32 - 64;
    let rows_2g = i32::MAX as u32;
    check(vec![
        (
            "V3 row count 4G (stats disagree)",
            edited(&v3, 8, max),
            CorruptFrame,
        ),
        // Past i32::MAX rows (what Java can index): rejected in the header.
        (
            "V3 row count 4G (no stats)",
            edited(&v3_plain, 8, max),
            CorruptFrame,
        ),
        (
            "V3 row count 2G (stats disagree)",
            edited(&v3, 8, rows_2g),
            CorruptFrame,
        ),
        (
            "V3 row count 2G (no stats)",
            edited(&v3_plain, 8, rows_2g),
            SchemaMismatch,
        ),
        (
            "V2 row count 4G (stats disagree)",
            edited(&v2, 8, max),
            CorruptFrame,
        ),
        (
            "V2 row count 4G (no stats)",
            edited(&v2_plain, 8, max),
            CorruptFrame,
        ),
        (
            "V2 row count 2G (no stats)",
            edited(&v2_plain, 8, rows_2g),
            SchemaMismatch,
        ),
        ("V3 column count 4G", edited(&v3, 12, max), CorruptFrame),
        (
            "V3 column count 4G (no stats)",
            edited(&v3_plain, 12, max),
            CorruptFrame,
        ),
        // The stats section (read before the schema) holds the real column count.
        ("V2 column count 4G", edited(&v2, 12, max), CorruptFrame),
        (
            "V2 column count 4G (no stats)",
            edited(&v2_plain, 12, max),
            SchemaMismatch,
        ),
        ("schema length 4G", edited(&v3, 16, max), CorruptFrame),
        ("stats length 4G", edited(&v3, 20, max), CorruptFrame),
        (
            "directory offset 4G",
            edited(&v3, dir + 20, max),
            CorruptFrame,
        ),
        (
            "directory stored length 4G",
            edited(&v3, dir + 4, max),
            CorruptFrame,
        ),
        (
            "directory raw length 4G (lz4)",
            edited(&v3, dir + 8, max),
            CorruptFrame,
        ),
        (
            "directory raw length 2G (lz4)",
            edited(&v3, dir + 8, max_raw),
            CorruptFrame,
        ),
        (
            "directory raw length 2G (none)",
            edited(&v3_plain, dir_plain + 8, max_raw),
            CorruptFrame,
        ),
        (
            "V2 directory raw length 2G",
            edited(&v2, dir_v2 + 8, max_raw),
            CorruptFrame,
        ),
        (
            "V2 directory stored length 4G",
            edited(&v2, dir_v2 + 4, max),
            CorruptFrame,
        ),
    ]);
}

#[test]
fn huge_stats_fields_fail_with_a_small_peak() {
    let strings = common::batch(vec![(
        "s",
        Arc::new(StringArray::from(vec!["a", "bb"])) as ArrayRef,
    )]);
    let clean = frame_of(&strings, Format::V3, true, Codec::Lz4);
    let (stats, _, _) = layout(&clean);
    check(vec![
        // The section's own column count, then the lower bound's string length.
        (
            "stats column count 4G",
            edited(&clean, stats, u32::MAX),
            ErrorKind::CorruptFrame,
        ),
        (
            "stats string bound 4G",
            edited(&clean, stats + 22, u32::MAX),
            ErrorKind::CorruptFrame,
        ),
        (
            "stats string bound 2G",
            edited(&clean, stats + 22, 1 << 31),
            ErrorKind::CorruptFrame,
        ),
    ]);
}

/// Offset of the first column body's fields in a V3 frame without compression.
fn first_body(b: &[u8]) -> usize {
    layout(b).2
}

#[test]
fn huge_column_body_fields_fail_with_a_small_peak() {
    use ErrorKind::*;
    // Codec none and no checksums: the body can be edited in place.
    let longs = common::batch(vec![(
        "x",
        Arc::new(Int64Array::from(vec![Some(1), None, Some(3)])) as ArrayRef,
    )]);
    let options = WriteOptions {
        format: Format::V3,
        stats: false,
        codec: Codec::None,
        checksum: ChecksumKind::None,
        ..Default::default()
    };
    let clean = write(&longs, &options).expect("write");
    let body = first_body(&clean);
    // Body: node count, buffer count, node (length, null count), buffer lengths.
    let v2 = write(
        &longs,
        &WriteOptions {
            format: Format::V2,
            ..options
        },
    )
    .expect("write");
    let v2_body = first_body(&v2);
    check(vec![
        (
            "body node count 4G",
            edited(&clean, body, u32::MAX),
            CorruptFrame,
        ),
        (
            "body buffer count 4G",
            edited(&clean, body + 4, u32::MAX),
            CorruptFrame,
        ),
        (
            "body node length 4G",
            edited(&clean, body + 8, u32::MAX),
            CorruptFrame,
        ),
        (
            "body null count 4G",
            edited(&clean, body + 12, u32::MAX),
            CorruptFrame,
        ),
        (
            "body validity length 4G",
            edited(&clean, body + 16, u32::MAX),
            CorruptFrame,
        ),
        (
            "body values length 4G",
            edited(&clean, body + 20, u32::MAX),
            CorruptFrame,
        ),
        (
            "V2 body node count 4G",
            edited(&v2, v2_body, u32::MAX),
            CorruptFrame,
        ),
        (
            "V2 body node length 4G",
            edited(&v2, v2_body + 8, u32::MAX),
            CorruptFrame,
        ),
    ]);
}

#[test]
fn two_billion_null_rows_decode_without_allocating_by_the_row_count() {
    let nulls = common::batch(vec![("n", Arc::new(NullArray::new(3)) as ArrayRef)]);
    let options = WriteOptions {
        format: Format::V3,
        stats: false,
        codec: Codec::None,
        checksum: ChecksumKind::None,
        ..Default::default()
    };
    let mut b = write(&nulls, &options).expect("write");
    let body = first_body(&b);
    // The most rows a batch may have (i32::MAX, what Java can index).
    let rows = i32::MAX as u32;
    put_u32(&mut b, 8, rows);
    put_u32(&mut b, body + 8, rows);
    let (result, peak, elapsed) = measure(b);
    println!(
        "2G null rows: {result:?}, peak {peak} ({}), {elapsed:?}",
        meter::HOW
    );
    assert_eq!(result, Ok(rows as usize));
    assert!(peak < PEAK_LIMIT, "peak allocation {peak} bytes");
}

#[test]
fn compressed_payload_lengths_are_bounded_by_the_stored_bytes() {
    use ErrorKind::*;
    for codec in [Codec::Lz4, Codec::Zstd] {
        let clean = frame(Format::V3, false, codec);
        let (_, dir, _) = layout(&clean);
        let stored = u32_at(&clean, dir + 4) as u64;
        let ratio: u64 = if codec == Codec::Lz4 { 255 } else { 32768 };
        let at_bound = (stored * ratio + 16).min(i32::MAX as u64 - 64) as u32;
        check(vec![
            // Beyond the ratio: rejected while parsing the directory.
            (
                "raw length past the ratio",
                edited(&clean, dir + 8, at_bound + 1024),
                CorruptFrame,
            ),
            // Within the ratio: lz4 allocates at most 255 × stored, zstd must match the
            // zstd frame's declared content size before anything is allocated.
            (
                "raw length at the ratio",
                edited(&clean, dir + 8, at_bound),
                CorruptFrame,
            ),
        ]);
    }
}

/// The messages of an IPC stream: `(start, metadata range, body range)`.
fn ipc_messages(b: &[u8]) -> Vec<(usize, std::ops::Range<usize>, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos + 8 <= b.len() {
        let meta_len = u32_at(b, pos + 4);
        if meta_len == 0 {
            break;
        }
        let meta = pos + 8..pos + 8 + meta_len;
        let message = arrow_ipc::root_as_message(&b[meta.clone()]).expect("message");
        let body = meta.end..meta.end + message.bodyLength() as usize;
        out.push((pos, meta, body.clone()));
        pos = body.end;
    }
    out
}

fn edited_i64(clean: &[u8], at: usize, value: i64) -> Vec<u8> {
    let mut b = clean.to_vec();
    b[at..at + 8].copy_from_slice(&value.to_le_bytes());
    b
}

/// Where the record batch message keeps its node, buffer, row-count and body-length fields.
struct BatchFields {
    start: usize,
    node0: usize,
    buffers: Vec<(usize, i64, i64)>,
    body: std::ops::Range<usize>,
    body_length: usize,
    rows: usize,
}

fn batch_fields(b: &[u8]) -> BatchFields {
    let (start, meta, body) = ipc_messages(b).pop().expect("record batch message");
    let bytes = &b[meta.clone()];
    let message = arrow_ipc::root_as_message(bytes).expect("message");
    let batch = message.header_as_record_batch().expect("record batch");
    let offset_in = |slice: &[u8]| meta.start + (slice.as_ptr() as usize - bytes.as_ptr() as usize);
    let nodes = batch.nodes().expect("nodes");
    let node0 = offset_in(nodes.bytes());
    let buffers = batch.buffers().expect("buffers");
    let buffers_at = offset_in(buffers.bytes());
    let buffers = buffers
        .iter()
        .enumerate()
        .map(|(i, buf)| (buffers_at + 16 * i, buf.offset(), buf.length()))
        .collect();
    // The scalars: the one place holding each value outside the node and buffer vectors.
    let skip = node0..buffers_at + 16 * batch.buffers().expect("buffers").len();
    let find = |value: i64| {
        let pattern = value.to_le_bytes();
        let hits: Vec<usize> = (meta.start..meta.end - 8)
            .filter(|&i| !skip.contains(&i) && b[i..i + 8] == pattern)
            .collect();
        assert_eq!(hits.len(), 1, "value {value} at {hits:?}");
        hits[0]
    };
    BatchFields {
        start,
        node0,
        buffers,
        body_length: find(message.bodyLength()),
        rows: find(batch.length()),
        body,
    }
}

#[test]
fn huge_legacy_ipc_lengths_fail_with_a_small_peak() {
    use ErrorKind::*;
    let plain = frame(Format::Legacy, false, Codec::None);
    let f = batch_fields(&plain);
    let huge = 1i64 << 40;
    let (values_at, _, _) = f.buffers[1];
    let mut cases = vec![
        (
            "schema metadata length 2G",
            edited(&plain, 4, i32::MAX as u32),
            CorruptFrame,
        ),
        (
            "batch metadata length 2G",
            edited(&plain, f.start + 4, i32::MAX as u32),
            CorruptFrame,
        ),
        (
            "body length 1T",
            edited_i64(&plain, f.body_length, huge),
            CorruptFrame,
        ),
        (
            "batch row count 1T",
            edited_i64(&plain, f.rows, huge),
            CorruptFrame,
        ),
        (
            "node length 1T",
            edited_i64(&plain, f.node0, huge),
            CorruptFrame,
        ),
        (
            "node null count 1T",
            edited_i64(&plain, f.node0 + 8, huge),
            CorruptFrame,
        ),
        (
            "buffer offset 1T",
            edited_i64(&plain, values_at, huge),
            CorruptFrame,
        ),
        (
            "buffer length 1T",
            edited_i64(&plain, values_at + 8, huge),
            CorruptFrame,
        ),
    ];
    // Compressed IPC buffers start with their uncompressed length (i64).
    for codec in [Codec::Lz4, Codec::Zstd] {
        let compressed = frame(Format::Legacy, false, codec);
        let f = batch_fields(&compressed);
        let (_, offset, length) = *f
            .buffers
            .iter()
            .find(|(_, _, len)| *len >= 16)
            .expect("a compressed buffer");
        let prefix = f.body.start + offset as usize;
        let reachable = (length - 8) * if codec == Codec::Lz4 { 255 } else { 32768 } + 1024;
        cases.push((
            if codec == Codec::Lz4 {
                "lz4 uncompressed length 1T"
            } else {
                "zstd uncompressed length 1T"
            },
            edited_i64(&compressed, prefix, huge),
            CorruptFrame,
        ));
        cases.push((
            if codec == Codec::Lz4 {
                "lz4 uncompressed length past the ratio"
            } else {
                "zstd uncompressed length past the ratio"
            },
            edited_i64(&compressed, prefix, reachable + 1),
            CorruptFrame,
        ));
        // After an early end-of-stream marker, the batch still gets its lengths checked.
        let schema_end = ipc_messages(&compressed)[0].2.end;
        let mut early_end = compressed[..schema_end].to_vec();
        early_end.extend_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]);
        early_end.extend_from_slice(&edited_i64(&compressed, prefix, huge)[schema_end..]);
        cases.push((
            "huge prefix after an early end-of-stream",
            early_end,
            CorruptFrame,
        ));
    }
    check(cases);
}

#[test]
fn schema_bombs_fail_quickly_with_a_small_peak() {
    let dag = schema_bombs::dag_schema();
    let chain = schema_bombs::chain_schema(20_000);
    check(vec![
        (
            "V3, 40^8 DAG schema",
            schema_bombs::v3_with_schema(&dag),
            ErrorKind::CorruptFrame,
        ),
        (
            "legacy, 40^8 DAG schema",
            schema_bombs::legacy_with_schema(&dag),
            ErrorKind::CorruptFrame,
        ),
        (
            "V3, 20000-deep struct chain",
            schema_bombs::v3_with_schema(&chain),
            ErrorKind::CorruptFrame,
        ),
        (
            "legacy, 20000-deep struct chain",
            schema_bombs::legacy_with_schema(&chain),
            ErrorKind::CorruptFrame,
        ),
    ]);
}

/// A zstd frame (RFC 8878) whose content is `prefix` then `zeros` zero bytes: one raw block and
/// then run-length blocks of 128 KiB, so a few KiB of stored bytes declare gigabytes. A real
/// decoder expands it; the frame header states the content size, as zstd's own encoder does.
fn zstd_zeros(prefix: &[u8], zeros: u64) -> Vec<u8> {
    const BLOCK: u64 = 128 << 10;
    let mut out = vec![0x28, 0xB5, 0x2F, 0xFD];
    // 8-byte content size, a window descriptor (not single segment), no checksum, no dictionary.
    out.push(0xC0);
    out.push(7 << 3); // window 2^(10 + 7) = 128 KiB
    out.extend_from_slice(&(prefix.len() as u64 + zeros).to_le_bytes());
    let mut blocks: Vec<(u8, u64, Option<&[u8]>)> = Vec::new();
    if !prefix.is_empty() {
        assert!(prefix.len() as u64 <= BLOCK);
        blocks.push((0, prefix.len() as u64, Some(prefix)));
    }
    let mut left = zeros;
    while left > 0 {
        let n = left.min(BLOCK);
        blocks.push((1, n, None));
        left -= n;
    }
    let last = blocks.len() - 1;
    for (i, (kind, size, raw)) in blocks.into_iter().enumerate() {
        let header = u32::from(i == last) | (u32::from(kind) << 1) | ((size as u32) << 3);
        out.extend_from_slice(&header.to_le_bytes()[..3]);
        match raw {
            Some(bytes) => out.extend_from_slice(bytes),
            None => out.push(0),
        }
    }
    out
}

/// The plain body of a one-row string column whose value is `len` zero bytes (FORMAT.md §3):
/// everything but the value bytes, which [`zstd_zeros`] supplies.
fn one_string_body_prefix(len: u32) -> (Vec<u8>, u64) {
    let mut b = Vec::new();
    for v in [1u32, 3, 1, 0, 0, 8, len] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.resize(32, 0); // header padded to 8
    b.extend_from_slice(&0u32.to_le_bytes()); // offsets 0, len
    b.extend_from_slice(&len.to_le_bytes());
    let zeros = u64::from(len).div_ceil(8) * 8;
    (b, zeros)
}

/// A V3 frame (zstd, CRC32C, no stats) of one row and `columns` string columns, each payload a
/// [`zstd_zeros`] frame decoding to a valid body whose value is `len` zero bytes; every
/// checksum is valid.
fn zero_strings_frame(columns: usize, len: u32) -> Vec<u8> {
    let cols = (0..columns)
        .map(|i| {
            (
                format!("s{i}"),
                Arc::new(StringArray::from(vec!["x"])) as ArrayRef,
            )
        })
        .collect::<Vec<_>>();
    let batch = common::batch(cols.iter().map(|(n, a)| (n.as_str(), a.clone())).collect());
    let clean = frame_of(&batch, Format::V3, false, Codec::Zstd);
    let (_, directory, payload_start) = layout(&clean);
    let mut out = clean[..payload_start].to_vec();
    let mut offset = 0u32;
    for i in 0..columns {
        let (prefix, zeros) = one_string_body_prefix(len);
        let payload = zstd_zeros(&prefix, zeros);
        let at = directory + 20 * i;
        put_u32(&mut out, at, offset);
        put_u32(&mut out, at + 4, payload.len() as u32);
        put_u32(&mut out, at + 8, (prefix.len() as u64 + zeros) as u32);
        put_u32(&mut out, at + 12, crc32c::crc32c(&payload));
        out[at + 16] = 2; // zstd
        out[at + 17] = 0; // plain
        offset += payload.len() as u32;
        out.extend_from_slice(&payload);
    }
    out[5] &= !0x08; // no payload is encoded (FORMAT.md: the ENCODED flag)
    reseal(&mut out);
    out
}

#[test]
fn zstd_bomb_frames_are_valid_and_refused_over_the_budget() {
    // The same construction, small: a valid frame that decodes to what it declares.
    let small = zero_strings_frame(3, 1 << 20);
    let batch = decode(&small, None).expect("a small zero-strings frame decodes");
    assert_eq!(batch.num_rows(), 1);
    for c in batch.columns() {
        let s = c.as_any().downcast_ref::<StringArray>().expect("strings");
        assert_eq!(s.value(0).len(), 1 << 20);
        assert!(s.value(0).bytes().all(|b| b == 0));
    }
    // Three columns of 1.5 GiB: 4.5 GiB declared by 150 KiB of stored bytes, above the 4 GiB
    // per-frame budget. Refused before anything is decompressed.
    let bomb = zero_strings_frame(3, 3 << 29);
    assert!(bomb.len() < 200 << 10, "bomb is {} bytes", bomb.len());
    check(vec![(
        "zstd bomb: 3 x 1.5 GiB strings",
        bomb.clone(),
        ErrorKind::CorruptFrame,
    )]);
    let message = decode(&bomb, None).expect_err("over budget").to_string();
    assert!(message.contains("per-frame budget"), "{message}");
}

#[test]
fn fixed_width_payloads_declaring_more_than_their_rows_are_refused() {
    use ErrorKind::*;
    let longs = common::batch(vec![(
        "l",
        Arc::new(Int64Array::from((0..10).collect::<Vec<i64>>())) as ArrayRef,
    )]);
    let clean = frame_of(&longs, Format::V3, false, Codec::Zstd);
    let (_, directory, payload_start) = layout(&clean);
    // A payload that really decodes to 1 GiB, for a column of 10 longs (at most 112 bytes).
    let payload = zstd_zeros(&[], 1 << 30);
    let mut bomb = clean[..payload_start].to_vec();
    put_u32(&mut bomb, directory + 4, payload.len() as u32);
    put_u32(&mut bomb, directory + 8, 1 << 30);
    put_u32(&mut bomb, directory + 12, crc32c::crc32c(&payload));
    bomb[directory + 17] = 0; // plain
    bomb[5] &= !0x08;
    bomb.extend_from_slice(&payload);
    reseal(&mut bomb);
    check(vec![(
        "10 longs declaring 1 GiB",
        bomb.clone(),
        CorruptFrame,
    )]);
    let message = decode(&bomb, None).expect_err("over budget").to_string();
    assert!(message.contains("10 rows of it take at most"), "{message}");
}
