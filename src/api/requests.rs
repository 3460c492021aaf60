//! The request of each operation (see `ops`): one struct per shape, named after what it
//! asks for. Over HTTP the fields named in the route's path (`{graph}`, `{id}`) travel in
//! the path and the rest in the query string or JSON body; over IPC the whole struct is the
//! JSON argument. Optional fields have their default here, so every transport applies the
//! same one.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::store::TraceDirection;

/// No arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct NoArgs {}

/// A whole graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct GraphRequest {
    pub graph: String,
}

/// One node of a graph, by its `name` (or `prefix:name`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct NodeRequest {
    pub graph: String,
    pub id: String,
}

/// Two prompts of a graph's lineages, by id (a UUID or `prompt:<uuid>`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct LineageCompareRequest {
    pub graph: String,
    pub a: String,
    pub b: String,
}

/// A question in plain language about a graph (`ask`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AskRequest {
    pub graph: String,
    pub question: String,
}

/// A drawable view: the whole graph, or the neighbourhood of `root`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct ViewRequest {
    pub graph: String,
    /// Draw the neighbourhood of this node instead of the whole graph.
    #[serde(default)]
    pub root: Option<String>,
    /// Hops around `root` (default: the facade's).
    #[serde(default)]
    pub depth: Option<u32>,
    /// Most nodes drawn whole; above it the view is a neighbourhood (default 50,000).
    #[serde(default)]
    pub limit: Option<u32>,
    /// Width of the screen area the view is drawn in (any unit, with `viewport_height`): a
    /// graph's drawing is packed to its aspect ratio when it is first laid out (default 3:2).
    #[serde(default)]
    pub viewport_width: Option<u32>,
    /// Height of that screen area.
    #[serde(default)]
    pub viewport_height: Option<u32>,
    /// Draw this cluster (a key from a cluster view) opened: its sub-clusters, or its nodes
    /// when they are at most `limit`.
    #[serde(default)]
    pub cluster: Option<String>,
    /// Send the nodes and edges as columns (`View::columns`, docs/FORMATS.md "Views in
    /// columns") rather than a record each.
    #[serde(default)]
    pub columns: Option<bool>,
}

/// The edges between the clusters of a graph (`cluster` none) or of one cluster opened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct ClusterEdgesRequest {
    pub graph: String,
    #[serde(default)]
    pub cluster: Option<String>,
}

/// A graph as W3C PROV, in `format` (`prov-json`, `prov-n`, `prov-o-turtle`,
/// `prov-o-jsonld`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ExportRequest {
    pub graph: String,
    pub format: String,
}

/// Everything a node came from (`up`) or that came from it (`down`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct TraceRequest {
    pub graph: String,
    pub id: String,
    /// Default `up`.
    #[serde(default)]
    pub dir: Option<TraceDirection>,
    /// Default 10, at most `store::read::MAX_DEPTH`.
    #[serde(default)]
    pub depth: Option<u32>,
}

impl TraceRequest {
    pub const DEFAULT_DEPTH: u32 = 10;

    pub fn dir(&self) -> TraceDirection {
        self.dir.unwrap_or(TraceDirection::Up)
    }

    pub fn depth(&self) -> u32 {
        self.depth.unwrap_or(Self::DEFAULT_DEPTH).min(crate::store::read::MAX_DEPTH)
    }
}

/// A shortest path between two nodes, ignoring direction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PathRequest {
    pub graph: String,
    pub from: String,
    pub to: String,
}

/// Two graphs to compare: what `b` adds, removes and changes with respect to `a`; with
/// `trace_a` and `trace_b` (both or neither), that trace of `a` with that trace of `b` (the
/// same graph twice for two runs in one graph).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct DiffRequest {
    pub a: String,
    pub b: String,
    #[serde(default)]
    pub trace_a: Option<String>,
    #[serde(default)]
    pub trace_b: Option<String>,
}

/// Read-only Cypher typed in the console.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct QueryRequest {
    pub graph: String,
    pub cypher: String,
}

/// The evidence and verification trail of an A2AP statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct StatementRequest {
    pub graph: String,
    pub statement: String,
}

/// Nodes whose name or text contains `q`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct SearchRequest {
    pub graph: String,
    pub q: String,
    /// Default 50.
    #[serde(default)]
    pub limit: Option<u32>,
}

impl SearchRequest {
    pub const DEFAULT_LIMIT: u32 = 50;

    pub fn limit(&self) -> u32 {
        self.limit.unwrap_or(Self::DEFAULT_LIMIT)
    }
}

