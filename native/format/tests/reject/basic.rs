//! Header cases made from a valid V3 frame.

use super::{RejectCase, Section};
use crate::common;
use tablecache_format::{write, WriteOptions};

fn v3_primitives() -> Vec<u8> {
    write(&common::primitives(), &WriteOptions::default()).expect("write")
}

/// Cases in the fixed header.
pub fn cases() -> Vec<RejectCase> {
    let mut bad_magic = v3_primitives();
    bad_magic[1] ^= 0xFF;
    let mut version_9 = v3_primitives();
    version_9[4] = 9;
    vec![
        RejectCase {
            name: "header_bad_magic",
            kind: "CORRUPT_FRAME",
            section: Section::Header,
            what: "the second magic byte is flipped, so the bytes are neither a frame nor an IPC stream",
            bytes: bad_magic,
        },
        RejectCase {
            name: "header_unknown_version",
            kind: "UNSUPPORTED_VERSION",
            section: Section::Header,
            what: "a frame with version byte 9, which no reader knows",
            bytes: version_9,
        },
    ]
}
