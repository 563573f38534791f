//! Fuzz regressions: every input in `tests/fuzz_regressions/` (a finding of `scripts/fuzz.sh`,
//! named `<target>.<EXPECTED>.<what>.bin`, EXPECTED being `OK` or an error kind such as
//! `CORRUPT_FRAME`) and every golden frame run through the fuzz targets' own checks
//! (`native/fuzz/src/lib.rs`, compiled here as a module). Any panic fails the test, including one
//! that the crate catches internally: the fuzzers treat those as findings too.

#[path = "../../fuzz/src/lib.rs"]
mod harness;

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::Once;

thread_local! {
    static PANICS: Cell<usize> = const { Cell::new(0) };
}

/// Counts panics per thread (caught or not), then reports them as usual.
fn count_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.with(|p| p.set(p.get() + 1));
            default(info);
        }));
    });
}

/// Runs one input through a target's check: `OK` or the error kind, or a description of the
/// panics it caused (caught or not).
fn try_run(target: &str, data: &[u8]) -> Result<&'static str, String> {
    count_panics();
    let before = PANICS.with(Cell::get);
    let outcome = std::panic::catch_unwind(|| harness::run(target, data));
    let panics = PANICS.with(Cell::get) - before;
    match outcome {
        Ok(_) if panics > 0 => Err(format!("{panics} panic(s) caught inside the crate")),
        Ok(Ok(())) => Ok("OK"),
        Ok(Err(kind)) => Ok(kind.name()),
        Err(_) => Err("panicked".into()),
    }
}

/// [`try_run`] that fails on any panic.
fn run(target: &str, data: &[u8], what: &str) -> &'static str {
    try_run(target, data).unwrap_or_else(|e| panic!("{target} on {what}: {e}, see above"))
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}

