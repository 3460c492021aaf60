// Generated from src/api (the Rust contract) by `provex contract`. Do not edit:
// change the Rust declarations and run `cargo run -- contract` (a test checks it is fresh).

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null;

export type AgentBox = { 
/**
 * The agent's id (`agent:<id>` without the prefix); the service's name for spans of no agent.
 */
id: string, 
/**
 * Its node, when it is an agent node.
 */
node: string | null, spans: number, llm_calls: number, tool_calls: number, errors: number, 
/**
 * Time its own invocations took, in milliseconds.
 */
busy_ms: number, };

export type AgentDiff = { shared: Array<string>, only_a: Array<string>, only_b: Array<string>, };

export type Answer = { question: string, cypher: string, columns: Array<string>, rows: Array<Array<JsonValue>>, 
/**
 * More rows than [`MAX_ROWS`] came back; the rest are not shown.
 */
truncated: boolean, model: string, elapsed_ms: number, };

export type ApiError = { code: ErrorCode, message: string, };

export type AskRequest = { graph: string, question: string, };

export type BundleRequest = { graph: string, statements?: Array<string>, key?: string, };

export type ByteRange = { start: number, end: number, };

export type CallDiff = { 
/**
 * Its place, readable: each ancestor's and its own step, joined by ` / ` (a step is
 * the operation, the tool, the agent when it is not its parent's, the model in
 * brackets, then `#N` for the Nth of the same under one parent).
 */
path: string, 
/**
 * `LlmCall`, `ToolCall`, `AgentInvocation`, … (docs/FORMATS.md).
 */
label: string, 
/**
 * `gen_ai.operation.name`, else OpenInference's span kind, else the label.
 */
operation: string, agent: string | null, model: string | null, tool: string | null, 
/**
 * Its span's node in run A, none when only B has it.
 */
a: string | null, 
/**
 * Its span's node in run B, none when only A has it.
 */
b: string | null, status_a: string | null, status_b: string | null, 
/**
 * What differs when both have it: `status`, `inputs`, `outputs`, `arguments`, `result`.
 */
changes: Array<string>, };

export type ClusterEdgesRequest = { graph: string, cluster?: string, };

export type ClusterInfo = { title: string, members: number, 
/**
 * Members by label, most first.
 */
labels: Array<[string, number]>, 
/**
 * Signed members by signature status (`valid`, `invalid`, …).
 */
statuses: Array<[string, number]>, 
/**
 * Opening it shows its sub-clusters (`clusters`) or its nodes (`members`).
 */
opens: ViewMode, };

export type Comparison = { a: string, b: string, jaccard: number, edit_ratio: number, semantic: number | null, confidence: number, 
/**
 * Why the semantic part is absent, when it is.
 */
note?: string, 
/**
 * The evolution type the rule proposes (`--suggest-type`), with the rule.
 */
suggested_type?: string, suggestion_rule?: string, 
/**
 * The word-level diff from A to B (`--detailed`).
 */
diff?: Array<DiffOp>, };

export type ContentItem = { 
/**
 * Its node (`otel-msg:…`, content-addressed).
 */
name: string, role: string | null, 
/**
 * Its content (a message's parts as text), cut at 300 characters.
 */
text: string, };

export type CrossLink = { 
/**
 * The step that names it.
 */
from: string, id: string, label: string, 
/**
 * Its text, when it has one (a statement's claim).
 */
text: string | null, 
/**
 * A statement's standing (its headline verdict, docs/FORMATS.md "Standing").
 */
standing?: string, };

export type DemoRequest = { graph: string, pace_ms?: number, };

export type DialogLine = { seq: number, kind: string, content: string | null, model: string | null, in_token: number | null, out_token: number | null, };

export type DiffOp = { op: string, text: string, };

export type DiffRequest = { a: string, b: string, trace_a?: string, trace_b?: string, };

export type DiffSummary = { claims_added: Array<SummaryItem>, claims_removed: Array<SummaryItem>, verifications_added: Array<SummaryItem>, verifications_removed: Array<SummaryItem>, 
/**
 * Claims first (by name), then by what changed in [`WATCHED`] order.
 */
changes: Array<StatusChange>, };

export type EdgeChange = { source: string, type: string, kind: string | null, target: string, 
/**
 * How much it matters: 0 first ([`edge_rank`]).
 */
rank: number, before: { [key in string]: JsonValue }, after: { [key in string]: JsonValue }, };

export type EdgeColumns = { source: Array<number>, target: Array<number>, type: Array<number>, 
/**
 * 0: none.
 */
prov: Array<number>, 
/**
 * 0: none.
 */
a2a: Array<number>, };

