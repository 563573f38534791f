#!/usr/bin/env bash
# Coverage-guided fuzzing of the format core (cargo-fuzz + libFuzzer, AddressSanitizer), seeded
# from golden/*.bin. Targets and their input layouts: native/fuzz/src/lib.rs.
#
#   scripts/fuzz.sh [seconds-per-target] [target...]     # default: 60 s each, all targets
#   FUZZ_RUNS=10000000 scripts/fuzz.sh [target...]       # a number of executions instead
#
# Environment: FUZZ_SANITIZER (address, the default, or none), FUZZ_RUNS (executions per target;
# overrides the time), FUZZ_MALLOC_LIMIT_MB (512:
# one allocation this large is a finding), FUZZ_RSS_LIMIT_MB (2048), FUZZ_TIMEOUT (10 s per
# input), FUZZ_ARGS (more libFuzzer flags).
# Corpora grow in native/fuzz/corpus/<target>, findings land in native/fuzz/artifacts/<target>
# (both gitignored); build output in native/fuzz/target (target-none without ASan). One core per
# target, targets in turn.
# Exit status 1 when any target found a crash, an OOM, a leak or a timeout.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
  seconds=$1
  shift
fi
all_targets=(frame projected_decode stats schema_cache v4_body)
# One target per V4 buffer encoding's decoder (native/fuzz/src/lib.rs, V4_BUFFER_ENCODINGS).
for encoding in plain byte_stream_split constant frame_of_reference delta dictionary alp \
  run_length fsst string_dictionary hex; do
  all_targets+=("v4_buffer_$encoding")
done
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=("${all_targets[@]}")

if ! rustup toolchain list | grep '^nightly' >/dev/null; then
  rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

fuzz=native/fuzz
corpus=$fuzz/corpus
artifacts=$fuzz/artifacts

# Seeds every target's corpus from the golden frames (files already there are kept). Where the
# sections of a frame lie comes from the format crate (examples/frame_sections.rs), not from
# offsets written here.
seed() {
  mkdir -p "$corpus"/{frame,projected_decode,stats,schema_cache,v4_body}
  # v4_body: one column body per type, written by the format crate (tests/fuzz_regressions.rs).
  TABLECACHE_FUZZ_SEEDS="$PWD/$corpus/v4_body" cargo test -q -p tablecache-format \
    --test fuzz_regressions v4_body_seeds >/dev/null
  # v4_buffer_*: the buffers each encoding stores, into corpus/<target>/.
  TABLECACHE_FUZZ_SEEDS="$PWD/$corpus" cargo test -q -p tablecache-format \
    --test fuzz_regressions v4_buffer_seeds >/dev/null
  local bin name schema_len
  for bin in golden/*.bin; do
    name=$(basename "$bin" .bin)
    cp "$bin" "$corpus/frame/golden-$name"
    # projected_decode: count byte, indices, frame (see split_projection).
    { printf '\x00'; cat "$bin"; } >"$corpus/projected_decode/golden-$name-empty"
    { printf '\x01\x00'; cat "$bin"; } >"$corpus/projected_decode/golden-$name-first"
    { printf '\x03\x02\x00\x02'; cat "$bin"; } >"$corpus/projected_decode/golden-$name-dup"
    { printf '\x02\x01\x7f'; cat "$bin"; } >"$corpus/projected_decode/golden-$name-range"
    if [[ $name == legacy_* ]]; then
      # The Arrow IPC schema message: continuation, metadata length, metadata.
      schema_len=$((8 + $(od -An -tu4 --endian=little -j 4 -N4 "$bin" | tr -d ' ')))
      head -c "$schema_len" "$bin" >"$corpus/schema_cache/golden-$name"
    fi
  done
  local file rows schema_at schema_len stats_at stats_len
  while read -r file rows schema_at schema_len stats_at stats_len; do
    name=$(basename "$file" .bin)
    # head | tail, not tail | head: the reader of a pipe must consume all of it, or the writer
    # dies of SIGPIPE and pipefail stops the script.
    head -c $((schema_at + schema_len)) "$file" | tail -c "$schema_len" \
      >"$corpus/schema_cache/golden-$name"
    if [[ $stats_len -gt 0 ]]; then
      # stats: u32 row count (little-endian), mode 0 (column count from the section), the section.
      {
        printf "\\x$(printf %02x $((rows & 255)))\\x$(printf %02x $((rows >> 8 & 255)))"
        printf "\\x$(printf %02x $((rows >> 16 & 255)))\\x$(printf %02x $((rows >> 24)))"
        printf '\x00'
        head -c $((stats_at + stats_len)) "$file" | tail -c "$stats_len"
      } >"$corpus/stats/golden-$name"
    fi
  done < <(cargo run -q -p tablecache-format --example frame_sections -- golden/*.bin)
}

seed
# FUZZ_SANITIZER=none builds without AddressSanitizer (several times more executions per second;
# the format core has no unsafe code, but ASan also watches arrow-rs'), in its own target dir.
sanitizer=${FUZZ_SANITIZER:-address}
san=(-s "$sanitizer")
if [[ $sanitizer != address ]]; then
  export CARGO_TARGET_DIR=$PWD/native/fuzz/target-$sanitizer
fi
echo "building fuzz targets (cargo +nightly fuzz build, release + debug assertions, sanitizer $sanitizer)"
(cd native && cargo +nightly fuzz build --fuzz-dir fuzz "${san[@]}")

limit=(-max_total_time="$seconds")
[[ -n ${FUZZ_RUNS:-} ]] && limit=(-runs="$FUZZ_RUNS")
status=0
summary=()
for target in "${targets[@]}"; do
  mkdir -p "$artifacts/$target" "$fuzz/logs"
  # One log per run (runs add up: the corpus carries over), e.g. logs/frame-20261130T160000.log.
  log=$fuzz/logs/$target-$sanitizer-$(date -u +%Y%m%dT%H%M%S).log
  before=$(ls "$artifacts/$target" | sort)
  echo "== $target (${limit[*]}) log: $log"
  set +e
  # shellcheck disable=SC2086
  (cd native && cargo +nightly fuzz run --fuzz-dir fuzz "${san[@]}" "$target" "fuzz/corpus/$target" -- \
    "${limit[@]}" -malloc_limit_mb="${FUZZ_MALLOC_LIMIT_MB:-512}" \
    -rss_limit_mb="${FUZZ_RSS_LIMIT_MB:-2048}" -timeout="${FUZZ_TIMEOUT:-10}" \
    -print_final_stats=1 ${FUZZ_ARGS:-}) >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{print $2}' | tail -1)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | awk '{print $2}' | tail -1)
  new=$(comm -13 <(echo "$before") <(ls "$artifacts/$target" | sort) | grep -v '^$' || true)
  if [[ $rc -ne 0 || -n $new ]]; then
    status=1
    summary+=("$target: FINDING (exit $rc) after ${execs:-?} executions; see $log")
    for f in $new; do summary+=("  $artifacts/$target/$f"); done
    while IFS= read -r line; do summary+=("  $line"); done < <(
      grep -m3 -E 'panicked at|ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)' "$log" || true)
  else
    summary+=("$target: ${execs:-?} executions, ${rate:-?} exec/s, no findings")
  fi
done
echo
printf '%s\n' "${summary[@]}"
exit "$status"
