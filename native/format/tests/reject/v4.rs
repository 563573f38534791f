//! Cases in V4 frames (FORMAT.md §3.2): a directory entry that names an encoding, and column
//! bodies whose buffer descriptors or encoded buffers are damaged. Every body case keeps both
//! checksums valid (the payload's and the metadata's), so it reaches the decoder behind them.

use super::forge::{entry_len, frame_of, layout, reseal_all, u32_at};
use super::{RejectCase, Section};
use crate::common;
use arrow_array::{Int64Array, ListArray};
use arrow_schema::DataType;
use std::sync::Arc;
use tablecache_format::{buffer_encodings, BufferEncoding, Codec, EncodingPolicy, Format};

fn case(
    name: &'static str,
    kind: &'static str,
    section: Section,
    what: &'static str,
    bytes: Vec<u8>,
) -> RejectCase {
    RejectCase {
        name,
        kind,
        section,
        what,
        bytes,
    }
}

/// The encodings fixture as V4, codec none (so the body is the stored payload), no stats.
fn v4_none() -> Vec<u8> {
    frame_of(&common::encodings(), |o| {
        o.format = Format::V4;
        o.stats = false;
        o.codec = Codec::None;
        o.encoding = EncodingPolicy::Auto;
    })
}

/// Where one buffer of a V4 body sits in a frame of codec none.
#[derive(Debug, Clone, Copy)]
struct Located {
    /// The buffer's 12-byte descriptor.
    descriptor: usize,
    /// The buffer's stored bytes.
    stored: usize,
    stored_len: usize,
}

/// The first buffer stored in `encoding`, with its column index.
fn find(frame: &[u8], encoding: BufferEncoding) -> (usize, Located) {
    let per_column = buffer_encodings(frame)
        .expect("valid frame")
        .expect("a V4 frame");
    for (column, buffers) in per_column.iter().enumerate() {
        if let Some(buffer) = buffers.iter().position(|e| *e == encoding) {
            return (column, locate(frame, column, buffer));
        }
    }
    panic!("no buffer in {encoding:?}");
}

/// Buffer `buffer` of column `column` in a V4 frame of codec none.
fn locate(frame: &[u8], column: usize, buffer: usize) -> Located {
    let (_, directory, payloads) = layout(frame);
    let body = payloads + u32_at(frame, directory + entry_len(frame) * column);
    let nodes = u32_at(frame, body);
    let buffers = u32_at(frame, body + 4);
    let descriptors = body + 8 + 8 * nodes;
    let mut at = body + pad8(8 + 8 * nodes + 12 * buffers);
    for i in 0..buffer {
        at = body + pad8(at - body + u32_at(frame, descriptors + 12 * i + 4));
    }
    Located {
        descriptor: descriptors + 12 * buffer,
        stored: at,
        stored_len: u32_at(frame, descriptors + 12 * buffer + 4),
    }
}

fn pad8(n: usize) -> usize {
    n.div_ceil(8) * 8
}

/// `frame` after `edit`, with every payload checksum and the metadata checksum recomputed.
fn edited(frame: &[u8], edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut b = frame.to_vec();
    edit(&mut b);
    reseal_all(b)
}

