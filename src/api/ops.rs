//! Every operation a UI can call, declared once: its name, HTTP method and route, where its
//! arguments travel, its request and response types (defaults live on the request types),
//! and the error codes it can answer with besides the ones every operation can
//! (`bad_request`, `connection`, `connection_lost`, `server`). From this list come the
//! HTTP routes of `provex serve` (`serve::routes`), the desktop shell's one generic
//! command, its capability list, and the TypeScript client both UI transports use
//! (`typescript`). The facade implements [`Handlers`]; the compiler then insists that every
//! declared operation has exactly one implementation.
//!
//! To add an operation: declare it here, implement it in `facade::calls`, regenerate the
//! TypeScript (`provex contract`), and call it from the UI.

use serde::de::DeserializeOwned;
use serde::Serialize;
use ts_rs::{Config, TS};

use super::contract::*;
use super::requests::*;
use super::ErrorCode;
use crate::a2ap::Trail;
use crate::diff::GraphDiff;
use crate::error::{Error, Result};
use crate::facade::IngestReport;
use crate::lineage::views::{Comparison, LineageGraph, LineageSummary};
use crate::store::{NodeRecord, PathResult, Stats, Subgraph, Table};
use crate::trustgraph::views::{ReasoningChain, SessionSummary};

/// The HTTP method of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Delete => "DELETE",
        }
    }
}

/// Where an operation's arguments travel over HTTP, besides those named in its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// In the query string.
    Query,
    /// As a JSON object in the body.
    Json,
    /// In the query string; the body is a file's bytes (over IPC: the raw request body,
    /// the arguments in the `args` header).
    Bytes,
}

impl Body {
    pub fn as_str(self) -> &'static str {
        match self {
            Body::Query => "query",
            Body::Json => "json",
            Body::Bytes => "bytes",
        }
    }
}

/// Which transports offer an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// `provex serve` and the desktop shell.
    Both,
    /// Only the desktop shell: it needs the user's machine (dialogs, settings, local paths).
    Desktop,
}

/// An operation's declaration.
#[derive(Debug, Clone, Copy)]
pub struct OpInfo {
    /// snake_case: the IPC name; the TypeScript method is its camelCase.
    pub name: &'static str,
    pub doc: &'static str,
    pub method: Method,
    /// Under `/api`; `{field}` segments are request fields. Empty for desktop-only ones.
    pub path: &'static str,
    pub body: Body,
    pub transport: Transport,
    pub errors: &'static [ErrorCode],
    /// The TypeScript names of the request and response types.
    pub request: fn(&Config) -> String,
    pub response: fn(&Config) -> String,
}

/// A stream's declaration: subscribed to with its request, it yields messages.
#[derive(Debug, Clone, Copy)]
pub struct StreamInfo {
    pub name: &'static str,
    pub doc: &'static str,
    /// Over HTTP: server-sent events at this path (under `/api`).
    pub path: &'static str,
    pub request: fn(&Config) -> String,
    pub message: fn(&Config) -> String,
}

/// The streams: a graph's live changes.
pub const STREAMS: &[StreamInfo] = &[StreamInfo {
    name: "subscribe",
    doc: "A graph's changes after `since`, numbered without gaps; a `reset` when they are gone.",
    path: "/graphs/{graph}/stream",
    request: <StreamRequest as TS>::name,
    message: <StreamMessage as TS>::name,
}];

/// The desktop shell's IPC commands: every operation goes through `call` (its name in the
/// `op` header), streams through `subscribe` and `unsubscribe`.
pub const DESKTOP_COMMANDS: &[&str] = &["call", "subscribe", "unsubscribe"];

/// An operation's arguments as a transport received them.
#[derive(Debug, Clone)]
pub enum Args {
    /// A JSON value (IPC arguments, or an HTTP JSON body with the path's fields added).
    Json(serde_json::Value),
    /// A URL-encoded query (an HTTP query string with the path's fields added).
    Query(String),
}

