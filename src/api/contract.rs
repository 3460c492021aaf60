//! The wire types of the UI contract (see the module docs of `api`). Graph-level types that
//! the CLI prints too (stats, node records, trails, ingest reports) live with their modules
//! and derive `TS` there; the ones here exist only for UIs.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::ErrorCode;
use crate::ingest::FileReport;

/// Every error across the HTTP and IPC boundary: a stable code to match on, and a message
/// for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError { code, message: message.into() }
    }
}

impl From<&crate::Error> for ApiError {
    fn from(e: &crate::Error) -> Self {
        ApiError { code: e.code(), message: e.to_string() }
    }
}

impl From<crate::Error> for ApiError {
    fn from(e: crate::Error) -> Self {
        ApiError::from(&e)
    }
}

/// What an ingest did.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq, TS)]
pub struct IngestReport {
    pub graph: String,
    pub files: Vec<FileReport>,
    pub events: u64,
    pub rejected: u64,
    pub nodes_written: u64,
    pub edges_written: u64,
    pub elapsed_ms: u64,
    /// How the graph was written: `merge` (upserts), `bulk` (a new graph built with
    /// GRAPH.BULK), or `bulk+merge` (built, then the rest upserted).
    pub method: String,
    /// Why the bulk path was left for upserts, when it was.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// What a UI learns about the backend when it starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Health {
    pub version: String,
    /// The database URL (password hidden).
    pub database: String,
    /// Whether the backend runs its own private FalkorDB.
    pub private_server: bool,
    /// Whether requests need a token.
    pub auth: bool,
    /// When views and explore read from a cluster's replicas (`read_from=replicas`): the
    /// replica furthest behind its primary, as last measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub replica: Option<crate::store::replicas::ReplicaLag>,
}

/// A node as a canvas draws it: `x`, `y` are the centre and `w`, `h` the box, in the
/// core's layout pixels. The few properties a UI filters and searches on come along;
/// everything else is a `node` request away.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ViewNode {
    pub id: String,
    pub label: String,
    /// `ProvEntity`, `ProvActivity`, `ProvAgent`, or none.
    pub base_type: Option<String>,
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
    pub layer: u32,
    /// Arrival order in the graph (0 = first).
    pub arrival: u32,
    pub agent: Option<String>,
    pub context: Option<String>,
    /// Signature status of a signed A2AP document (`valid`, `invalid`, ...).
    pub status: Option<String>,
    /// Claim, quote or content text (its first 200 characters), for labels and search.
    pub text: Option<String>,
    /// A statement's standing, its headline verdict: the worst of signature, evidence and
    /// consensus (`invalid_signature` … `verified`, docs/FORMATS.md "Standing").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub standing: Option<String>,
    /// In a cluster view, what the cluster this box stands for holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cluster: Option<ClusterInfo>,
}

/// What a cluster box holds (semantic zoom): its members counted by label and by signature
/// status, and what opening it shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ClusterInfo {
    pub title: String,
    #[ts(type = "number")]
    pub members: u64,
    /// Members by label, most first.
    #[ts(type = "Array<[string, number]>")]
    pub labels: Vec<(String, u64)>,
    /// Signed members by signature status (`valid`, `invalid`, …).
    #[ts(type = "Array<[string, number]>")]
    pub statuses: Vec<(String, u64)>,
    /// Opening it shows its sub-clusters (`clusters`) or its nodes (`members`).
    pub opens: ViewMode,
}

/// An edge between two drawn nodes, in its stored direction (effect to cause).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
pub struct ViewEdge {
    pub source: String,
    pub target: String,
    #[serde(rename = "type")]
    pub rel: String,
    /// The PROV relation of a PROV edge.
    pub prov: Option<String>,
    /// The A2A relation of a derived edge.
    pub a2a: Option<String>,
}

/// How much of a graph a view holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ViewMode {
    /// The whole graph, kept current by the stream.
    Whole,
    /// The neighbourhood of `root`: the graph is larger than the limit. Not streamed.
    Neighbourhood,
    /// Clusters (semantic zoom): the graph, or the cluster `root`, is larger than the limit.
    /// Not streamed.
    Clusters,
    /// The nodes of cluster `root`. Not streamed.
    Members,
}

