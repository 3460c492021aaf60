#!/usr/bin/env python3
"""A client of seed 004's A2A knowledge-graph extension, run by tests/it/knowledge_client.rs
against a real `provex serve`.

It talks to the server the way the extension author's published Python client does (the A2A
samples behind seed 004: `A2ACardResolver`, then `A2AClient.knowledge_query`,
`knowledge_update` and `knowledge_subscribe` over httpx and httpx-sse, responses read into
the author's pydantic models), with the standard library only:

- the card at `<base>/.well-known/agent.json`, every later request to the card's `url`;
- requests as the author's models dump them (`exclude_none`): `jsonrpc`, a hex uuid `id`,
  `method`, `params` with `queryLanguage: "graphql"`; the token in `params.metadata.token`;
- answers read with `raise_for_status()` first, so a JSON-RPC error must come with HTTP 200
  to reach the caller with its code (the token refusal, 401, and a subscription that cannot
  be opened, 400, are the HTTP errors the extension names);
- the subscription as httpx-sse reads it: `Accept: text/event-stream`, the answer 200 with
  `Content-Type: text/event-stream`, events split per the SSE rules, each `data` one
  `KnowledgeSubscriptionEvent`.

Every answer is checked against what the author's pydantic models accept (required fields,
types, `KGObject` exactly one of `id`/`value`, certainty in [0, 1], `op` in the enum,
`timestamp` a date-time). Prints one JSON summary line; exits 1 on the first failure.

Usage: a2a_kg_client.py BASE TOKEN   (BASE = http://host:port/a2a/<graph>)
"""

import hashlib
import json
import queue
import sys
import threading
import urllib.error
import urllib.request
import uuid
from datetime import datetime

CHECKS = [0]


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    CHECKS[0] += 1


# --- what the author's pydantic models require -------------------------------------------


def is_str(v):
    return isinstance(v, str)


def opt(v, pred):
    return v is None or pred(v)


def is_str_list(v):
    return isinstance(v, list) and all(is_str(x) for x in v)


def validate_card(card):
    for k in ("name", "url", "version"):
        check(is_str(card.get(k)), f"AgentCard.{k} is a string: {card.get(k)!r}")
    check(opt(card.get("description"), is_str), "AgentCard.description")
    caps = card.get("capabilities")
    check(isinstance(caps, dict), "AgentCard.capabilities is an object")
    for k in ("streaming", "pushNotifications", "stateTransitionHistory", "knowledgeGraph"):
        check(isinstance(caps.get(k, False), bool), f"capabilities.{k} is a boolean")
    check(is_str_list(caps.get("knowledgeGraphQueryLanguages", [])), "knowledgeGraphQueryLanguages")
    if card.get("provider") is not None:
        check(is_str(card["provider"].get("organization")), "provider.organization")
    if card.get("authentication") is not None:
        check(is_str_list(card["authentication"].get("schemes")), "authentication.schemes")
    for k in ("defaultInputModes", "defaultOutputModes"):
        check(is_str_list(card.get(k, ["text"])), f"AgentCard.{k}")
    skills = card.get("skills")
    check(isinstance(skills, list) and skills, "AgentCard.skills is a non-empty list")
    for s in skills:
        check(is_str(s.get("id")) and is_str(s.get("name")), f"skill id and name: {s}")
        for k in ("tags", "examples", "inputModes", "outputModes"):
            check(opt(s.get(k), is_str_list), f"skill.{k}")


def validate_statement(s):
    check(isinstance(s, dict), f"KGStatement is an object: {s!r}")
    check(is_str(s["subject"].get("id")), "KGSubject.id")
    check(opt(s["subject"].get("type"), is_str), "KGSubject.type")
    check(is_str(s["predicate"].get("id")), "KGPredicate.id")
    o = s["object"]
    check((o.get("id") is None) != (o.get("value") is None), f"KGObject has exactly one of id and value: {o}")
    check(opt(o.get("id"), is_str) and opt(o.get("type"), is_str), "KGObject.id/type")
    check(opt(s.get("graph"), is_str), "KGStatement.graph")
    c = s.get("certainty")
    check(c is None or (isinstance(c, (int, float)) and 0.0 <= c <= 1.0), f"certainty in [0, 1]: {c}")
    check(opt(s.get("provenance"), lambda p: isinstance(p, dict)), "provenance is an object")


