#!/usr/bin/env python3
"""Regenerates the OpenTelemetry fixtures under tests/data/otel/: each scenario of agents.py
runs against the stand-in chat endpoint, exporting over OTLP/HTTP to the capture sink
(otlp_sink.py), which writes what arrived as OTLP JSON lines (`NAME.jsonl`, one export
request a line, in arrival order); the SDK's in-memory copy of the same spans goes to
`NAME.expected.json`. Ids are seeded per scenario, so they stay put from run to run.

    make_fixtures.py [OUT_DIR]      (default: tests/data/otel)

Checks, before writing, that the sink received exactly the spans the SDK kept.
"""
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True

import otlp_sink  # noqa: E402

HERE = Path(__file__).resolve().parent
SCENARIOS = {"genai-tool-agent": 2801, "openinference-agents": 2802, "links-and-failure": 2803}
# The same agent run twice (other ids, other times), the second time with the weather tool
# answering rain: what `provex diff` of two traces compares. Name: (scenario, seed, extra args).
RUNS = {
    "tool-agent-run-a": ("genai-tool-agent", 2811, []),
    "tool-agent-run-b": ("genai-tool-agent", 2812, ["--forecast", "rain:14"]),
}


def received_ids(path):
    ids = []
    for line in path.read_text().splitlines():
        for rs in json.loads(line)["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                ids += [(s["traceId"], s["spanId"]) for s in ss["spans"]]
    return ids


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent / "data" / "otel"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        server, base = otlp_sink.serve(tmp)
        try:
            jobs = [(name, name, seed, []) for name, seed in SCENARIOS.items()]
            jobs += [(name, scenario, seed, extra) for name, (scenario, seed, extra) in RUNS.items()]
            for name, scenario, seed, extra in jobs:
                expected = tmp / f"{name}.expected.json"
                subprocess.run([sys.executable, str(HERE / "agents.py"), scenario, "--otlp", f"{base}/{name}",
                                "--expected", str(expected), "--seed", str(seed)] + extra, check=True)
                want = sorted((s["trace_id"], s["span_id"]) for s in json.loads(expected.read_text())["spans"])
                got = sorted(received_ids(tmp / f"{name}.jsonl"))
                if got != want:
                    sys.exit(f"{name}: the sink received {got}, the SDK kept {want}")
                for suffix in (".jsonl", ".expected.json"):
                    shutil.copy(tmp / f"{name}{suffix}", out / f"{name}{suffix}")
        finally:
            server.shutdown()
    print(f"fixtures in {out}")


if __name__ == "__main__":
    main()
