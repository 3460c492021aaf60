#!/usr/bin/env bash
# Ingests the example A2A run into the private FalkorDB and prints where an artifact came from.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release --locked --quiet
provex=target/release/provex
$provex ingest examples/a2a-run.jsonl --graph demo
$provex trace artifact:art-figures-q3 --graph demo --up --depth 4 --format table
