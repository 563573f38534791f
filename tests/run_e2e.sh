#!/usr/bin/env bash
# End-to-end test of the Spark plugin with PySpark from PyPI.
#
# For each PySpark version in PYSPARK_VERSIONS (default: "3.5.9 4.0.1 4.1.3 4.3.0", both jars and
# every Spark 4 line), makes a virtualenv under $TABLECACHE_E2E_HOME (default
# ~/.cache/tablecache-e2e) with that pyspark installed by pip if it is missing, pip-installs the
# tablecache wheel into it (scripts/lib/pyspark-env.sh: install_tablecache_wheel), then runs
# through spark-submit on local-cluster[2,1,1024] (two executor JVMs) with the jar the installed
# package picks (tablecache.jar_path()) and spark.tablecache.onUnavailable=fail:
#   - tests/e2e_cache.py with Java serialization; on E2E_KRYO_VERSIONS (default: one per jar
#     line) once more with Kryo (registrationRequired), and on E2E_V3_VERSIONS (default: the
#     last 4.x asked for) once more writing V3 frames (V4 is the default), each printing "e2e: N
#     passed, N failed";
#   - python/tests (the installed wheel's configure() and jar_path() against the real PySpark);
#   - tests/e2e_loading.py three ways (spark-submit --jars with only the serializer set; the same
#     plus spark.sql.extensions; plain python with tablecache.configure(SparkSession.builder) and
#     nothing else): the columnar read rule loads exactly once, printing "e2e-loading: N passed,
#     N failed", on E2E_LOADING_VERSIONS (default: one per jar line, as the install suite: the
#     rule reaches each jar's Spark through the same extension points on every 4.x);
#   - tests/e2e_faults.py (concurrency, a killed executor, spill to disk, a corrupted block; it
#     picks its serializers itself), printing "e2e-faults: N passed, N failed", on the versions
#     in E2E_FAULT_VERSIONS (default: one per jar line, the first 3.5.x and the last 4.x asked
#     for, as the install suite; about a minute and a half each at smoke scale);
#   - tests/e2e_stored_damage.py (the row count and frame length in front of each frame in
#     DISK_ONLY block files edited, and heavy damage; Java and Kryo serialization,
#     spark.rdd.compress off and on; local[2] and local-cluster[2,1,1024]): every query returns
#     the uncached rows or fails with a TableCacheException, printing "e2e-stored-damage: N
#     passed, N failed", on the versions in E2E_DAMAGE_VERSIONS (default: 3.5.9 4.3.0, one per
#     jar line; about 3.5 minutes each);
#   - tests/e2e_memory_load.py (concurrent queries over a MEMORY_AND_DISK cache larger than
#     storage memory on one 768 MB executor, ours and then Spark's default serializer, peak RSS
#     side by side), printing "e2e-memory-load: N passed, N failed", on E2E_MEMORY_VERSIONS
#     (default: the last 4.x asked for; the memory it measures is the native library's and
#     Spark's block manager's, the same under both jars);
#   - on E2E_METRICS_VERSIONS (default: one per jar line), tests/e2e_metrics.py on
#     local-cluster[1,1,1024] with spark.plugins=...TableCachePlugin and
#     Spark's JmxSink on the executor, whose JMX agent listens on a free 127.0.0.1 port: the
#     counters read through the sink must match the work done, printing
#     "e2e-metrics: N passed, N failed"; then, on E2E_SQL_METRICS_VERSIONS (default: one per jar
#     line), tests/e2e_sql_metrics.py on local-cluster[2,1,1024] with the UI on a free port: the
#     SQL metrics of each cache scan node and the cache's storage sizes read through the driver's
#     REST API, printing "e2e-sql-metrics: N passed, N failed".
#   - tests/e2e_connect.py (suite "connect", Spark 4 only) on E2E_CONNECT_VERSIONS (default: the
#     last 4.x of PYSPARK_VERSIONS), with plain python after the Connect client's dependencies
#     (CONNECT_CLIENT_PINS) are pip-installed into the virtualenv: it starts a Spark Connect
#     server (spark-submit --class ...SparkConnectServer, local[2], a free 127.0.0.1 port) with
#     the jar and only the serializer and onUnavailable=fail of ours (plus TableCachePlugin and
#     a CsvSink for its checks), caches the type matrix from a Connect client (df.cache(),
#     persist MEMORY_ONLY / MEMORY_AND_DISK / DISK_ONLY, CACHE TABLE), compares every query with
#     the uncached rows, checks the server wrote the expected V4 frames and decoded them, and
#     stops the server, printing "e2e-connect: N passed, N failed" (about 40 s);
#   - tests/e2e_comet.py on the 4.1.x versions (Comet 1.2 is built for Spark 4.1), with the Comet
#     jar resolved from Maven Central (scripts/lib/comet-env.sh) and Comet switched on as its docs
#     say, on local[2]: every cached Comet scan and aggregate must equal the uncached query, our
#     serializer must have written the cache and Comet's operators must read it, printing
#     "e2e-comet: N passed, N failed"; then tests/e2e_comet_matrix.py (query shapes: aggregates,
#     top-n, windows, joins, unions, subqueries, a cache of a cache, nested types; AQE on and
#     off) with Comet's own cache and then ours on local[2] and local-cluster[2,1,1024], each
#     result equal to the uncached query and to Comet's own cache's.
#   - the JVMs (suite "jvms") on E2E_JVM_VERSIONS (default: the first 3.5.x and the last 4.x of
#     PYSPARK_VERSIONS): tests/e2e_jvms.py (a check that the driver and every executor run on the
#     JVM asked for, then tests/e2e_cache.py in the same session) with Java and Kryo serialization
#     (E2E_JVM_SERIALIZERS; scripts/test.sh, so CI, passes "kryo" unless --jvms), with JAVA_HOME
#     set to each JVM the line runs on besides the machine's 17 (the cache suite's):
#     8 and 11 for 3.5.x, 21 for 4.x and 25 from 4.2 on (with E2E_JVM_RANGE=ends, which
#     scripts/test.sh passes unless --jvms, only the ends of each line's range: 8 for 3.5.x, the
#     newest for 4.x); each installed once under
#     $TABLECACHE_E2E_HOME/jvm by scripts/lib/jvm-env.sh (jvm_home), and skipped with its reason
#     printed (and listed among the run times) when it cannot be had (a failure with
#     TABLECACHE_REQUIRE_JVMS=1), printing
#     "e2e-jvms: N passed, N failed" and "e2e: N passed, N failed".
#   - the install paths (suite "install") on E2E_INSTALL_VERSIONS (default: the first 3.5.x and
#     the last 4.x of PYSPARK_VERSIONS), each against what scripts/release.sh stages once per run
#     into a temporary directory, each resolving its own line's artifact with a fresh ivy cache:
#     twine check --strict on the staged wheel (pinned twine under $CARGO_TARGET_DIR/pytools);
#     tests/e2e_install.py through spark-submit --packages dev.tablecache:<artifact>:<version>
#     --repositories file://<staged repo> with only the serializer set; from plain python with
#     spark.jars.packages and spark.jars.repositories in the builder; and in a fresh virtualenv
#     with pip install --no-index --find-links <staged dir> tablecache, then pyspark==VERSION
#     after it, then tablecache.configure(SparkSession.builder). Each caches a small table,
#     compares it with the uncached rows and checks every stored batch is native (not the
#     fallback's), printing "e2e-install: N passed, N failed".
# Only spark.sql.cache.serializer is set (the one-setting set-up users get from the README).
# The script exits non-zero if any run fails, and prints the wall time of each run.
#
#   tests/run_e2e.sh                          # build the jars if missing, run every version
#   PYSPARK_VERSIONS=4.0.1 tests/run_e2e.sh   # one version
#   E2E_SUITES=faults tests/run_e2e.sh        # only the fault suite ("cache", "loading", "faults",
#                                             # "damage", "memory", "metrics", "connect",
#                                             # "comet", "install", "jvms")
#   E2E_FAULT_VERSIONS="3.5.9 4.0.1 4.1.3 4.3.0" tests/run_e2e.sh   # fault suite on every version
#   TABLECACHE_TEST_SCALE=full tests/run_e2e.sh   # bigger fault suite (default: smoke)
#   TABLECACHE_JAR=/path/to/tablecache.jar PYSPARK_VERSIONS=4.0.1 tests/run_e2e.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSIONS="${PYSPARK_VERSIONS:-3.5.9 4.0.1 4.1.3 4.3.0}"
SUITES="${E2E_SUITES:-cache loading faults damage memory metrics connect comet install jvms}"
DAMAGE_VERSIONS="${E2E_DAMAGE_VERSIONS:-3.5.9 4.3.0}"
LAST_4X="$(printf '%s\n' $VERSIONS | grep '^4\.' | tail -n1 || true)"
# V3 writing is in every line's JUnit query matrix; here once, on the last 4.x.
V3_VERSIONS="${E2E_V3_VERSIONS:-$LAST_4X}"
MEMORY_VERSIONS="${E2E_MEMORY_VERSIONS:-$LAST_4X}"
# One version per jar line: the first 3.5.x and the last 4.x asked for.
PER_JAR_LINE="$(printf '%s\n' $VERSIONS | grep -m1 '^3\.5\.' || true) $LAST_4X"
INSTALL_VERSIONS="${E2E_INSTALL_VERSIONS:-$PER_JAR_LINE}"
# Kryo registration is per jar (each line's TableCacheKryoRegistrator), so once per jar line.
KRYO_VERSIONS="${E2E_KRYO_VERSIONS:-$PER_JAR_LINE}"
FAULT_VERSIONS="${E2E_FAULT_VERSIONS:-$PER_JAR_LINE}"
LOADING_VERSIONS="${E2E_LOADING_VERSIONS:-$PER_JAR_LINE}"
SQL_METRICS_VERSIONS="${E2E_SQL_METRICS_VERSIONS:-$PER_JAR_LINE}"
# The executor metrics reach Spark's metrics system through each jar's plugin: once per jar line.
METRICS_VERSIONS="${E2E_METRICS_VERSIONS:-$PER_JAR_LINE}"
# Spark Connect is a Spark 4 suite: by default the last 4.x asked for.
CONNECT_VERSIONS="${E2E_CONNECT_VERSIONS:-$LAST_4X}"
# The Spark Connect client's Python dependencies (pyspark[connect] less pyspark), pinned; the
# PySpark 4.1 and 4.3 clients both run with these.
CONNECT_CLIENT_PINS=(grpcio==1.85.3 grpcio-status==1.85.3 protobuf==6.33.6
                     googleapis-common-protos==1.76.0 pandas==2.3.3 numpy==2.4.6 pyarrow==26.0.1
                     zstandard==0.25.0)
