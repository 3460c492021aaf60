#!/usr/bin/env bash
# UI benchmarks (bench/ui/run.mjs): first paint of a 1,000-node graph, pan/zoom frame rate at
# 50,000 nodes, and event-to-pixels latency at 1,000 events/s, in headless Chromium against
# `provex serve`. Prints a Markdown table; the raw figures go to bench/out/ui.json.
#
#   bash bench/ui/run.sh [--only first-paint,pan-zoom,stream] [--runs 5] [--seconds 5]
#                        [--rate 1000] [--stream-seconds 10]
#
# Uses target/release/provex when it exists (else target/debug/provex; PROVEX_BIN overrides),
# builds the UI into ui/dist first, and Debian's Chromium (CHROMIUM overrides).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bash "$root/scripts/setup.sh" >/dev/null
if [ ! -d "$root/ui/node_modules" ]; then (cd "$root/ui" && npm install --no-audit --no-fund --loglevel=error >&2); fi
(cd "$root/ui" && npx vite build --logLevel warn >&2)
if [ -z "${PROVEX_BIN:-}" ] && [ ! -x "$root/target/release/provex" ] && [ ! -x "$root/target/debug/provex" ]; then
  (cd "$root" && cargo build >&2)
fi
exec node "$here/run.mjs" "$@"
