#!/usr/bin/env python3
"""Peak memory of `provex serve` answering one GraphQL request with many aliases of `triples`
(docs/BENCHMARKS.md, "GraphQL request budget"): a graph of 15,000 knowledge-graph statements
written through `knowledge/update` (1,000 a request), then `{ t0: triples { … } t1: … }` with
50 and 150 aliases, each measured in a fresh server (VmHWM of the serve process, which runs
its private FalkorDB as a separate process, not counted). Usage: graphql_aliases.py PROVEX_BIN"""
import json, os, socket, subprocess, sys, tempfile, time, urllib.request

BIN = sys.argv[1]
STATEMENTS = 15_000

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

def post(url, body, timeout=600):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())

def hwm(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) // 1024
    return 0

def serve(data):
    port = free_port()
    env = dict(os.environ, PROVEX_DATA_DIR=data)
    p = subprocess.Popen([BIN, "serve", "--bind", f"127.0.0.1:{port}", "--ui", data],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(f"{base}/graphql?graph=g&query=%7B__typename%7D", timeout=2)
            return p, base
        except Exception:
            time.sleep(0.2)
    raise SystemExit("provex serve did not start")

with tempfile.TemporaryDirectory() as data:
    p, base = serve(data)
    for start in range(0, STATEMENTS, 1000):
        muts = [{"op": "add", "statement": {"subject": {"id": f"ex:s{i}"}, "predicate": {"id": "ex:p"},
                 "object": {"value": f"value {i} " + "x" * 40}, "certainty": 0.9,
                 "provenance": {"sourceAgentId": "agent:bench"}}} for i in range(start, start + 1000)]
        r = post(f"{base}/a2a/g", {"jsonrpc": "2.0", "id": 1, "method": "knowledge/update",
                                   "params": {"mutations": muts}})
        assert "result" in r, r
    p.terminate(); p.wait()
    full = "id subject { id } predicate { id } object { id value } graph certainty provenance"
    # 150 aliases of the full selection pass no complexity limit; of `id object { value }` they do.
    for n, fields in ((50, full), (150, full), (150, "id object { value }")):
        p, base = serve(data)
        before = hwm(p.pid)
        q = "{ " + " ".join(f"t{i}: triples {{ {fields} }}" for i in range(n)) + " }"
        t = time.time()
        r = post(f"{base}/graphql?graph=g", {"query": q})
        secs = time.time() - t
        ok = "errors" not in r
        msg = "" if ok else r["errors"][0]["message"][:90]
        print(f"{n} aliases of `{fields[:20]}…`: peak RSS {hwm(p.pid)} MB (idle {before} MB), {secs:.2f} s, "
              f"{'answered' if ok else 'refused: ' + msg}")
        p.terminate(); p.wait()
