//! The one interface the UI talks to. Two implementations: HTTP + server-sent events
//! against `provex serve` (http.ts), and Tauri IPC in the desktop window (tauri.ts).

import type {
  DemoRequest, FollowRequest, Health, IngestReport, Job, NodeRecord, PathResult, SearchHit,
  SourceText, Stats, StreamMessage, Subgraph, Table, TraceDirection, Trail, View,
} from "./contract";

/** Thrown by every Backend method on failure: the `{code, message}` of the boundary. */
export class BackendError extends Error {
  constructor(public readonly code: string, message: string) {
    super(message);
    this.name = "BackendError";
  }
}

export interface ViewOptions {
  /** Draw the neighbourhood of this node instead of the whole graph. */
  root?: string;
  depth?: number;
  /** Most nodes to draw whole; above it the backend returns a neighbourhood. */
  limit?: number;
}

/** A live subscription; `close()` ends it. */
export interface Subscription {
  close(): void;
}

export interface StreamHandlers {
  /** Every message, in sequence order, after `since`. */
  onMessage(msg: StreamMessage): void;
  /** Connection state changes (the implementation reconnects by itself). */
  onStatus?(status: "open" | "reconnecting" | "closed"): void;
}

export interface Backend {
  readonly kind: "http" | "tauri";
  health(): Promise<Health>;
  graphs(): Promise<string[]>;
  deleteGraph(graph: string): Promise<void>;
  stats(graph: string): Promise<Stats>;
  view(graph: string, opts?: ViewOptions): Promise<View>;
  node(graph: string, id: string): Promise<NodeRecord>;
  neighbours(graph: string, id: string): Promise<Subgraph>;
  trace(graph: string, id: string, dir: TraceDirection, depth: number): Promise<Subgraph>;
  path(graph: string, from: string, to: string): Promise<PathResult | null>;
  query(graph: string, cypher: string): Promise<Table>;
  trail(graph: string, statement: string): Promise<Trail>;
  source(graph: string, id: string): Promise<SourceText>;
  search(graph: string, q: string, limit?: number): Promise<SearchHit[]>;
  /** Uploads a file (any format the core reads) and ingests it. */
  upload(graph: string, name: string, data: Blob | ArrayBuffer, format?: string): Promise<IngestReport>;
  follow(graph: string, req: FollowRequest): Promise<Job>;
  demo(graph: string, req: DemoRequest): Promise<Job>;
  jobs(): Promise<Job[]>;
  stopJob(id: string): Promise<Job>;
  /** Re-lays the graph out; the moves arrive on the stream as a `moves` message. */
  tidy(graph: string): Promise<void>;
  /** Streams the graph's changes after `since` (the `seq` of the view or last message). */
  subscribe(graph: string, since: number, handlers: StreamHandlers): Subscription;
}
