#!/usr/bin/env bash
# Runs every check CI runs: set-up, formatting, lints, and all tests: Rust (one shared
# build, which also makes the `provex` binary the UI's end-to-end tests serve from), then
# the UI's type check, unit tests, and end-to-end tests in Debian's Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
cd ui
npx tsc --noEmit
npx vitest run
npm run e2e