JVM_VERSIONS="${E2E_JVM_VERSIONS:-$PER_JAR_LINE}"
JVM_SERIALIZERS="${E2E_JVM_SERIALIZERS:-java kryo}"
source "$ROOT/scripts/lib/pyspark-env.sh"
source "$ROOT/scripts/lib/comet-env.sh"
source "$ROOT/scripts/lib/versions.sh"
source "$ROOT/scripts/lib/jvm-env.sh"

status=0
timings=()
# Each run's output is also kept in a log, so that the end of this script's output (the part a CI
# summary shows) repeats what every failed run printed last.
run_logs="$(mktemp -d)"
failed_logs=()
# Runs "$@" in this shell (functions may set globals) and records its wall time under label $1
# (shifted off).
timed() {
  local label="$1" began=$SECONDS rc=0 log fd tee_pid
  shift
  log="$run_logs/${#timings[@]}.log"
  # A tee on its own descriptor, whose pid is taken at once ($! after a command's own process
  # substitution is unset inside `if !`), and waited for so that the log is whole.
  exec {fd}> >(tee "$log")
  tee_pid=$!
  "$@" >&"$fd" 2>&1 || rc=$?
  exec {fd}>&-
  wait "$tee_pid" || true
  timings+=("$(printf '%-44s %4ds  %s' "$label" $((SECONDS - began)) "$([[ $rc == 0 ]] && echo ok || echo FAILED)")")
  [[ $rc == 0 ]] || failed_logs+=("$label|$log")
  return $rc
}

