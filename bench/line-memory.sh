#!/usr/bin/env bash
# Peak memory (VmHWM) of `provex serve` while eight clients each POST one 63 MiB line to
# /api/graphs/g/events at once, and how each was answered (docs/BENCHMARKS.md).
# Usage: bench/line-memory.sh [provex binary] [serve options…]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/provex}
shift || true
source bench/lib/serve.sh
start_serve "$BIN" "$@"
python3 - "$PORT" "$TOKEN" <<'PY'
import http.client, sys, threading, json
port, token = int(sys.argv[1]), sys.argv[2]
value = "v" * (63 << 20)
line = ('{"Global":{"id":"e%d","context_id":"c","timestamp_ms":1,"data":{"AgentBooted":'
        '{"agent_id":"agent-%d","agent_type":"' + value + '","agent_version":"1","archive_path":"p"}}}}\n')
answers = [None] * 8
def push(i):
    body = (line % (i, i)).encode()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    def chunks():
        for k in range(0, len(body), 1 << 20):
            yield body[k:k + (1 << 20)]
    try:
        c.request("POST", "/api/graphs/bench_lines/events", body=chunks(),
                  headers={"Content-Type": "application/x-ndjson", "Authorization": "Bearer " + token}, encode_chunked=True)
    except (BrokenPipeError, ConnectionResetError):
        pass  # answered early (503): read the answer below
    try:
        r = c.getresponse()
    except (BrokenPipeError, ConnectionResetError):
        answers[i] = "closed while sending (answered before the body ended)"
        return
    text = r.read().decode()
    answers[i] = (r.status, json.loads(text).get("code") or "events=%s" % json.loads(text).get("events"))
ts = [threading.Thread(target=push, args=(i,)) for i in range(8)]
[t.start() for t in ts]
[t.join() for t in ts]
print("answers:", answers)
PY
grep -E "VmHWM|Threads" "/proc/$SPID/status"
