//! Every operation a UI can call, declared once (with `api::ops::declare_operations!`):
//! its route, types, error codes and what it runs over the facade. From this list come
//! `provex serve`'s routes, the desktop shell's generic command and capability file, the
//! TypeScript types and client (`provex contract`), and the dispatch both transports run,
//! so no argument handling, default or forwarder is written twice. A call carries what a
//! transport knows beyond the request: whether it needs a token, a cancel flag for
//! ingests, the body's bytes for the operations that take a file, and, in the desktop
//! shell, the host that does what needs the user's machine (dialogs, settings).
//!
//! To add an operation: give the source's folder the method (`impl Session` in its `ops.rs`;
//! the facade only for what spans sources), declare the operation below in one entry, run
//! `provex contract`, and call it from the UI.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use futures_util::future::BoxFuture;
use futures_util::stream::BoxStream;
use futures_util::StreamExt;
use tokio::io::AsyncWriteExt;

use super::log_proofs::{LogInclusion, LogStatus};
use super::runs::RunList;
use super::{IngestReport, Provex, Quiet, ViewRequest as LiveViewRequest};
use crate::api::ops::{declare_operations, Args, Method, OpInfo, Transport};
use crate::api::*;
use crate::ask::Answer;
use crate::diff::GraphDiff;
use crate::error::{Error, Result};
use crate::ingest::{IngestOptions, LineBudget};
use crate::search::GraphHit;
use crate::sources::knowledge::ops::ResourceKnowledge;
use crate::sources::lineage::views::{Comparison, LineageGraph, LineageSummary};
use crate::sources::otel::views::{
    MessageOrigin, SpanDetails, TraceAgents, TracePage, TraceSpans, DEFAULT_SPANS, DEFAULT_TRACES,
};
use crate::sources::reasoning::views::{ReasoningChain, SessionSummary};
use crate::sources::statements::Trail;
use crate::store::{NodeRecord, PathResult, Stats, Subgraph, Table};

/// A request body streamed in (an upload).
pub type Payload = BoxStream<'static, std::io::Result<Bytes>>;

/// What only the desktop shell can do: it implements this, `provex serve` has none.
pub trait DesktopHost: Send + Sync {
    fn settings(&self) -> Result<SettingsView>;
    fn save_settings(&self, update: SettingsUpdate) -> Result<SettingsView>;
    /// Asks where to save `bytes` (suggesting `name`) and saves them; `None` if cancelled.
    fn save_file(&self, name: String, bytes: Vec<u8>) -> BoxFuture<'_, Result<Option<String>>>;
    /// The window now shows `graph` (menu actions act on it).
    fn showing(&self, _graph: &str) {}
}

/// One operation call as a transport makes it.
pub struct Call<'a> {
    provex: &'a Arc<Provex>,
    host: Option<&'a dyn DesktopHost>,
    auth: bool,
    cancel: Arc<AtomicBool>,
    payload: Mutex<Option<Payload>>,
    limits: BodyLimits,
}

/// What a server allows a streamed request body (`POST …/events`).
#[derive(Debug, Clone)]
pub struct BodyLimits {
    /// The longest line taken; a longer one is rejected and the body goes on.
    pub max_line_bytes: usize,
    /// The memory every body's unfinished lines share.
    pub line_budget: Option<LineBudget>,
}

impl Default for BodyLimits {
    fn default() -> Self {
        BodyLimits { max_line_bytes: crate::ingest::DEFAULT_MAX_LINE_BYTES, line_budget: None }
    }
}

impl<'a> Call<'a> {
    /// A call over HTTP: `auth` says whether the server needs a token.
    pub fn http(provex: &'a Arc<Provex>, auth: bool) -> Self {
        Call {
            provex,
            host: None,
            auth,
            cancel: Arc::new(AtomicBool::new(false)),
            payload: Mutex::new(None),
            limits: BodyLimits::default(),
        }
    }

    /// A call from the desktop window; `cancel` is tripped when the app closes.
    pub fn desktop(provex: &'a Arc<Provex>, host: &'a dyn DesktopHost, cancel: Arc<AtomicBool>) -> Self {
        Call {
            provex,
            host: Some(host),
            auth: false,
            cancel,
            payload: Mutex::new(None),
            limits: BodyLimits::default(),
        }
    }

