// The HTTP client: request building, error mapping, and the SSE stream's reconnection.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BackendError } from "../src/api/backend";
import type { StreamMessage } from "../src/api/contract";
import { httpBackend as HttpBackend } from "../src/api/http";
import { reconnectDelay } from "../src/api/resubscribe";
import { batch, node } from "./helpers";

type Call = { url: string; init: RequestInit };

function stubFetch(status: number, body: string, calls: Call[] = []): Call[] {
  vi.stubGlobal("fetch", vi.fn(async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return new Response(status === 204 ? null : body, { status, statusText: status >= 400 ? "Bad" : "OK" });
  }));
  return calls;
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe("HttpBackend requests", () => {
  it("encodes graph names in the path and puts options in the query", async () => {
    const calls = stubFetch(200, JSON.stringify({ nodes: [], edges: [] }));
    const b = HttpBackend("http://host:7878/");
    await b.view({ graph: "my graph/2", root: "urn:uuid:a&b", depth: 2 });
    await b.trace({ graph: "g", id: "n#1", dir: "up", depth: 3 });
    expect(calls[0].url).toBe("http://host:7878/api/graphs/my%20graph%2F2/view?root=urn%3Auuid%3Aa%26b&depth=2");
    expect(calls[0].init.method).toBe("GET");
    expect(calls[1].url).toBe("http://host:7878/api/graphs/g/trace?id=n%231&dir=up&depth=3");
  });

  it("sends the token as a bearer header, and none without one", async () => {
    const calls = stubFetch(200, "[]");
    await HttpBackend("", "s3cret").graphs();
    await HttpBackend("").graphs({});
    expect((calls[0].init.headers as Record<string, string>).Authorization).toBe("Bearer s3cret");
    expect((calls[1].init.headers as Record<string, string>).Authorization).toBeUndefined();
    expect(calls[0].url).toBe("/api/graphs");
  });

  it("posts JSON bodies for query, follow and demo", async () => {
    const calls = stubFetch(200, JSON.stringify({ columns: ["n"], rows: [[1]] }));
    const b = HttpBackend();
    const table = await b.query({ graph: "g", cypher: "MATCH (n) RETURN count(n)" });
    expect(table.rows).toEqual([[1]]);
    await b.demo({ graph: "council", pace_ms: 200 });
    expect(calls[0].init.method).toBe("POST");
    expect(calls[0].url).toBe("/api/graphs/g/query");
    expect(JSON.parse(String(calls[0].init.body))).toEqual({ cypher: "MATCH (n) RETURN count(n)" });
    expect((calls[0].init.headers as Record<string, string>)["Content-Type"]).toBe("application/json");
    expect(calls[1].url).toBe("/api/graphs/council/demo");
    expect(JSON.parse(String(calls[1].init.body))).toEqual({ pace_ms: 200 });
  });

  it("uploads raw bytes as octet-stream with name and format in the query", async () => {
    const calls = stubFetch(200, JSON.stringify({ graph: "g", files: [], events: 3, rejected: 0, nodes_written: 3, edges_written: 2, elapsed_ms: 5 }));
    const data = new Uint8Array([1, 2, 3]).buffer;
    const report = await HttpBackend().upload({ graph: "g", name: "events one.jsonl", format: "a2a" }, data);
    expect(report.events).toBe(3);
    expect(calls[0].url).toBe("/api/graphs/g/upload?name=events+one.jsonl&format=a2a");
    expect(calls[0].init.method).toBe("POST");
    expect(calls[0].init.body).toBe(data);
    expect((calls[0].init.headers as Record<string, string>)["Content-Type"]).toBe("application/octet-stream");
  });

  it("accepts null for tidy and a missing path", async () => {
    const calls = stubFetch(200, "null");
    await expect(HttpBackend().tidy({ graph: "g" })).resolves.toBeNull();
    expect(calls[0].url).toBe("/api/graphs/g/tidy");
    expect(calls[0].init.method).toBe("POST");
    stubFetch(200, "null");
    await expect(HttpBackend().path({ graph: "g", from: "a", to: "b" })).resolves.toBeNull();
  });

  it("uses DELETE for graphs and jobs", async () => {
    const calls = stubFetch(200, JSON.stringify({ id: "j 1", kind: "demo", graph: "g", state: "stopped", detail: null }));
    const job = await HttpBackend().stopJob({ id: "j 1" });
    expect(job.state).toBe("stopped");
    expect(calls[0]).toMatchObject({ url: "/api/jobs/j%201", init: { method: "DELETE" } });
  });
});

