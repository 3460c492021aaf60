#!/usr/bin/env bash
# Runs every check CI runs: set-up, formatting, lints, and all tests (one shared build).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
