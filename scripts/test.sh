#!/usr/bin/env bash
# Runs every check CI runs: set-up, formatting, lints, and all tests: Rust (one shared
# build, which also makes the `provex` binary the UI's end-to-end tests serve from and the
# desktop app the real-window test drives), then the UI's type check, unit tests and
# end-to-end tests in Debian's Chromium, then the desktop app in a real window under Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
(cd ui && npx vite build --logLevel warn)   # the desktop shell embeds ui/dist
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
cd ui
npx tsc --noEmit
npx vitest run
npm run e2e
cd ..
xvfb-run -a -s "-screen 0 1400x900x24" node --test src-tauri/e2e/
