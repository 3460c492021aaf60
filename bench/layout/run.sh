#!/usr/bin/env bash
# Layout benchmark: provex (Rust, release) against dagre and ELK layered (Node) on the same
# seeded random layered DAGs. Prints a markdown table.
#
#   bench/layout/run.sh [out-dir]
#
# Environment:
#   SIZES    graph sizes for provex (default "1000 5000 20000 100000")
#   PEERS    peer runs, tool:n comma list (default "dagre:1000,dagre:5000,elk:1000,elk:5000,elk:20000")
#   TIMEOUT  seconds allowed per peer run (default 600)
#   RUST_ONLY=1  rerun only the provex side and reuse <out-dir>/peer-results.json
#   SKIPPED  peer runs not attempted, as tool:n or tool:n:reason; recorded as
#            "not run: <reason>" (default reason "> 10 min known")
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/target/layout-bench}"
SIZES="${SIZES:-1000 5000 20000 100000}"
PEERS="${PEERS:-dagre:1000,elk:1000,elk:5000,dagre:5000}"
TIMEOUT="${TIMEOUT:-600}"
SKIPPED="${SKIPPED:-dagre:20000,dagre:100000,elk:20000:stack overflow known,elk:100000:stack overflow known}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

if [ "${RUST_ONLY:-0}" != 1 ]; then
  (cd "$here" && npm install --no-audit --no-fund --loglevel=error >&2)
fi
(cd "$root" && cargo build --release --example layout_bench >&2)
"$root/target/release/examples/layout_bench" "$out" $SIZES >&2

node -e '
const [file, list] = process.argv.slice(1);
const rows = list.split(",").filter(Boolean).map((x) => { const [tool, n, why] = x.split(":"); return { tool, n: Number(n), status: `not run: ${why || "> 10 min known"}` }; });
require("fs").writeFileSync(file, JSON.stringify(rows, null, 2));
' "$out/peer-skipped.json" "$SKIPPED"
if [ "${RUST_ONLY:-0}" != 1 ]; then
  node "$here/run.mjs" all "$out" "$PEERS" "$TIMEOUT"
fi
echo
echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); node $(node --version); $(rustc --version)"
echo
node "$here/run.mjs" table "$out"
