#!/usr/bin/env bash
# Runs Apache Spark's own cache test suites (from Spark's published test jars) with tablecache's
# serializer, as Gluten and Comet run Spark's suites with their plugins on.
#
#   scripts/spark-suites.sh [--line 4.0|3.5|all] [--mode rows|columnar|both] [--jar PATH]
#                           [--suites S1,S2]
#
#   --line   Spark line: 4.0 (4.0.1, Scala 2.13; default) or 3.5 (3.5.9, Scala 2.12)
#   --mode   rows: Spark's row path (spark.tablecache.columnarRead=false)
#            columnar: TableCacheExtensions' columnar read; both (default): one JVM each
#   --jar    the tablecache jar under test, built for that line (default: looked up under
#            jvm-shim/target)
#   --suites a comma-separated subset (simple class names) while iterating
#
# Each (line, mode) runs in one JVM; the runner (jvm-shim/spark-suites) prints run / passed /
# failed / excluded per suite and proves that our serializer served them. Exclusions:
# jvm-shim/spark-suites/excluded-tests.txt. SPARK_SUITES_JAVA_OPTS adds JVM flags;
# SPARK_SUITES_TIMEOUT (seconds, default 1200) bounds one JVM.
# Ends with `spark-suites: N passed, N failed`; exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
MOD=$ROOT/jvm-shim/spark-suites

LINE=4.0
MODE=both
JAR=
SUITES=CachedTableSuite,InMemoryColumnarQuerySuite,DatasetCacheSuite,PartitionBatchPruningSuite
while [ $# -gt 0 ]; do
  case "$1" in
    --line) LINE=$2; shift 2 ;;
    --mode) MODE=$2; shift 2 ;;
    --jar) JAR=$2; shift 2 ;;
    --suites) SUITES=$2; shift 2 ;;
    *) sed -n '5,12p' "$0" >&2; exit 2 ;;
  esac
done
case "$LINE" in 4.0|3.5) LINES=$LINE ;; all) LINES="4.0 3.5" ;; *) echo "bad --line $LINE" >&2; exit 2 ;; esac
case "$MODE" in rows|columnar) MODES=$MODE ;; both) MODES="rows columnar" ;; *) echo "bad --mode $MODE" >&2; exit 2 ;; esac
if [ -n "$JAR" ] && [ "$LINE" = all ]; then echo "--jar needs one --line" >&2; exit 2; fi

# The jar for a line: per-line profile builds (target/spark-<line>/) first, else the single
# jar of a build without profiles (Spark 4 only).
find_jar() {
  local line=$1 j
  case "$line" in
    4.0) for j in jvm-shim/target/spark-4/tablecache-*-spark4_2.13.jar jvm-shim/target/tablecache-*.jar; do
           [ -f "$j" ] && { echo "$ROOT/$j"; return; }; done ;;
    3.5) for j in jvm-shim/target/spark-3.5/tablecache-*-spark3.5_2.12.jar; do
           [ -f "$j" ] && { echo "$ROOT/$j"; return; }; done ;;
  esac
  return 1
}

suite_class() {
  case "$1" in
    CachedTableSuite|DatasetCacheSuite) echo "org.apache.spark.sql.$1" ;;
    InMemoryColumnarQuerySuite|PartitionBatchPruningSuite) echo "org.apache.spark.sql.execution.columnar.$1" ;;
    *.*) echo "$1" ;;
    *) echo "unknown suite $1 (give its full class name)" >&2; exit 2 ;;
  esac
}
CLASSES=()
IFS=, read -r -a names <<< "$SUITES"
for n in "${names[@]}"; do CLASSES+=("$(suite_class "$n")"); done

# Flags of Spark's own test JVMs (JavaModuleOptions + its scalatest-maven-plugin setup) and of
# the shim's tests (JNI checking).
JVM_FLAGS=(
  -Xmx3g -Xss4m -XX:ReservedCodeCacheSize=128m -ea -Xcheck:jni
  # C1 only: these JVMs run many short queries, and C2 compiling them cost about 40% of the CPU
  # (measured: 104 s vs 60 s CPU for 4.0/rows). SPARK_SUITES_JAVA_OPTS=-XX:TieredStopAtLevel=4
  # puts C2 back (later flags win).
  -XX:TieredStopAtLevel=1
  --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED
  --add-opens=java.base/java.lang.invoke=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED
  --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED
  --add-opens=java.base/sun.security.action=ALL-UNNAMED --add-opens=java.base/sun.util.calendar=ALL-UNNAMED
  -Djdk.reflect.useDirectMethodHandle=false -Dio.netty.tryReflectionSetAccessible=true
  -Djava.awt.headless=true -Dderby.system.durability=test
  -Dspark.testing=1 -Dspark.ui.enabled=false -Dspark.ui.showConsoleProgress=false
  -Dspark.unsafe.exceptionOnMemoryLeak=true
  "-Dlog4j2.configurationFile=file:$MOD/log4j2.properties"
  # What is under test. Every suite's SparkConf reads these spark.* system properties.
  -Dspark.sql.cache.serializer=dev.tablecache.spark.NativeCachedBatchSerializer
  -Dspark.tablecache.onUnavailable=fail
  # Named even once the extension loads itself through ServiceLoader: Spark 4's
  # SharedSparkSession turns that off (spark.sql.extensions.test.loadFromCp=false).
  -Dspark.sql.extensions=dev.tablecache.spark.TableCacheExtensions
  # Observes every query's plan, for the runner's proof (PlanProbe.java).
  -Dspark.sql.queryExecutionListeners=dev.tablecache.suites.PlanProbe
)
# shellcheck disable=SC2206
EXTRA_FLAGS=(${SPARK_SUITES_JAVA_OPTS:-})

