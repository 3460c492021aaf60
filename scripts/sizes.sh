#!/usr/bin/env bash
# Lists the modules over 500 lines and the functions over 120 lines (tests: half as long
# again), the allowed ones (generated files, data tables) included, and fails when one is
# not allowed: the Rust check (tests/it/sizes.rs: every module's lines, Rust's functions)
# and the TypeScript one (ui/tests/sizes.test.ts: the functions of ui/src and the UI tests).
#
#   bash scripts/sizes.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=$(cargo test --workspace --test it -- sizes:: --nocapture 2>&1)
rust=$?
grep -E 'lines \(over [0-9]+[^)]*\)$|^test result' <<<"$out" | sort -u
[ $rust -eq 0 ] || echo "$out" | tail -30
(cd ui && npx vitest run tests/sizes.test.ts)
ui=$?
exit $((rust || ui))