export type EdgeDiff = { added: Array<EdgeItem>, removed: Array<EdgeItem>, changed: Array<EdgeChange>, };

export type EdgeItem = { source: string, type: string, kind: string | null, target: string, 
/**
 * How much it matters: 0 first ([`edge_rank`]).
 */
rank: number, props: { [key in string]: JsonValue }, };

export type EdgeRecord = { source: string, target: string, type: string, 
/**
 * The PROV relation (`prov:base_type`) of a PROV edge.
 */
"prov:base_type"?: string, 
/**
 * The A2A relation (`a2a:relation`) of a derived edge.
 */
"a2a:relation"?: string, };

export type ErrorCode = "usage" | "connection" | "server_missing" | "server" | "connection_lost" | "query" | "not_found" | "io" | "input" | "forbidden_path" | "llm_not_configured" | "llm" | "write_refused" | "not_stored" | "log_conflict" | "log_inconsistent" | "log_unsigned" | "bad_request" | "unsupported_media_type" | "payload_too_large" | "method_not_allowed" | "unsupported" | "unauthorized" | "forbidden_host" | "forbidden_origin" | "closing" | "busy" | "timeout" | "uri_too_long" | "headers_too_large" | "network" | "bad_response" | "ipc" | "no_graph" | "job_failed";

export type EventsRequest = { graph: string, 
/**
 * `a2a`, `a2ap`, `lineage`, or none to detect from the lines.
 */
format?: string, };

export type EvidenceStatus = "match" | "mismatch" | "unchecked";

export type EvolutionView = { child: string, parent: string, evolution_type: string, 
/**
 * The relationship type stored (`WAS_REFINED_FROM`, …).
 */
relation: string, 
/**
 * False for the extra parents of a merge (`properties.merged_from`).
 */
primary: boolean, confidence: number | null, similarity_score: number | null, reason?: string, created_at?: string, };

export type ExportRequest = { graph: string, format: string, };

export type ExportedDocument = { format: string, media_type: string, 
/**
 * `provex-<graph>.<extension>`.
 */
file_name: string, text: string, };

export type FileReport = { path: string, format: string, lines: number, events: number, rejected: number, 
/**
 * Where the rejected records were written, when there were any.
 */
rejects_file: string | null, 
/**
 * Rejected records past the rejects file's quota: counted here, not written there.
 */
rejects_unwritten: number, };

export type Finding = { criterion: string, status: string, evidence: string | null, confidence: number | null, };

export type FollowRequest = { graph: string, path: string, 
/**
 * `a2a`, `a2ap`, `prov-json`, `lineage`, `trustgraph` (docs/FORMATS.md), or none to detect.
 */
format?: string, };

export type GraphDiff = { 
/**
 * What the differences mean for claims.
 */
summary: DiffSummary, 
/**
 * What the differences mean for the runs the graphs' OpenTelemetry spans record: none
 * when neither graph holds a span.
 */
traces?: TraceDiff, nodes: NodeDiff, edges: EdgeDiff, };

export type GraphHit = { graph: string, 
/**
 * The node's name (a trace's hit: its root span).
 */
id: string, 
/**
 * What it is: `claim`, `quote`, `agent`, `document`, `prompt`, `message`, `span`,
 * `trace`, … (a node of no such kind: `node`).
 */
kind: string, label: string, 
/**
 * Its text around the first word that matched, or its id.
 */
snippet: string, 
/**
 * `id` when the search text is its id (a node's name, a trace or span id), `text` when
 * its words matched.
 */
matched: string, };

export type GraphRequest = { graph: string, };

export type HandOff = { from: string, to: string, 
/**
 * `delegation` (a span of `from` is the parent of a span of `to`), `link` (a span
 * link), `message` (a message one produced, the other consumed), or `on_behalf` (`to`
 * acted on behalf of `from`: its agent `ACTED_ON_BEHALF_OF` the other's).
 */
kind: string, count: number, 
/**
 * Time the receiving spans took, in milliseconds.
 */
total_ms: number, 
/**
 * The spans (delegations and links: the receiving ones) that make it up, at most 50.
 */
spans: Array<string>, };

export type Health = { version: string, 
/**
 * The database URL (password hidden).
 */
database: string, 
/**
 * Whether the backend runs its own private FalkorDB.
 */
private_server: boolean, 
/**
 * Whether requests need a token.
 */
auth: boolean, 
/**
 * When views and explore read from a cluster's replicas (`read_from=replicas`): the
 * replica furthest behind its primary, as last measured.
 */
replica?: ReplicaLag, };