# The Connect client's dependencies into the PySpark virtualenv VENV (quick once installed).
connect_client_deps() {
  "$1/bin/pip" install -q --disable-pip-version-check "${CONNECT_CLIENT_PINS[@]}"
}

# The install suite's release, staged once per run (scripts/release.sh) with the wheel checked
# by a pinned twine; release_dir is removed on exit.
release_dir=""
release_state=""
stage_release() {
  local pytools="${CARGO_TARGET_DIR:-$ROOT/target}/pytools"
  release_dir="$(mktemp -d)"
  trap 'rm -rf "$release_dir"' EXIT
  "$ROOT/scripts/release.sh" "$release_dir/maven" "$release_dir/python" || return 1
  if [[ ! -x "$pytools/bin/twine" ]]; then
    [[ -x "$pytools/bin/pip" ]] || "${PYTHON:-python3}" -m venv "$pytools"
    "$pytools/bin/pip" install -q --disable-pip-version-check twine==6.2.0
  fi
  "$pytools/bin/twine" check --strict "$release_dir"/python/tablecache-*.whl
}

# A fresh virtualenv VENV with tablecache from the staged --find-links directory, and then
# pyspark==VERSION after it (pip's cache makes the second install quick); the staged simple
# index must serve the same wheel.
fresh_wheel_venv() {
  local version="$1" venv="$2" tc_version="$3" got
  "${PYTHON:-python3}" -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check --no-index \
    --find-links "$release_dir/python" tablecache
  "$venv/bin/pip" install -q --disable-pip-version-check "pyspark==$version"
  got="$("$venv/bin/python" -c 'from importlib import metadata; print(metadata.version("tablecache"), metadata.version("pyspark"))')"
  [[ "$got" == "$tc_version $version" ]] \
    || { echo "fresh virtualenv has tablecache and pyspark $got, not $tc_version $version" >&2; return 1; }
  "$venv/bin/pip" download -q --disable-pip-version-check --no-deps -d "$venv/index-download" \
    --index-url "file://$release_dir/python/simple" tablecache
  cmp "$venv/index-download/$(basename "$release_dir"/python/tablecache-*.whl)" \
    "$release_dir"/python/tablecache-*.whl
}