def validate_response(r, rid):
    check(r.get("jsonrpc") == "2.0", f"jsonrpc 2.0: {r}")
    check(r.get("id") == rid, f"the response's id is the request's: {r.get('id')!r} vs {rid!r}")
    check(("result" in r) != ("error" in r), f"exactly one of result and error: {r}")
    if "error" in r:
        e = r["error"]
        check(isinstance(e.get("code"), int) and is_str(e.get("message")), f"JSONRPCError: {e}")


def validate_update_result(res):
    check(isinstance(res.get("success"), bool), "success is a boolean")
    n = res.get("statementsAffected")
    check(n is None or (isinstance(n, int) and n >= 0), "statementsAffected >= 0")
    check(opt(res.get("affectedIds"), is_str_list), "affectedIds")
    check(opt(res.get("verificationStatus"), is_str), "verificationStatus")
    check(opt(res.get("verificationDetails"), is_str), "verificationDetails")


def validate_event(ev, rid):
    validate_response(ev, rid)
    res = ev.get("result")
    check(isinstance(res, dict), f"the event has a result: {ev}")
    check(res.get("op") in ("add", "remove", "replace"), f"op: {res.get('op')}")
    validate_statement(res.get("statement"))
    check(is_str(res.get("changeId")), "changeId")
    uuid.UUID(res["changeId"])
    datetime.fromisoformat(res["timestamp"].replace("Z", "+00:00"))
    check(opt(res.get("changeMetadata"), lambda m: isinstance(m, dict)), "changeMetadata")
    return res


# --- the statement id of formats.md §5, computed here independently --------------------------


