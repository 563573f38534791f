#!/usr/bin/env bash
# Builds libtablecache.so once (cargo, release), one jar per Spark line that carries it
# (Maven profiles spark-4 and spark-3.5), and the PySpark wheel that carries both jars:
#   jvm-shim/target/spark-4/tablecache-<version>-spark4_2.13.jar      Spark 4.x (Scala 2.13)
#   jvm-shim/target/spark-3.5/tablecache-<version>-spark3.5_2.12.jar  Spark 3.5 (Scala 2.12)
#   target/python/tablecache-<version>-py3-none-any.whl               pip install; python/README.md
# CARGO_TARGET_DIR, when set, is where cargo builds (and where the jars take the library from).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p tablecache-jni
native_dir="$(cd "${CARGO_TARGET_DIR:-target}/release" && pwd)"
if [ -f jvm-shim/pom.xml ]; then
  for line in 4 3.5; do
    (cd jvm-shim && mvn -B -q -DskipTests -Pspark-$line -Dnative.lib.dir="$native_dir" package)
  done
  ls -l jvm-shim/target/spark-*/tablecache-*.jar
fi

# The wheel (python/): pure Python plus both jars as package data. pip builds it with setuptools
# fetched from PyPI into an isolated build environment.
if [ -f python/pyproject.toml ]; then
  version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)"
  grep -q "^version = \"$version\"$" python/pyproject.toml \
    || { echo "python/pyproject.toml's version differs from Cargo.toml's ($version)" >&2; exit 1; }
  rm -rf python/src/tablecache/jars python/build && mkdir -p python/src/tablecache/jars
  cp jvm-shim/target/spark-*/tablecache-*-spark*_2.1?.jar python/src/tablecache/jars/
  rm -f target/python/tablecache-*.whl
  "${PYTHON:-python3}" -m pip wheel --quiet --disable-pip-version-check --no-deps \
    -w target/python python/
  rm -rf python/build python/src/*.egg-info
  ls -l target/python/tablecache-*.whl
fi
