#!/usr/bin/env bash
# Leak check of the Rust test suite: the cargo test binaries of the tablecache-format crate run
# under valgrind memcheck, as many at once as there are cores (LEAKCHECK_JOBS); a definite or
# indirect leak (or any memcheck error) fails the script.
# Three binaries are left out (NOT_UNDER_VALGRIND): schema_cache, schema_bounds and error_text
# reach no C code (zstd, liblz4) and no path the others do not, and memcheck serializes their
# threaded cache tests into about 140 s of a CI run; they still run natively in cargo test.
#
#   scripts/leakcheck.sh [test-binary-name-filter]
#
# The format crate uses the system allocator (jemalloc is the cdylib's, in tablecache-jni, whose
# prefixed symbols valgrind could not see), so every Rust allocation is visible. PROPTEST_CASES (default 16) bounds
# property tests that use proptest's default case count, TABLECACHE_DAMAGE_STRIDE (default 7) the
# bytes an exhaustive damage test damages. The build shares the default target
# dir with `cargo test` (same dependencies, so it is incremental); set CARGO_TARGET_DIR to
# build elsewhere. Memcheck logs go to <target>/valgrind/.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "leakcheck needs valgrind" >&2; exit 2; }

filter=${1:-}
NOT_UNDER_VALGRIND=(schema_cache schema_bounds error_text)
export PROPTEST_CASES=${PROPTEST_CASES:-16}
# The exhaustive damage test of tests/fetched.rs damages every 7th byte here (every byte natively).
export TABLECACHE_DAMAGE_STRIDE=${TABLECACHE_DAMAGE_STRIDE:-7}
start=$(date +%s)

echo "== building test binaries (cargo test -p tablecache-format --no-run)"
mapfile -t binaries < <(
  cargo test -p tablecache-format --no-run --message-format=json 2>/dev/null |
    grep '"profile":{[^}]*"test":true' |
    grep -o '"executable":"[^"]*"' | sed 's/"executable":"\(.*\)"/\1/' | sort -u
)
[[ ${#binaries[@]} -gt 0 ]] || { echo "no test binaries found" >&2; exit 2; }

logs=${CARGO_TARGET_DIR:-target}/valgrind
mkdir -p "$logs"

# One binary under memcheck; prints its verdict, and fails if memcheck found anything.
check() {
  local bin="$1" name log t0
  name=$(basename "$bin")
  log=$logs/$name.log
  t0=$(date +%s)
  # One test thread keeps the output readable; valgrind serializes threads anyway.
  if valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect \
    --errors-for-leak-kinds=definite,indirect --error-exitcode=1 --log-file="$log" \
    "$bin" --test-threads=1 -q >"$log.out" 2>&1; then
    echo "$name: clean ($(($(date +%s) - t0)) s)"
  else
    echo "$name: FAILED ($(($(date +%s) - t0)) s); memcheck log $log, test output $log.out"
    grep -E 'definitely lost|indirectly lost|Invalid|uninitialised|test result' "$log" "$log.out" |
      head -20 | sed 's/^/  /'
    return 1
  fi
}

# memcheck runs each binary on one core, so LEAKCHECK_JOBS (default: the core count) binaries run
# at once; the crate's own unit tests, the longest, start first.
jobs=${LEAKCHECK_JOBS:-$(nproc)}
queue=()
for bin in "${binaries[@]}"; do
  name=$(basename "$bin")
  [[ -z $filter || $name == *"$filter"* ]] || continue
  [[ " ${NOT_UNDER_VALGRIND[*]} " == *" ${name%-*} "* ]] && { echo "$name: not run under valgrind"; continue; }
  if [[ ${name%-*} == tablecache_format ]]; then queue=("$bin" "${queue[@]}"); else queue+=("$bin"); fi
done
status=0
running=0
for bin in "${queue[@]}"; do
  if ((running >= jobs)); then
    wait -n || status=1
    running=$((running - 1))
  fi
  check "$bin" &
  running=$((running + 1))
done
while ((running > 0)); do
  wait -n || status=1
  running=$((running - 1))
done
echo "leakcheck: $( ((status == 0)) && echo clean || echo FAILED ) in $(($(date +%s) - start)) s"
exit "$status"