/// A drawable view of a graph, and the stream sequence number it is current to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct View {
    pub graph: String,
    #[ts(type = "number")]
    pub seq: u64,
    pub mode: ViewMode,
    pub root: Option<String>,
    #[ts(type = "number")]
    pub total_nodes: u64,
    #[ts(type = "number")]
    pub total_edges: u64,
    /// The most nodes drawn whole.
    pub limit: u32,
    /// The nodes drawn, one record each (empty when `columns` holds them).
    pub nodes: Vec<ViewNode>,
    /// The edges between them, one record each (empty when `columns` holds them).
    pub edges: Vec<ViewEdge>,
    /// The nodes and edges as columns, when the request asked for them (`columns`): the
    /// compact form a UI decodes (docs/FORMATS.md "Views in columns").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, as = "Option<super::ViewColumns>")]
    pub columns: Option<super::Columns>,
}

/// Where a tidy-up moved a node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct NodeMove {
    pub id: String,
    pub x: f64,
    pub y: f64,
}

/// What a tidy-up moves: where each node goes, and whether that is now the layout every
/// viewer is served (`saved`) or a preview for the caller alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct TidyResult {
    pub moves: Vec<NodeMove>,
    pub saved: bool,
}

/// Which A2AP document a verification update is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum VerificationKind {
    Statement,
    Verification,
}

/// The checked state of a statement or verification as it arrives: signature status,
/// verdict, and the statement's consensus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct VerificationUpdate {
    pub id: String,
    pub kind: VerificationKind,
    pub signature: Option<String>,
    pub verdict: Option<String>,
    pub consensus: Option<f64>,
    pub verified: Option<bool>,
    /// A statement's standing (its headline), when the update carries it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub standing: Option<String>,
}

/// One message of a graph's stream (an SSE event's data, or a Tauri channel message).
/// `seq` numbers a graph's messages from 1 without gaps; a client that reconnects with
/// the last `seq` it saw gets the messages after it, or a `reset` when they are gone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum StreamMessage {
    /// New nodes (placed by the incremental layout: nothing drawn before moves), nodes whose
    /// data changed (same place), new edges, and verification results.
    Batch {
        graph: String,
        #[ts(type = "number")]
        seq: u64,
        #[ts(type = "number")]
        time_ms: u64,
        nodes: Vec<ViewNode>,
        edges: Vec<ViewEdge>,
        verifications: Vec<VerificationUpdate>,
    },
    /// A cluster view's boxes that are new (placed by the incremental layout: nothing drawn
    /// before moves) or whose counts changed (same place), and the edges between boxes whose
    /// counts changed (each replaces the drawn edge between the same boxes).
    Clusters {
        graph: String,
        #[ts(type = "number")]
        seq: u64,
        #[ts(type = "number")]
        time_ms: u64,
        nodes: Vec<ViewNode>,
        edges: Vec<ViewEdge>,
    },
    /// A tidy-up's moves, to animate.
    Moves {
        graph: String,
        #[ts(type = "number")]
        seq: u64,
        moves: Vec<NodeMove>,
    },
    /// Changes to knowledge-graph statements, the same `KnowledgeGraphChangeEvent`s
    /// `knowledge/subscribe` sends, in commit order, right after the batch of their update.
    Knowledge {
        graph: String,
        #[ts(type = "number")]
        seq: u64,
        changes: Vec<KnowledgeChange>,
    },
    /// The database went away and is being started again or reconnected to
    /// (`restarting`), is back (`up`: the stream goes on from here, nothing to reload), or
    /// could not be started again (`failed`); `message` says what happened.
    Database {
        graph: String,
        #[ts(type = "number")]
        seq: u64,
        state: String,
        message: String,
    },
    /// The client is too far behind (or the view was rebuilt): load the view again.
    Reset {
        graph: String,
        #[ts(type = "number")]
        seq: u64,
        reason: String,
    },
}

impl StreamMessage {
    pub fn seq(&self) -> u64 {
        match self {
            StreamMessage::Batch { seq, .. }
            | StreamMessage::Clusters { seq, .. }
            | StreamMessage::Moves { seq, .. }
            | StreamMessage::Knowledge { seq, .. }
            | StreamMessage::Database { seq, .. }
            | StreamMessage::Reset { seq, .. } => *seq,
        }
    }
}

/// One change to a knowledge-graph statement, as a graph's stream carries it: who it names
/// (so a view of a resource knows it concerns it) and the event `knowledge/subscribe` sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct KnowledgeChange {
    /// The statement's id (`kg:` + SHA-256 of its triple).
    pub statement: String,
    /// `add`, `remove` or `replace`.
    pub op: String,
    pub subject: String,
    /// The object, when it is a resource (not a literal).
    pub object: Option<String>,
    /// The `KnowledgeGraphChangeEvent` (`op`, `statement`, `changeId`, `timestamp`,
    /// `changeMetadata`).
    #[ts(type = "unknown")]
    pub event: serde_json::Value,
}

