#!/usr/bin/env bash
# Builds libtablecache.so (cargo, release) and the jar that carries it (Maven).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p tablecache
if [ -f jvm-shim/pom.xml ]; then
  (cd jvm-shim && mvn -B -q -DskipTests package)
  ls -l jvm-shim/target/tablecache-*.jar
fi
