#!/usr/bin/env bash
# Rewrites the shared rejection corpus (golden/reject/*.bin and manifest.tsv) from its generator
# (native/format/tests/reject/); review the diff before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
TABLECACHE_REGEN_REJECT=1 cargo test -p tablecache-format --test reject_corpus -- --nocapture