export type IngestEvent = { state: IngestState, graph: string, files: Array<string>, 
/**
 * Whether the window should show the graph when done (File ▸ Open).
 */
open: boolean, report: IngestReport | null, error: ApiError | null, };

export type IngestFilesRequest = { graph: string, paths: Array<string>, format?: string, };

export type IngestReport = { graph: string, files: Array<FileReport>, events: number, rejected: number, nodes_written: number, edges_written: number, elapsed_ms: number, 
/**
 * How the graph was written: `merge` (upserts), `bulk` (a new graph built with
 * GRAPH.BULK), or `bulk+merge` (built, then the rest upserted).
 */
method: string, 
/**
 * Why the bulk path was left for upserts, when it was.
 */
notes?: Array<string>, };

export type IngestState = "started" | "done" | "failed";

export type Job = { id: string, kind: JobKind, graph: string, state: JobState, 
/**
 * What it is doing or did (file, events so far, error message).
 */
detail: string | null, };

export type JobKind = "ingest" | "follow" | "demo";

export type JobRequest = { id: string, };

export type JobState = "running" | "done" | "failed" | "stopped";

export type KnowledgeChange = { 
/**
 * The statement's id (`kg:` + SHA-256 of its triple).
 */
statement: string, 
/**
 * `add`, `remove` or `replace`.
 */
op: string, subject: string, 
/**
 * The object, when it is a resource (not a literal).
 */
object: string | null, 
/**
 * The `KnowledgeGraphChangeEvent` (`op`, `statement`, `changeId`, `timestamp`,
 * `changeMetadata`).
 */
event: unknown, };

export type LeafProof = { 
/**
 * The leaf's index in the graph's log.
 */
index: number, 
/**
 * The leaf hash as the log holds it, standard base64.
 */
leaf_hash: string, 
/**
 * The audit path (RFC 9162 §2.1.3), standard base64 hashes.
 */
path: Array<string>, };

export type LineageCompareRequest = { graph: string, a: string, b: string, };

export type LineageGraph = { 
/**
 * The prompt asked about.
 */
focus: string, lineage_id: string, prompts: Array<PromptView>, evolutions: Array<EvolutionView>, };

export type LineageSummary = { lineage_id: string, 
/**
 * The root prompt's id (none while the root has not arrived).
 */
root: string | null, 
/**
 * The root prompt's first words.
 */
title: string, prompts: number, heads: number, first: string, last: string, };

export type LogInclusion = { graph: string, node: string, label: string, 
/**
 * Its leaves; empty when it came from no logged record.
 */
leaves: Array<LeafProof>, 
/**
 * The signed checkpoint (a C2SP signed note) the paths prove against.
 */
checkpoint: string | null, 
/**
 * When that checkpoint was signed, Unix ms (unknown for an older checkpoint).
 */
checkpoint_at: number | null, 
/**
 * The checkpoint's tree size.
 */
tree_size: number, 
/**
 * The instance's signed-note verifier key: `<name>+<key hash>+<base64 0x01 || Ed25519 key>`.
 */
verifier_key: string, 
/**
 * The line the node came in on, when it keeps it (A2AP documents).
 */
record: LoggedRecord | null, 
/**
 * Its stored form against its digest, when it has one.
 */
stored: StoredForm | null, };

export type LogMismatch = { name: string, label: string, leaves: Array<number>, reason: string, };

export type LogStatus = { graph: string, 
/**
 * Leaves in the log now.
 */
tree_size: number, 
/**
 * The latest signed checkpoint's size and when it was signed (Unix ms).
 */
checkpoint_size: number | null, checkpoint_at: number | null, 
/**
 * The log's root is the checkpoint's, or extends it by a consistency proof (a log not
 * signed yet, while its first ingest goes on, contradicts no checkpoint).
 */
checkpoint_matches: boolean, 
/**
 * Leaves appended since the latest signed checkpoint (all of them before the first):
 * records of an ingest still going on, which signs a checkpoint when it ends. Being
 * written, not a disagreement.
 */
pending: number, 
/**
 * Nodes re-hashed.
 */
nodes_checked: number, 
/**
 * False when the time limit stopped the re-hash before every node was checked.
 */
complete: boolean, 
/**
 * How many of the checked nodes differ from their digest.
 */
differing: number, 
/**
 * The differing nodes, at most [`MAX_NAMED_MISMATCHES`].
 */
mismatches: Array<LogMismatch>, };

