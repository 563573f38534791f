# Shared set-up for scripts that run PySpark from PyPI (sourced, not executed).
#
#   pyspark_env VERSION   makes/reuses a virtualenv with pyspark==VERSION under
#                         $TABLECACHE_E2E_HOME (default ~/.cache/tablecache-e2e) and exports
#                         PYSPARK_VENV, SPARK_HOME, PYSPARK_PYTHON, PYSPARK_DRIVER_PYTHON, JAVA_HOME
#   tablecache_jar VERSION
#                         prints the path of the tablecache jar for PySpark/Spark VERSION:
#                         3.5.x -> jvm-shim/target/spark-3.5/tablecache-*-spark3.5_2.12.jar,
#                         4.x   -> jvm-shim/target/spark-4/tablecache-*-spark4_2.13.jar
#                         (both built by scripts/build.sh when either is missing or older than
#                         the sources; $TABLECACHE_JAR, if set, is used for every version),
#                         checking that it carries the native library
#   install_tablecache_wheel VERSION
#                         pip-installs the tablecache wheel (target/python, built with the jars
#                         by scripts/build.sh) into the virtualenv of pyspark_env VERSION, the way
#                         a user would, and exports TABLECACHE_WHEEL_JAR: the jar the installed
#                         package picks for that PySpark (tablecache.jar_path()), or $TABLECACHE_JAR

TC_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

pyspark_env() {
  local version="$1"
  local home="${TABLECACHE_E2E_HOME:-$HOME/.cache/tablecache-e2e}"
  PYSPARK_VENV="$home/pyspark-$version"
  if [[ ! -x "$PYSPARK_VENV/bin/spark-submit" ]]; then
    echo "installing pyspark==$version into $PYSPARK_VENV (once; a few minutes)" >&2
    "${PYTHON:-python3}" -m venv "$PYSPARK_VENV"
    "$PYSPARK_VENV/bin/pip" install --quiet --disable-pip-version-check "pyspark==$version" >&2
  fi
  SPARK_HOME="$("$PYSPARK_VENV/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')"
  export PYSPARK_VENV SPARK_HOME
  export PYSPARK_PYTHON="$PYSPARK_VENV/bin/python" PYSPARK_DRIVER_PYTHON="$PYSPARK_VENV/bin/python"
  export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"
  if [[ -z "${JAVA_HOME:-}" ]]; then
    JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"
    export JAVA_HOME
  fi
}

tablecache_jar() {
  local version="${1:?usage: tablecache_jar PYSPARK_VERSION}" line jar lib
  case "$version" in
    3.5.*) line=3.5 ;;
    4.*) line=4 ;;
    *) echo "tablecache has no jar for Spark $version (3.5.x and 4.x have one)" >&2; return 1 ;;
  esac
  if [[ -n "${TABLECACHE_JAR:-}" ]]; then
    echo "$TABLECACHE_JAR"
    return
  fi
  lib="${CARGO_TARGET_DIR:-$TC_ROOT/target}/release/libtablecache.so"
  jar="$(ls "$TC_ROOT"/jvm-shim/target/spark-$line/tablecache-*-spark${line}_2.1?.jar 2>/dev/null | head -n1 || true)"
  if [[ -z "$jar" || ! -f "$lib" ]] \
      || [[ -n "$(find "$TC_ROOT/native/format/src" "$TC_ROOT/native/jni/src" "$TC_ROOT/native/format/Cargo.toml" "$TC_ROOT/native/jni/Cargo.toml" "$TC_ROOT/native/jni/build.rs" "$TC_ROOT/Cargo.toml" \
                   "$TC_ROOT/jvm-shim/src/main" "$TC_ROOT/jvm-shim/pom.xml" -newer "$jar" -print -quit)" ]]; then
    echo "building the native library and the jars (scripts/build.sh)" >&2
    "$TC_ROOT/scripts/build.sh" >&2
    jar="$(ls "$TC_ROOT"/jvm-shim/target/spark-$line/tablecache-*-spark${line}_2.1?.jar | head -n1)"
  fi
  # Listed whole first: 'unzip | grep -q' fails under pipefail when grep exits before unzip's last write.
  local listing
  listing="$(unzip -Z1 "$jar")"
  if ! grep -q 'libtablecache.so' <<<"$listing"; then
    echo "$jar does not contain libtablecache.so (build it with scripts/build.sh)" >&2
    return 1
  fi
  echo "$jar"
}

install_tablecache_wheel() {
  local version="${1:?usage: install_tablecache_wheel PYSPARK_VERSION}" wheel
  # tablecache_jar rebuilds jars and wheel when the sources are newer.
  tablecache_jar "$version" >/dev/null
  wheel="$(ls "$TC_ROOT"/target/python/tablecache-*.whl 2>/dev/null | head -n1 || true)"
  if [[ -z "$wheel" || -n "$(find "$TC_ROOT"/jvm-shim/target/spark-*/tablecache-*.jar "$TC_ROOT"/python/src/tablecache/*.py \
                               "$TC_ROOT/python/pyproject.toml" -newer "$wheel" -print -quit)" ]]; then
    echo "building the wheel (scripts/build.sh)" >&2
    "$TC_ROOT/scripts/build.sh" >&2
    wheel="$(ls "$TC_ROOT"/target/python/tablecache-*.whl | head -n1)"
  fi
  pyspark_env "$version"
  "$PYSPARK_VENV/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps \
    "$wheel" >&2
  if [[ -n "${TABLECACHE_JAR:-}" ]]; then
    TABLECACHE_WHEEL_JAR="$TABLECACHE_JAR"
  else
    TABLECACHE_WHEEL_JAR="$(cd / && "$PYSPARK_VENV/bin/python" -c 'import tablecache; print(tablecache.jar_path())')"
  fi
  export TABLECACHE_WHEEL_JAR
}
