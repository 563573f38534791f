//! Replays the shared rejection corpus (`golden/reject/`) through the native reader, and checks
//! that the committed files are exactly what the generator (`tests/reject/`) produces.
//! `TABLECACHE_REGEN_REJECT=1` (scripts/regen-reject.sh) rewrites them instead.

mod common;
mod reject;

use std::fs;
use std::path::PathBuf;

use reject::{all_cases, RejectCase, Section};
use tablecache_format::{decode, Format, Frame};

fn reject_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../golden/reject")
}

const MANIFEST_HEADER: &str = "file\tkind\tsection\twhat";

fn manifest(cases: &[RejectCase]) -> String {
    let mut out = String::from(MANIFEST_HEADER);
    out.push('\n');
    for c in cases {
        assert!(
            !c.what.contains('\t') && !c.what.contains('\n'),
            "{}",
            c.name
        );
        out.push_str(&format!(
            "{}.bin\t{}\t{}\t{}\n",
            c.name,
            c.kind,
            c.section.name(),
            c.what
        ));
    }
    out
}

/// The kind the native reader reports, or `None` if it accepts the bytes.
fn native_kind(bytes: &[u8]) -> Option<&'static str> {
    decode(bytes, None).err().map(|e| e.kind().name())
}

#[test]
fn corpus_files_match_the_generator_and_the_native_reader_rejects_each() {
    let cases = all_cases();
    let dir = reject_dir();
    let names: std::collections::HashSet<_> = cases.iter().map(|c| c.name).collect();
    assert_eq!(names.len(), cases.len(), "duplicate case names");
    if std::env::var_os("TABLECACHE_REGEN_REJECT").is_some() {
        fs::create_dir_all(&dir).expect("mkdir golden/reject");
        for entry in fs::read_dir(&dir).expect("list golden/reject") {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|e| e == "bin") {
                fs::remove_file(&path).expect("remove stale case");
            }
        }
        for c in &cases {
            fs::write(dir.join(format!("{}.bin", c.name)), &c.bytes).expect("write case");
        }
        fs::write(dir.join("manifest.tsv"), manifest(&cases)).expect("write manifest");
    }
    let committed = fs::read_to_string(dir.join("manifest.tsv"))
        .expect("golden/reject/manifest.tsv (scripts/regen-reject.sh writes it)");
    assert_eq!(
        committed,
        manifest(&cases),
        "manifest drifted from the generator; run scripts/regen-reject.sh"
    );
    let on_disk = fs::read_dir(&dir)
        .expect("list golden/reject")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "bin"))
        })
        .count();
    assert_eq!(
        on_disk,
        cases.len(),
        "stray or missing .bin files in golden/reject"
    );
    let mut failures = Vec::new();
    for c in &cases {
        let file = fs::read(dir.join(format!("{}.bin", c.name))).expect("read case");
        if file != c.bytes {
            failures.push(format!("{}: file differs from the generator", c.name));
            continue;
        }
        match native_kind(&file) {
            Some(kind) if kind == c.kind => {}
            got => failures.push(format!(
                "{}: expected {}, native decode gave {:?}",
                c.name, c.kind, got
            )),
        }
        // Metadata cases fail before any payload is read: Frame::parse agrees with decode.
        if c.section != Section::Payload && c.section != Section::Legacy {
            let parsed = tablecache_format::detect(&file)
                .ok()
                .filter(|f| *f != Format::Legacy)
                .map(|_| Frame::parse(&file).err().map(|e| e.kind().name()));
            if let Some(got) = parsed {
                if got != Some(c.kind) {
                    failures.push(format!(
                        "{}: expected {}, Frame::parse gave {:?}",
                        c.name, c.kind, got
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