    /// The limits a streamed body is read under.
    pub fn with_limits(mut self, limits: BodyLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The request body, for the operations that take a file's bytes.
    pub fn with_payload(self, payload: Payload) -> Self {
        *self.payload.lock().expect("payload") = Some(payload);
        self
    }

    /// The request body as one piece of bytes.
    pub fn with_bytes(self, bytes: Vec<u8>) -> Self {
        let chunk = Bytes::from(bytes);
        self.with_payload(futures_util::stream::once(async move { Ok(chunk) }).boxed())
    }

    /// Runs the operation `name`; the response as JSON text.
    pub async fn run(&self, name: &str, args: Args) -> Result<String> {
        let op = find_operation(name)
            .ok_or_else(|| Error::NotFound { what: "operation", name: name.to_owned() })?;
        if op.transport == Transport::Desktop && self.host.is_none() {
            return Err(Error::Unsupported(format!("`{name}` is only offered by the desktop app")));
        }
        if may_read_a_replica(op) {
            return crate::store::replicas::replica_reads(self.dispatch(name, args)).await;
        }
        self.dispatch(name, args).await
    }

    fn host(&self) -> Result<&'a dyn DesktopHost> {
        self.host.ok_or_else(|| Error::Unsupported("only the desktop app offers this".into()))
    }

    fn take_payload(&self) -> Result<Payload> {
        self.payload
            .lock()
            .expect("payload")
            .take()
            .ok_or_else(|| Error::BadRequest("the file's bytes are missing".into()))
    }

    async fn ingest_paths(
        &self,
        graph: &str,
        paths: &[PathBuf],
        format: Option<&str>,
    ) -> Result<IngestReport> {
        crate::store::validate_graph_name(graph)?;
        let format = super::parse_format(format)?;
        let opts = IngestOptions { format, ..Default::default() };
        self.provex.ingest(graph, paths, opts, self.cancel.clone(), Arc::new(Quiet)).await
    }
}

/// Whether an operation only shows a graph, so that on a store reading from a cluster's
/// replicas (`read_from=replicas`, docs/SCALING.md) its graph queries may be served by one.
/// The log's status and inclusion compare the graph with its log, written on the primary:
/// they read the primary.
fn may_read_a_replica(op: &OpInfo) -> bool {
    (op.method == Method::Get && !matches!(op.name, "log_status" | "log_inclusion"))
        || matches!(op.name, "query" | "ask")
}

/// The declaration of operation `name`.
pub fn find_operation(name: &str) -> Option<&'static OpInfo> {
    OPERATIONS.iter().find(|o| o.name == name)
}

