#!/usr/bin/env python3
"""The Runs view and the search across graphs over HTTP, as a user meets them, with one or
more `provex` binaries (so an earlier build is measured the same way, on the same data):
GRAPHS graphs of EVENTS A2A runtime events each (every graph's tasks its own), ingested with
`provex ingest` of the first binary into a FalkorDB this script starts (one server, or with
--cluster a three-shard Redis Cluster of FalkorDB primaries), then, for each binary in turn,
`provex serve` over it:

- `GET /api/runs` cold: the first answer of a fresh `provex serve` (as after a restart),
  ROUNDS restarts; the first of them is also the first list after the ingest;
- warm: the same server asked again, ROUNDS times;
- after one write: one task's events posted to a graph, then the list, ROUNDS times;
- `GET /api/search` for words in every graph, a phrase in one graph, and a node's id:
  QUERIES times each. p50 and p99 (nearest rank) of each.

Then what an ingest costs each binary: FRESH more graphs of EVENTS events each, binaries
alternated, each into a fresh graph (GRAPH.BULK and the search index's items): the median.

Run with bench/runs_serve.sh (which finds FalkorDB's binaries). Standard library only.
"""

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import http.client

TOKEN = "runs-serve-bench-token-0123456789"


def task_events(out, t, context):
    """Task t's nine A2A runtime events (examples/support/a2a_events.rs, varied)."""
    n = t * 9
    task = f"task-{t}"
    agent = f"5f0c1a2e-8d4b-4c1e-9a77-{t % 50:012d}"
    scope = {"Task": {"task_id": task}}
    meta = {"agent_id": agent}
    prompt = {"system": "You summarise council meetings.", "user": "Summarise the attached transcript segment."}
    tool_ms, tool_ok = 100 + t % 40, t % 13 != 0
    end = "failed" if t % 11 == 0 else "completed"
    datas = [
        {"TaskCreated": {"task_id": task, "agent_id": agent}},
        {"MessageReceived": {"id": f"in-{t}", "role": "user", "content": [f"Summarise item {t} of the agenda"], "metadata": meta}},
        {"LlmCallStarted": {"scope": scope, "client": "anthropic", "model": "claude-sonnet-4", "function_name": "Summarise", "prompt": prompt, "metadata": meta}},
        {"LlmCallCompleted": {"scope": scope, "client": "anthropic", "model": "claude-sonnet-4", "function_name": "Summarise", "prompt": prompt, "metadata": meta,
                              "usage": {"Known": {"prompt_tokens": 800 + t % 97, "completion_tokens": 240, "total_tokens": 1040 + t % 97}}, "duration_ms": 2210, "success": True}},
        {"ToolCallStarted": {"scope": scope, "tool_name": "transcript_search", "function_name": "search", "args": {"q": f"item {t}"}, "metadata": meta}},
        {"ToolCallCompleted": {"scope": scope, "tool_name": "transcript_search", "function_name": "search", "args": {"q": f"item {t}"}, "metadata": meta,
                               "duration_ms": tool_ms, "success": tool_ok}},
        {"TaskStatusChanged": {"task_id": task, "old_status": "working", "new_status": end}},
        {"TaskArtifactGenerated": {"task_id": task, "artifact_id": f"summary-{t}", "artifact_type": "text/markdown"}},
        {"MessageSent": {"id": f"out-{t}", "role": "agent", "content": [f"Summary of item {t}"], "metadata": meta}},
    ]
    for data in datas:
        n += 1
        ev = {"Task": {"id": f"e{n}", "context_id": context, "task_id": task, "timestamp_ms": 1_700_000_000_000 + n, "data": data}}
        out.write(json.dumps(ev, separators=(",", ":")) + "\n")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def resp(port, *args):
    """One command over RESP; the reply as text (enough for the set-up's commands)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        cmd = f"*{len(args)}\r\n" + "".join(f"${len(str(a).encode())}\r\n{a}\r\n" for a in args)
        s.sendall(cmd.encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            data += chunk
            if not chunk or data.endswith(b"\r\n") and (data[:1] in b"+-:" or data.count(b"\r\n") >= 2):
                break
        return data.decode(errors="replace")


def wait_ping(port, deadline):
    while True:
        try:
            if "PONG" in resp(port, "PING"):
                return
        except OSError:
            pass
        if time.time() > deadline:
            sys.exit(f"FalkorDB on {port} did not start")
        time.sleep(0.05)


def start_falkordb(bin_dir, tmp, cluster):
    """One FalkorDB server, or three cluster primaries; their processes and the URL."""
    bin_dir = os.path.abspath(bin_dir)
    module = os.path.join(bin_dir, "falkordb.so")
    server = os.path.join(bin_dir, "redis-server")
    procs, ports = [], []
    for i in range(3 if cluster else 1):
        port, bus = free_port(), free_port()
        data = os.path.join(tmp, f"db{i}")
        os.makedirs(data)
        cmd = [server, "--port", str(port), "--bind", "127.0.0.1", "--dir", data, "--save", "", "--appendonly", "no",
               "--loglevel", "warning", "--logfile", os.path.join(data, "log")]
        if cluster:
            cmd += ["--cluster-enabled", "yes", "--cluster-port", str(bus), "--cluster-config-file", os.path.join(data, "nodes.conf")]
        cmd += ["--loadmodule", module, "TIMEOUT_DEFAULT", "10000", "TIMEOUT_MAX", "60000"]
        procs.append(subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        ports.append((port, bus))
    deadline = time.time() + 30
    for port, _ in ports:
        wait_ping(port, deadline)
    if not cluster:
        return procs, f"redis://127.0.0.1:{ports[0][0]}"
    third = 16384 // 3
    for i, (port, _) in enumerate(ports):
        hi = 16383 if i == 2 else third * (i + 1) - 1
        resp(port, "CLUSTER", "ADDSLOTSRANGE", third * i, hi)
    for port, bus in ports[1:]:
        resp(ports[0][0], "CLUSTER", "MEET", "127.0.0.1", port, bus)
    while not all("cluster_state:ok" in resp(p, "CLUSTER", "INFO") for p, _ in ports):
        if time.time() > deadline:
            sys.exit("the cluster did not come up")
        time.sleep(0.1)
    return procs, "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p, _ in ports)


class Serve:
    def __init__(self, provex, url, log):
        self.port = free_port()
        env = dict(os.environ, PROVEX_TOKEN=TOKEN)
        self.proc = subprocess.Popen([provex, "--falkordb", url, "serve", "--bind", f"127.0.0.1:{self.port}"],
                                     env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        deadline = time.time() + 60
        while True:
            try:
                if self.get("/api/health")[0] == 200:
                    break
            except OSError:
                pass
            if time.time() > deadline:
                sys.exit("provex serve did not start")
            time.sleep(0.05)

    def request(self, method, path, body=None):
        con = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        headers = {"Authorization": f"Bearer {TOKEN}"}
        if body is not None:
            headers["Content-Type"] = "application/x-ndjson"
        con.request(method, path, body=body, headers=headers)
        r = con.getresponse()
        data = r.read()
        con.close()
        return r.status, data

    def get(self, path):
        return self.request("GET", path)

    def timed(self, path):
        t = time.perf_counter()
        status, data = self.get(path)
        took = (time.perf_counter() - t) * 1000
        if status != 200:
            sys.exit(f"{path}: {status} {data[:300]!r}")
        return took, json.loads(data)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def pct(samples):
    s = sorted(samples)
    at = lambda p: s[max(1, min(len(s), -(-int(p * len(s) * 1000) // 1000))) - 1]
    return statistics.median(s), at(0.99)


def line(what, samples):
    p50, p99 = pct(samples)
    print(f"| {what} | {p50:,.1f} | {p99:,.1f} | {len(samples)} |", flush=True)


def wait_built(provex):
    """Waits for a binary still being built (present, and unchanged for 10 s)."""
    while not (os.path.exists(provex) and time.time() - os.path.getmtime(provex) > 10):
        time.sleep(5)


def measure(o, provex, url, log, tmp, names, tasks):
    wait_built(provex)
    print(f"\n### {provex}; load {open('/proc/loadavg').read().split()[:3]}\n")
    print("| what | p50 ms | p99 ms | samples |\n|---|---|---|---|")
    cold, late = [], 0
    for r in range(o.rounds):
        s = Serve(provex, url, log)
        took, body = s.timed("/api/runs")
        assert len(body["rows"]) >= o.graphs, len(body["rows"])
        late += sum(1 for x in body["rows"] if x.get("unavailable"))
        cold.append(took)
        if r + 1 < o.rounds:
            s.stop()
    print(f"| runs: first list after the ingest (a fresh `provex serve`) | {cold[0]:,.1f} | | 1 |")
    line(f"runs: cold, a fresh `provex serve` each (restarts 2..N; rows not in time: {late})", cold[1:] or cold)
    line("runs: warm (same server)", [s.timed("/api/runs")[0] for _ in range(o.rounds)])
    after = []
    for r in range(o.rounds):
        g = (r * 37) % o.graphs
        with open(os.path.join(tmp, "one.jsonl"), "w") as body:
            task_events(body, 10_000_000 + r + 1000 * len(provex), f"ctx-more-{r}")
        with open(os.path.join(tmp, "one.jsonl"), "rb") as f:
            status, data = s.request("POST", f"/api/graphs/{names[g]}/events", f.read())
        assert status < 300, (status, data[:300])
        after.append(s.timed("/api/runs")[0])
    line("runs: after one graph is written (9 events posted)", after)
    one = (o.graphs // 2) * tasks + tasks // 2
    _, hits = s.timed("/api/search?" + urllib.parse.urlencode({"q": f"Summarise item {one} of the agenda"}))
    ident = next(h["id"] for h in hits if h["graph"] == names[o.graphs // 2])
    for what, q, want in [
        ("search: words in every graph (`summarise agenda`)", "summarise agenda", None),
        (f"search: a phrase in one graph (`item {one} of the agenda`)", f"item {one} of the agenda", names[o.graphs // 2]),
        (f"search: a node's id (`{ident}`)", ident, names[o.graphs // 2]),
    ]:
        samples, hits = [], []
        for _ in range(o.queries):
            took, hits = s.timed("/api/search?" + urllib.parse.urlencode({"q": q}))
            samples.append(took)
        assert hits and (want is None or any(h["graph"] == want for h in hits)), (q, hits[:3])
        line(f"{what}, {len(hits)} hits", samples)
    s.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--provex", required=True, action="append")
    ap.add_argument("--falkordb-bin", required=True)
    ap.add_argument("--graphs", type=int, default=100)
    ap.add_argument("--events", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--cluster", action="store_true")
    ap.add_argument("--fresh", type=int, default=6)
    o = ap.parse_args()
    tasks = -(-o.events // 9)
    with tempfile.TemporaryDirectory() as tmp:
        procs, url = start_falkordb(o.falkordb_bin, tmp, o.cluster)
        log = open(os.path.join(tmp, "provex.log"), "w")
        try:
            print(f"## {o.graphs} graphs of {tasks * 9} events, {'three-shard cluster' if o.cluster else 'one server'}; "
                  f"load {open('/proc/loadavg').read().split()[:3]}", flush=True)
            names = [f"run-{g:03d}" for g in range(o.graphs)]
            path = os.path.join(tmp, "events.jsonl")

            def ingest(provex, g, name):
                with open(path, "w") as f:
                    for t in range(tasks):
                        task_events(f, g * tasks + t, f"ctx-{g}")
                t0 = time.perf_counter()
                subprocess.run([provex, "--falkordb", url, "ingest", path, "--graph", name], check=True,
                               stdout=subprocess.DEVNULL, stderr=log)
                return time.perf_counter() - t0

            ingest_s = [ingest(o.provex[0], g, name) for g, name in enumerate(names)]
            print(f"ingest with {o.provex[0]} (`provex ingest`, a fresh graph each): total {sum(ingest_s):.1f} s, "
                  f"median {statistics.median(ingest_s) * 1000:.0f} ms a graph", flush=True)
            for provex in o.provex:
                measure(o, provex, url, log, tmp, names, tasks)
            costs = {p: [] for p in o.provex}
            for i in range(o.fresh):
                for j, p in enumerate(o.provex):
                    g = o.graphs + i * len(o.provex) + j
                    costs[p].append(ingest(p, g, f"fresh-{g:03d}"))
            print("\n| ingest of one fresh graph | median ms | runs |\n|---|---|---|")
            for p, c in costs.items():
                if c:
                    print(f"| {p} | {statistics.median(c) * 1000:,.0f} | {len(c)} |")
            print(f"\nload after: {open('/proc/loadavg').read().split()[:3]}")
        finally:
            log.close()
            for p in procs:
                p.kill()
                p.wait()


if __name__ == "__main__":
    main()
