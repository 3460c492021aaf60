#!/usr/bin/env bash
# The council-meeting demo: streams the meeting's runtime events and signed statements into
# the private FalkorDB, prints the verification trail of the claim one verifier challenged
# and the audit of every signature and quote, then opens it in the desktop app (with a
# display), or in the explorer served at http://127.0.0.1:7878/ (without one; Ctrl-C stops):
# `provex serve` prints the address with the token it made for this start (and opens it when
# a browser can be opened); the token is also in the data folder's serve-7878.token.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
(cd ui && npx vite build --logLevel warn)
cargo build --release --locked --quiet --workspace
provex=target/release/provex
$provex demo council --graph council --out examples/council
echo
$provex trail urn:uuid:89f0c379-8249-54f0-b64d-6b3333ea67c5 --graph council
echo
$provex verify --graph council --format table || true   # exits 1: the demo has a forged verification and an altered quote
echo
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  # The desktop app shares the CLI's data folder here, so it opens on the same graph.
  PROVEX_DATA_DIR="${PROVEX_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/provex}" exec target/release/provex-desktop
fi
exec $provex serve --ui ui/dist --open "${@}"
