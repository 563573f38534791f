#!/usr/bin/env bash
# Builds libtablecache.so once (cargo, release) and one jar per Spark line that carries it
# (Maven profiles spark-4 and spark-3.5):
#   jvm-shim/target/spark-4/tablecache-<version>-spark4_2.13.jar      Spark 4.x (Scala 2.13)
#   jvm-shim/target/spark-3.5/tablecache-<version>-spark3.5_2.12.jar  Spark 3.5 (Scala 2.12)
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
