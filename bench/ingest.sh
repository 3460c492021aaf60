#!/usr/bin/env bash
# The spine's benchmarks (docs/BENCHMARKS.md): parse + normalise, end-to-end ingest beside a
# bare UNWIND MERGE of the same nodes and edges, and trace depth 10 on 100k nodes.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
cargo run --release --locked --quiet --example bench_ingest -- "$@"