describe("HttpBackend routes from the declaration", () => {
  it("refuses desktop-only operations without a request", async () => {
    const calls = stubFetch(200, "{}");
    await expect(HttpBackend().getSettings({})).rejects.toMatchObject({ code: "unsupported" });
    expect(calls).toHaveLength(0);
  });

  it("sends path fields in the path only, and a missing one is a bad request", async () => {
    const calls = stubFetch(200, JSON.stringify({ id: "j", kind: "follow", graph: "g", state: "running", detail: null }));
    await HttpBackend().follow({ graph: "a/b", path: "/tmp/x.jsonl" });
    expect(calls[0].url).toBe("/api/graphs/a%2Fb/follow");
    expect(JSON.parse(String(calls[0].init.body))).toEqual({ path: "/tmp/x.jsonl" });
    await expect(HttpBackend().stats({} as { graph: string })).rejects.toMatchObject({ code: "bad_request" });
  });
});

describe("HttpBackend errors", () => {
  it("throws the server's code and message", async () => {
    stubFetch(400, JSON.stringify({ code: "query", message: "CREATE is not allowed" }));
    const err = await HttpBackend().query({ graph: "g", cypher: "CREATE (n)" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendError);
    expect(err).toMatchObject({ code: "query", message: "CREATE is not allowed" });
  });

  it("maps a body that is not an ApiError, or a code outside the contract, to bad_response with the status", async () => {
    stubFetch(502, "<html>Bad gateway</html>");
    await expect(HttpBackend().graphs()).rejects.toMatchObject({ code: "bad_response", message: "HTTP 502: <html>Bad gateway</html>" });
    stubFetch(500, "");
    await expect(HttpBackend().graphs()).rejects.toMatchObject({ code: "bad_response", message: "HTTP 500 Bad" });
    stubFetch(400, JSON.stringify({ code: "read_only", message: "no" }));
    await expect(HttpBackend().graphs()).rejects.toMatchObject({ code: "bad_response" });
  });

  it("maps a network failure to code network", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => { throw new TypeError("Failed to fetch"); }));
    await expect(HttpBackend().health()).rejects.toMatchObject({ code: "network" });
  });

  it("reports a success body that is not JSON", async () => {
    stubFetch(200, "<!doctype html>");
    await expect(HttpBackend().graphs()).rejects.toMatchObject({ code: "bad_response" });
  });
});

/** A stand-in EventSource the test drives by hand. */
class FakeEventSource {
  static all: FakeEventSource[] = [];
  onopen: ((ev: Event) => void) | null = null;
  onmessage: ((ev: MessageEvent) => void) | null = null;
  onerror: ((ev: Event) => void) | null = null;
  closed = false;
  constructor(readonly url: string) {
    FakeEventSource.all.push(this);
  }
  close(): void {
    this.closed = true;
  }
  open(): void {
    this.onopen?.(new Event("open"));
  }
  send(msg: StreamMessage): void {
    this.onmessage?.(new MessageEvent("message", { data: JSON.stringify(msg), lastEventId: String(msg.seq) }));
  }
  fail(): void {
    this.onerror?.(new Event("error"));
  }
}

