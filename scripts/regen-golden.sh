#!/usr/bin/env bash
# Rewrites golden/*.bin and *.json from the Rust writer, on purpose. Review the diff after.
set -euo pipefail
cd "$(dirname "$0")/.."
TABLECACHE_REGEN_GOLDEN=1 cargo test -p tablecache-format --test golden -- --nocapture
echo "golden files rewritten; review: git diff --stat golden/"