# The install suite for one PySpark version (its virtualenv from pyspark_env).
install_suite() {
  local version="$1" venv="$2" tc_version artifact coordinate work ok=0
  local -a fast
  tc_version="$(tablecache_version)" || return 1
  case "$version" in
    3.5.*) artifact=tablecache-spark3.5_2.12 ;;
    *) artifact=tablecache-spark4_2.13 ;;
  esac
  coordinate="dev.tablecache:$artifact:$tc_version"
  work="$release_dir/pyspark-$version"
  mkdir -p "$work"
  fast=(--driver-java-options -XX:TieredStopAtLevel=1
        --conf spark.executor.extraJavaOptions=-XX:TieredStopAtLevel=1)
  timed "pyspark $version install: --packages" "$venv/bin/spark-submit" \
      --master 'local-cluster[1,1,1024]' --packages "$coordinate" \
      --repositories "file://$release_dir/maven" --conf "spark.jars.ivy=$work/ivy-submit" \
      --conf spark.sql.cache.serializer=dev.tablecache.spark.NativeCachedBatchSerializer \
      --conf spark.ui.enabled=false --conf spark.log.level=WARN "${fast[@]}" \
      "$ROOT/tests/e2e_install.py" submit "$release_dir/maven" "$coordinate" || ok=1
  # Plain python: C1 only through the JVM's own variable, not a Spark setting.
  timed "pyspark $version install: spark.jars.packages" env JDK_JAVA_OPTIONS=-XX:TieredStopAtLevel=1 "$venv/bin/python" \
      "$ROOT/tests/e2e_install.py" builder "$release_dir/maven" "$coordinate" \
      "$work/ivy-builder" 'local[2]' || ok=1
  if timed "pyspark $version install: fresh venv, pip" \
      fresh_wheel_venv "$version" "$work/venv" "$tc_version"; then
    # That virtualenv's own PySpark, not the one pyspark_env exported.
    timed "pyspark $version install: tablecache.configure" env -u SPARK_HOME JDK_JAVA_OPTIONS=-XX:TieredStopAtLevel=1 \
        PYSPARK_PYTHON="$work/venv/bin/python" PYSPARK_DRIVER_PYTHON="$work/venv/bin/python" \
        "$work/venv/bin/python" "$ROOT/tests/e2e_install.py" wheel 'local[2]' || ok=1
  else
    ok=1
  fi
  rm -rf "$work"
  return $ok
}