describe("HttpBackend stream", () => {
  beforeEach(() => {
    FakeEventSource.all = [];
    vi.stubGlobal("EventSource", FakeEventSource);
    vi.useFakeTimers();
  });

  it("connects with since and the token in the query", () => {
    HttpBackend("", "tok en").subscribe({ graph: "council", since: 7 }, { onMessage: () => {} });
    expect(FakeEventSource.all[0].url).toBe("/api/graphs/council/stream?since=7&token=tok+en");
  });

  it("delivers messages after since, skips duplicates, and reconnects from the last seq with backoff", () => {
    const got: number[] = [];
    const status: string[] = [];
    HttpBackend().subscribe({ graph: "g", since: 3 }, { onMessage: (m) => got.push(m.seq), onStatus: (s) => status.push(s) });
    const first = FakeEventSource.all[0];
    first.open();
    first.send(batch(3, [node("old", 0)]));
    first.send(batch(4, [node("a", 1)]));
    first.send(batch(5, [node("b", 2)]));
    first.send(batch(5, [node("b", 2)]));
    expect(got).toEqual([4, 5]);

    first.fail();
    expect(first.closed).toBe(true);
    expect(status).toEqual(["open", "reconnecting"]);
    expect(FakeEventSource.all).toHaveLength(1);
    vi.advanceTimersByTime(reconnectDelay(0) - 1);
    expect(FakeEventSource.all).toHaveLength(1);
    vi.advanceTimersByTime(1);
    const second = FakeEventSource.all[1];
    expect(second.url).toBe("/api/graphs/g/stream?since=5");

    // Fails before opening: the next wait is longer.
    second.fail();
    vi.advanceTimersByTime(reconnectDelay(0));
    expect(FakeEventSource.all).toHaveLength(2);
    vi.advanceTimersByTime(reconnectDelay(1) - reconnectDelay(0));
    const third = FakeEventSource.all[2];
    expect(third.url).toBe("/api/graphs/g/stream?since=5");

    // A server that replays from an older seq does not deliver anything twice.
    third.open();
    third.send(batch(5, [node("b", 2)]));
    third.send(batch(6, [node("c", 3)]));
    expect(got).toEqual([4, 5, 6]);
  });

  it("passes a reset whose seq is lower than the last seen (a restarted server), then counts from it", () => {
    const got: string[] = [];
    HttpBackend().subscribe({ graph: "g", since: 40 }, { onMessage: (m) => got.push(`${m.kind}:${m.seq}`) });
    const es = FakeEventSource.all[0];
    es.open();
    es.send(batch(41, [node("a", 1)]));
    es.send({ kind: "reset", graph: "g", seq: 0, reason: "the view was rebuilt" });
    es.send(batch(1, [node("b", 2)]));
    expect(got).toEqual(["batch:41", "reset:0", "batch:1"]);
  });

  it("ignores events from a replaced connection and stops for good on close", () => {
    const got: number[] = [];
    const sub = HttpBackend().subscribe({ graph: "g", since: 0 }, { onMessage: (m) => got.push(m.seq) });
    const first = FakeEventSource.all[0];
    first.fail();
    vi.advanceTimersByTime(reconnectDelay(0));
    first.send(batch(1, []));
    expect(got).toEqual([]);
    sub.close();
    expect(FakeEventSource.all[1].closed).toBe(true);
    FakeEventSource.all[1].fail();
    vi.advanceTimersByTime(60_000);
    expect(FakeEventSource.all).toHaveLength(2);
  });

  it("does not reconnect after close while waiting to", () => {
    const sub = HttpBackend().subscribe({ graph: "g", since: 0 }, { onMessage: () => {} });
    FakeEventSource.all[0].fail();
    sub.close();
    vi.advanceTimersByTime(60_000);
    expect(FakeEventSource.all).toHaveLength(1);
  });

  it("backs off up to ten seconds", () => {
    expect([0, 1, 2, 3, 4, 5, 9].map(reconnectDelay)).toEqual([500, 1000, 2000, 4000, 8000, 10000, 10000]);
  });
});