impl Args {
    /// Decodes into the operation's request type; what is missing or malformed is a
    /// `bad_request` naming the field.
    pub fn decode<T: DeserializeOwned>(self) -> Result<T> {
        match self {
            Args::Query(q) => serde_urlencoded::from_str(&q)
                .map_err(|e| Error::BadRequest(format!("invalid query parameters: {e}"))),
            Args::Json(v) => {
                let v = if v.is_null() { serde_json::Value::Object(Default::default()) } else { v };
                serde_json::from_value(v).map_err(|e| Error::BadRequest(format!("invalid arguments: {e}")))
            }
        }
    }
}

fn to_json<T: Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::Server(format!("cannot encode the response: {e}")))
}

macro_rules! operations {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident($req:ty) -> $resp:ty = $method:ident $path:literal $body:ident $transport:ident
            [$($err:ident),*];
    )*) => {
        /// Every operation, in declaration order.
        pub const OPERATIONS: &[OpInfo] = &[$(
            OpInfo {
                name: stringify!($name),
                doc: concat!($($doc, "\n"),*),
                method: Method::$method,
                path: $path,
                body: Body::$body,
                transport: Transport::$transport,
                errors: &[$(ErrorCode::$err),*],
                request: <$req as TS>::name,
                response: <$resp as TS>::name,
            },
        )*];

        /// The implementation of every operation (the facade's, in `facade::calls`).
        #[allow(async_fn_in_trait)]
        pub trait Handlers {
            $(
                $(#[doc = $doc])*
                async fn $name(&self, req: $req) -> Result<$resp>;
            )*
        }

        /// Runs the operation `name` with `args` on `handlers`; the response as JSON text.
        pub async fn dispatch<H: Handlers>(handlers: &H, name: &str, args: Args) -> Result<String> {
            match name {
                $(
                    stringify!($name) => {
                        let req: $req = args.decode()?;
                        to_json(&handlers.$name(req).await?)
                    }
                )*
                _ => Err(Error::NotFound { what: "operation", name: name.to_owned() }),
            }
        }

        /// Every request type's TypeScript declaration, for the generator.
        pub(crate) fn request_decls(cfg: &Config, out: &mut Vec<(String, String)>) {
            $(
                out.push((<$req as TS>::name(cfg), <$req as TS>::decl(cfg)));
            )*
        }
    };
}

