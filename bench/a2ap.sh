#!/usr/bin/env bash
# A2AP benchmarks (docs/BENCHMARKS.md, "A2AP"): following signed statements and `verify`, today's code
# beside a baseline checkout, in one run:
#   1. follow a 10,000-document file (chunks of 100 documents): rows written, trail p50;
#   2. `provex verify` of 5k/10k/20k/30k signed documents on one core (taskset -c 0),
#      beside `openssl speed -seconds 5 ed25519` on the same core.
# Usage: bash bench/a2ap.sh [BASELINE_WORKTREE] (default /work/wt/a2ap-base, e.g. made with
# `git worktree add /work/wt/a2ap-base 3c973a1`). Both are built in the same target folder
# (the dependencies are shared) and their binaries copied out. Needs PROVEX_FALKORDB_BIN.
# `ONLY=verify` skips the follow part; `REPEAT=N` times each verify N times and prints the
# median.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${1:-/work/wt/a2ap-base}
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
OUT=${OUT:-$(mktemp -d)}
NEW_BIN="$OUT/new"
BASE_BIN="$OUT/baseline"
mkdir -p "$NEW_BIN/examples" "$BASE_BIN/examples"

build() { # worktree, destination
  (cd "$1" && CARGO_TARGET_DIR="$TARGET" cargo build --release --locked --quiet -p provex --bin provex --example bench_a2ap)
  cp "$TARGET/release/provex" "$2/provex"
  cp "$TARGET/release/examples/bench_a2ap" "$2/examples/bench_a2ap"
}
build "$PWD" "$NEW_BIN"
cp examples/bench_a2ap.rs "$BASE/examples/bench_a2ap.rs"
build "$BASE" "$BASE_BIN"

for n in 5000 10000 20000 30000; do
  "$NEW_BIN/examples/bench_a2ap" gen "$OUT/docs-$n.jsonl" "$n" >/dev/null
done

if [ "${ONLY:-}" != verify ]; then
echo "== follow 10,000 documents, then 200 trails"
for side in baseline new; do
  bin=$NEW_BIN; [ "$side" = baseline ] && bin=$BASE_BIN
  echo "-- $side"
  "$bin/examples/bench_a2ap" follow "$OUT/docs-10000.jsonl"
done
fi

echo "== provex verify on one core (taskset -c 0)"
openssl_rate=$(taskset -c 0 openssl speed -seconds 5 ed25519 2>/dev/null | awk '/Ed25519/ {print $NF}')
echo "openssl speed -seconds 5 ed25519 (taskset -c 0): $openssl_rate verify/s"
for side in baseline new; do
  bin=$NEW_BIN; [ "$side" = baseline ] && bin=$BASE_BIN
  for n in 5000 10000 20000 30000; do
    f="$OUT/docs-$n.jsonl"
    times=()
    for _ in $(seq "${REPEAT:-1}"); do
      start=$(date +%s.%N)
      taskset -c 0 "$bin/provex" verify "$f" --keys "$f.keys.json" --format json >"$OUT/report-$side-$n.json" || true
      end=$(date +%s.%N)
      times+=("$(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }')")
    done
    t=$(printf '%s\n' "${times[@]}" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
    signed=$((n - 10))
    awk -v t="$t" -v n="$signed" -v o="$openssl_rate" -v side="$side" -v docs="$n" \
      'BEGIN { printf "%-8s %6d documents (%d signed): %7.3f s, %8.0f signatures/s, %.2fx openssl\n", side, docs, n, t, n / t, (n / t) / o }'
  done
done
openssl_rate=$(taskset -c 0 openssl speed -seconds 5 ed25519 2>/dev/null | awk '/Ed25519/ {print $NF}')
echo "openssl speed -seconds 5 ed25519 again (taskset -c 0): $openssl_rate verify/s"