/// A search across every graph: `q` is an id (a node's name, a trace or span id) or words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct SearchAllRequest {
    pub q: String,
    /// Default 50, at most 200.
    #[serde(default)]
    pub limit: Option<u32>,
}

impl SearchAllRequest {
    pub fn limit(&self) -> u32 {
        self.limit.unwrap_or(crate::search::DEFAULT_HITS)
    }
}

/// A page of a graph's OpenTelemetry traces, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct TracesRequest {
    pub graph: String,
    /// Traces to skip (default 0).
    #[serde(default)]
    pub offset: Option<u32>,
    /// Default 100, at most 1,000.
    #[serde(default)]
    pub limit: Option<u32>,
}

/// One OpenTelemetry trace of a graph, by its trace id (hex).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct TraceSpansRequest {
    pub graph: String,
    pub trace: String,
    /// The most spans read (default 5,000, at most 20,000); the answer says when there are more.
    #[serde(default)]
    pub limit: Option<u32>,
}

/// A file's bytes (the body) to save in the uploads folder and ingest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct UploadRequest {
    pub graph: String,
    /// The file's name, for the uploads folder and the rejects file.
    pub name: String,
    /// `a2a`, `a2ap`, `prov-json`, `lineage`, `trustgraph` (docs/FORMATS.md), or none to detect.
    #[serde(default)]
    pub format: Option<String>,
}

/// Records pushed as they are made: the body is NDJSON in any format `ingest` reads line by
/// line, sent chunked for as long as the producer runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct EventsRequest {
    pub graph: String,
    /// `a2a`, `a2ap`, `lineage`, or none to detect from the lines.
    #[serde(default)]
    pub format: Option<String>,
}

/// Files on the backend's machine to ingest (the desktop's open dialog and drops).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct IngestFilesRequest {
    pub graph: String,
    pub paths: Vec<String>,
    #[serde(default)]
    pub format: Option<String>,
}

/// Follow a growing file on the backend's machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct FollowRequest {
    pub graph: String,
    pub path: String,
    /// `a2a`, `a2ap`, `prov-json`, `lineage`, `trustgraph` (docs/FORMATS.md), or none to detect.
    #[serde(default)]
    pub format: Option<String>,
}

/// Run the council demo into a graph, paced (`pace_ms` between records) or at once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct DemoRequest {
    pub graph: String,
    #[serde(default)]
    pub pace_ms: Option<u64>,
}

/// A background job, by id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct JobRequest {
    pub id: String,
}

/// Bytes the window made (a picture, an export), saved where the user chooses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SaveFileRequest {
    /// The suggested file name.
    pub name: String,
}

/// An audit bundle of a graph's statements (all of them when none are named), signed with
/// the key file at `key` (a path on the backend's machine) when one is given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct BundleRequest {
    pub graph: String,
    #[serde(default)]
    pub statements: Option<Vec<String>>,
    #[serde(default)]
    pub key: Option<String>,
}

/// A tidy-up of a graph's layout: a preview for the caller alone, unless `save`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct TidyRequest {
    pub graph: String,
    /// Apply it to the layout every viewer is served (the moves go out on the graph's
    /// stream); without it the served layout is left as it is.
    #[serde(default)]
    pub save: Option<bool>,
}

/// A graph's stream of changes after `since` (the `seq` of its view or last message).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct StreamRequest {
    pub graph: String,
    #[serde(default)]
    pub since: Option<u64>,
    /// The stream of the graph's cluster view (semantic zoom) rather than of its whole view.
    #[serde(default)]
    pub clusters: Option<bool>,
}

impl StreamRequest {
    /// The stream of a graph's whole view, from after `since`.
    pub fn whole(graph: &str, since: u64) -> StreamRequest {
        StreamRequest { graph: graph.to_owned(), since: Some(since), clusters: None }
    }

    /// The stream of a graph's cluster view, from after `since`.
    pub fn clusters(graph: &str, since: u64) -> StreamRequest {
        StreamRequest { graph: graph.to_owned(), since: Some(since), clusters: Some(true) }
    }
}

/// The Runs view's list: with `since` (the `version` of the list last received), the answer
/// waits for a graph to be written first, at most `wait_ms` (default 20,000, at most 30,000).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct RunsRequest {
    #[serde(default)]
    pub since: Option<u64>,
    #[serde(default)]
    pub wait_ms: Option<u32>,
}

impl RunsRequest {
    /// How long to wait for a write when `since` is the current version.
    pub fn wait(&self) -> std::time::Duration {
        std::time::Duration::from_millis(u64::from(self.wait_ms.unwrap_or(20_000)))
    }
}