/// Cases in V4 frames.
pub fn cases() -> Vec<RejectCase> {
    let f = v4_none();
    let (_, directory, _) = layout(&f);
    let (constant_column, constant) = find(&f, BufferEncoding::Constant);
    // Where column `c`'s directory entry states its decoded length.
    let decoded_len_at = |c: usize| {
        directory + entry_len(&f) * c + tablecache_format::directory_entry::DECODED_LEN_AT
    };
    let (_, reference) = find(&f, BufferEncoding::FrameOfReference);
    let (_, delta) = find(&f, BufferEncoding::Delta);
    let (_, dictionary) = find(&f, BufferEncoding::Dictionary);
    let (_, alp) = find(&f, BufferEncoding::Alp);
    let (_, run_length) = find(&f, BufferEncoding::RunLength);
    let (_, fsst) = find(&f, BufferEncoding::Fsst);
    let (strings_column, strings_offsets) = find(&f, BufferEncoding::StringDictionary);
    let strings_entries = locate(&f, strings_column, 2);
    // The string column's value bytes (column 6, buffer 2): an integer encoding cannot hold them.
    let bytes_buffer = locate(&f, 6, 2);
    // A list whose child values are a constant: what a few stored bytes may declare below a list
    // is bounded by the expansion rule, not by the row count.
    let list = frame_of(
        &common::batch(vec![(
            "l",
            Arc::new(ListArray::new(
                Arc::new(arrow_schema::Field::new("item", DataType::Int64, true)),
                arrow_buffer::OffsetBuffer::from_lengths([600, 600]),
                Arc::new(Int64Array::from(vec![9i64; 1200])),
                None,
            )) as _,
        )]),
        |o| {
            o.format = Format::V4;
            o.stats = false;
            o.codec = Codec::None;
            o.encoding = EncodingPolicy::Auto;
        },
    );
    let (_, list_constant) = find(&list, BufferEncoding::Constant);
    // The encoding × type fixture holds the digests HEX stores.
    let by_type = frame_of(&common::encodings_by_type(), |o| {
        o.format = Format::V4;
        o.stats = false;
        o.codec = Codec::None;
        o.encoding = EncodingPolicy::Auto;
    });
    let (_, hex) = find(&by_type, BufferEncoding::Hex);
    vec![
        case(
            "v4_hex_case_2",
            "CORRUPT_FRAME",
            Section::Payload,
            "a HEX buffer whose case byte is 2 (0 lower, 1 upper)",
            edited(&by_type, |b| b[hex.stored] = 2),
        ),
        case(
            "v4_hex_reserved_not_zero",
            "CORRUPT_FRAME",
            Section::Payload,
            "a HEX buffer whose parameter block's reserved bytes are not zero",
            edited(&by_type, |b| b[hex.stored + 3] = 1),
        ),
        case(
            "v4_directory_decoded_len_unaligned",
            "CORRUPT_FRAME",
            Section::Directory,
            "a V4 directory entry whose decoded length is 4 more, not a multiple of 8",
            reseal({
                let mut b = f.clone();
                let at = decoded_len_at(0);
                let decoded = u32_at(&b, at) as u32 + 4;
                b[at..at + 4].copy_from_slice(&decoded.to_le_bytes());
                b
            }),
        ),
        case(
            "v4_directory_decoded_len_past_the_rows",
            "CORRUPT_FRAME",
            Section::Payload,
            "a V4 directory entry declaring 2 GiB decoded for an Int64 column of 200 rows \
             (refused before its payload is read)",
            reseal({
                let mut b = f.clone();
                let at = decoded_len_at(constant_column);
                b[at..at + 4].copy_from_slice(&(1u32 << 31).to_le_bytes());
                b
            }),
        ),
        case(
            "v4_directory_decoded_len_disagrees",
            "CORRUPT_FRAME",
            Section::Payload,
            "the string column's directory entry declaring 8 decoded bytes more than its buffers \
             decode to",
            reseal({
                let mut b = f.clone();
                let at = decoded_len_at(6);
                let decoded = u32_at(&b, at) as u32 + 8;
                b[at..at + 4].copy_from_slice(&decoded.to_le_bytes());
                b
            }),
        ),
        case(
            "v4_directory_encoded_body_above_decoded",
            "CORRUPT_FRAME",
            Section::Payload,
            "the string column's directory entry declaring a decoded length of 8, far below its \
             encoded body (which may exceed it by 8 bytes per buffer at most)",
            reseal({
                let mut b = f.clone();
                let at = decoded_len_at(6);
                b[at..at + 4].copy_from_slice(&8u32.to_le_bytes());
                b
            }),
        ),
        case(
            "v4_directory_entry_encoded",
            "CORRUPT_FRAME",
            Section::Directory,
            "a V4 directory entry with encoding 1 (V4 bodies state their own encodings)",
            reseal({
                let mut b = f.clone();
                b[directory + 17] = 1;
                b
            }),
        ),
        case(
            "v4_buffer_encoding_unknown",
            "UNSUPPORTED_CODEC",
            Section::Payload,
            "a buffer descriptor naming encoding 200, which no reader knows",
            edited(&f, |b| b[constant.descriptor + 8] = 200),
        ),
        case(
            "v4_descriptor_reserved_not_zero",
            "CORRUPT_FRAME",
            Section::Payload,
            "a buffer descriptor whose reserved bytes are not zero",
            edited(&f, |b| b[reference.descriptor + 10] = 1),
        ),
        case(
            "v4_encoding_on_value_bytes",
            "CORRUPT_FRAME",
            Section::Payload,
            "a string column's value bytes declared frame of reference, an integer encoding",
            edited(&f, |b| b[bytes_buffer.descriptor + 8] = 3),
        ),
        case(
            "v4_stored_longer_than_decoded",
            "CORRUPT_FRAME",
            Section::Payload,
            "a buffer that states more stored bytes than it decodes to",
            edited(&f, |b| {
                let decoded = u32_at(b, delta.descriptor) as u32;
                b[delta.descriptor + 4..delta.descriptor + 8]
                    .copy_from_slice(&(decoded + 1).to_le_bytes());
            }),
        ),
        case(
            "v4_decoded_past_the_rows",
            "CORRUPT_FRAME",
            Section::Payload,
            "a constant buffer of a 200-row Int64 column declaring 8 more decoded bytes than 200 \
             rows take",
            edited(&f, |b| {
                let decoded = u32_at(b, constant.descriptor) as u32;
                b[constant.descriptor..constant.descriptor + 4]
                    .copy_from_slice(&(decoded + 8).to_le_bytes());
            }),
        ),
        case(
            "v4_expansion_under_a_list",
            "CORRUPT_FRAME",
            Section::Payload,
            "a constant of 8 stored bytes under a list declaring 1 GiB decoded (past 1024 times \
             its stored bytes plus 4096)",
            edited(&list, |b| {
                b[list_constant.descriptor..list_constant.descriptor + 4]
                    .copy_from_slice(&(1u32 << 30).to_le_bytes());
            }),
        ),
        case(
            "v4_constant_wrong_width",
            "CORRUPT_FRAME",
            Section::Payload,
            "a constant buffer that stores 4 bytes for 8-byte elements",
            edited(&f, |b| {
                b[constant.descriptor + 4..constant.descriptor + 8]
                    .copy_from_slice(&4u32.to_le_bytes());
            }),
        ),
        case(
            "v4_reference_bit_width_65",
            "CORRUPT_FRAME",
            Section::Payload,
            "a frame of reference with bit width 65",
            edited(&f, |b| b[reference.stored + 8] = 65),
        ),
        case(
            "v4_reference_packed_length_wrong",
            "CORRUPT_FRAME",
            Section::Payload,
            "a frame of reference whose bit width needs more packed bytes than are stored",
            edited(&f, |b| b[reference.stored + 8] += 1),
        ),
        case(
            "v4_delta_params_reserved",
            "CORRUPT_FRAME",
            Section::Payload,
            "a delta buffer whose parameter block's reserved bytes are not zero",
            edited(&f, |b| b[delta.stored + 20] = 7),
        ),
        case(
            "v4_dictionary_index_out_of_range",
            "CORRUPT_FRAME",
            Section::Payload,
            "a dictionary of 5 entries whose first packed indices are all ones (7, past its end)",
            edited(&f, |b| {
                let entries = u32_at(b, dictionary.stored);
                assert_eq!(
                    (entries, b[dictionary.stored + 4]),
                    (5, 3),
                    "5 entries, 3-bit codes"
                );
                b[dictionary.stored + 8 + 8 * entries] = 0xFF;
            }),
        ),
        case(
            "v4_dictionary_empty",
            "CORRUPT_FRAME",
            Section::Payload,
            "a dictionary of 0 entries for 200 elements",
            edited(&f, |b| {
                b[dictionary.stored..dictionary.stored + 4].copy_from_slice(&0u32.to_le_bytes());
            }),
        ),
        case(
            "v4_alp_exponent_19",
            "CORRUPT_FRAME",
            Section::Payload,
            "an ALP buffer with exponent 19 (at most 18: 10^19 is past what a double holds exactly)",
            edited(&f, |b| b[alp.stored] = 19),
        ),
        case(
            "v4_alp_factor_above_exponent",
            "CORRUPT_FRAME",
            Section::Payload,
            "an ALP buffer whose factor is above its exponent",
            edited(&f, |b| b[alp.stored + 1] = b[alp.stored] + 1),
        ),
        case(
            "v4_alp_exception_past_the_end",
            "CORRUPT_FRAME",
            Section::Payload,
            "an ALP buffer whose last exception position is 200, past its 200 values",
            edited(&f, |b| {
                let exceptions = u32_at(b, alp.stored + 16);
                assert!(exceptions > 0, "the price column has NaN exceptions");
                let positions = alp.stored + alp.stored_len - 12 * exceptions;
                let last = positions + 4 * (exceptions - 1);
                b[last..last + 4].copy_from_slice(&200u32.to_le_bytes());
            }),
        ),
        case(
            "v4_run_length_no_runs",
            "CORRUPT_FRAME",
            Section::Payload,
            "a run-length buffer of 0 runs for 200 elements",
            edited(&f, |b| {
                b[run_length.stored..run_length.stored + 4].copy_from_slice(&0u32.to_le_bytes());
            }),
        ),
        case(
            "v4_run_length_runs_past_the_elements",
            "CORRUPT_FRAME",
            Section::Payload,
            "a run-length buffer whose packed run lengths are all ones: its runs pass the 200 \
             elements",
            edited(&f, |b| {
                let runs = u32_at(b, run_length.stored);
                let value_width = usize::from(b[run_length.stored + 4]);
                let lengths = run_length.stored + 16 + (runs * value_width).div_ceil(8);
                assert!(
                    lengths < run_length.stored + run_length.stored_len,
                    "lengths stored: {:?} {:?}",
                    &b[run_length.stored..run_length.stored + 16],
                    run_length
                );
                b[lengths..run_length.stored + run_length.stored_len].fill(0xFF);
            }),
        ),
        case(
            "v4_fsst_symbol_of_9_bytes",
            "CORRUPT_FRAME",
            Section::Payload,
            "an FSST table whose first symbol is 9 bytes long (at most 8)",
            edited(&f, |b| {
                assert!(b[fsst.stored] > 0, "symbols in the table");
                b[fsst.stored + 1] = 9;
            }),
        ),
        case(
            "v4_fsst_code_past_the_table",
            "CORRUPT_FRAME",
            Section::Payload,
            "an FSST buffer whose first code names a symbol past its table",
            edited(&f, |b| {
                let symbols = usize::from(b[fsst.stored]);
                assert!(symbols < 254, "room for a code past the table");
                let lengths: usize = b[fsst.stored + 1..fsst.stored + 1 + symbols]
                    .iter()
                    .map(|&l| usize::from(l))
                    .sum();
                b[fsst.stored + 1 + symbols + lengths] = 254;
            }),
        ),
        case(
            "v4_fsst_escape_at_the_end",
            "CORRUPT_FRAME",
            Section::Payload,
            "an FSST buffer whose last code escapes a byte that is not there",
            edited(&f, |b| b[fsst.stored + fsst.stored_len - 1] = 255),
        ),
        case(
            "v4_string_dictionary_index_out_of_range",
            "CORRUPT_FRAME",
            Section::Payload,
            "a string dictionary of 10 entries whose first packed indices are all ones (15, past \
             its end)",
            edited(&f, |b| {
                let at = strings_offsets.stored;
                let (entries, index_width, length_width) = (u32_at(b, at), b[at + 4], b[at + 5]);
                assert_eq!((entries, index_width), (10, 4), "10 entries, 4-bit indices");
                let indices = at + 8 + (entries * usize::from(length_width)).div_ceil(8);
                b[indices] = 0xFF;
            }),
        ),
        case(
            "v4_string_dictionary_entries_disagree",
            "CORRUPT_FRAME",
            Section::Payload,
            "a string dictionary whose first entry length is 1 more than its entry bytes hold",
            edited(&f, |b| b[strings_offsets.stored + 8] += 1),
        ),
        case(
            "v4_string_dictionary_half_alone",
            "CORRUPT_FRAME",
            Section::Payload,
            "a string column whose offsets are declared plain while its value bytes stay the \
             entries of a string dictionary",
            edited(&f, |b| b[strings_offsets.descriptor + 8] = 0),
        ),
        case(
            "v4_string_dictionary_values_past_the_bound",
            "CORRUPT_FRAME",
            Section::Payload,
            "a string dictionary's value bytes declaring 1 GiB decoded (past every entry once \
             per value)",
            edited(&f, |b| {
                b[strings_entries.descriptor..strings_entries.descriptor + 4]
                    .copy_from_slice(&(1u32 << 30).to_le_bytes());
            }),
        ),
        case(
            "v4_body_truncated_buffer",
            "CORRUPT_FRAME",
            Section::Payload,
            "the last stored buffer of a body cut by 8 bytes (the body ends early)",
            {
                let last = locate(&f, 8, 1);
                assert!(last.stored_len > 8);
                edited(&f, |b| {
                    let stored = last.stored_len as u32 - 8;
                    b[last.descriptor + 4..last.descriptor + 8]
                        .copy_from_slice(&stored.to_le_bytes());
                })
            },
        ),
    ]
}

/// Recomputes only the metadata checksum (directory cases, checked before any payload).
fn reseal(b: Vec<u8>) -> Vec<u8> {
    super::forge::reseal(b)
}