declare_operations! { impl Call<'_> {
    /// The backend's version, its database, and whether requests need a token.
    health(NoArgs) -> Health = Get "/health" Query Both [] => |c, _| Ok(c.provex.health(c.auth));
    /// The graphs in the database.
    graphs(NoArgs) -> Vec<String> = Get "/graphs" Query Both [] => |c, _| c.provex.graphs().await;
    /// Every graph with its sources, size, time span, agents and problem counts (the Runs
    /// view); with `since`, answered once a graph is written after that version.
    runs(RunsRequest) -> RunList = Get "/runs" Query Both [] => |c, req| c.provex.runs(req.since, req.wait()).await;
    /// Deletes a graph.
    delete_graph(GraphRequest) -> () = Delete "/graphs/{graph}" Query Both [Usage, NotFound]
        => |c, req| c.provex.delete_graph(&req.graph).await;
    /// Node and edge counts by label and type.
    stats(GraphRequest) -> Stats = Get "/graphs/{graph}/stats" Query Both [Usage, NotFound]
        => |c, req| c.provex.stats(&req.graph).await;
    /// A drawable view of a graph (whole below the limit; above it clusters, or the
    /// neighbourhood of `root`).
    view(ViewRequest) -> View = Get "/graphs/{graph}/view" Query Both [Usage, NotFound]
        => |c, req| c.view(req).await;
    /// The edges between the boxes of a cluster view, with their counts (read after the boxes:
    /// on a graph of a million nodes they take seconds to count).
    cluster_edges(ClusterEdgesRequest) -> Vec<ViewEdge> = Get "/graphs/{graph}/cluster-edges" Query Both
        [Usage, NotFound] => |c, req| c.provex.cluster_edges(&req.graph, req.cluster.as_deref().filter(|c| !c.is_empty())).await;
    /// One node with its properties.
    node(NodeRequest) -> NodeRecord = Get "/graphs/{graph}/node" Query Both [Usage, NotFound]
        => |c, req| c.provex.node(&req.graph, &req.id).await;
    /// A node and the nodes one edge away.
    neighbours(NodeRequest) -> Subgraph = Get "/graphs/{graph}/neighbours" Query Both [Usage, NotFound]
        => |c, req| c.provex.neighbours(&req.graph, &req.id).await;
    /// Everything a node came from (`up`) or that came from it (`down`).
    trace(TraceRequest) -> Subgraph = Get "/graphs/{graph}/trace" Query Both [Usage, NotFound]
        => |c, req| c.provex.trace(&req.graph, &req.id, req.dir(), req.depth()).await;
    /// A shortest path between two nodes, ignoring direction; null when there is none.
    path(PathRequest) -> Option<PathResult> = Get "/graphs/{graph}/path" Query Both [Usage, NotFound]
        => |c, req| c.provex.path(&req.graph, &req.from, &req.to).await;
    /// What graph `b` adds, removes and changes with respect to graph `a`, by node and edge
    /// identity; with `trace_a` and `trace_b`, those two traces (runs) of them.
    diff(DiffRequest) -> GraphDiff = Get "/diff" Query Both [Usage, NotFound]
        => |c, req| c.provex.diff_request(&req.a, &req.b, req.trace_a.as_deref(), req.trace_b.as_deref()).await;
    /// The graph as W3C PROV (PROV-JSON, PROV-N, PROV-O Turtle or JSON-LD).
    export_prov(ExportRequest) -> ExportedDocument = Get "/graphs/{graph}/export" Query Both [Usage, NotFound]
        => |c, req| c.export_prov(req).await;
    /// A self-verifying audit bundle (JSON-LD) of statements (every one when none are named),
    /// signed with a key file on the backend's machine when one is named (`provex bundle`).
    bundle(BundleRequest) -> ExportedDocument = Post "/graphs/{graph}/bundle" Json Both
        [Usage, NotFound, Io, Input, ForbiddenPath] => |c, req| c.bundle(req).await;
    /// The prompt lineages of a graph: each with its root, size, heads and time span.
    lineages(GraphRequest) -> Vec<LineageSummary> = Get "/graphs/{graph}/lineages" Query Both [Usage, NotFound]
        => |c, req| c.provex.lineages(&req.graph).await;
    /// The whole lineage of a prompt (`id`: a UUID or `prompt:<uuid>`): prompts with their
    /// text, and the evolutions among them.
    lineage(NodeRequest) -> LineageGraph = Get "/graphs/{graph}/lineage" Query Both [Usage, NotFound]
        => |c, req| c.provex.lineage_graph(&req.graph, &req.id).await;
    /// Two prompts compared: Jaccard, edit ratio, semantic part, confidence, the suggested
    /// evolution type and a word diff.
    lineage_compare(LineageCompareRequest) -> Comparison = Get "/graphs/{graph}/lineage/compare" Query Both
        [Usage, NotFound] => |c, req| c.provex.lineage_compare(&req.graph, &req.a, &req.b, true, true).await;
    /// The TrustGraph sessions of a graph: question, status, steps, time.
    sessions(GraphRequest) -> Vec<SessionSummary> = Get "/graphs/{graph}/sessions" Query Both [Usage, NotFound]
        => |c, req| c.provex.sessions(&req.graph).await;
    /// A session's chain from its question to a step (`id`: an answer, conclusion or
    /// synthesis), each step with its parts, the dialog, and the nodes of other sources it names.
    reasoning(NodeRequest) -> ReasoningChain = Get "/graphs/{graph}/reasoning" Query Both [Usage, NotFound]
        => |c, req| c.provex.reasoning(&req.graph, &req.id).await;
    /// The OpenTelemetry traces of a graph, newest first: each with its root span, services,
    /// agents, duration, span and error counts, tokens in and out, and when it started.
    traces(TracesRequest) -> TracePage = Get "/graphs/{graph}/traces" Query Both [Usage, NotFound]
        => |c, req| c.provex.traces(&req.graph, req.offset.unwrap_or(0), req.limit.unwrap_or(DEFAULT_TRACES)).await;
    /// One trace's spans in start order for a waterfall (parent, times, status, service,
    /// agent, model, links), at most `limit`, with `truncated` when there are more.
    trace_spans(TraceSpansRequest) -> TraceSpans = Get "/graphs/{graph}/traces/{trace}" Query Both [Usage, NotFound]
        => |c, req| c.provex.trace_spans(&req.graph, &req.trace, req.limit.unwrap_or(DEFAULT_SPANS)).await;
    /// One trace's agents as boxes and the hand-offs between them (delegations, span links,
    /// messages passed), with counts and time.
    trace_agents(TraceSpansRequest) -> TraceAgents = Get "/graphs/{graph}/traces/{trace}/agents" Query Both [Usage, NotFound]
        => |c, req| c.provex.trace_agents(&req.graph, &req.trace, req.limit.unwrap_or(DEFAULT_SPANS)).await;
    /// One span (`id`: `otel:<trace id>:<span id>`): its attributes, messages in order, tool
    /// arguments and result, tokens, model and exception.
    span(NodeRequest) -> SpanDetails = Get "/graphs/{graph}/span" Query Both [Usage, NotFound]
        => |c, req| c.provex.span_details(&req.graph, &req.id).await;
    /// Where a message came from: the walk back from it to the call that produced it.
    message_origin(NodeRequest) -> MessageOrigin = Get "/graphs/{graph}/message-origin" Query Both [Usage, NotFound]
        => |c, req| c.provex.message_origin(&req.graph, &req.id).await;
    /// Read-only Cypher.
    query(QueryRequest) -> Table = Post "/graphs/{graph}/query" Json Both [Usage, Query, WriteRefused]
        => |c, req| c.provex.query(&req.graph, &req.cypher).await;
    /// A question in plain language: a chat endpoint writes Cypher from the graph's real
    /// schema; it runs read-only and the answer shows it.
    ask(AskRequest) -> Answer = Post "/graphs/{graph}/ask" Json Both
        [Usage, Query, LlmNotConfigured, Llm, WriteRefused] => |c, req| c.provex.ask(&req.graph, &req.question).await;
    /// A knowledge-graph resource's statements, each with its certainty,
    /// provenance and history: who added or removed it, when, why, and the verification status.
    knowledge(NodeRequest) -> ResourceKnowledge = Get "/graphs/{graph}/knowledge" Query Both
        [Usage, NotFound] => |c, req| c.provex.kg_resource(&req.graph, &req.id).await;
    /// One node's place in its graph's tamper-evident log: its leaves with their inclusion
    /// paths at a signed checkpoint (and when it was signed), the instance's verifier key,
    /// the line it keeps and its stored form against its digest, to be checked in the browser.
    log_inclusion(NodeRequest) -> LogInclusion = Get "/graphs/{graph}/log/inclusion" Query Both [Usage, NotFound]
        => |c, req| c.provex.log_inclusion(&req.graph, &req.id).await;
    /// Whether a graph's store matches its log: its size, latest checkpoint, and the nodes
    /// whose stored form differs (re-hashed under a time limit; `complete` says if all were).
    log_status(GraphRequest) -> LogStatus = Get "/graphs/{graph}/log/status" Query Both [Usage, NotFound]
        => |c, req| c.provex.log_status(&req.graph).await;
    /// A statement's evidence and verification trail.
    trail(StatementRequest) -> Trail = Get "/graphs/{graph}/trail" Query Both [Usage, NotFound]
        => |c, req| c.provex.trail(&req.graph, &req.statement).await;
    /// A source document's full text.
    source(NodeRequest) -> SourceText = Get "/graphs/{graph}/source" Query Both [Usage, NotFound]
        => |c, req| c.provex.source_text(&req.graph, &req.id).await;
    /// Nodes whose name or text contains `q`.
    search(SearchRequest) -> Vec<SearchHit> = Get "/graphs/{graph}/search" Query Both [Usage]
        => |c, req| c.provex.search(&req.graph, &req.q, req.limit()).await;
    /// Searches every graph: nodes whose id is `q` (a node's name, a trace or span id), then
    /// those whose words match it (a claim, a quote, an agent, a document, a prompt), best
    /// first, each with its graph.
    search_all(SearchAllRequest) -> Vec<GraphHit> = Get "/search" Query Both [Usage, Query]
        => |c, req| c.provex.search_all(&req.q, req.limit()).await;
    /// Saves the body in the uploads folder and ingests it.
    upload(UploadRequest) -> IngestReport = Post "/graphs/{graph}/upload" Bytes Both
        [Usage, Io, Input, PayloadTooLarge, ForbiddenPath, NotStored] => |c, req| c.upload(req).await;
    /// Ingests a chunked NDJSON body as it arrives (an agent pushing records while it works):
    /// every open view of the graph grows meanwhile. The body is read as fast as the database
    /// takes it, so a faster sender is slowed down, never dropped. Answers when the body ends.
    events(EventsRequest) -> IngestReport = Post "/graphs/{graph}/events" Bytes Both [Usage, Input, NotFound, NotStored]
        => |c, req| c.events(req).await;
    /// Follows a growing file on the backend's machine, as a job.
    follow(FollowRequest) -> Job = Post "/graphs/{graph}/follow" Json Both [Usage, Io, ForbiddenPath]
        => |c, req| c.provex.start_follow(&req.graph, PathBuf::from(req.path), req.format.as_deref());
    /// Runs the council demo into a graph, as a job.
    demo(DemoRequest) -> Job = Post "/graphs/{graph}/demo" Json Both [Usage]
        => |c, req| c.provex.start_demo(&req.graph, req.pace_ms);
    /// Re-lays a graph out: a preview of the moves for the caller alone, or with `save` the
    /// layout every viewer is served (the moves also arrive on its stream).
    tidy(TidyRequest) -> TidyResult = Post "/graphs/{graph}/tidy" Json Both [Usage, NotFound]
        => |c, req| c.tidy(req).await;
    /// The background jobs.
    jobs(NoArgs) -> Vec<Job> = Get "/jobs" Query Both [] => |c, _| Ok(c.provex.jobs());
    /// Stops a job.
    stop_job(JobRequest) -> Job = Delete "/jobs/{id}" Query Both [NotFound] => |c, req| c.provex.stop_job(&req.id);
    /// Ingests files on this machine (the desktop's open dialog and drops).
    ingest_files(IngestFilesRequest) -> IngestReport = Post "" Json Desktop [Usage, Io, Input, Closing, NotStored]
        => |c, req| c.ingest_files(req).await;
    /// The desktop database settings.
    get_settings(NoArgs) -> SettingsView = Post "" Json Desktop [Io] => |c, _| c.host().and_then(|h| h.settings());
    /// Saves the desktop database settings (they take effect at the next start).
    save_settings(SettingsUpdate) -> SettingsView = Post "" Json Desktop [Io]
        => |c, req| c.host().and_then(|h| h.save_settings(req));
    /// Saves the body where the user chooses in a save dialog; the path, or null if cancelled.
    save_file(SaveFileRequest) -> Option<String> = Post "" Bytes Desktop [Io] => |c, req| c.save_file(req).await;
}}