export type LoggedRecord = { 
/**
 * The leaf it hashes to.
 */
index: number, 
/**
 * The file path or stream name the line came from.
 */
source: string, 
/**
 * When it was received, Unix ms.
 */
received: number, 
/**
 * The line as received, without its line break.
 */
line: string, };

export type MenuAction = "export-svg" | "export-png" | "help" | "tidy";

export type MenuEvent = { action: MenuAction, 
/**
 * The graph the window shows, as the shell knows it.
 */
graph: string | null, };

export type MessageDiff = { shared: number, only_a: Array<ContentItem>, only_b: Array<ContentItem>, };

export type MessageOrigin = { message: string, 
/**
 * The message first, the producing call last.
 */
steps: Array<OriginStep>, 
/**
 * The span that produced it; none when no recorded call did (a user's message): then
 * `first_use` is the first call that consumed it.
 */
call: string | null, first_use: string | null, };

export type MessageView = { 
/**
 * Its node (`otel-msg:<sha256>`).
 */
id: string, 
/**
 * `input` or `output`.
 */
direction: string, index: number | null, role: string | null, 
/**
 * Its parts in the GenAI message schema (`{"type":"text","content":…}`, tool calls…).
 */
parts: Array<JsonValue>, 
/**
 * For an input: the call (another span) that produced it, when one did.
 */
produced_by: string | null, };

export type NoArgs = Record<symbol, never>;

export type NodeChange = { label: string, name: string, 
/**
 * How much it matters: 0 first ([`node_rank`]).
 */
rank: number, before: { [key in string]: JsonValue }, after: { [key in string]: JsonValue }, };

export type NodeColumns = { id: Array<string>, label: Array<number>, 
/**
 * 0: none.
 */
base_type: Array<number>, x: Array<number>, y: Array<number>, w: Array<number>, h: Array<number>, layer: Array<number>, arrival: Array<number>, 
/**
 * 0: none (as in every optional column below).
 */
agent: Array<number>, context: Array<number>, status: Array<number>, text: Array<number>, standing: Array<number>, 
/**
 * What each cluster box holds, in a view with cluster boxes; none in any other.
 */
cluster?: Array<ClusterInfo | null>, };

export type NodeDiff = { added: Array<NodeItem>, removed: Array<NodeItem>, changed: Array<NodeChange>, };

export type NodeItem = { label: string, name: string, 
/**
 * How much it matters: 0 first ([`node_rank`]).
 */
rank: number, props: { [key in string]: JsonValue }, };

export type NodeMove = { id: string, x: number, y: number, };

export type NodeRecord = { 
/**
 * The node's `name`.
 */
id: string, label: string, base_type?: string, depth?: number, properties?: { [key in string]: JsonValue }, };

export type NodeRequest = { graph: string, id: string, };

export type Notice = { level: NoticeLevel, message: string, };

export type NoticeLevel = "info" | "error";

export type OriginStep = { id: string, label: string, 
/**
 * The relationship that led here (`WAS_GENERATED_BY`, `WAS_DERIVED_FROM`, `WAS_CONSUMED_BY`).
 */
via: string, };

export type PathRequest = { graph: string, from: string, to: string, };

export type PathResult = { nodes: Array<NodeRecord>, edges: Array<EdgeRecord>, };

export type Problem = { code: string, message: string, };

export type PromptView = { id: string, lineage_id: string, version: string, timestamp: string, chain_position: number, is_root: boolean, is_head: boolean, branch?: string, model?: string, 
/**
 * Left out unless asked for (`--include-content`); always there for inspect and replay.
 */
content?: string, };

export type QueryRequest = { graph: string, cypher: string, };

export type ReasoningChain = { session: string, 
/**
 * What kind of session it is, read from its identifier's prefix (docs/FORMATS.md,
 * "TrustGraph query-time provenance"): `agent` (a ReAct agent), `graphrag`, `docrag`, or `seed`.
 */
kind: string, question: string | null, status: string, selected: string, 
/**
 * Question first, the selected node last.
 */
chain: Array<ReasoningStep>, 
/**
 * The session's latest step (what a live session is on).
 */
latest: string | null, dialog: Array<DialogLine>, links: Array<CrossLink>, 
/**
 * The worst standing of the statements the chain draws on (none when it cites none):
 * an answer that rests on a claim with an invalid signature headlines that.
 */
standing?: string, };