/// A graph written as W3C PROV, with what a download of it is called and served as.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ExportedDocument {
    pub format: String,
    pub media_type: String,
    /// `provex-<graph>.<extension>`.
    pub file_name: String,
    pub text: String,
}

/// A source document's full text (a meeting transcript), to show quotes in context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct SourceText {
    pub id: String,
    pub title: Option<String>,
    pub text: String,
}

/// A node found by search, with the field that matched and a snippet around the match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct SearchHit {
    pub id: String,
    pub label: String,
    pub field: String,
    pub snippet: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum JobKind {
    Ingest,
    Follow,
    Demo,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum JobState {
    Running,
    Done,
    Failed,
    Stopped,
}

/// A background ingest, follow or demo run started from a UI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Job {
    pub id: String,
    pub kind: JobKind,
    pub graph: String,
    pub state: JobState,
    /// What it is doing or did (file, events so far, error message).
    pub detail: Option<String>,
}

/// The desktop database settings as a window sees them: the password never goes back.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SettingsView {
    /// A shared FalkorDB (`host`, `host:port`, or a `redis://` / `rediss://` URL); none
    /// means the private server in the app's data folder.
    pub url: Option<String>,
    pub user: Option<String>,
    pub has_password: bool,
    pub tls: bool,
    /// An OpenAI-compatible embeddings endpoint for the semantic part of lineage
    /// confidences (else `PROVEX_EMBEDDINGS_URL`; none: the renormalised formula).
    #[ts(optional)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embeddings_url: Option<String>,
    #[ts(optional)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embeddings_model: Option<String>,
    #[serde(default)]
    pub has_embeddings_key: bool,
    /// An OpenAI-compatible chat endpoint for questions in plain language (`ask`; else
    /// `PROVEX_LLM_URL`; none: `ask` says how to set one).
    #[ts(optional)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm_url: Option<String>,
    #[ts(optional)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm_model: Option<String>,
    #[serde(default)]
    pub has_llm_key: bool,
    /// Where they are stored.
    pub file: String,
}

/// A settings change as a window saves it; `password` absent keeps the stored one, `""`
/// clears it. Takes effect at the next start.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct SettingsUpdate {
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub user: Option<String>,
    #[serde(default)]
    pub password: Option<String>,
    #[serde(default)]
    pub tls: bool,
    #[serde(default)]
    pub embeddings_url: Option<String>,
    #[serde(default)]
    pub embeddings_model: Option<String>,
    /// Absent keeps the stored key, `""` clears it.
    #[serde(default)]
    pub embeddings_key: Option<String>,
    #[serde(default)]
    pub llm_url: Option<String>,
    #[serde(default)]
    pub llm_model: Option<String>,
    /// Absent keeps the stored key, `""` clears it.
    #[serde(default)]
    pub llm_key: Option<String>,
}

/// A menu item the desktop shell asks the page to carry out (event `provex://menu`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct MenuEvent {
    pub action: MenuAction,
    /// The graph the window shows, as the shell knows it.
    pub graph: Option<String>,
}

/// What a menu event asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum MenuAction {
    ExportSvg,
    ExportPng,
    Help,
    /// View ▸ Tidy Layout: the page tidies its own layout (Save for everyone is its choice).
    Tidy,
}

/// Where an ingest started by the shell (open, import, drop) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum IngestState {
    Started,
    Done,
    Failed,
}

/// An ingest started from the menu or a drop, as the page hears of it (event
/// `provex://ingest`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct IngestEvent {
    pub state: IngestState,
    pub graph: String,
    pub files: Vec<String>,
    /// Whether the window should show the graph when done (File ▸ Open).
    pub open: bool,
    pub report: Option<IngestReport>,
    pub error: Option<ApiError>,
}

/// How much a notice matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum NoticeLevel {
    Info,
    Error,
}

/// Something for the page to tell the user (event `provex://notice`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Notice {
    pub level: NoticeLevel,
    pub message: String,
}

/// The names of the desktop shell's events, as the page listens to them.
pub mod events {
    pub const MENU: &str = "provex://menu";
    pub const INGEST: &str = "provex://ingest";
    pub const NOTICE: &str = "provex://notice";
}