# Suite "jvms" for one PySpark version: e2e_jvms.py (every JVM of the run is the one asked for,
# then e2e_cache.py) with Java and Kryo serialization on each JVM the line runs on besides 17
# (the cache suite's); uses the loop's common=(...). A JVM that cannot be had is skipped with
# its reason, printed and listed among the run times.
jvms_suite() {
  local version="$1" venv="$2" name home prefix serializer err reason began ok=0
  local -a names extra
  case "$version" in
    3.5.*) names=(8 11) ;;
    4.0.*|4.1.*) names=(21) ;;  # Spark documents Java 25 from 4.2 on
    *) names=(21 25) ;;
  esac
  # E2E_JVM_RANGE=ends: the oldest and the newest only (3.5: 8; 4.x: its newest).
  if [[ "${E2E_JVM_RANGE:-all}" == ends ]]; then
    case "$version" in
      3.5.*) names=(8) ;;
      *) names=("${names[-1]}") ;;
    esac
  fi
  for name in "${names[@]}"; do
    err="$(mktemp)"
    began=$SECONDS
    if ! home="$(jvm_home "$name" 2>"$err")"; then
      cat "$err" >&2
      reason="$(sed -n "s/^jvm-env: Java $name: //p" "$err" | tail -n1)"
      rm -f "$err"
      echo "run_e2e: pyspark $version on Java $name SKIPPED: $reason"
      timings+=("$(printf '%-44s %4s  %s' "pyspark $version jvm $name" - "SKIPPED: $reason")")
      # TABLECACHE_REQUIRE_JVMS=1: a JVM that cannot be had fails the suite instead.
      [[ "${TABLECACHE_REQUIRE_JVMS:-}" == 1 ]] && ok=1
      continue
    fi
    cat "$err" >&2
    rm -f "$err"
    timings+=("$(printf '%-44s %4ds  %s' "jvm $name: find or install" $((SECONDS - began)) "$home")")
    prefix="$name."
    [[ "$name" == 8 ]] && prefix=1.8.
    for serializer in $JVM_SERIALIZERS; do
      extra=()
      if [[ "$serializer" == kryo ]]; then
        extra=(--conf spark.serializer=org.apache.spark.serializer.KryoSerializer
               --conf spark.kryo.registrationRequired=true
               --conf spark.kryo.registrator=dev.tablecache.spark.TableCacheKryoRegistrator)
      fi
      echo "run_e2e: pyspark $version on Java $name ($home), $serializer serialization"
      timed "pyspark $version jvm $name cache ($serializer)" env JAVA_HOME="$home" \
          "$venv/bin/spark-submit" "${common[@]}" "${extra[@]}" \
          "$ROOT/tests/e2e_jvms.py" "$home" "$prefix" || ok=1
    done
  done
  return $ok
}

