#!/usr/bin/env bash
# The council-meeting demo: streams the meeting's runtime events and signed statements into
# the private FalkorDB, prints the verification trail of the claim one verifier challenged
# and the audit of every signature and quote, then opens the explorer on it
# (http://127.0.0.1:7878/?graph=council; Ctrl-C stops).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release --locked --quiet
(cd ui && npx vite build --logLevel warn)
provex=target/release/provex
$provex demo council --graph council --out examples/council
echo
$provex trail urn:uuid:89f0c379-8249-54f0-b64d-6b3333ea67c5 --graph council
echo
$provex verify --graph council --format table || true   # exits 1: the demo has a forged verification and an altered quote
echo
exec $provex serve --ui ui/dist --open "${@}"
