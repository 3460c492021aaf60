// The Backend over HTTP and server-sent events, against `provex serve` (same origin, or
// `baseUrl`). The stream reconnects by itself, asking for the messages after the last seq seen.

import type {
  DemoRequest, FollowRequest, Health, IngestReport, Job, NodeRecord, PathResult, QueryRequest,
  SearchHit, SourceText, Stats, StreamMessage, Subgraph, Table, TraceDirection, Trail, View,
} from "./contract";
import { BackendError, type Backend, type StreamHandlers, type Subscription, type ViewOptions } from "./backend";

type Query = Record<string, string | number | undefined>;

interface RequestInit2 {
  query?: Query;
  json?: unknown;
  bytes?: Blob | ArrayBuffer;
}

/** Delay before reconnect attempt `n` (0-based): 0.5 s doubling to at most 10 s. */
export function reconnectDelay(n: number): number {
  return Math.min(10_000, 500 * 2 ** Math.min(n, 5));
}

export class HttpBackend implements Backend {
  readonly kind = "http" as const;
  private readonly base: string;

  constructor(baseUrl = "", private readonly token?: string) {
    this.base = baseUrl.replace(/\/+$/, "");
  }

  /** The URL of an API path with its query (undefined values left out). */
  url(path: string, query: Query = {}): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
    const qs = params.toString();
    return `${this.base}${path}${qs ? `?${qs}` : ""}`;
  }

  private async request<T>(method: string, path: string, init: RequestInit2 = {}): Promise<T> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    let body: BodyInit | undefined;
    if (init.json !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(init.json);
    } else if (init.bytes !== undefined) {
      headers["Content-Type"] = "application/octet-stream";
      body = init.bytes;
    }
    let res: Response;
    try {
      res = await fetch(this.url(path, init.query), { method, headers, body });
    } catch (e) {
      throw new BackendError("network", `Cannot reach the Provex server: ${e instanceof Error ? e.message : String(e)}`);
    }
    const text = await res.text();
    if (!res.ok) throw errorFrom(res.status, res.statusText, text);
    if (res.status === 204 || text === "") return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new BackendError("bad_response", `The server sent something that is not JSON (HTTP ${res.status} ${method} ${path})`);
    }
  }

  private g(graph: string): string {
    return `/api/graphs/${encodeURIComponent(graph)}`;
  }

  health(): Promise<Health> {
    return this.request("GET", "/api/health");
  }

  graphs(): Promise<string[]> {
    return this.request("GET", "/api/graphs");
  }

  async deleteGraph(graph: string): Promise<void> {
    await this.request("DELETE", this.g(graph));
  }

  stats(graph: string): Promise<Stats> {
    return this.request("GET", `${this.g(graph)}/stats`);
  }

  view(graph: string, opts: ViewOptions = {}): Promise<View> {
    return this.request("GET", `${this.g(graph)}/view`, { query: { root: opts.root, depth: opts.depth, limit: opts.limit } });
  }

  node(graph: string, id: string): Promise<NodeRecord> {
    return this.request("GET", `${this.g(graph)}/node`, { query: { id } });
  }

  neighbours(graph: string, id: string): Promise<Subgraph> {
    return this.request("GET", `${this.g(graph)}/neighbours`, { query: { id } });
  }

  trace(graph: string, id: string, dir: TraceDirection, depth: number): Promise<Subgraph> {
    return this.request("GET", `${this.g(graph)}/trace`, { query: { id, dir, depth } });
  }

  async path(graph: string, from: string, to: string): Promise<PathResult | null> {
    return (await this.request<PathResult | null | undefined>("GET", `${this.g(graph)}/path`, { query: { from, to } })) ?? null;
  }

  query(graph: string, cypher: string): Promise<Table> {
    const json: QueryRequest = { cypher };
    return this.request("POST", `${this.g(graph)}/query`, { json });
  }

  trail(graph: string, statement: string): Promise<Trail> {
    return this.request("GET", `${this.g(graph)}/trail`, { query: { statement } });
  }

  source(graph: string, id: string): Promise<SourceText> {
    return this.request("GET", `${this.g(graph)}/source`, { query: { id } });
  }

  search(graph: string, q: string, limit?: number): Promise<SearchHit[]> {
    return this.request("GET", `${this.g(graph)}/search`, { query: { q, limit } });
  }

  upload(graph: string, name: string, data: Blob | ArrayBuffer, format?: string): Promise<IngestReport> {
    return this.request("POST", `${this.g(graph)}/upload`, { query: { name, format }, bytes: data });
  }

  follow(graph: string, req: FollowRequest): Promise<Job> {
    return this.request("POST", `${this.g(graph)}/follow`, { json: req });
  }

  demo(graph: string, req: DemoRequest): Promise<Job> {
    return this.request("POST", `${this.g(graph)}/demo`, { json: req });
  }

  jobs(): Promise<Job[]> {
    return this.request("GET", "/api/jobs");
  }

  stopJob(id: string): Promise<Job> {
    return this.request("DELETE", `/api/jobs/${encodeURIComponent(id)}`);
  }

  async tidy(graph: string): Promise<void> {
    await this.request("POST", `${this.g(graph)}/tidy`);
  }

  /** The stream URL for messages after `since`; the token goes in the query because
   *  EventSource cannot send headers. */
  streamUrl(graph: string, since: number): string {
    return this.url(`${this.g(graph)}/stream`, { since, token: this.token || undefined });
  }

  subscribe(graph: string, since: number, handlers: StreamHandlers): Subscription {
    // Reconnection is ours, not EventSource's: each attempt is a new EventSource whose URL
    // carries the last seq seen, so nothing depends on Last-Event-ID.
    let last = since;
    let attempt = 0;
    let closed = false;
    let source: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | null = null;

    const connect = (): void => {
      timer = null;
      if (closed) return;
      const es = new EventSource(this.streamUrl(graph, last));
      source = es;
      es.onopen = () => {
        if (source !== es) return;
        attempt = 0;
        handlers.onStatus?.("open");
      };
      es.onmessage = (ev: MessageEvent) => {
        if (source !== es || closed) return;
        let msg: StreamMessage;
        try {
          msg = JSON.parse(String(ev.data)) as StreamMessage;
        } catch {
          console.error("provex: unreadable stream message", ev.data);
          return;
        }
        if (typeof msg.seq !== "number") return;
        // A reset always passes: after a server restart or a rebuilt view its seq is lower
        // than the last one seen, and the client must reload.
        if (msg.kind !== "reset" && msg.seq <= last) return;
        last = msg.seq;
        handlers.onMessage(msg);
      };
      es.onerror = () => {
        if (source !== es) return;
        es.close();
        source = null;
        if (closed) return;
        handlers.onStatus?.("reconnecting");
        timer = setTimeout(connect, reconnectDelay(attempt));
        attempt += 1;
      };
    };

    connect();
    return {
      close() {
        if (closed) return;
        closed = true;
        if (timer !== null) clearTimeout(timer);
        source?.close();
        source = null;
        handlers.onStatus?.("closed");
      },
    };
  }
}

/** The BackendError of a failed response: its `{code, message}` body, or the HTTP status. */
export function errorFrom(status: number, statusText: string, body: string): BackendError {
  try {
    const parsed = JSON.parse(body) as { code?: unknown; message?: unknown };
    if (parsed && typeof parsed.code === "string") {
      return new BackendError(parsed.code, typeof parsed.message === "string" ? parsed.message : statusText);
    }
  } catch {
    // not JSON: fall through
  }
  const text = body.trim().slice(0, 300);
  return new BackendError(`http_${status}`, text || statusText || `HTTP ${status}`);
}
