#!/usr/bin/env bash
# What the tamper-evident log costs an ingest, and verify --graph's time
# (docs/BENCHMARKS.md, "Tamper-evident log: ingest and verify --graph"): release build,
# private FalkorDB on a free port. `bench/tlog_ingest.sh [TASKS] [BIG_TASKS] [ROUNDS]` (default
# 20,000 tasks of 9 events, 2 alternated rounds, TASKS 0 for none; BIG_TASKS adds one graph of
# that many tasks, verified 3 times, built with GRAPH.BULK when PROVEX_BENCH_BULK=1: 150,000
# make over 1,000,000 nodes). Honors CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
cargo build --release --workspace --quiet --example bench_tlog_ingest
"$TARGET/release/examples/bench_tlog_ingest" "${1:-20000}" "${2:-0}" "${3:-2}"
