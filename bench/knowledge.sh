#!/usr/bin/env bash
# Issue 14's benchmarks (docs/BENCHMARKS.md, "Issue 14"): knowledge/update of 1,000
# statements, commit → subscriber event with 20 subscribers, and seed 001's statementsAbout
# over 100,000 A2AP statements (made by bench_a2ap gen). PROFILE=debug runs the debug build.
# Honors CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/example.sh
build_examples bench_knowledge bench_a2ap
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
run_example bench_knowledge update
run_example bench_knowledge subscribers
# 10 sources + 100,000 × (statement + 2 verifications).
run_example bench_a2ap gen "$WORK/statements.jsonl" 300010
run_example bench_knowledge about "$WORK/statements.jsonl"
