#!/usr/bin/env bash
# The Runs view's list over many graphs (examples/bench_runs.rs): p50/p99 cold, warm, and
# after one graph is written. Arguments go to the example: --graphs N --events N --rounds N
# --url URL (a running server or cluster instead of a private FalkorDB).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
cargo run --release --locked --quiet --example bench_runs -- "$@"
