#!/usr/bin/env bash
# RFC 8785 canonicalisation, Provex's writer against serde_json_canonicalizer
# (docs/BENCHMARKS.md, "Canonical JSON"): builds bench/canonical in release (its own
# workspace and target folder) and runs it on one core.
# Usage: bash bench/canonical.sh [FILE.jsonl] (default: the council example's A2AP documents).
set -euo pipefail
cd "$(dirname "$0")/.."
FILE=${1:-examples/council/council-a2ap.jsonl}
cargo build --release --quiet --manifest-path bench/canonical/Cargo.toml
taskset -c 0 bench/canonical/target/release/bench-canonical "$FILE"
