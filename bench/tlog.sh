#!/usr/bin/env bash
# The tamper-evident log's benchmark (docs/BENCHMARKS.md, "Tamper-evident log"): leaves
# appended per second on one core, and inclusion/consistency proof times at that size.
# `bench/tlog.sh [LEAVES]` (default 1,000,000; 10,000,000 needs about 1.3 GB). Honors
# CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
cargo build --release --locked --quiet --workspace --example bench_tlog
taskset -c 0 "$TARGET/release/examples/bench_tlog" "${1:-1000000}"