export type ReasoningStep = { id: string, 
/**
 * Its TrustGraph types (`Analysis`, `ToolUse`, …).
 */
types: Array<string>, label: string | null, 
/**
 * What was recorded of it: `tg:*`, `prov:*`, `rdfs:*` properties.
 */
properties: Record<string, JsonValue>, derived_from: Array<string>, 
/**
 * Its thought, selected edges or chunks, facts.
 */
parts: Array<ReasoningStep>, 
/**
 * A failed tool (`tg:Error`, `tg:toolError`).
 */
failed: boolean, 
/**
 * Not recorded yet: only named by another step.
 */
placeholder: boolean, };

export type ReplicaLag = { 
/**
 * The replica (`host:port`).
 */
replica: string, 
/**
 * Its primary (`host:port`).
 */
primary: string, 
/**
 * Replication bytes it had not yet processed at first look.
 */
bytes_behind: number, 
/**
 * How long it took until the replica answered with the primary's offset read at first
 * look reached, in milliseconds (a round trip when it had already); at most about
 * 5 s, then it is at least that far behind.
 */
behind_ms: number, 
/**
 * Whether its link to the primary is up (`master_link_status:up`).
 */
link_up: boolean, };

export type ResourceKnowledge = { resource: string, statements: Array<StatementHistory>, };

export type RunList = { version: number, rows: Array<RunRow>, };

export type RunRow = { graph: string, 
/**
 * The sources its nodes come from, derived from the labels present.
 */
sources: Array<RunSource>, nodes: number, edges: number, 
/**
 * The earliest time its nodes carry (Unix ms), when any carries one.
 */
first_ms: number | null, 
/**
 * The latest time its nodes carry (Unix ms).
 */
last_ms: number | null, 
/**
 * Its agents: signing agents, runtime agent instances, OpenTelemetry and PROV agents
 * (models are not counted).
 */
agents: number, 
/**
 * The first few agents' names, in name order.
 */
agent_names: Array<string>, 
/**
 * Claims whose own signature does not match and forged verifications.
 */
invalid_signatures: number, 
/**
 * Claims a counted verification challenges.
 */
challenged_claims: number, 
/**
 * Tool calls that did not succeed and OpenTelemetry spans that failed (status `error`
 * or an exception recorded).
 */
failed_tools: number, 
/**
 * Why some figures are missing: the graph did not answer within the time limit, or
 * could not be read. The figures read before are kept.
 */
unavailable: string | null, };

export type RunSource = "runtime_events" | "signed_statements" | "reasoning_traces" | "prompt_lineage" | "prov" | "knowledge_graph" | "open_telemetry";

export type RunsRequest = { since?: number, wait_ms?: number, };

export type SaveFileRequest = { 
/**
 * The suggested file name.
 */
name: string, };

export type SearchAllRequest = { q: string, 
/**
 * Default 50, at most 200.
 */
limit?: number, };

export type SearchHit = { id: string, label: string, field: string, snippet: string, };

export type SearchRequest = { graph: string, q: string, 
/**
 * Default 50.
 */
limit?: number, };

export type SessionSummary = { 
/**
 * The session's IRI (its question node).
 */
id: string, 
/**
 * `agent` (ReAct), `graphrag`, `docrag`, or `seed` (provenance nodes).
 */
kind: string, question: string | null, 
/**
 * `running`, `answered` or `failed`.
 */
status: string, 
/**
 * Explain nodes of the session besides its question.
 */
steps: number, started: string | null, 
/**
 * The session's answer, conclusion or synthesis, when there is one.
 */
answer: string | null, };

export type SettingsUpdate = { url?: string, user?: string, password?: string, tls: boolean, embeddings_url?: string, embeddings_model?: string, 
/**
 * Absent keeps the stored key, `""` clears it.
 */
embeddings_key?: string, llm_url?: string, llm_model?: string, 
/**
 * Absent keeps the stored key, `""` clears it.
 */
llm_key?: string, };

export type SettingsView = { 
/**
 * A shared FalkorDB (`host`, `host:port`, or a `redis://` / `rediss://` URL); none
 * means the private server in the app's data folder.
 */
url: string | null, user: string | null, has_password: boolean, tls: boolean, 
/**
 * An OpenAI-compatible embeddings endpoint for the semantic part of lineage
 * confidences (else `PROVEX_EMBEDDINGS_URL`; none: the renormalised formula).
 */
embeddings_url?: string, embeddings_model?: string, has_embeddings_key: boolean, 
/**
 * An OpenAI-compatible chat endpoint for questions in plain language (`ask`; else
 * `PROVEX_LLM_URL`; none: `ask` says how to set one).
 */
llm_url?: string, llm_model?: string, has_llm_key: boolean, 
/**
 * Where they are stored.
 */
file: string, };

export type SignatureStatus = "valid" | "invalid" | "unknown_key" | "untrusted_key" | "malformed" | "unsigned";

