#!/usr/bin/env bash
# Search across graphs (docs/BENCHMARKS.md "Search across graphs"): what keeping the index
# current costs an ingest (index on and off, alternated), and search_all's p50/p99 over
# GRAPHS graphs of EVENTS events. Arguments: [GRAPHS EVENTS QUERIES] (default 100 2000 200).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
cargo run --release --locked --quiet --example bench_search -- "$@"
