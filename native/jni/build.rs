//! Computes the library's build id: a hash over everything that decides what the library is
//! (the sources and manifests of `tablecache-format` and `tablecache-jni`, `Cargo.lock`, the
//! target triple, the profile, the enabled features, RUSTFLAGS and the compiler version).
//!
//! The id is compiled in (`TABLECACHE_BUILD_ID`, returned by `NativeCodec.buildId()`) and
//! written to `libtablecache.build-id` next to the built library
//! (`<target dir>/[<triple>/]<profile>/`), which the Maven build packages beside the library's
//! jar resource. The JVM shim refuses a library whose id differs from the jar's: a library from
//! another build, even of the same version, is caught at load (docs/ARCHITECTURE.md, "Loader").
//!
//! The hash is FNV-1a (128 bit): it tells builds apart, it is not a signature.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

/// The inputs, relative to this crate's directory: directories are read recursively.
const INPUTS: &[&str] = &[
    "build.rs",
    "Cargo.toml",
    "src",
    "../format/Cargo.toml",
    "../format/src",
    "../../Cargo.toml",
    "../../Cargo.lock",
];

/// The file next to the library that carries the id (NativeLibrary.java reads it from the jar).
const ID_FILE: &str = "libtablecache.build-id";

struct Fnv128(u128);

impl Fnv128 {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;

    fn new() -> Self {
        Fnv128(Self::OFFSET)
    }

    fn bytes(&mut self, data: &[u8]) {
        for &b in data {
            self.0 ^= u128::from(b);
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }

    /// A length-prefixed field, so that concatenations cannot collide ("ab" + "c" vs "a" + "bc").
    fn field(&mut self, data: &[u8]) {
        self.bytes(&(data.len() as u64).to_le_bytes());
        self.bytes(data);
    }
}

/// Every file under `path` (or `path` itself), sorted, so the hash does not depend on the order
/// the file system lists directories in.
fn files(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if path.is_dir() {
        let mut entries = fs::read_dir(path)?
            .map(|e| e.map(|e| e.path()))
            .collect::<std::io::Result<Vec<_>>>()?;
        entries.sort();
        for e in entries {
            files(&e, out)?;
        }
    } else {
        out.push(path.to_path_buf());
    }
    Ok(())
}

fn var(name: &str) -> String {
    env::var(name).unwrap_or_default()
}

/// `rustc -vV`: a new compiler makes a different library from the same sources.
fn rustc_version() -> String {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    std::process::Command::new(rustc)
        .arg("-vV")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

fn main() {
    let manifest_dir = PathBuf::from(var("CARGO_MANIFEST_DIR"));
    let mut hash = Fnv128::new();
    for input in INPUTS {
        let root = manifest_dir.join(input);
        println!("cargo:rerun-if-changed={}", root.display());
        let mut found = Vec::new();
        if let Err(e) = files(&root, &mut found) {
            panic!("build id: cannot list {}: {e}", root.display());
        }
        for file in found {
            let content = match fs::read(&file) {
                Ok(c) => c,
                Err(e) => panic!("build id: cannot read {}: {e}", file.display()),
            };
            // The path relative to the crate, with '/' separators: the same tree hashes the same
            // wherever it is checked out.
            let name = file
                .strip_prefix(&manifest_dir)
                .unwrap_or(&file)
                .to_string_lossy()
                .replace('\\', "/");
            hash.field(name.as_bytes());
            hash.field(&content);
        }
    }
    // OUT_DIR is <target dir>/[<triple>/]<profile>/build/<crate>-<hash>/out, and the library is
    // built into <target dir>/[<triple>/]<profile>/: three levels up. Its name is the profile's
    // (`profiling` too, where PROFILE says `release`). Cargo does not promise this layout, so
    // without it the id file is not written (a warning); the Maven build then stops with a
    // message saying the file is missing.
    let out_dir = PathBuf::from(var("OUT_DIR"));
    let profile_dir = out_dir.ancestors().nth(3).map(Path::to_path_buf);
    let profile = profile_dir
        .as_deref()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| var("PROFILE"));
    let target = var("TARGET");
    let mut features: Vec<String> = env::vars()
        .map(|(k, _)| k)
        .filter(|k| k.starts_with("CARGO_FEATURE_"))
        .collect();
    features.sort();
    for part in [
        target.as_str(),
        profile.as_str(),
        &features.join(","),
        &var("CARGO_ENCODED_RUSTFLAGS"),
        &rustc_version(),
    ] {
        hash.field(part.as_bytes());
    }
    let id = format!("{target}-{profile}-{:032x}", hash.0);
    println!("cargo:rustc-env=TABLECACHE_BUILD_ID={id}");
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");

    let Some(profile_dir) = profile_dir else {
        println!(
            "cargo:warning=build id: no profile directory above {}",
            out_dir.display()
        );
        return;
    };
    let file = profile_dir.join(ID_FILE);
    // Written whole, then renamed: a reader never sees half an id.
    let partial = profile_dir.join(format!("{ID_FILE}.partial"));
    let written = fs::write(&partial, format!("{id}\n")).and_then(|()| fs::rename(&partial, &file));
    if let Err(e) = written {
        println!(
            "cargo:warning=build id: cannot write {}: {e}",
            file.display()
        );
    }
}