export type SourceText = { id: string, title: string | null, text: string, };

export type SpanDetails = { span: SpanRow, 
/**
 * The exact start and end, epoch nanoseconds as text.
 */
start_ns: string | null, end_ns: string | null, 
/**
 * Every `otel:*` property (the span's attributes, its kind, status, events).
 */
attributes: Record<string, JsonValue>, 
/**
 * Inputs in order, then outputs in order.
 */
messages: Array<MessageView>, tool_args: ToolContent | null, tool_result: ToolContent | null, tokens_in: number | null, tokens_out: number | null, error: SpanError | null, 
/**
 * Spans this one links to, and spans linking to it.
 */
linked_from: Array<string>, };

export type SpanError = { status_message: string | null, exception_type: string | null, message: string | null, stacktrace: string | null, };

export type SpanLink = { 
/**
 * The linked span's node.
 */
target: string, 
/**
 * Its trace, when the link leaves this trace.
 */
trace_id: string, };

export type SpanRow = { 
/**
 * Its node (`otel:<trace>:<span>`).
 */
id: string, span_id: string, 
/**
 * The parent span's node; none for a root.
 */
parent: string | null, name: string, 
/**
 * `LlmCall`, `ToolCall`, `AgentInvocation`, `Retrieval`, `Embedding`, `Evaluation`, `Span`.
 */
label: string, 
/**
 * Nanoseconds from the trace's first start (exact ns are too large for a JS number).
 */
start_ns: number | null, end_ns: number | null, 
/**
 * `ok`, `error` or `unset`; `pending` for a parent named by a child that has not arrived.
 */
status: string, service: string | null, 
/**
 * The agent it ran as: its own, else its nearest ancestor's.
 */
agent: string | null, model: string | null, links: Array<SpanLink>, };

export type Standing = "invalid_signature" | "unknown_signer" | "unsigned" | "claim_mismatch" | "quote_mismatch" | "challenged" | "unverified" | "verified";

export type StatementChange = { 
/**
 * `added` or `removed`.
 */
change: string, update: string, sourceAgentId: string | null, time: string | null, justification: string | null, verificationStatus: string | null, taskId: string | null, sessionId: string | null, };

export type StatementHistory = { id: string, statement: unknown, current: boolean, 
/**
 * The updates that generated and invalidated it, oldest first.
 */
changes: Array<StatementChange>, };

export type StatementRequest = { graph: string, statement: string, };

export type Stats = { graph: string, nodes: number, edges: number, labels: { [key in string]: number }, relationships: { [key in string]: number }, 
/**
 * When views and explore read from replicas (`read_from=replicas`): how far the
 * replica serving this graph's reads is behind its primary (the counts above are the
 * primary's).
 */
replica?: ReplicaLag, };

export type StatusChange = { 
/**
 * `claim`, `standing`, `verified`, `consensus`, `signature`, `evidence`, `quote`,
 * `verdict` or `counted`.
 */
what: string, 
/**
 * The statement it bears on.
 */
claim: string | null, 
/**
 * That statement's text (in B, else in A).
 */
claim_text: string | null, 
/**
 * The node's label, or the edge's type.
 */
label: string, 
/**
 * The node's name, or the edge's source.
 */
name: string, 
/**
 * The edge's target (none for a node).
 */
target: string | null, property: string, before: JsonValue | null, after: JsonValue | null, };

export type StoredForm = { 
/**
 * `log_digest`: `v1:<hex SHA-256>|<names>`.
 */
digest: string, 
/**
 * The covered properties in the digest's order.
 */
values: Array<StoredValue>, 
/**
 * Whether they hash to the digest (the server's answer; the explorer re-hashes them).
 */
matches: boolean, };

export type StoredValue = { name: string, 
/**
 * Compact JSON (the text the digest hashes); `null` when the property is gone.
 */
json: string, };

export type StreamMessage = { "kind": "batch", graph: string, seq: number, time_ms: number, nodes: Array<ViewNode>, edges: Array<ViewEdge>, verifications: Array<VerificationUpdate>, } | { "kind": "clusters", graph: string, seq: number, time_ms: number, nodes: Array<ViewNode>, edges: Array<ViewEdge>, } | { "kind": "moves", graph: string, seq: number, moves: Array<NodeMove>, } | { "kind": "knowledge", graph: string, seq: number, changes: Array<KnowledgeChange>, } | { "kind": "database", graph: string, seq: number, state: string, message: string, } | { "kind": "reset", graph: string, seq: number, reason: string, };