#[test]
fn every_fuzz_finding_fails_cleanly_with_its_expected_kind() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions");
    let mut failures = Vec::new();
    for path in files(&dir, "bin") {
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let mut parts = name.splitn(3, '.');
        let (Some(target), Some(expected), Some(_)) = (parts.next(), parts.next(), parts.next())
        else {
            panic!("{name}: expected <target>.<EXPECTED>.<what>.bin");
        };
        assert!(harness::TARGETS.contains(&target), "{name}: unknown target");
        let data = std::fs::read(&path).expect("read input");
        match try_run(target, &data) {
            Ok(kind) if kind == expected => {}
            Ok(kind) => failures.push(format!("{name}: {kind}, expected {expected}")),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes")) as usize
}

fn prefixed(prefix: &[u8], frame: &[u8]) -> Vec<u8> {
    [prefix, frame].concat()
}

/// The `v4_body` seeds (`TABLECACHE_FUZZ_SEEDS=DIR` writes them there) decode, and damage to each is refused cleanly: every truncation, and a
/// flip of every byte of the first 64 past the node list.
#[test]
fn v4_body_seeds_decode_and_their_damage_fails_cleanly() {
    let seeds = harness::v4_body_seeds();
    // scripts/fuzz.sh seeds the target's corpus from here.
    if let Some(dir) = std::env::var_os("TABLECACHE_FUZZ_SEEDS") {
        for (i, seed) in seeds.iter().enumerate() {
            std::fs::write(Path::new(&dir).join(format!("seed-{i}")), seed).expect("write seed");
        }
    }
    assert_eq!(seeds.len(), harness::V4_BODY_TYPES);
    assert_eq!(harness::v4_body_types().len(), harness::V4_BODY_TYPES);
    for (i, seed) in seeds.iter().enumerate() {
        assert_eq!(run("v4_body", seed, &format!("seed {i}")), "OK", "seed {i}");
        for cut in 3..seed.len() {
            assert_ne!(
                run("v4_body", &seed[..cut], "cut"),
                "OK",
                "seed {i} cut at {cut}"
            );
        }
        for at in 3..seed.len().min(3 + 64) {
            let mut flipped = seed.clone();
            flipped[at] ^= 0xFF;
            run("v4_body", &flipped, &format!("seed {i} byte {at} flipped"));
        }
    }
}

/// The `v4_buffer_*` seeds (`TABLECACHE_FUZZ_SEEDS=DIR` writes them to `DIR/<target>/`) decode,
/// every buffer target has one, and every truncation of a seed and a flip of each of its first 48
/// stored bytes is refused cleanly or decodes to what its encoding can store again.
#[test]
fn v4_buffer_seeds_decode_and_their_damage_fails_cleanly() {
    let seeds = harness::v4_buffer_seeds();
    if let Some(dir) = std::env::var_os("TABLECACHE_FUZZ_SEEDS") {
        for (i, (target, seed)) in seeds.iter().enumerate() {
            let dir = Path::new(&dir).join(target);
            std::fs::create_dir_all(&dir).expect("seed directory");
            std::fs::write(dir.join(format!("seed-{i}")), seed).expect("write seed");
        }
    }
    for target in harness::TARGETS
        .iter()
        .filter(|t| t.starts_with("v4_buffer_"))
    {
        assert!(
            seeds.iter().any(|(t, _)| t == target),
            "{target} has no seed"
        );
    }
    for (i, (target, seed)) in seeds.iter().enumerate() {
        assert_eq!(
            run(target, seed, &format!("seed {i}")),
            "OK",
            "{target} seed {i}"
        );
        let head = if target.ends_with("string_dictionary") {
            7
        } else {
            3
        };
        for cut in head..seed.len() {
            run(target, &seed[..cut], &format!("seed {i} cut at {cut}"));
        }
        for at in head..seed.len().min(head + 48) {
            let mut flipped = seed.clone();
            flipped[at] ^= 0xFF;
            run(target, &flipped, &format!("seed {i} byte {at} flipped"));
        }
    }
}

/// The golden frames, turned into every target's input the way `scripts/fuzz.sh` seeds them.
#[test]
fn golden_frames_pass_every_target() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../golden");
    let goldens = files(&dir, "bin");
    assert!(goldens.len() >= 10, "golden frames missing");
    for path in goldens {
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let bytes = std::fs::read(&path).expect("read golden");
        assert_eq!(run("frame", &bytes, &name), "OK", "{name}");
        for (prefix, expected) in [
            (&b"\x00"[..], "OK"),
            (b"\x01\x00", "OK"),
            (b"\x03\x02\x00\x02", "OK"),
            (b"\x04\x83\x81\x83\x80", "OK"),
            (b"\x02\x01\x7f", "COLUMN_OUT_OF_RANGE"),
            (b"\x02\x00\xff", "COLUMN_OUT_OF_RANGE"),
        ] {
            let input = prefixed(prefix, &bytes);
            assert_eq!(
                run("projected_decode", &input, &name),
                expected,
                "{name} {prefix:02x?}"
            );
        }
        let schema = if name.starts_with("legacy_") {
            &bytes[..8 + u32_at(&bytes, 4)]
        } else {
            let (schema_len, stats_len) = (u32_at(&bytes, 16), u32_at(&bytes, 20));
            let stats = &bytes[28 + schema_len..28 + schema_len + stats_len];
            if stats_len > 0 {
                let rows = &bytes[8..12];
                let input = [rows, &[0], stats].concat();
                assert_eq!(run("stats", &input, &name), "OK", "{name}");
                // The header's column count + 1: the section must say the same count.
                let mode = [((u32_at(&bytes, 12) as u8 + 1) << 1) | 1];
                let input = [rows, &mode, stats].concat();
                assert_eq!(run("stats", &input, &name), "CORRUPT_FRAME", "{name}");
            }
            &bytes[28..28 + schema_len]
        };
        assert_eq!(run("schema_cache", schema, &name), "OK", "{name}");
        let two = [
            schema,
            harness::SCHEMA_SEPARATOR,
            &bytes,
            harness::SCHEMA_SEPARATOR,
            schema,
        ]
        .concat();
        assert_eq!(run("schema_cache", &two, &name), "OK", "{name}");
    }
}
