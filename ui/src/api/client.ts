// Generated from src/api (the Rust contract) by `provex contract`. Do not edit:
// change the Rust declarations and run `cargo run -- contract` (a test checks it is fresh).

import type { Answer, AskRequest, BundleRequest, ClusterEdgesRequest, Comparison, DemoRequest, DiffRequest, ErrorCode, EventsRequest, ExportRequest, ExportedDocument, FollowRequest, GraphDiff, GraphHit, GraphRequest, Health, IngestFilesRequest, IngestReport, Job, JobRequest, LineageCompareRequest, LineageGraph, LineageSummary, LogInclusion, LogStatus, MessageOrigin, NoArgs, NodeRecord, NodeRequest, PathRequest, PathResult, QueryRequest, ReasoningChain, ResourceKnowledge, RunList, RunsRequest, SaveFileRequest, SearchAllRequest, SearchHit, SearchRequest, SessionSummary, SettingsUpdate, SettingsView, SourceText, SpanDetails, StatementRequest, Stats, StreamMessage, StreamRequest, Subgraph, Table, TidyRequest, TidyResult, TraceAgents, TracePage, TraceRequest, TraceSpans, TraceSpansRequest, TracesRequest, Trail, UploadRequest, View, ViewEdge, ViewRequest } from "./contract";

export type HttpMethod = "GET" | "POST" | "DELETE";

/** Where an operation's arguments travel over HTTP besides its path's fields: the query
 *  string, a JSON body, or the query string with a file's bytes as the body. */
export type ArgsIn = "query" | "json" | "bytes";

export interface OperationInfo {
  readonly method: HttpMethod;
  /** Under `/api`; `{field}` segments are request fields. Empty: desktop only. */
  readonly path: string;
  readonly args: ArgsIn;
  readonly desktopOnly: boolean;
  /** The codes it can fail with besides bad_request, connection, connection_lost, server. */
  readonly errors: readonly ErrorCode[];
}

export interface Requests {
  health: NoArgs;
  graphs: NoArgs;
  runs: RunsRequest;
  delete_graph: GraphRequest;
  stats: GraphRequest;
  view: ViewRequest;
  cluster_edges: ClusterEdgesRequest;
  node: NodeRequest;
  neighbours: NodeRequest;
  trace: TraceRequest;
  path: PathRequest;
  diff: DiffRequest;
  export_prov: ExportRequest;
  bundle: BundleRequest;
  lineages: GraphRequest;
  lineage: NodeRequest;
  lineage_compare: LineageCompareRequest;
  sessions: GraphRequest;
  reasoning: NodeRequest;
  traces: TracesRequest;
  trace_spans: TraceSpansRequest;
  trace_agents: TraceSpansRequest;
  span: NodeRequest;
  message_origin: NodeRequest;
  query: QueryRequest;
  ask: AskRequest;
  knowledge: NodeRequest;
  log_inclusion: NodeRequest;
  log_status: GraphRequest;
  trail: StatementRequest;
  source: NodeRequest;
  search: SearchRequest;
  search_all: SearchAllRequest;
  upload: UploadRequest;
  events: EventsRequest;
  follow: FollowRequest;
  demo: DemoRequest;
  tidy: TidyRequest;
  jobs: NoArgs;
  stop_job: JobRequest;
  ingest_files: IngestFilesRequest;
  get_settings: NoArgs;
  save_settings: SettingsUpdate;
  save_file: SaveFileRequest;
}

export interface Responses {
  health: Health;
  graphs: Array<string>;
  runs: RunList;
  delete_graph: null;
  stats: Stats;
  view: View;
  cluster_edges: Array<ViewEdge>;
  node: NodeRecord;
  neighbours: Subgraph;
  trace: Subgraph;
  path: PathResult | null;
  diff: GraphDiff;
  export_prov: ExportedDocument;
  bundle: ExportedDocument;
  lineages: Array<LineageSummary>;
  lineage: LineageGraph;
  lineage_compare: Comparison;
  sessions: Array<SessionSummary>;
  reasoning: ReasoningChain;
  traces: TracePage;
  trace_spans: TraceSpans;
  trace_agents: TraceAgents;
  span: SpanDetails;
  message_origin: MessageOrigin;
  query: Table;
  ask: Answer;
  knowledge: ResourceKnowledge;
  log_inclusion: LogInclusion;
  log_status: LogStatus;
  trail: Trail;
  source: SourceText;
  search: Array<SearchHit>;
  search_all: Array<GraphHit>;
  upload: IngestReport;
  events: IngestReport;
  follow: Job;
  demo: Job;
  tidy: TidyResult;
  jobs: Array<Job>;
  stop_job: Job;
  ingest_files: IngestReport;
  get_settings: SettingsView;
  save_settings: SettingsView;
  save_file: string | null;
}