export type StreamRequest = { graph: string, since?: number, 
/**
 * The stream of the graph's cluster view (semantic zoom) rather than of its whole view.
 */
clusters?: boolean, };

export type Subgraph = { nodes: Array<NodeRecord>, edges: Array<EdgeRecord>, };

export type SummaryItem = { name: string, 
/**
 * What it says: a claim's text, a verification's verdict.
 */
text: string | null, 
/**
 * The agent that signed it.
 */
agent: string | null, 
/**
 * A verification's statement.
 */
claim: string | null, 
/**
 * That statement's text (in B, else in A).
 */
claim_text: string | null, };

export type Table = { columns: Array<string>, rows: Array<Array<JsonValue>>, };

export type TidyRequest = { graph: string, 
/**
 * Apply it to the layout every viewer is served (the moves go out on the graph's
 * stream); without it the served layout is left as it is.
 */
save?: boolean, };

export type TidyResult = { moves: Array<NodeMove>, saved: boolean, };

export type TimeSpan = { start: string, end: string, };

export type ToolContent = { id: string, 
/**
 * Parsed when it is JSON, else the text.
 */
value: JsonValue, };

export type ToolDiff = { tool: string, 
/**
 * The call's path (as [`CallDiff::path`]).
 */
path: string, arguments_a: string | null, arguments_b: string | null, result_a: string | null, result_b: string | null, 
/**
 * `arguments`, `result`, or `only in A` / `only in B`.
 */
changes: Array<string>, };

export type TraceAgents = { trace_id: string, agents: Array<AgentBox>, hand_offs: Array<HandOff>, 
/**
 * Only the first spans were read (see `trace_spans`).
 */
truncated: boolean, };

export type TraceDiff = { a: TraceSide, b: TraceSide, 
/**
 * Every span of either run, in A's order with B's extra ones after their matched
 * predecessor.
 */
calls: Array<CallDiff>, messages: MessageDiff, tools: Array<ToolDiff>, agents: AgentDiff, };

export type TraceDirection = "up" | "down";

export type TracePage = { traces: Array<TraceSummary>, 
/**
 * Traces in the graph.
 */
total: number, offset: number, };

export type TraceRequest = { graph: string, id: string, 
/**
 * Default `up`.
 */
dir?: TraceDirection, 
/**
 * Default 10, at most `store::read::MAX_DEPTH`.
 */
depth?: number, };

export type TraceSide = { 
/**
 * The trace ids compared, sorted.
 */
traces: Array<string>, spans: number, };

export type TraceSpans = { trace_id: string, 
/**
 * The first start as exact epoch nanoseconds (text: too large for a JS number).
 */
start_ns: string | null, spans: Array<SpanRow>, 
/**
 * More spans exist than were read (`limit`).
 */
truncated: boolean, total: number, };

export type TraceSpansRequest = { graph: string, trace: string, 
/**
 * The most spans read (default 5,000, at most 20,000); the answer says when there are more.
 */
limit?: number, };

export type TraceSummary = { 
/**
 * The trace id (lower-case hex).
 */
trace_id: string, 
/**
 * The root span's node (`otel:<trace>:<span>`), when it has arrived.
 */
root: string | null, 
/**
 * The root span's name (`otel:name`).
 */
root_name: string | null, 
/**
 * The services (`service:<namespace>/<name>` without the prefix) of its spans.
 */
services: Array<string>, 
/**
 * The agents (`agent:<id>` without the prefix) its spans ran as.
 */
agents: Array<string>, 
/**
 * Epoch milliseconds of its first span's start.
 */
started_ms: number | null, 
/**
 * From the first start to the last end, in milliseconds.
 */
duration_ms: number | null, spans: number, 
/**
 * Spans whose status is `error`.
 */
errors: number, tokens_in: number, tokens_out: number, };

export type TracesRequest = { graph: string, 
/**
 * Traces to skip (default 0).
 */
offset?: number, 
/**
 * Default 100, at most 1,000.
 */
limit?: number, };

export type Trail = { statement_id: string, agent: string, generated_at: string | null, claim: TrailClaim, signature: SignatureStatus, evidence: Array<TrailEvidence>, requests: Array<TrailRequest>, verifications: Array<TrailVerification>, consensus: number, 
/**
 * Consensus at or above the threshold, as the signed-statements format defines it.
 */
verified: boolean, 
/**
 * The headline: the worst of signature, claim hash, evidence and consensus
 * (docs/FORMATS.md, "Standing").
 */
standing: Standing, threshold: number, supports: Array<string>, contradicts: Array<string>, 
/**
 * Statements that say they contradict this one.
 */
contradicted_by: Array<string>, problems: Array<Problem>, };

