#!/usr/bin/env bash
# The encoding chosen for each column of the benchmark tables, and its bytes against V3's:
# writes the tables' rows as Arrow IPC files (scripts/bench/column_encodings.py, PySpark from PyPI with
# pyarrow) and runs native/format/examples/encoding_report.rs over them.
#
#   scripts/bench/column_encodings.sh                      # standard, strings, timeseries, logs; 160,000 rows
#   scripts/bench/column_encodings.sh --rows 320000 logs   # one table, more rows
#   CODEC=zstd scripts/bench/column_encodings.sh           # the report for another codec (lz4 default)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
source "$ROOT/scripts/lib/pyspark-env.sh"
out="$ROOT/target/encodings"
version="${PYSPARK_VERSION:-4.3.0}"
pyspark_env "$version"
"$PYSPARK_VENV/bin/python" -c 'import pyarrow' 2>/dev/null \
  || "$PYSPARK_VENV/bin/pip" install --quiet --disable-pip-version-check pyarrow
files="$("$PYSPARK_VENV/bin/python" "$ROOT/scripts/bench/column_encodings.py" --out "$out" "$@")"
cd "$ROOT"
# shellcheck disable=SC2086
cargo run --quiet --release -p tablecache-format --example encoding_report -- \
  --codec "${CODEC:-lz4}" $files
