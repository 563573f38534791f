//! The shared rejection corpus (`golden/reject/`, README there): bad cached batches, each with
//! the error kind both parsers must report. This module is the generator; every group of cases
//! is one function returning [`RejectCase`]s, listed in [`all_cases`].

#![allow(dead_code)]

mod basic;
mod directory;
mod forge;
mod header;
mod legacy;
mod payload;
mod schema;
mod schema_structure;
mod stats;
mod v4;
// Public: tests/schema_bounds.rs and tests/alloc_bounds.rs reuse its builders.
pub mod schema_bombs;

/// Which part of the bytes is bad; it decides which Java parser replays the case
/// (`golden/reject/README.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// The fixed header of a V2, V3 or V4 frame.
    Header,
    /// The embedded Arrow schema.
    Schema,
    /// The stats section.
    Stats,
    /// The offset directory.
    Directory,
    /// A column payload (only the native decoder reads payloads).
    Payload,
    /// A legacy Arrow IPC stream.
    Legacy,
}

impl Section {
    /// The manifest spelling.
    pub fn name(self) -> &'static str {
        match self {
            Section::Header => "header",
            Section::Schema => "schema",
            Section::Stats => "stats",
            Section::Directory => "directory",
            Section::Payload => "payload",
            Section::Legacy => "legacy",
        }
    }
}

/// One corpus entry: `golden/reject/<name>.bin` plus its manifest line.
#[derive(Debug, Clone)]
pub struct RejectCase {
    /// File stem; unique, lowercase, `[a-z0-9_]`.
    pub name: &'static str,
    /// The expected `ErrorKind::name()`.
    pub kind: &'static str,
    /// Which part of the bytes is bad.
    pub section: Section,
    /// One sentence in plain words.
    pub what: &'static str,
    /// The whole cached batch.
    pub bytes: Vec<u8>,
}

/// Every case of the corpus, sorted by name.
pub fn all_cases() -> Vec<RejectCase> {
    let mut cases = Vec::new();
    // One line per group; each group lives in its own file under tests/reject/.
    cases.extend(basic::cases());
    cases.extend(directory::cases());
    cases.extend(header::cases());
    cases.extend(legacy::cases());
    cases.extend(payload::cases());
    cases.extend(schema::cases());
    cases.extend(schema_structure::cases());
    cases.extend(stats::cases());
    cases.extend(schema_bombs::cases());
    cases.extend(v4::cases());
    cases.sort_by(|a, b| a.name.cmp(b.name));
    cases
}
