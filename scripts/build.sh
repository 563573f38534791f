#!/usr/bin/env bash
# Builds libtablecache.so for linux/amd64 (this machine) and cross-builds it for linux/aarch64
# (scripts/lib/aarch64-env.sh: Debian's gcc-aarch64-linux-gnu + libc6-dev-arm64-cross and the
# rustup target aarch64-unknown-linux-gnu), then one jar per Spark line carrying both, at
# /linux/amd64/libtablecache.so and /linux/aarch64/libtablecache.so (Maven profiles spark-4 and
# spark-3.5), each with the libtablecache.build-id that cargo writes next to the library
# (native/jni/build.rs; the loader compares it with the loaded library's):
#   jvm-shim/target/spark-4/tablecache-<version>-spark4_2.13.jar      Spark 4.x (Scala 2.13)
#   jvm-shim/target/spark-3.5/tablecache-<version>-spark3.5_2.12.jar  Spark 3.5 (Scala 2.12)
# and the PySpark wheel that carries both jars:
#   target/python/tablecache-<version>-py3-none-any.whl               pip install; python/README.md
# Without the cross toolchain the jars carry linux/amd64 only (aarch64 Spark then falls back to
# its default serializer) and the script ends with a warning saying so;
# TABLECACHE_REQUIRE_AARCH64=1 (CI) makes that an error.
# CARGO_TARGET_DIR, when set, is where cargo builds (and where the jars take the libraries from).
set -euo pipefail
cd "$(dirname "$0")/.."
# One version for Cargo (and the native handshake), the pom (the jar's handshake) and the wheel.
. scripts/lib/versions.sh
tablecache_version >/dev/null
. scripts/lib/aarch64-env.sh
cargo build --release -p tablecache-jni
target_dir="${CARGO_TARGET_DIR:-target}"
native_dir="$(cd "$target_dir/release" && pwd)"

aarch64_missing="$(aarch64_build_missing)"
if [ -z "$aarch64_missing" ]; then
  cargo build --release -p tablecache-jni --target "$AARCH64_TARGET"
  aarch64_dir="$(cd "$target_dir/$AARCH64_TARGET/release" && pwd)"
elif [ "${TABLECACHE_REQUIRE_AARCH64:-}" = 1 ]; then
  printf 'TABLECACHE_REQUIRE_AARCH64=1 but the linux/aarch64 cross build lacks:\n%s\n' \
    "$aarch64_missing" >&2
  exit 1
else
  # A directory without the library: Maven then packages linux/amd64 only.
  aarch64_dir="$(mktemp -d)"
  trap 'rmdir "$aarch64_dir"' EXIT
fi
require_aarch64=false
[ -z "$aarch64_missing" ] && require_aarch64=true

if [ -f jvm-shim/pom.xml ]; then
  for line in 4 3.5; do
    (cd jvm-shim && mvn -B -q -DskipTests -Pspark-$line -Dnative.lib.dir="$native_dir" \
      -Dnative.lib.dir.aarch64="$aarch64_dir" -Dtablecache.requireAarch64=$require_aarch64 package)
  done
  ls -l jvm-shim/target/spark-*/tablecache-*.jar
fi

if [ -n "$aarch64_missing" ]; then
  printf '\nWARNING: no linux/aarch64 library was built, so the jars carry linux/amd64 only and\n' >&2
  printf 'Spark on aarch64 falls back to its default serializer. Missing:\n%s\n' \
    "$aarch64_missing" >&2
fi

# The wheel (python/): pure Python plus both jars as package data. pip builds it with setuptools
# fetched from PyPI into an isolated build environment.
if [ -f python/pyproject.toml ]; then
  rm -rf python/src/tablecache/jars python/build && mkdir -p python/src/tablecache/jars
  cp jvm-shim/target/spark-*/tablecache-*-spark*_2.1?.jar python/src/tablecache/jars/
  rm -f target/python/tablecache-*.whl
  "${PYTHON:-python3}" -m pip wheel --quiet --disable-pip-version-check --no-deps \
    -w target/python python/
  rm -rf python/build python/src/*.egg-info
  ls -l target/python/tablecache-*.whl
fi
