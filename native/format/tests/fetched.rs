//! `decode_fetched` (the JNI layer's copy-out read) gives exactly what `decode` gives over the
//! whole bytes, for valid and damaged batches, and copies only what it reads.

mod common;

use tablecache_format::{decode, decode_fetched, Codec, Format, WriteOptions};

/// Decodes through `decode_fetched` over `bytes`, returning the result and the bytes copied.
fn fetched(
    bytes: &[u8],
    projection: Option<&[usize]>,
) -> (tablecache_format::Result<arrow_array::RecordBatch>, usize) {
    let mut copied = 0;
    let result = decode_fetched(
        bytes.len(),
        |offset, dst| {
            dst.copy_from_slice(&bytes[offset..offset + dst.len()]);
            copied += dst.len();
            Ok(())
        },
        projection,
    );
    (result, copied)
}

fn frames() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for format in [Format::V4, Format::V3, Format::V2, Format::Legacy] {
        for codec in [Codec::None, Codec::Lz4, Codec::Zstd] {
            let options = WriteOptions {
                format,
                codec,
                stats: format != Format::Legacy,
                ..WriteOptions::default()
            };
            for batch in [common::primitives(), common::nested()] {
                out.push(tablecache_format::write(&batch, &options).expect("write"));
            }
        }
    }
    out
}

fn same(bytes: &[u8], projection: Option<&[usize]>) {
    let whole = decode(bytes, projection);
    let (part, _) = fetched(bytes, projection);
    match (whole, part) {
        (Ok(a), Ok(b)) => assert_eq!(a, b),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (a, b) => panic!("decode gave {a:?}, decode_fetched gave {b:?}"),
    }
}

#[test]
fn equals_decode_for_every_projection() {
    for bytes in frames() {
        let columns = decode(&bytes, Some(&[])).expect("decode").num_columns();
        let count = decode(&bytes, None).expect("decode").num_columns();
        assert_eq!(columns, 0);
        same(&bytes, None);
        same(&bytes, Some(&[]));
        for c in 0..count {
            same(&bytes, Some(&[c]));
            same(&bytes, Some(&[count - 1 - c, c]));
        }
        same(&bytes, Some(&[count]));
    }
}

#[test]
fn equals_decode_for_damaged_bytes() {
    for bytes in frames() {
        let step = (bytes.len() / 97).max(1);
        for at in (0..bytes.len()).step_by(step) {
            same(&bytes[..at], Some(&[0]));
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x5A;
            same(&flipped, None);
            same(&flipped, Some(&[0]));
        }
    }
}

#[test]
fn copies_only_the_metadata_and_the_projected_payloads_of_a_v3_frame() {
    let options = WriteOptions {
        format: Format::V3,
        ..WriteOptions::default()
    };
    let bytes = tablecache_format::write(&common::primitives(), &options).expect("write");
    let frame = tablecache_format::Frame::parse(&bytes).expect("parse");
    let metadata = frame.payload_start;
    let payload = |i: usize| frame.directory[i].stored_len as usize;
    let (result, copied) = fetched(&bytes, Some(&[1]));
    result.expect("decode");
    assert_eq!(copied, metadata + payload(1));
    let (result, copied) = fetched(&bytes, Some(&[]));
    result.expect("decode");
    assert_eq!(copied, metadata);
    let (result, copied) = fetched(&bytes, None);
    result.expect("decode");
    assert_eq!(copied, bytes.len());
}