def statement_id(s):
    obj = {k: v for k, v in s["object"].items() if v is not None}
    key = {"subject": s["subject"]["id"], "predicate": s["predicate"]["id"], "object": obj, "graph": s.get("graph")}
    # RFC 8785 for strings, integers, booleans and null: sorted keys, no spaces, raw UTF-8.
    text = json.dumps(key, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "kg:" + hashlib.sha256(text.encode()).hexdigest()


# --- the wire -------------------------------------------------------------------------------


class Client:
    def __init__(self, base, token):
        self.base = base.rstrip("/")
        self.token = token
        self.card = None
        self.url = None

    def resolve_card(self):
        with urllib.request.urlopen(self.base + "/.well-known/agent.json", timeout=30) as r:
            check(r.status == 200, "the card answers 200")
            self.card = json.loads(r.read())
        validate_card(self.card)
        self.url = self.card["url"]
        return self.card

    def request(self, method, params, with_token=True):
        params = {k: v for k, v in params.items() if v is not None}
        if with_token and self.token:
            params.setdefault("metadata", {})["token"] = self.token
        return {"jsonrpc": "2.0", "id": uuid.uuid4().hex, "method": method, "params": params}

    def post_raw(self, body, headers=None):
        """(HTTP status, content type, body text) of a POST to the card's url."""
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        req = urllib.request.Request(self.url, data=data, method="POST")
        req.add_header("Content-Type", "application/json")
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, r.headers.get("Content-Type", ""), r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Content-Type", ""), e.read().decode()

    def call(self, method, params, with_token=True):
        """As the author's `_send_request`: HTTP 200 or it is an HTTP error, then the body."""
        req = self.request(method, params, with_token)
        status, _, text = self.post_raw(req)
        check(status == 200, f"{method} answers HTTP 200 (raise_for_status), not {status}: {text}")
        r = json.loads(text)
        validate_response(r, req["id"])
        return r

    def query(self, query, variables=None, required_certainty=None):
        return self.call(
            "knowledge/query",
            {"query": query, "queryLanguage": "graphql", "variables": variables, "requiredCertainty": required_certainty},
        )

    def update(self, mutations, justification="test", source="agent:python-client", task="task-1", session="s-1"):
        return self.call(
            "knowledge/update",
            {
                "mutations": mutations,
                "justification": justification,
                "sourceAgentId": source,
                "taskId": task,
                "sessionId": session,
            },
        )

    def subscribe(self, subscription_query, variables=None):
        return Subscription(self, subscription_query, variables)


class Subscription:
    """A `knowledge/subscribe` stream read on a thread, events queued as they arrive."""

    def __init__(self, client, subscription_query, variables):
        self.req = client.request(
            "knowledge/subscribe",
            {"subscriptionQuery": subscription_query, "queryLanguage": "graphql", "variables": variables},
        )
        http = urllib.request.Request(client.url, data=json.dumps(self.req).encode(), method="POST")
        http.add_header("Content-Type", "application/json")
        # What httpx-sse's connect_sse sends.
        http.add_header("Accept", "text/event-stream")
        http.add_header("Cache-Control", "no-store")
        self.resp = urllib.request.urlopen(http, timeout=120)
        check(self.resp.status == 200, f"subscribe answers 200, not {self.resp.status}")
        ctype = self.resp.headers.get("Content-Type", "")
        check("text/event-stream" in ctype, f"subscribe's Content-Type is text/event-stream: {ctype}")
        self.events = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        """Splits the stream into events per the SSE rules (as httpx-sse's decoder does)."""
        data = []
        try:
            while True:
                raw = self.resp.readline()
                if not raw:
                    break
                line = raw.decode("utf-8").rstrip("\r\n")
                if line == "":
                    if data:
                        self.events.put("\n".join(data))
                    data = []
                    continue
                if line.startswith(":"):
                    continue
                field, _, value = line.partition(":")
                if value.startswith(" "):
                    value = value[1:]
                if field == "data":
                    data.append(value)
        except Exception as e:  # the stream closed under us at the end
            self.events.put(e)

    def next(self, wait=10.0):
        item = self.events.get(timeout=wait)
        if isinstance(item, Exception):
            raise item
        return validate_event(json.loads(item), self.req["id"])

    def until(self, pred, wait=10.0):
        """Events up to and including the first that `pred` accepts."""
        out = []
        while True:
            try:
                ev = self.next(wait)
            except queue.Empty:
                raise AssertionError(f"no event within {wait}s after {[e['op'] for e in out]}")
            out.append(ev)
            if pred(ev):
                return out


# --- the session ----------------------------------------------------------------------------


def stmt(s, p, obj, certainty=None, provenance=None, graph=None):
    o = {"id": obj} if isinstance(obj, str) and obj.startswith("ex:") else {"value": obj}
    if isinstance(obj, int) and not isinstance(obj, bool):
        o["type"] = "xsd:integer"
    out = {"subject": {"id": s}, "predicate": {"id": p}, "object": o}
    for k, v in (("graph", graph), ("certainty", certainty), ("provenance", provenance)):
        if v is not None:
            out[k] = v
    return out


def triple(s):
    """A statement as the subscription and the query give it back, for comparison."""
    o = {k: v for k, v in s["object"].items() if v is not None}
    return (s["subject"]["id"], s["predicate"]["id"], json.dumps(o, sort_keys=True))


def main(base, token):
    c = Client(base, token)
    card = c.resolve_card()
    caps = card["capabilities"]
    check(caps["knowledgeGraph"] and caps["streaming"], "knowledgeGraph and streaming advertised")
    check("graphql" in caps["knowledgeGraphQueryLanguages"], "graphql advertised")
    check(card["url"].rstrip("/") == c.base, f"the card's url is the endpoint: {card['url']}")

    # Before any subscription: never delivered.
    before = stmt("ex:riverton", "ex:population", 30000, 0.5)
    r = c.update([{"op": "add", "statement": before}])
    check(r["result"]["success"] is True, f"the first add: {r}")

    by_subject = c.subscribe(
        "subscription Watch($s: ID) { triples(subject: $s) { op changeId timestamp statement { subject { id } } } }",
        {"s": "ex:riverton"},
    )
    by_predicate = c.subscribe('subscription { triples(predicate: "ex:population") { op } }')
    everything = c.subscribe("subscription { triples { op changeId } }")

    pop = stmt("ex:riverton", "ex:population", 31000, 0.9, {"sourceAgentId": "agent:census"})
    where = stmt("ex:riverton", "ex:locatedIn", "ex:valley", 0.8)
    other = stmt("ex:other", "ex:population", 5, 0.5)
    r = c.update([{"op": "add", "statement": s} for s in (pop, where, other)], justification="census 2020")
    res = r["result"]
    validate_update_result(res)
    check(res["success"] and res["verificationStatus"] == "Verified", f"add verified: {res}")
    check(res["statementsAffected"] == 3, f"three added: {res}")
    check(res["affectedIds"] == [statement_id(s) for s in (pop, where, other)], f"ids per formats.md §5: {res}")

    newer = stmt("ex:riverton", "ex:population", 32500, 0.95)
    r = c.update([{"op": "replace", "statement": newer}], justification="census 2024")
    res = r["result"]
    validate_update_result(res)
    # The replaced ones: the population of before the subscription and that of 2020.
    check(set(res["affectedIds"]) == {statement_id(before), statement_id(pop), statement_id(newer)}, f"replace: {res}")

    r = c.update([{"op": "remove", "statement": where}], justification="wrong valley")
    check(r["result"]["statementsAffected"] == 1, f"remove: {r}")
    # Removing what is not there changes nothing and tells so.
    r = c.update([{"op": "remove", "statement": stmt("ex:nothing", "ex:p", "x")}])
    check(r["result"]["success"] and r["result"]["statementsAffected"] == 0, f"empty remove: {r}")

    # Refused updates write nothing and send no event.
    r = c.update([{"op": "add", "statement": stmt("ex:riverton", "ex:secret", "x", 0.9)}])
    check(r.get("error", {}).get("code") == -32013, f"alignment: {r}")
    data = r["error"].get("data") or {}
    check(data.get("verificationStatus", "").startswith("Rejected"), f"alignment verificationStatus: {data}")
    check("forbiddenPredicates" in r["error"]["message"], f"the rule is named: {r}")
    check(is_str(data.get("verificationDetails")), "alignment verificationDetails")
    bad = stmt("ex:riverton", "ex:mayor", "Ann", 0.9)
    both = {"subject": {"id": "ex:riverton"}, "predicate": {"id": "ex:p"}, "object": {"id": "ex:a", "value": 1}}
    r = c.update([{"op": "add", "statement": bad}, {"op": "add", "statement": both}])
    check(r.get("error", {}).get("code") == -32602, f"invalid params: {r}")

    end = stmt("ex:riverton", "ex:end", True, 1.0)
    end_pop = stmt("ex:sentinel", "ex:population", 0, 1.0)
    c.update([{"op": "add", "statement": end}, {"op": "add", "statement": end_pop}])

    def seen(sub, last):
        evs = sub.until(lambda e: triple(e["statement"]) == triple(last))
        return [(e["op"], triple(e["statement"])) for e in evs], evs

    got, evs = seen(by_subject, end)
    want = [("add", triple(pop)), ("add", triple(where)), ("replace", triple(newer)), ("remove", triple(where)), ("add", triple(end))]
    check(got == want, f"the subject's subscription: {got}")
    replaced = evs[2].get("changeMetadata") or {}
    check(sorted(replaced.get("replaced", [])) == sorted([statement_id(before), statement_id(pop)]), f"replaced: {replaced}")
    stamps = [datetime.fromisoformat(e["timestamp"].replace("Z", "+00:00")) for e in evs]
    check(stamps == sorted(stamps), "timestamps in commit order")
    got, _ = seen(by_predicate, end_pop)
    want = [("add", triple(pop)), ("add", triple(other)), ("replace", triple(newer)), ("add", triple(end_pop))]
    check(got == want, f"the predicate's subscription: {got}")
    got, evs = seen(everything, end_pop)
    check(len(got) == 7 and len({e["changeId"] for e in evs}) == 7, f"everything, once each: {got}")

    # Queried back with GraphQL: current statements only, certainty filters.
    q = "query Q($s: ID) { triples(subject: $s) { subject { id type } predicate { id } object { id value type } graph certainty provenance } }"
    r = c.query(q, {"s": "ex:riverton"})
    res = r["result"]
    check(isinstance(res.get("queryMetadata"), (dict, type(None))), "queryMetadata")
    rows = res["data"]["triples"]
    for s in rows:
        validate_statement(s)
    check(sorted(triple(s) for s in rows) == sorted([triple(newer), triple(end)]), f"current only: {rows}")
    rows = c.query(q, {"s": "ex:riverton"}, required_certainty=0.96)["result"]["data"]["triples"]
    check([triple(s) for s in rows] == [triple(end)], f"requiredCertainty: {rows}")

    # Error codes.
    r = c.query("{ triples { nosuchfield } }")
    check(r.get("error", {}).get("code") == -32010, f"a failing query: {r}")
    r = c.call("knowledge/forget", {})
    check(r.get("error", {}).get("code") == -32601, f"unknown method: {r}")
    r = c.call("knowledge/query", {"query": "{ triples { graph } }", "queryLanguage": "sparql"})
    check(r.get("error", {}).get("code") == -32602, f"sparql: {r}")
    status, _, text = c.post_raw(b"{oops")
    check(status == 200 and json.loads(text)["error"]["code"] == -32700, f"parse error: {status} {text}")
    status, _, text = c.post_raw(b"[]")
    check(status == 200 and json.loads(text)["error"]["code"] == -32600, f"empty batch: {text}")
    status, _, text = c.post_raw({"jsonrpc": "1.0", "id": 1, "method": "knowledge/query"})
    check(status == 200 and json.loads(text)["error"]["code"] == -32600, f"invalid request: {text}")
    # A subscription that cannot be opened: HTTP 400, a JSON-RPC error.
    req = c.request("knowledge/subscribe", {"subscriptionQuery": "query { triples { op } }"})
    status, ctype, text = c.post_raw(req, {"Accept": "text/event-stream"})
    err = json.loads(text)
    check(status == 400 and "json" in ctype and err["error"]["code"] == -32012, f"subscribe refused: {status} {text}")
    check(err["id"] == req["id"], "the refusal carries the request's id")
    # Without the token: refused (-32011 over HTTP 401), nothing written.
    if token:
        req = c.request("knowledge/update", {"mutations": [{"op": "add", "statement": bad}]}, with_token=False)
        status, _, text = c.post_raw(req)
        check(status == 401 and json.loads(text)["error"]["code"] == -32011, f"no token: {status} {text}")
    rows = c.query(q, {"s": "ex:riverton"})["result"]["data"]["triples"]
    check(all(s["predicate"]["id"] not in ("ex:mayor", "ex:secret") for s in rows), f"nothing refused was written: {rows}")

    # A batch: a response per request with an id, none for the notification.
    a, b = c.request("knowledge/query", {"query": "{ triples { graph } }"}), c.request("knowledge/nope", {})
    note = c.request("knowledge/query", {"query": "{ triples { graph } }"})
    del note["id"]
    status, _, text = c.post_raw([a, note, b])
    out = json.loads(text)
    check(status == 200 and isinstance(out, list) and len(out) == 2, f"batch: {text}")
    by_id = {x["id"]: x for x in out}
    check("result" in by_id[a["id"]] and by_id[b["id"]]["error"]["code"] == -32601, f"batch answers: {out}")

    print(json.dumps({"ok": True, "checks": CHECKS[0], "newest": statement_id(newer), "replaced": [statement_id(before), statement_id(pop)], "removed": statement_id(where)}))


if __name__ == "__main__":
    try:
        main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "")
    except Exception as e:  # noqa: BLE001 - the test prints what failed
        print(json.dumps({"ok": False, "checks": CHECKS[0], "error": f"{type(e).__name__}: {e}"}))
        sys.exit(1)
