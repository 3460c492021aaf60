#!/usr/bin/env bash
# Issue 12's TrustGraph benchmark (docs/BENCHMARKS.md, "Issue 12: TrustGraph"): streams made
# by trustgraph-base (tests/trustgraph/make_streams.py), repeated to 20,000 sessions; parse and
# normalise on one thread, and end to end into FalkorDB against a bare UNWIND … MERGE.
# PROFILE=debug runs the debug build. Needs scripts/setup.sh's .venv. Honors CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/example.sh
STREAMS=$(mktemp -d)
trap 'rm -rf "$STREAMS"' EXIT
.venv/bin/python tests/trustgraph/make_streams.py "$STREAMS"
build_examples bench_trustgraph
run_example bench_trustgraph "$STREAMS"