operations! {
    /// The backend's version, its database, and whether requests need a token.
    health(NoArgs) -> Health = Get "/health" Query Both [];
    /// The graphs in the database.
    graphs(NoArgs) -> Vec<String> = Get "/graphs" Query Both [];
    /// Deletes a graph.
    delete_graph(GraphRequest) -> () = Delete "/graphs/{graph}" Query Both [Usage, NotFound];
    /// Node and edge counts by label and type.
    stats(GraphRequest) -> Stats = Get "/graphs/{graph}/stats" Query Both [Usage, NotFound];
    /// A drawable view of a graph (whole below the limit; above it clusters, or the
    /// neighbourhood of `root`).
    view(ViewRequest) -> View = Get "/graphs/{graph}/view" Query Both [Usage, NotFound];
    /// The edges between the boxes of a cluster view, with their counts (read after the boxes:
    /// on a graph of a million nodes they take seconds to count).
    cluster_edges(ClusterEdgesRequest) -> Vec<ViewEdge> = Get "/graphs/{graph}/cluster-edges" Query Both
        [Usage, NotFound];
    /// One node with its properties.
    node(NodeRequest) -> NodeRecord = Get "/graphs/{graph}/node" Query Both [Usage, NotFound];
    /// A node and the nodes one edge away.
    neighbours(NodeRequest) -> Subgraph = Get "/graphs/{graph}/neighbours" Query Both [Usage, NotFound];
    /// Everything a node came from (`up`) or that came from it (`down`).
    trace(TraceRequest) -> Subgraph = Get "/graphs/{graph}/trace" Query Both [Usage, NotFound];
    /// A shortest path between two nodes, ignoring direction; null when there is none.
    path(PathRequest) -> Option<PathResult> = Get "/graphs/{graph}/path" Query Both [Usage, NotFound];
    /// What graph `b` adds, removes and changes with respect to graph `a`, by node and edge identity.
    diff(DiffRequest) -> GraphDiff = Get "/diff" Query Both [Usage, NotFound];
    /// The graph as W3C PROV (PROV-JSON, PROV-N, PROV-O Turtle or JSON-LD).
    export_prov(ExportRequest) -> ExportedDocument = Get "/graphs/{graph}/export" Query Both [Usage, NotFound];
    /// A self-verifying audit bundle (JSON-LD) of statements (every one when none are named),
    /// signed with a key file on the backend's machine when one is named (`provex bundle`).
    bundle(BundleRequest) -> ExportedDocument = Post "/graphs/{graph}/bundle" Json Both
        [Usage, NotFound, Io, Input, ForbiddenPath];
    /// The prompt lineages of a graph: each with its root, size, heads and time span.
    lineages(GraphRequest) -> Vec<LineageSummary> = Get "/graphs/{graph}/lineages" Query Both [Usage, NotFound];
    /// The whole lineage of a prompt (`id`: a UUID or `prompt:<uuid>`): prompts with their
    /// text, and the evolutions among them.
    lineage(NodeRequest) -> LineageGraph = Get "/graphs/{graph}/lineage" Query Both [Usage, NotFound];
    /// Two prompts compared: Jaccard, edit ratio, semantic part, confidence, the suggested
    /// evolution type and a word diff.
    lineage_compare(LineageCompareRequest) -> Comparison = Get "/graphs/{graph}/lineage/compare" Query Both
        [Usage, NotFound];
        /// The TrustGraph sessions of a graph (reasoning traces): question, status, steps, time.
    sessions(GraphRequest) -> Vec<SessionSummary> = Get "/graphs/{graph}/sessions" Query Both [Usage, NotFound];
    /// A session's chain from its question to a step (`id`: an answer, conclusion or
    /// synthesis), each step with its parts, the dialog, and the nodes of other sources it names.
    reasoning(NodeRequest) -> ReasoningChain = Get "/graphs/{graph}/reasoning" Query Both [Usage, NotFound];
    /// Read-only Cypher.
    query(QueryRequest) -> Table = Post "/graphs/{graph}/query" Json Both [Usage, Query, WriteRefused];
    /// A question in plain language: a chat endpoint writes Cypher from the graph's real
    /// schema; it runs read-only and the answer shows it.
    ask(AskRequest) -> crate::ask::Answer = Post "/graphs/{graph}/ask" Json Both
        [Usage, Query, LlmNotConfigured, Llm, WriteRefused];
    /// A knowledge-graph resource's statements, each with its certainty,
    /// provenance and history: who added or removed it, when, why, and the verification status.
    knowledge(NodeRequest) -> crate::facade::knowledge::ResourceKnowledge = Get "/graphs/{graph}/knowledge" Query Both
        [Usage, NotFound];
    /// A statement's evidence and verification trail.
    trail(StatementRequest) -> Trail = Get "/graphs/{graph}/trail" Query Both [Usage, NotFound];
    /// A source document's full text.
    source(NodeRequest) -> SourceText = Get "/graphs/{graph}/source" Query Both [Usage, NotFound];
    /// Nodes whose name or text contains `q`.
    search(SearchRequest) -> Vec<SearchHit> = Get "/graphs/{graph}/search" Query Both [Usage];
    /// Saves the body in the uploads folder and ingests it.
    upload(UploadRequest) -> IngestReport = Post "/graphs/{graph}/upload" Bytes Both
        [Usage, Io, Input, PayloadTooLarge, ForbiddenPath, NotStored];
    /// Ingests a chunked NDJSON body as it arrives (an agent pushing records while it works):
    /// every open view of the graph grows meanwhile. The body is read as fast as the database
    /// takes it, so a faster sender is slowed down, never dropped. Answers when the body ends.
    events(EventsRequest) -> IngestReport = Post "/graphs/{graph}/events" Bytes Both [Usage, Input, NotFound, NotStored];
    /// Follows a growing file on the backend's machine, as a job.
    follow(FollowRequest) -> Job = Post "/graphs/{graph}/follow" Json Both [Usage, Io, ForbiddenPath];
    /// Runs the council demo into a graph, as a job.
    demo(DemoRequest) -> Job = Post "/graphs/{graph}/demo" Json Both [Usage];
    /// Re-lays a graph out: a preview of the moves for the caller alone, or with `save` the
    /// layout every viewer is served (the moves also arrive on its stream).
    tidy(TidyRequest) -> TidyResult = Post "/graphs/{graph}/tidy" Json Both [Usage, NotFound];
    /// The background jobs.
    jobs(NoArgs) -> Vec<Job> = Get "/jobs" Query Both [];
    /// Stops a job.
    stop_job(JobRequest) -> Job = Delete "/jobs/{id}" Query Both [NotFound];
    /// Ingests files on this machine (the desktop's open dialog and drops).
    ingest_files(IngestFilesRequest) -> IngestReport = Post "" Json Desktop [Usage, Io, Input, Closing, NotStored];
    /// The desktop database settings.
    get_settings(NoArgs) -> SettingsView = Post "" Json Desktop [Io];
    /// Saves the desktop database settings (they take effect at the next start).
    save_settings(SettingsUpdate) -> SettingsView = Post "" Json Desktop [Io];
    /// Saves the body where the user chooses in a save dialog; the path, or null if cancelled.
    save_file(SaveFileRequest) -> Option<String> = Post "" Bytes Desktop [Io];
}

