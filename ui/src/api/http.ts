// The HTTP + server-sent events transport, against `provex serve` (same origin, or
// `baseUrl`). Generic over the declared operations (client.ts): the route comes from each
// operation's path, its request's other fields go in the query string or a JSON body as
// declared. The stream reconnects by itself (resubscribe.ts), asking for the messages after
// the last seq seen.

import {
  ERROR_CODES, OPERATIONS, STREAMS, type Bytes, type OperationName, type Requests, type Responses,
  type StreamHandlers, type StreamMessages, type StreamName, type StreamRequests, type Subscription, type Transport,
} from "./client";
import type { ErrorCode, StreamMessage } from "./contract";
import { BackendError, backendOver, type Backend } from "./backend";
import { resubscribing } from "./resubscribe";

type Query = Record<string, unknown>;

interface RequestInit2 {
  query?: Query;
  json?: unknown;
  bytes?: Bytes;
}

/** Splits a request into its route (the path's `{field}`s filled in) and the other fields. */
export function route(path: string, req: object): { path: string; rest: Query } {
  const rest: Query = { ...(req as Query) };
  const filled = path.replace(/\{(\w+)\}/g, (_, field: string) => {
    const value = rest[field];
    delete rest[field];
    if (value === undefined || value === null) throw new BackendError("bad_request", `missing ${field}`);
    return encodeURIComponent(String(value));
  });
  return { path: filled, rest };
}

export class HttpTransport implements Transport {
  readonly kind = "http" as const;
  private readonly base: string;

  constructor(baseUrl = "", private readonly token?: string) {
    this.base = baseUrl.replace(/\/+$/, "");
  }

  /** The URL of an API path with its query (undefined and null values left out). */
  url(path: string, query: Query = {}): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) params.set(k, String(v));
    const qs = params.toString();
    return `${this.base}${path}${qs ? `?${qs}` : ""}`;
  }

  async call<K extends OperationName>(op: K, req: Requests[K], bytes?: Bytes): Promise<Responses[K]> {
    const info = OPERATIONS[op];
    if (info.desktopOnly) throw new BackendError("unsupported", `${op} is only offered by the desktop app`);
    const { path, rest } = route(info.path, req);
    const init: RequestInit2 =
      info.args === "json" ? { json: rest } : info.args === "bytes" ? { query: rest, bytes: bytes ?? new Uint8Array() } : { query: rest };
    return this.request<Responses[K]>(info.method, `/api${path}`, init);
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
      body = init.bytes as BodyInit;
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

  /** The stream URL for messages after `since`; the token goes in the query because
   *  EventSource cannot send headers. */
  streamUrl<K extends StreamName>(stream: K, req: StreamRequests[K]): string {
    const { path, rest } = route(STREAMS[stream].path, req);
    return this.url(`/api${path}`, { ...rest, token: this.token || undefined });
  }

  subscribe<K extends StreamName>(stream: K, req: StreamRequests[K], handlers: StreamHandlers<StreamMessages[K]>): Subscription {
    // Reconnection is ours (resubscribe.ts), not EventSource's: each attempt is a new
    // EventSource whose URL carries the last seq seen, so nothing depends on Last-Event-ID.
    return resubscribing(req.since ?? 0, handlers, (since, attempt) => {
      const es = new EventSource(this.streamUrl(stream, { ...req, since }));
      es.onopen = () => attempt.opened();
      es.onmessage = (ev: MessageEvent) => {
        if (!attempt.current) return;
        let msg: StreamMessage;
        try {
          msg = JSON.parse(String(ev.data)) as StreamMessage;
        } catch {
          console.error("provex: unreadable stream message", ev.data);
          return;
        }
        if (typeof msg.seq !== "number") return;
        attempt.message(msg);
      };
      es.onerror = () => attempt.failed();
      return () => es.close();
    });
  }
}

/** The Backend over HTTP. */
export function httpBackend(baseUrl = "", token?: string): Backend {
  return backendOver(new HttpTransport(baseUrl, token));
}

/** The BackendError of a failed response: its `{code, message}` body, or `bad_response`
 *  with the HTTP status when the body is not the contract's. */
export function errorFrom(status: number, statusText: string, body: string): BackendError {
  try {
    const parsed = JSON.parse(body) as { code?: unknown; message?: unknown };
    if (parsed && typeof parsed.code === "string" && (ERROR_CODES as readonly string[]).includes(parsed.code)) {
      return new BackendError(parsed.code as ErrorCode, typeof parsed.message === "string" ? parsed.message : statusText);
    }
  } catch {
    // not JSON: fall through
  }
  const text = body.trim().slice(0, 300);
  return new BackendError("bad_response", `HTTP ${status}${text ? `: ${text}` : statusText ? ` ${statusText}` : ""}`);
}
