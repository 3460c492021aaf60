#!/usr/bin/env bash
# Threads and memory of `provex serve` while 530 clients each hold an `/events` body open
# and send nothing, and how long `GET /api/health` takes meanwhile (docs/BENCHMARKS.md).
# Usage: bench/idle-bodies.sh [provex binary] [serve options…]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/provex}
shift || true
source bench/lib/serve.sh
start_serve "$BIN" "$@"
python3 - "$PORT" "$SPID" "$TOKEN" <<'PY'
import socket, sys, time, urllib.request
port, pid, token = int(sys.argv[1]), sys.argv[2], sys.argv[3]
line = b'{"Global":{"id":"e","context_id":"c","timestamp_ms":1,"data":{"AgentBooted":{"agent_id":"a","agent_type":"t","agent_version":"1","archive_path":"p"}}}}\n'
socks = []
for i in range(530):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"POST /api/graphs/bench_idle/events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: Bearer %s\r\nTransfer-Encoding: chunked\r\n\r\n" % (port, token.encode()))
    s.sendall(b"%x\r\n%s\r\n" % (len(line), line))
    socks.append(s)
time.sleep(3)
status = dict(l.split(":", 1) for l in open("/proc/%s/status" % pid) if ":" in l)
t = time.time()
try:
    urllib.request.urlopen(urllib.request.Request("http://127.0.0.1:%d/api/health" % port, headers={"Authorization": "Bearer " + token}), timeout=30).read()
    health = "%.0f ms" % ((time.time() - t) * 1000)
except Exception as e:
    health = "failed after %.1f s (%s)" % (time.time() - t, e)
print("threads", status["Threads"].strip(), "VmRSS", status["VmRSS"].strip(), "health", health)
PY
