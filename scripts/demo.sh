#!/usr/bin/env bash
# The README's first command: builds what is missing, installs PySpark from PyPI if needed, then
# caches the benchmark's 16-column table with Spark's default serializer, Spark's Arrow serializer
# and tablecache with its one setting (spark.sql.cache.serializer only) on local[2], runs typical
# queries, and prints per phase the wall time, Spark's floor measured in the same session, the
# wall time above that floor (what the cache decides) and executor CPU, with ratios to Spark
# default. A few minutes on a 2-core machine. DEMO_ROWS (default 3,000,000) sets the size.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
source "$ROOT/scripts/lib/pyspark-env.sh"

version="${PYSPARK_VERSION:-4.3.0}"
echo "demo: [1/3] PySpark $version, and the tablecache wheel installed into its virtualenv" >&2
install_tablecache_wheel "$version"
jar="$TABLECACHE_WHEEL_JAR"
echo "demo: [2/3] the installed package's jar for PySpark $version: $jar" >&2
echo "demo: [3/3] caching ${DEMO_ROWS:-3000000} rows x 16 columns with each serializer" >&2
"$PYSPARK_VENV/bin/python" "$ROOT/scripts/bench/run.py" --python "$PYSPARK_VENV/bin/python" \
  --jar "$jar" --out "$ROOT/target/demo" --title "tablecache demo" --no-chart \
  --table standard --rows "${DEMO_ROWS:-3000000}" --partitions 8 --iterations 1 --reps 3 \
  --driver-memory 4g --modes spark-default,spark-arrow,tc
echo "demo: the full benchmark is scripts/bench.sh; this run's files are in target/demo/" >&2