for version in $VERSIONS; do
  # The wheel goes into the PySpark virtualenv as a user installs it; the jar is the one the
  # installed package picks for this PySpark (tablecache.jar_path()).
  install_tablecache_wheel "$version"
  jar="$TABLECACHE_WHEEL_JAR"
  venv="$PYSPARK_VENV"
  echo "run_e2e: pyspark $version, jar $jar"
  if ! timed "pyspark $version wheel: configure, jar_path" \
      "$venv/bin/python" -m unittest discover -s "$ROOT/python/tests" -t "$ROOT/python/tests"; then
    echo "run_e2e: FAILED for pyspark $version (wheel)" >&2
    status=1
  fi
  common=(--master 'local-cluster[2,1,1024]'
          --jars "$jar"
          --conf spark.sql.cache.serializer=dev.tablecache.spark.NativeCachedBatchSerializer
          # A library that fails to load must fail the run, not fall back to Spark's serializer.
          --conf spark.tablecache.onUnavailable=fail
          --conf spark.sql.inMemoryColumnarStorage.batchSize=200
          --conf spark.sql.shuffle.partitions=4
          --conf spark.ui.enabled=false
          --conf spark.log.level=WARN
          # Short-lived JVMs: JIT with C1 only, which halves the suites' CPU time.
          --driver-java-options -XX:TieredStopAtLevel=1
          --conf spark.executor.extraJavaOptions=-XX:TieredStopAtLevel=1)
  if [[ " $SUITES " == *" cache "* ]]; then
    for serializer in java kryo; do
      [[ "$serializer" == java || " $KRYO_VERSIONS " == *" $version "* ]] || continue
      extra=()
      if [[ "$serializer" == kryo ]]; then
        extra=(--conf spark.serializer=org.apache.spark.serializer.KryoSerializer
               --conf spark.kryo.registrationRequired=true
               --conf spark.kryo.registrator=dev.tablecache.spark.TableCacheKryoRegistrator)
      fi
      echo "run_e2e: pyspark $version, $serializer serialization"
      if ! timed "pyspark $version cache ($serializer)" \
          "$venv/bin/spark-submit" "${common[@]}" "${extra[@]}" "$ROOT/tests/e2e_cache.py"; then
        echo "run_e2e: FAILED for pyspark $version ($serializer)" >&2
        status=1
      fi
    done
    # V3 frames (spark.tablecache.format=v3; V4 is the default) once per jar line.
    if [[ " $V3_VERSIONS " == *" $version "* ]]; then
      echo "run_e2e: pyspark $version, V3 frames"
      if ! timed "pyspark $version cache (java, v3)" \
          "$venv/bin/spark-submit" "${common[@]}" --conf spark.tablecache.format=v3 \
          "$ROOT/tests/e2e_cache.py"; then
        echo "run_e2e: FAILED for pyspark $version (v3)" >&2
        status=1
      fi
    fi
  fi
  if [[ " $SUITES " == *" jvms "* && " $JVM_VERSIONS " == *" $version "* ]]; then
    if ! jvms_suite "$version" "$venv"; then
      echo "run_e2e: FAILED for pyspark $version (jvms)" >&2
      status=1
    fi
  fi
  if [[ " $SUITES " == *" loading "* && " $LOADING_VERSIONS " == *" $version "* ]]; then
    echo "run_e2e: pyspark $version, ways of loading the columnar read rule"
    loading_ok=1
    timed "pyspark $version loading: submit" \
        "$venv/bin/spark-submit" "${common[@]}" "$ROOT/tests/e2e_loading.py" submit || loading_ok=0
    timed "pyspark $version loading: submit+extensions" "$venv/bin/spark-submit" "${common[@]}" \
        --conf spark.sql.extensions=dev.tablecache.spark.TableCacheExtensions \
        "$ROOT/tests/e2e_loading.py" submit+extensions || loading_ok=0
    timed "pyspark $version loading: tablecache.configure" \
        "$venv/bin/python" "$ROOT/tests/e2e_loading.py" configure || loading_ok=0
    if [[ $loading_ok == 0 ]]; then
      echo "run_e2e: FAILED for pyspark $version (loading)" >&2
      status=1
    fi
  fi
  if [[ " $SUITES " == *" faults "* && " $FAULT_VERSIONS " == *" $version "* ]]; then
    # The suite has its own per-query timeouts; this one only stops a wedged JVM.
    echo "run_e2e: pyspark $version, faults and concurrency (scale ${TABLECACHE_TEST_SCALE:-smoke})"
    if ! timed "pyspark $version faults" timeout --kill-after=30 "${E2E_FAULTS_TIMEOUT:-1800}" \
        "$venv/bin/spark-submit" "${common[@]}" "$ROOT/tests/e2e_faults.py"; then
      echo "run_e2e: FAILED for pyspark $version (faults)" >&2
      status=1
    fi
  fi
  if [[ " $SUITES " == *" damage "* && " $DAMAGE_VERSIONS " == *" $version "* ]]; then
    echo "run_e2e: pyspark $version, damage outside the frame in stored blocks"
    if ! timed "pyspark $version stored-block damage" timeout --kill-after=30 1200 \
        "$venv/bin/spark-submit" "${common[@]}" "$ROOT/tests/e2e_stored_damage.py"; then
      echo "run_e2e: FAILED for pyspark $version (stored-block damage)" >&2
      status=1
    fi
  fi
  if [[ " $SUITES " == *" memory "* && " $MEMORY_VERSIONS " == *" $version "* ]]; then
    echo "run_e2e: pyspark $version, memory under load (ours and Spark's default)"
    if ! E2E_MEMORY_SUBMIT_ARGS="$("$venv/bin/python" -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "${common[@]}")" \
        timed "pyspark $version memory under load" timeout --kill-after=30 1500 \
        "$venv/bin/python" "$ROOT/tests/e2e_memory_load.py"; then
      echo "run_e2e: FAILED for pyspark $version (memory under load)" >&2
      status=1
    fi
  fi
  if [[ " $SUITES " == *" metrics "* && " $METRICS_VERSIONS " == *" $version "* ]]; then
    echo "run_e2e: pyspark $version, executor metrics through the JMX sink"
    # One executor JVM, so one JMX agent port; the script connects to it from the driver.
    port="$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    jmx="-Dcom.sun.management.jmxremote.port=$port -Dcom.sun.management.jmxremote.rmi.port=$port"
    jmx+=" -Dcom.sun.management.jmxremote.host=127.0.0.1 -Djava.rmi.server.hostname=127.0.0.1"
    jmx+=" -Dcom.sun.management.jmxremote.authenticate=false -Dcom.sun.management.jmxremote.ssl=false"
    if ! timed "pyspark $version metrics" "$venv/bin/spark-submit" "${common[@]}" \
        --master 'local-cluster[1,1,1024]' \
        --conf spark.plugins=dev.tablecache.spark.TableCachePlugin \
        --conf spark.metrics.conf.executor.sink.jmx.class=org.apache.spark.metrics.sink.JmxSink \
        --conf "spark.executor.extraJavaOptions=-XX:TieredStopAtLevel=1 $jmx" \
        "$ROOT/tests/e2e_metrics.py" "$port"; then
      echo "run_e2e: FAILED for pyspark $version (metrics)" >&2
      status=1
    fi
    if [[ " $SQL_METRICS_VERSIONS " == *" $version "* ]]; then
      echo "run_e2e: pyspark $version, SQL metrics and storage sizes through the UI's REST API"
      # The UI on a free port; the extension named (PySpark 3.5 skips its ServiceLoader entry).
      port="$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
      if ! timed "pyspark $version SQL metrics (REST)" "$venv/bin/spark-submit" "${common[@]}" \
          --conf spark.ui.enabled=true --conf "spark.ui.port=$port" \
          --conf spark.sql.extensions=dev.tablecache.spark.TableCacheExtensions \
          "$ROOT/tests/e2e_sql_metrics.py"; then
        echo "run_e2e: FAILED for pyspark $version (SQL metrics)" >&2
        status=1
      fi
    fi
  fi
  if [[ " $SUITES " == *" connect "* && " $CONNECT_VERSIONS " == *" $version "* ]]; then
    if [[ "$version" != 4.* ]]; then
      echo "run_e2e: pyspark $version: suite connect runs on Spark 4 only, skipped"
    else
      # The script starts the Connect server (spark-submit, local[2], the jar and the serializer)
      # and stops it; it talks to it only through the Connect client.
      echo "run_e2e: pyspark $version, through Spark Connect (the jar on the server, a Connect client)"
      if ! timed "pyspark $version connect: client deps" connect_client_deps "$venv" \
          || ! timed "pyspark $version connect" timeout --kill-after=30 600 \
            "$venv/bin/python" "$ROOT/tests/e2e_connect.py" "$jar"; then
        echo "run_e2e: FAILED for pyspark $version (connect)" >&2
        status=1
      fi
    fi
  fi
  if [[ " $SUITES " == *" install "* && " $INSTALL_VERSIONS " == *" $version "* ]]; then
    echo "run_e2e: pyspark $version, installed from a staged release (--packages, spark.jars.packages, pip)"
    if [[ -z "$release_state" ]]; then
      release_state=staged
      timed "install: scripts/release.sh, twine check" stage_release || release_state=failed
    fi
    if [[ "$release_state" == failed ]]; then
      echo "run_e2e: FAILED for pyspark $version (install: staging the release failed)" >&2
      status=1
    elif ! install_suite "$version" "$venv"; then
      echo "run_e2e: FAILED for pyspark $version (install)" >&2
      status=1
    fi
  fi
  if [[ " $SUITES " == *" comet "* && "$version" == 4.1.* ]]; then
    echo "run_e2e: pyspark $version, under Apache DataFusion Comet $COMET_VERSION"
    if ! comet="$(comet_jar)"; then
      echo "run_e2e: FAILED for pyspark $version (comet: no Comet jar)" >&2
      status=1
      continue
    fi
    comet_conf=(--jars "$jar,$comet"
                --conf spark.comet.enabled=true
                --conf spark.comet.exec.enabled=true
                --conf spark.shuffle.manager=org.apache.spark.sql.comet.execution.shuffle.CometShuffleManager
                --conf spark.memory.offHeap.enabled=true
                --conf spark.memory.offHeap.size=1g
                --conf spark.ui.showConsoleProgress=false)
    # One JVM: the suite's checks read the driver's plans, cache manager and metrics.
    if ! timed "pyspark $version comet $COMET_VERSION" "$venv/bin/spark-submit" "${common[@]}" \
        "${comet_conf[@]}" --master 'local[2]' \
        --conf spark.plugins=org.apache.spark.CometPlugin,dev.tablecache.spark.TableCachePlugin \
        "$ROOT/tests/e2e_comet.py"; then
      echo "run_e2e: FAILED for pyspark $version (comet)" >&2
      status=1
    fi
    # The query-shape matrix: Comet's own cache first (its results are the reference; it needs
    # Comet's serializer, so no spark.sql.cache.serializer), then ours in one JVM and on two
    # executor JVMs, where plans that hold our Comet scan are deserialized by other JVMs.
    matrix="$(mktemp -d)"
    own=("${common[@]}")
    for i in "${!own[@]}"; do
      [[ "${own[$i]}" == spark.sql.cache.serializer=* ]] && unset 'own[i]' 'own[i-1]'
    done
    if ! timed "pyspark $version comet matrix: Comet's cache" "$venv/bin/spark-submit" \
        "${own[@]}" "${comet_conf[@]}" --master 'local[2]' \
        --conf spark.plugins=org.apache.spark.CometPlugin \
        "$ROOT/tests/e2e_comet_matrix.py" comet-own "$matrix/own.json"; then
      echo "run_e2e: FAILED for pyspark $version (comet matrix, Comet's own cache)" >&2
      status=1
    fi
    for master in 'local[2]' 'local-cluster[2,1,1024]'; do
      if ! timed "pyspark $version comet matrix: ours, $master" "$venv/bin/spark-submit" \
          "${common[@]}" "${comet_conf[@]}" --master "$master" \
          --conf spark.plugins=org.apache.spark.CometPlugin \
          "$ROOT/tests/e2e_comet_matrix.py" ours "$matrix/ours.json" "$matrix/own.json"; then
        echo "run_e2e: FAILED for pyspark $version (comet matrix, ours on $master)" >&2
        status=1
      fi
    done
    rm -rf "$matrix"
    # Damaged stored blocks read by Comet's operators through our zero-copy scan.
    if [[ " $SUITES " == *" damage "* ]]; then
      if ! E2E_DAMAGE_SERIALIZERS=java timed "pyspark $version comet: stored-block damage" \
          timeout --kill-after=30 900 "$venv/bin/spark-submit" "${common[@]}" "${comet_conf[@]}" \
          --conf spark.plugins=org.apache.spark.CometPlugin \
          "$ROOT/tests/e2e_stored_damage.py" 'local[2]'; then
        echo "run_e2e: FAILED for pyspark $version (comet, stored-block damage)" >&2
        status=1
      fi
    fi
  fi
done
for entry in "${failed_logs[@]}"; do
  echo "run_e2e: FAILED run \"${entry%%|*}\" printed last:"
  grep -v '^\s*at \|^\s*\.\.\. [0-9]* more' "${entry#*|}" | tail -n 30 | sed 's/^/  | /'
done
rm -rf "$run_logs"
echo "run_e2e: wall time per run"
printf '  %s\n' "${timings[@]}"
exit $status