total_passed=0
total_failed=0
summary=()
for line in $LINES; do
  profile=spark-4; [ "$line" = 3.5 ] && profile=spark-3.5
  jar=$JAR
  if [ -z "$jar" ]; then
    if ! jar=$(find_jar "$line"); then
      echo "spark-suites: no tablecache jar for Spark $line under jvm-shim/target (build it, or pass --jar)" >&2
      total_failed=$((total_failed + 1)); continue
    fi
  fi
  [ -f "$jar" ] || { echo "spark-suites: no such jar: $jar" >&2; exit 2; }
  out=$MOD/target/$line
  echo "== Spark $line suites (jar: ${jar#"$ROOT"/}) =="
  mkdir -p "$out"
  # The runner and the line's classpath (Spark, its test jars, ScalaTest); quiet unless it fails.
  if ! (cd "$MOD" && mvn -B -P"$profile" compile dependency:build-classpath) > "$out/mvn.log" 2>&1; then
    cat "$out/mvn.log" >&2; echo "spark-suites: building the runner for Spark $line failed" >&2; exit 1
  fi
  cp="$out/classes:$jar:$(cat "$out/classpath.txt")"
  for mode in $MODES; do
    work=$out/work-$mode
    rm -rf "$work"; mkdir -p "$work/tmp"
    columnar=true; [ "$mode" = rows ] && columnar=false
    start=$(date +%s)
    set +e
    # Inside $work: Spark's suites write spark-warehouse/ and friends to the working directory.
    # A hang guard, not a timing check: a run takes a few minutes; after 20 a thread dump
    # (SIGQUIT, into the output) and a kill 60 s later, so a stuck test cannot eat CI's budget.
    (cd "$work" && SPARK_TESTING=1 timeout -s QUIT -k 60 "${SPARK_SUITES_TIMEOUT:-1200}" \
        java "${JVM_FLAGS[@]}" "${EXTRA_FLAGS[@]}" \
        "-Djava.io.tmpdir=$work/tmp" "-Dtablecache.suites.log=$out/$mode.log" \
        "-Dspark.tablecache.columnarRead=$columnar" \
        -cp "$cp" dev.tablecache.suites.SuiteRunner --line "$line" --mode "$mode" \
        --exclusions "$MOD/excluded-tests.txt" "${CLASSES[@]}") | tee "$out/$mode.out"
    rc=${PIPESTATUS[0]}
    set -e
    secs=$(( $(date +%s) - start ))
    result=$(grep '^RESULT ' "$out/$mode.out" | tail -1 || true)
    if [ -z "$result" ]; then
      # The JVM died before its report (crash, OOM): one failure, and its log says why.
      passed=0; failed=1; excluded=0; differs=0
      echo "spark-suites: $line/$mode ended without a result (exit $rc); see $out/$mode.log" >&2
    else
      passed=$(sed -E 's/.*passed=([0-9]+).*/\1/' <<< "$result")
      failed=$(sed -E 's/.*failed=([0-9]+).*/\1/' <<< "$result")
      excluded=$(sed -E 's/.*excluded=([0-9]+).*/\1/' <<< "$result")
      differs=$(sed -E 's/.*differs=([0-9]+).*/\1/' <<< "$result")
      [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
    fi
    summary+=("$(printf '  %s/%-9s passed %4d  failed %3d  excluded %2d  known differences %2d  %4d s' \
      "$line" "$mode" "$passed" "$failed" "$excluded" "$differs" "$secs")")
    total_passed=$((total_passed + passed))
    total_failed=$((total_failed + failed))
  done
done

echo
echo "== spark-suites summary =="
[ ${#summary[@]} -gt 0 ] && printf '%s\n' "${summary[@]}"
echo "spark-suites: $total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