/// The declaration of operation `name`.
pub fn find(name: &str) -> Option<&'static OpInfo> {
    OPERATIONS.iter().find(|o| o.name == name)
}

/// The `{field}` names in a route.
pub fn path_fields(path: &str) -> impl Iterator<Item = &str> {
    path.split('/').filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_routes_are_unique_and_path_fields_are_request_fields() {
        let cfg = Config::new().with_large_int("number");
        let mut decls = Vec::new();
        request_decls(&cfg, &mut decls);
        let mut seen = std::collections::HashSet::new();
        for (op, (_, decl)) in OPERATIONS.iter().zip(&decls) {
            assert!(seen.insert(op.name), "{} declared twice", op.name);
            match op.transport {
                Transport::Both => {
                    assert!(op.path.starts_with('/'), "{}", op.name);
                    assert!(seen
                        .insert(Box::leak(format!("{} {}", op.method.as_str(), op.path).into_boxed_str())));
                }
                Transport::Desktop => assert!(op.path.is_empty(), "{}", op.name),
            }
            for field in path_fields(op.path) {
                assert!(
                    decl.contains(&format!("{field}: string")),
                    "{}: {field} is not a string field of {decl}",
                    op.name
                );
            }
            assert_eq!(find(op.name).map(|o| o.name), Some(op.name));
        }
        assert!(find("nope").is_none());
    }

    #[test]
    fn queries_and_json_decode_with_defaults_and_name_what_is_wrong() {
        let q = Args::Query("graph=g&id=a%20b&depth=3&token=x".into());
        let t: TraceRequest = q.decode().unwrap();
        assert_eq!(
            (t.graph.as_str(), t.id.as_str(), t.depth(), t.dir()),
            ("g", "a b", 3, crate::store::TraceDirection::Up)
        );
        let t: TraceRequest =
            Args::Json(serde_json::json!({"graph": "g", "id": "n", "dir": "down"})).decode().unwrap();
        assert_eq!((t.depth(), t.dir()), (TraceRequest::DEFAULT_DEPTH, crate::store::TraceDirection::Down));
        let e = Args::Query("graph=g".into()).decode::<NodeRequest>().unwrap_err();
        assert_eq!(e.code(), ErrorCode::BadRequest);
        assert!(e.to_string().contains("missing field `id`"), "{e}");
        let e = Args::Query("graph=g&id=n&depth=deep".into()).decode::<TraceRequest>().unwrap_err();
        assert!(e.to_string().contains("invalid"), "{e}");
        let _: NoArgs = Args::Json(serde_json::Value::Null).decode().unwrap();
    }
}
