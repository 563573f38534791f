#!/usr/bin/env bash
# The project's test command (README): Rust checks and tests, then the JVM and Spark suites.
#   ./scripts/test.sh          CI-sized suites
#   ./scripts/test.sh --full   full-sized mutation, soak, concurrency and fault suites
#                              (same as TABLECACHE_TEST_SCALE=full; tens of minutes more)
set -euo pipefail
cd "$(dirname "$0")/.."

for arg in "$@"; do
  case "$arg" in
    --full) export TABLECACHE_TEST_SCALE=full ;;
    *) echo "usage: $0 [--full]" >&2; exit 2 ;;
  esac
done

step() { printf '\n== %s ==\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy"
cargo clippy --all-targets -- -D warnings

step "cargo test"
cargo test

# The Rust suite again under valgrind memcheck (system allocator): no leak, no memory error.
if command -v valgrind >/dev/null; then
  step "leak check (scripts/leakcheck.sh: cargo tests under valgrind)"
  ./scripts/leakcheck.sh
else
  step "leak check SKIPPED: valgrind is not installed"
fi

if [ -f jvm-shim/pom.xml ] && [ -d jvm-shim/src/test ]; then
  step "build native library + jar"
  ./scripts/build.sh
  step "JVM + Spark tests (mvn test)"
  (cd jvm-shim && mvn -B -q -e test)
fi

# Spark's own cache suites (CachedTableSuite, InMemoryColumnarQuerySuite, DatasetCacheSuite,
# PartitionBatchPruningSuite) with our serializer (jvm-shim/spark-suites; README "Spark's own
# cache suites"). About 1.5-2.5 minutes per (line, mode). Default: Spark 4.0 in both modes and
# Spark 3.5 in the columnar (default) mode; --full adds 3.5's row mode. Spark 3.5 runs once
# jvm-shim/pom.xml has its profile; its jar is packaged here (build.sh makes the default line's).
if [ -x scripts/spark-suites.sh ]; then
  step "Spark's own cache suites with tablecache (scripts/spark-suites.sh)"
  ./scripts/spark-suites.sh --line 4.0 --mode both
  if grep -q '<id>spark-3.5</id>' jvm-shim/pom.xml; then
    native_dir="$(cd "${CARGO_TARGET_DIR:-target}/release" && pwd)"
    (cd jvm-shim && mvn -B -q -Pspark-3.5 -DskipTests -Dnative.lib.dir="$native_dir" package)
    mode=columnar
    [ "${TABLECACHE_TEST_SCALE:-}" = full ] && mode=both
    ./scripts/spark-suites.sh --line 3.5 --mode "$mode"
  fi
fi

if [ -x tests/run_e2e.sh ]; then
  step "end to end through spark-submit"
  tests/run_e2e.sh
fi