export type OperationName = keyof Requests & keyof Responses;

export const OPERATIONS: { readonly [K in OperationName]: OperationInfo } = {
  health: { method: "GET", path: "/health", args: "query", desktopOnly: false, errors: [] },
  graphs: { method: "GET", path: "/graphs", args: "query", desktopOnly: false, errors: [] },
  runs: { method: "GET", path: "/runs", args: "query", desktopOnly: false, errors: [] },
  delete_graph: { method: "DELETE", path: "/graphs/{graph}", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  stats: { method: "GET", path: "/graphs/{graph}/stats", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  view: { method: "GET", path: "/graphs/{graph}/view", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  cluster_edges: { method: "GET", path: "/graphs/{graph}/cluster-edges", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  node: { method: "GET", path: "/graphs/{graph}/node", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  neighbours: { method: "GET", path: "/graphs/{graph}/neighbours", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  trace: { method: "GET", path: "/graphs/{graph}/trace", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  path: { method: "GET", path: "/graphs/{graph}/path", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  diff: { method: "GET", path: "/diff", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  export_prov: { method: "GET", path: "/graphs/{graph}/export", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  bundle: { method: "POST", path: "/graphs/{graph}/bundle", args: "json", desktopOnly: false, errors: ["usage", "not_found", "io", "input", "forbidden_path"] },
  lineages: { method: "GET", path: "/graphs/{graph}/lineages", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  lineage: { method: "GET", path: "/graphs/{graph}/lineage", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  lineage_compare: { method: "GET", path: "/graphs/{graph}/lineage/compare", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  sessions: { method: "GET", path: "/graphs/{graph}/sessions", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  reasoning: { method: "GET", path: "/graphs/{graph}/reasoning", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  traces: { method: "GET", path: "/graphs/{graph}/traces", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  trace_spans: { method: "GET", path: "/graphs/{graph}/traces/{trace}", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  trace_agents: { method: "GET", path: "/graphs/{graph}/traces/{trace}/agents", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  span: { method: "GET", path: "/graphs/{graph}/span", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  message_origin: { method: "GET", path: "/graphs/{graph}/message-origin", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  query: { method: "POST", path: "/graphs/{graph}/query", args: "json", desktopOnly: false, errors: ["usage", "query", "write_refused"] },
  ask: { method: "POST", path: "/graphs/{graph}/ask", args: "json", desktopOnly: false, errors: ["usage", "query", "llm_not_configured", "llm", "write_refused"] },
  knowledge: { method: "GET", path: "/graphs/{graph}/knowledge", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  log_inclusion: { method: "GET", path: "/graphs/{graph}/log/inclusion", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  log_status: { method: "GET", path: "/graphs/{graph}/log/status", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  trail: { method: "GET", path: "/graphs/{graph}/trail", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  source: { method: "GET", path: "/graphs/{graph}/source", args: "query", desktopOnly: false, errors: ["usage", "not_found"] },
  search: { method: "GET", path: "/graphs/{graph}/search", args: "query", desktopOnly: false, errors: ["usage"] },
  search_all: { method: "GET", path: "/search", args: "query", desktopOnly: false, errors: ["usage", "query"] },
  upload: { method: "POST", path: "/graphs/{graph}/upload", args: "bytes", desktopOnly: false, errors: ["usage", "io", "input", "payload_too_large", "forbidden_path", "not_stored"] },
  events: { method: "POST", path: "/graphs/{graph}/events", args: "bytes", desktopOnly: false, errors: ["usage", "input", "not_found", "not_stored"] },
  follow: { method: "POST", path: "/graphs/{graph}/follow", args: "json", desktopOnly: false, errors: ["usage", "io", "forbidden_path"] },
  demo: { method: "POST", path: "/graphs/{graph}/demo", args: "json", desktopOnly: false, errors: ["usage"] },
  tidy: { method: "POST", path: "/graphs/{graph}/tidy", args: "json", desktopOnly: false, errors: ["usage", "not_found"] },
  jobs: { method: "GET", path: "/jobs", args: "query", desktopOnly: false, errors: [] },
  stop_job: { method: "DELETE", path: "/jobs/{id}", args: "query", desktopOnly: false, errors: ["not_found"] },
  ingest_files: { method: "POST", path: "", args: "json", desktopOnly: true, errors: ["usage", "io", "input", "closing", "not_stored"] },
  get_settings: { method: "POST", path: "", args: "json", desktopOnly: true, errors: ["io"] },
  save_settings: { method: "POST", path: "", args: "json", desktopOnly: true, errors: ["io"] },
  save_file: { method: "POST", path: "", args: "bytes", desktopOnly: true, errors: ["io"] },
};

export interface StreamRequests {
  subscribe: StreamRequest;
}

export interface StreamMessages {
  subscribe: StreamMessage;
}

export type StreamName = keyof StreamRequests & keyof StreamMessages;

export const STREAMS: { readonly [K in StreamName]: { readonly path: string } } = {
  subscribe: { path: "/graphs/{graph}/stream" },
};

/** Every error code, for checking what a server sent. */
export const ERROR_CODES: readonly ErrorCode[] = ["usage", "connection", "server_missing", "server", "connection_lost", "query", "not_found", "io", "input", "forbidden_path", "llm_not_configured", "llm", "write_refused", "not_stored", "log_conflict", "log_inconsistent", "log_unsigned", "bad_request", "unsupported_media_type", "payload_too_large", "method_not_allowed", "unsupported", "unauthorized", "forbidden_host", "forbidden_origin", "closing", "busy", "timeout", "uri_too_long", "headers_too_large", "network", "bad_response", "ipc", "no_graph", "job_failed"];

/** The desktop shell's events, by what they carry. */
export const SHELL_EVENTS = { menu: "provex://menu", ingest: "provex://ingest", notice: "provex://notice" } as const;

/** A file's bytes, for the operations that take one. */
export type Bytes = Blob | ArrayBuffer | Uint8Array;

/** A live subscription; `close()` ends it. */
export interface Subscription {
  close(): void;
}

export interface StreamHandlers<M> {
  /** Every message, in sequence order. */
  onMessage(msg: M): void;
  /** Connection state changes (the transport reconnects by itself). */
  onStatus?(status: "open" | "reconnecting" | "closed"): void;
}

/** How a client reaches the backend: HTTP and server-sent events (http.ts), or Tauri IPC
 *  (tauri.ts). Failures reject with a `BackendError` carrying the `{code, message}`. */
export interface Transport {
  readonly kind: "http" | "tauri";
  call<K extends OperationName>(op: K, req: Requests[K], bytes?: Bytes): Promise<Responses[K]>;
  subscribe<K extends StreamName>(stream: K, req: StreamRequests[K], handlers: StreamHandlers<StreamMessages[K]>): Subscription;
}

/** Every operation and stream as a method, over either transport. */
export class Client {
  constructor(readonly transport: Transport) {}

  get kind(): "http" | "tauri" {
    return this.transport.kind;
  }

  /** The backend's version, its database, and whether requests need a token. */
  health(req: NoArgs = {}): Promise<Health> {
    return this.transport.call("health", req);
  }

  /** The graphs in the database. */
  graphs(req: NoArgs = {}): Promise<Array<string>> {
    return this.transport.call("graphs", req);
  }

  /**
   * Every graph with its sources, size, time span, agents and problem counts (the Runs
   * view); with `since`, answered once a graph is written after that version.
   */
  runs(req: RunsRequest): Promise<RunList> {
    return this.transport.call("runs", req);
  }

  /** Deletes a graph. */
  deleteGraph(req: GraphRequest): Promise<null> {
    return this.transport.call("delete_graph", req);
  }

  /** Node and edge counts by label and type. */
  stats(req: GraphRequest): Promise<Stats> {
    return this.transport.call("stats", req);
  }

  /**
   * A drawable view of a graph (whole below the limit; above it clusters, or the
   * neighbourhood of `root`).
   */
  view(req: ViewRequest): Promise<View> {
    return this.transport.call("view", req);
  }

  /**
   * The edges between the boxes of a cluster view, with their counts (read after the boxes:
   * on a graph of a million nodes they take seconds to count).
   */
  clusterEdges(req: ClusterEdgesRequest): Promise<Array<ViewEdge>> {
    return this.transport.call("cluster_edges", req);
  }

  /** One node with its properties. */
  node(req: NodeRequest): Promise<NodeRecord> {
    return this.transport.call("node", req);
  }

  /** A node and the nodes one edge away. */
  neighbours(req: NodeRequest): Promise<Subgraph> {
    return this.transport.call("neighbours", req);
  }

  /** Everything a node came from (`up`) or that came from it (`down`). */
  trace(req: TraceRequest): Promise<Subgraph> {
    return this.transport.call("trace", req);
  }

  /** A shortest path between two nodes, ignoring direction; null when there is none. */
  path(req: PathRequest): Promise<PathResult | null> {
    return this.transport.call("path", req);
  }

  /**
   * What graph `b` adds, removes and changes with respect to graph `a`, by node and edge
   * identity; with `trace_a` and `trace_b`, those two traces (runs) of them.
   */
  diff(req: DiffRequest): Promise<GraphDiff> {
    return this.transport.call("diff", req);
  }

  /** The graph as W3C PROV (PROV-JSON, PROV-N, PROV-O Turtle or JSON-LD). */
  exportProv(req: ExportRequest): Promise<ExportedDocument> {
    return this.transport.call("export_prov", req);
  }

  /**
   * A self-verifying audit bundle (JSON-LD) of statements (every one when none are named),
   * signed with a key file on the backend's machine when one is named (`provex bundle`).
   */
  bundle(req: BundleRequest): Promise<ExportedDocument> {
    return this.transport.call("bundle", req);
  }

  /** The prompt lineages of a graph: each with its root, size, heads and time span. */
  lineages(req: GraphRequest): Promise<Array<LineageSummary>> {
    return this.transport.call("lineages", req);
  }

  /**
   * The whole lineage of a prompt (`id`: a UUID or `prompt:<uuid>`): prompts with their
   * text, and the evolutions among them.
   */
  lineage(req: NodeRequest): Promise<LineageGraph> {
    return this.transport.call("lineage", req);
  }

  /**
   * Two prompts compared: Jaccard, edit ratio, semantic part, confidence, the suggested
   * evolution type and a word diff.
   */
  lineageCompare(req: LineageCompareRequest): Promise<Comparison> {
    return this.transport.call("lineage_compare", req);
  }

  /** The TrustGraph sessions of a graph: question, status, steps, time. */
  sessions(req: GraphRequest): Promise<Array<SessionSummary>> {
    return this.transport.call("sessions", req);
  }

  /**
   * A session's chain from its question to a step (`id`: an answer, conclusion or
   * synthesis), each step with its parts, the dialog, and the nodes of other sources it names.
   */
  reasoning(req: NodeRequest): Promise<ReasoningChain> {
    return this.transport.call("reasoning", req);
  }

  /**
   * The OpenTelemetry traces of a graph, newest first: each with its root span, services,
   * agents, duration, span and error counts, tokens in and out, and when it started.
   */
  traces(req: TracesRequest): Promise<TracePage> {
    return this.transport.call("traces", req);
  }

  /**
   * One trace's spans in start order for a waterfall (parent, times, status, service,
   * agent, model, links), at most `limit`, with `truncated` when there are more.
   */
  traceSpans(req: TraceSpansRequest): Promise<TraceSpans> {
    return this.transport.call("trace_spans", req);
  }

  /**
   * One trace's agents as boxes and the hand-offs between them (delegations, span links,
   * messages passed), with counts and time.
   */
  traceAgents(req: TraceSpansRequest): Promise<TraceAgents> {
    return this.transport.call("trace_agents", req);
  }

  /**
   * One span (`id`: `otel:<trace id>:<span id>`): its attributes, messages in order, tool
   * arguments and result, tokens, model and exception.
   */
  span(req: NodeRequest): Promise<SpanDetails> {
    return this.transport.call("span", req);
  }

  /** Where a message came from: the walk back from it to the call that produced it. */
  messageOrigin(req: NodeRequest): Promise<MessageOrigin> {
    return this.transport.call("message_origin", req);
  }

  /** Read-only Cypher. */
  query(req: QueryRequest): Promise<Table> {
    return this.transport.call("query", req);
  }

  /**
   * A question in plain language: a chat endpoint writes Cypher from the graph's real
   * schema; it runs read-only and the answer shows it.
   */
  ask(req: AskRequest): Promise<Answer> {
    return this.transport.call("ask", req);
  }

  /**
   * A knowledge-graph resource's statements, each with its certainty,
   * provenance and history: who added or removed it, when, why, and the verification status.
   */
  knowledge(req: NodeRequest): Promise<ResourceKnowledge> {
    return this.transport.call("knowledge", req);
  }

  /**
   * One node's place in its graph's tamper-evident log: its leaves with their inclusion
   * paths at a signed checkpoint (and when it was signed), the instance's verifier key,
   * the line it keeps and its stored form against its digest, to be checked in the browser.
   */
  logInclusion(req: NodeRequest): Promise<LogInclusion> {
    return this.transport.call("log_inclusion", req);
  }

  /**
   * Whether a graph's store matches its log: its size, latest checkpoint, and the nodes
   * whose stored form differs (re-hashed under a time limit; `complete` says if all were).
   */
  logStatus(req: GraphRequest): Promise<LogStatus> {
    return this.transport.call("log_status", req);
  }

  /** A statement's evidence and verification trail. */
  trail(req: StatementRequest): Promise<Trail> {
    return this.transport.call("trail", req);
  }

  /** A source document's full text. */
  source(req: NodeRequest): Promise<SourceText> {
    return this.transport.call("source", req);
  }

  /** Nodes whose name or text contains `q`. */
  search(req: SearchRequest): Promise<Array<SearchHit>> {
    return this.transport.call("search", req);
  }

  /**
   * Searches every graph: nodes whose id is `q` (a node's name, a trace or span id), then
   * those whose words match it (a claim, a quote, an agent, a document, a prompt), best
   * first, each with its graph.
   */
  searchAll(req: SearchAllRequest): Promise<Array<GraphHit>> {
    return this.transport.call("search_all", req);
  }

  /** Saves the body in the uploads folder and ingests it. */
  upload(req: UploadRequest, bytes: Bytes): Promise<IngestReport> {
    return this.transport.call("upload", req, bytes);
  }

  /**
   * Ingests a chunked NDJSON body as it arrives (an agent pushing records while it works):
   * every open view of the graph grows meanwhile. The body is read as fast as the database
   * takes it, so a faster sender is slowed down, never dropped. Answers when the body ends.
   */
  events(req: EventsRequest, bytes: Bytes): Promise<IngestReport> {
    return this.transport.call("events", req, bytes);
  }

  /** Follows a growing file on the backend's machine, as a job. */
  follow(req: FollowRequest): Promise<Job> {
    return this.transport.call("follow", req);
  }

  /** Runs the council demo into a graph, as a job. */
  demo(req: DemoRequest): Promise<Job> {
    return this.transport.call("demo", req);
  }

  /**
   * Re-lays a graph out: a preview of the moves for the caller alone, or with `save` the
   * layout every viewer is served (the moves also arrive on its stream).
   */
  tidy(req: TidyRequest): Promise<TidyResult> {
    return this.transport.call("tidy", req);
  }

  /** The background jobs. */
  jobs(req: NoArgs = {}): Promise<Array<Job>> {
    return this.transport.call("jobs", req);
  }

  /** Stops a job. */
  stopJob(req: JobRequest): Promise<Job> {
    return this.transport.call("stop_job", req);
  }

  /** Ingests files on this machine (the desktop's open dialog and drops). */
  ingestFiles(req: IngestFilesRequest): Promise<IngestReport> {
    return this.transport.call("ingest_files", req);
  }

  /** The desktop database settings. */
  getSettings(req: NoArgs = {}): Promise<SettingsView> {
    return this.transport.call("get_settings", req);
  }

  /** Saves the desktop database settings (they take effect at the next start). */
  saveSettings(req: SettingsUpdate): Promise<SettingsView> {
    return this.transport.call("save_settings", req);
  }

  /** Saves the body where the user chooses in a save dialog; the path, or null if cancelled. */
  saveFile(req: SaveFileRequest, bytes: Bytes): Promise<string | null> {
    return this.transport.call("save_file", req, bytes);
  }

  /** A graph's changes after `since`, numbered without gaps; a `reset` when they are gone. */
  subscribe(req: StreamRequest, handlers: StreamHandlers<StreamMessage>): Subscription {
    return this.transport.subscribe("subscribe", req, handlers);
  }
}