/// What the operations that do more than call the facade run.
impl Call<'_> {
    async fn view(&self, req: ViewRequest) -> Result<View> {
        let aspect = match (req.viewport_width, req.viewport_height) {
            (Some(w), Some(h)) if w > 0 && h > 0 => Some(f64::from(w) / f64::from(h)),
            _ => None,
        };
        let live = LiveViewRequest {
            root: req.root.filter(|r| !r.is_empty()),
            depth: req.depth,
            limit: req.limit,
            aspect,
            cluster: req.cluster.filter(|c| !c.is_empty()),
            columns: req.columns.unwrap_or(false),
        };
        let view = self.provex.view(&req.graph, live).await?;
        if let Some(host) = self.host {
            host.showing(&req.graph);
        }
        Ok(view)
    }

    async fn export_prov(&self, req: ExportRequest) -> Result<ExportedDocument> {
        let format: crate::sources::prov::ProvFormat = req.format.parse().map_err(Error::Usage)?;
        let text = self.provex.export_prov(&req.graph, format).await?;
        Ok(ExportedDocument {
            format: format.to_string(),
            media_type: format.media_type().to_owned(),
            file_name: format!("provex-{}.{}", req.graph, format.extension()),
            text,
        })
    }

    async fn bundle(&self, req: BundleRequest) -> Result<ExportedDocument> {
        let key = match req.key.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
            Some(k) => Some(self.provex.paths.check(std::path::Path::new(k), "the key file")?),
            None => None,
        };
        let statements = req.statements.unwrap_or_default();
        let text = self.provex.bundle(&req.graph, &statements, key.as_deref()).await?;
        Ok(ExportedDocument {
            format: "audit-bundle".to_owned(),
            media_type: "application/ld+json".to_owned(),
            file_name: format!("provex-{}-bundle.jsonld", req.graph),
            text,
        })
    }

    async fn upload(&self, req: UploadRequest) -> Result<IngestReport> {
        crate::store::validate_graph_name(&req.graph)?;
        super::parse_format(req.format.as_deref())?;
        let mut body = self.take_payload()?;
        let path = self.provex.new_upload_path(&req.name)?;
        let mut file = tokio::fs::File::create(&path).await.map_err(|e| Error::io(&path, e))?;
        while let Some(chunk) = body.next().await {
            let chunk = chunk.map_err(|e| match e.kind() {
                std::io::ErrorKind::FileTooLarge => Error::PayloadTooLarge(e.to_string()),
                _ => Error::Usage(format!("upload interrupted: {e}")),
            })?;
            file.write_all(&chunk).await.map_err(|e| Error::io(&path, e))?;
        }
        file.flush().await.map_err(|e| Error::io(&path, e))?;
        drop(file);
        self.ingest_paths(&req.graph, &[path], req.format.as_deref()).await
    }

    async fn events(&self, req: EventsRequest) -> Result<IngestReport> {
        crate::store::validate_graph_name(&req.graph)?;
        let format = super::parse_format(req.format.as_deref())?;
        let body = self.take_payload()?;
        let rejects = self.provex.new_upload_path(&format!("events-{}.jsonl", req.graph))?;
        let opts = IngestOptions {
            format,
            rejects: Some(rejects.with_extension("rejected.jsonl")),
            max_line_bytes: self.limits.max_line_bytes,
            line_budget: self.limits.line_budget.clone(),
            ..Default::default()
        };
        let name = PathBuf::from(format!("POST /api/graphs/{}/events", req.graph));
        // On a task of its own: a client that goes away mid-body ends the body, and every
        // line it sent whole is still written.
        let (provex, cancel) = (self.provex.clone(), self.cancel.clone());
        let ingest = tokio::spawn(async move {
            provex.ingest_stream(&req.graph, name, body, opts, cancel, Arc::new(Quiet)).await
        });
        ingest.await.map_err(|e| Error::Server(format!("events ingest: {e}")))?
    }

    async fn tidy(&self, req: TidyRequest) -> Result<TidyResult> {
        let save = req.save.unwrap_or(false);
        let moves = if save {
            self.provex.tidy(&req.graph).await?
        } else {
            self.provex.tidy_preview(&req.graph).await?
        };
        Ok(TidyResult { moves, saved: save })
    }

    async fn ingest_files(&self, req: IngestFilesRequest) -> Result<IngestReport> {
        self.host()?;
        let paths: Vec<PathBuf> = req.paths.into_iter().map(PathBuf::from).collect();
        self.ingest_paths(&req.graph, &paths, req.format.as_deref()).await
    }

    async fn save_file(&self, req: SaveFileRequest) -> Result<Option<String>> {
        let host = self.host()?;
        let mut body = self.take_payload()?;
        let mut bytes = Vec::new();
        while let Some(chunk) = body.next().await {
            bytes.extend_from_slice(&chunk.map_err(|e| Error::Usage(format!("save interrupted: {e}")))?);
        }
        host.save_file(req.name, bytes).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ops::path_fields;
    use crate::api::registry::Registry;

    #[test]
    fn names_and_routes_are_unique_and_path_fields_are_request_fields() {
        let config = || ts_rs::Config::new().with_large_int("number");
        let cfg = config();
        let mut seen = std::collections::HashSet::new();
        for op in OPERATIONS {
            assert!(seen.insert(op.name), "{} declared twice", op.name);
            match op.transport {
                Transport::Both => {
                    assert!(op.path.starts_with('/'), "{}", op.name);
                    assert!(seen
                        .insert(Box::leak(format!("{} {}", op.method.as_str(), op.path).into_boxed_str())));
                }
                Transport::Desktop => assert!(op.path.is_empty(), "{}", op.name),
            }
            let mut r = Registry::new(config());
            (op.types)(&mut r);
            let request = (op.request)(&cfg);
            let decls = r.into_decls();
            let decl = &decls.iter().find(|(n, _)| *n == request).expect("the request is declared").1;
            for field in path_fields(op.path) {
                assert!(
                    decl.contains(&format!("{field}: string")),
                    "{}: {field} is not a string field of {decl}",
                    op.name
                );
            }
            assert_eq!(find_operation(op.name).map(|o| o.name), Some(op.name));
        }
        assert!(find_operation("nope").is_none());
    }
}
