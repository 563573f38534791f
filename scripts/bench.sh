#!/usr/bin/env bash
# The full side-by-side benchmark (docs: README "Benchmark"): Spark's default serializer, Spark
# 4.3's ArrowCachedBatchSerializer (none, zstd) and ours (one setting, + extension, row path,
# zstd; `--modes formats` for legacy/V2/V3) on a real local Spark, on five tables (standard
# 16 columns, wide 256 columns, string-heavy, and two realistic ones no encoding was tuned for: a
# time series of prices and readings, 12 columns, and log lines, 8 columns), each (table, mode) in
# its own Spark application, interleaved, with Spark's floors measured in every session and
# subtracted in the report.
# Writes raw.json, summary.md, chart.png and plans/ to bench/results/ (or --out), plus the criterion
# numbers of the native codec. Takes a few hours at the default scale on 2 cores.
#
#   scripts/bench.sh                                 # all tables, 3 iterations
#   scripts/bench.sh --table standard --rows 2000000 --iterations 1 --out /tmp/b   # quick look
#   scripts/bench.sh --table wide --wide-rows 50000 --modes spark-default,tc --out /tmp/b
#   scripts/bench.sh --table timeseries,logs --timeseries-rows 200000 --logs-rows 200000 \
#     --modes spark-default,tc --iterations 1 --out /tmp/b    # the realistic tables, small
#   scripts/bench.sh --no-criterion                  # skip `cargo bench`
# Other flags (--table, --rows, --wide-rows, --strings-rows, --timeseries-rows, --logs-rows,
# --modes, --partitions, --reps, --warmup-reps, --build-floor-reps, --cores, --driver-memory,
# --jfr, --source, --parquet-dir) pass to scripts/bench/run.py.
# PYSPARK_VERSION (default 4.3.0, the first with the Arrow cache) picks the Spark.
#
# Under Apache DataFusion Comet (Spark 4.1.x only; the Comet jar is resolved into ~/.m2 once):
#   PYSPARK_VERSION=4.1.3 scripts/bench.sh --no-criterion --modes comet --table standard \
#     --rows 2000000 --iterations 1 --out /tmp/b
# runs Spark's default cache, Comet's own cache and ours (only the serializer set) under Comet,
# each caching a Parquet read of the table (a CometNativeScan); the tables are written to Parquet
# once (--parquet-dir, default OUT/parquet) and reused. `--source parquet` makes the other modes
# cache the same Parquet read too (default: the generated DataFrame).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
source "$ROOT/scripts/lib/pyspark-env.sh"
source "$ROOT/scripts/lib/comet-env.sh"

out="$ROOT/bench/results"
criterion=1
comet=0
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --no-criterion) criterion=0; shift ;;
    --modes) [[ "${2:-}" == *comet* ]] && comet=1; args+=("$1" "${2:-}"); shift 2 ;;
    --modes=*) [[ "$1" == *comet* ]] && comet=1; args+=("$1"); shift ;;
    *) args+=("$1"); shift ;;
  esac
done

version="${PYSPARK_VERSION:-4.3.0}"
jar="$(tablecache_jar "$version")"
pyspark_env "$version"
if ! "$PYSPARK_VENV/bin/python" -c 'import matplotlib' 2>/dev/null; then
  echo "bench: installing matplotlib into $PYSPARK_VENV" >&2
  "$PYSPARK_VENV/bin/pip" install --quiet --disable-pip-version-check matplotlib
fi

comet_args=()
if [[ $comet == 1 ]]; then
  comet="$(comet_jar)"
  comet_args=(--comet-jar "$comet")
fi

crit_args=()
if [[ $criterion == 1 ]]; then
  echo "bench: native codec micro-benchmarks (cargo bench --bench codec)" >&2
  (cd "$ROOT" && cargo bench -p tablecache-format --bench codec -- --warm-up-time 1 --measurement-time 3 >&2)
  crit_args=(--criterion "$ROOT/target/criterion")
fi

"$PYSPARK_VENV/bin/python" "$ROOT/scripts/bench/run.py" --python "$PYSPARK_VENV/bin/python" \
  --jar "$jar" --out "$out" "${comet_args[@]}" "${crit_args[@]}" "${args[@]}"
echo "bench: wrote $out/summary.md, $out/raw.json, $out/chart.png" >&2
