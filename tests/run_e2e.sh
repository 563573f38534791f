#!/usr/bin/env bash
# End-to-end test of the Spark plugin with PySpark from PyPI.
#
# For each PySpark version in PYSPARK_VERSIONS (default: "4.0.1 4.3.0", two Spark lines), makes
# a virtualenv under $TABLECACHE_E2E_HOME (default ~/.cache/tablecache-e2e) with that pyspark
# installed by pip if it is missing, then runs through spark-submit on local-cluster[2,1,1024]
# (two executor JVMs) with the tablecache jar:
#   - tests/e2e_cache.py, once with Java serialization and once with Kryo (registrationRequired),
#     each printing "e2e: N passed, N failed";
#   - tests/e2e_loading.py three ways (spark-submit --jars with only the serializer set; the same
#     plus spark.sql.extensions; a plain-python SparkSession.builder with spark.jars): the
#     columnar read rule loads from the jar exactly once, printing "e2e-loading: N passed, N failed";
#   - tests/e2e_faults.py (concurrency, a killed executor, spill to disk, a corrupted block; it
#     picks its serializers itself), printing "e2e-faults: N passed, N failed".
# Only spark.sql.cache.serializer is set (the one-setting set-up users get from the README).
# The script exits non-zero if any run fails.
#
#   tests/run_e2e.sh                          # build the jar if missing, run both versions
#   PYSPARK_VERSIONS=4.0.1 tests/run_e2e.sh   # one version
#   E2E_SUITES=faults tests/run_e2e.sh        # only the fault suite ("cache", "loading", "faults")
#   TABLECACHE_TEST_SCALE=full tests/run_e2e.sh   # bigger fault suite (default: smoke)
#   TABLECACHE_JAR=/path/to/tablecache.jar tests/run_e2e.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSIONS="${PYSPARK_VERSIONS:-4.0.1 4.3.0}"
SUITES="${E2E_SUITES:-cache loading faults}"
source "$ROOT/scripts/lib/pyspark-env.sh"

jar="$(tablecache_jar)"
echo "run_e2e: jar $jar"

status=0
for version in $VERSIONS; do
  pyspark_env "$version"
  venv="$PYSPARK_VENV"
  common=(--master 'local-cluster[2,1,1024]'
          --jars "$jar"
          --conf spark.sql.cache.serializer=dev.tablecache.spark.NativeCachedBatchSerializer
          --conf spark.sql.inMemoryColumnarStorage.batchSize=200
          --conf spark.sql.shuffle.partitions=4
          --conf spark.ui.enabled=false
          --conf spark.log.level=WARN
          # Short-lived JVMs: JIT with C1 only, which halves the suites' CPU time.
          --driver-java-options -XX:TieredStopAtLevel=1
          --conf spark.executor.extraJavaOptions=-XX:TieredStopAtLevel=1)
  if [[ " $SUITES " == *" cache "* ]]; then
    for serializer in java kryo; do
      extra=()
      if [[ "$serializer" == kryo ]]; then
        extra=(--conf spark.serializer=org.apache.spark.serializer.KryoSerializer
               --conf spark.kryo.registrationRequired=true
               --conf spark.kryo.registrator=dev.tablecache.spark.TableCacheKryoRegistrator)
      fi
      echo "run_e2e: pyspark $version, $serializer serialization"
      if ! "$venv/bin/spark-submit" "${common[@]}" "${extra[@]}" "$ROOT/tests/e2e_cache.py"; then
        echo "run_e2e: FAILED for pyspark $version ($serializer)" >&2
        status=1
      fi
    done
  fi
  if [[ " $SUITES " == *" loading "* ]]; then
    echo "run_e2e: pyspark $version, ways of loading the columnar read rule"
    loading_ok=1
    "$venv/bin/spark-submit" "${common[@]}" "$ROOT/tests/e2e_loading.py" submit || loading_ok=0
    "$venv/bin/spark-submit" "${common[@]}" \
        --conf spark.sql.extensions=dev.tablecache.spark.TableCacheExtensions \
        "$ROOT/tests/e2e_loading.py" submit+extensions || loading_ok=0
    "$venv/bin/python" "$ROOT/tests/e2e_loading.py" builder "$jar" || loading_ok=0
    if [[ $loading_ok == 0 ]]; then
      echo "run_e2e: FAILED for pyspark $version (loading)" >&2
      status=1
    fi
  fi
  if [[ " $SUITES " == *" faults "* ]]; then
    # The suite has its own per-query timeouts; this one only stops a wedged JVM.
    echo "run_e2e: pyspark $version, faults and concurrency (scale ${TABLECACHE_TEST_SCALE:-smoke})"
    if ! timeout --kill-after=30 "${E2E_FAULTS_TIMEOUT:-1800}" \
        "$venv/bin/spark-submit" "${common[@]}" "$ROOT/tests/e2e_faults.py"; then
      echo "run_e2e: FAILED for pyspark $version (faults)" >&2
      status=1
    fi
  fi
done
exit $status