export type TrailClaim = { text: string, confidence: number | null, content_hash: string | null, generation_method: string | null, };

export type TrailDocument = { id: string, 
/**
 * `None` when the document is not in the stream.
 */
title: string | null, available: boolean, source: string | null, source_name: string | null, source_url: string | null, };

export type TrailEvidence = { chunk_id: string, quote: string | null, byte_range: ByteRange, timestamp: TimeSpan | null, document: TrailDocument, status: EvidenceStatus, reasons?: Array<string>, };

export type TrailRequest = { request_id: string, agent: string, time: string | null, criteria: Array<string>, signature: SignatureStatus, };

export type TrailVerification = { verification_id: string, agent: string, verdict: string, confidence: number, findings: Array<Finding>, time: string | null, signature: SignatureStatus, counted: boolean, excluded_reason?: string, consensus_after: number, verified_after: boolean, };

export type UploadRequest = { graph: string, 
/**
 * The file's name, for the uploads folder and the rejects file.
 */
name: string, 
/**
 * `a2a`, `a2ap`, `prov-json`, `lineage`, `trustgraph` (docs/FORMATS.md), or none to detect.
 */
format?: string, };

export type VerificationKind = "statement" | "verification";

export type VerificationUpdate = { id: string, kind: VerificationKind, signature: string | null, verdict: string | null, consensus: number | null, verified: boolean | null, 
/**
 * A statement's standing (its headline), when the update carries it.
 */
standing?: string, };

export type View = { graph: string, seq: number, mode: ViewMode, root: string | null, total_nodes: number, total_edges: number, 
/**
 * The most nodes drawn whole.
 */
limit: number, 
/**
 * The nodes drawn, one record each (empty when `columns` holds them).
 */
nodes: Array<ViewNode>, 
/**
 * The edges between them, one record each (empty when `columns` holds them).
 */
edges: Array<ViewEdge>, 
/**
 * The nodes and edges as columns, when the request asked for them (`columns`): the
 * compact form a UI decodes (docs/FORMATS.md "Views in columns").
 */
columns?: ViewColumns, };

export type ViewColumns = { 
/**
 * The labels, base types, agents, contexts, statuses, texts, standings, edge types and
 * relations of the view, each once (`strings[0]` is `""` and stands for none).
 */
strings: Array<string>, nodes: NodeColumns, edges: EdgeColumns, };

export type ViewEdge = { source: string, target: string, type: string, 
/**
 * The PROV relation of a PROV edge.
 */
prov: string | null, 
/**
 * The A2A relation of a derived edge.
 */
a2a: string | null, };

export type ViewMode = "whole" | "neighbourhood" | "clusters" | "members";

export type ViewNode = { id: string, label: string, 
/**
 * `ProvEntity`, `ProvActivity`, `ProvAgent`, or none.
 */
base_type: string | null, x: number, y: number, w: number, h: number, layer: number, 
/**
 * Arrival order in the graph (0 = first).
 */
arrival: number, agent: string | null, context: string | null, 
/**
 * Signature status of a signed A2AP document (`valid`, `invalid`, ...).
 */
status: string | null, 
/**
 * Claim, quote or content text (its first 200 characters), for labels and search.
 */
text: string | null, 
/**
 * A statement's standing, its headline verdict: the worst of signature, evidence and
 * consensus (`invalid_signature` … `verified`, docs/FORMATS.md "Standing").
 */
standing?: string, 
/**
 * In a cluster view, what the cluster this box stands for holds.
 */
cluster?: ClusterInfo, };

export type ViewRequest = { graph: string, 
/**
 * Draw the neighbourhood of this node instead of the whole graph.
 */
root?: string, 
/**
 * Hops around `root` (default: the facade's).
 */
depth?: number, 
/**
 * Most nodes drawn whole; above it the view is a neighbourhood (default 50,000).
 */
limit?: number, 
/**
 * Width of the screen area the view is drawn in (any unit, with `viewport_height`): a
 * graph's drawing is packed to its aspect ratio when it is first laid out (default 3:2).
 */
viewport_width?: number, 
/**
 * Height of that screen area.
 */
viewport_height?: number, 
/**
 * Draw this cluster (a key from a cluster view) opened: its sub-clusters, or its nodes
 * when they are at most `limit`.
 */
cluster?: string, 
/**
 * Send the nodes and edges as columns (`View::columns`, docs/FORMATS.md "Views in
 * columns") rather than a record each.
 */
columns?: boolean, };
