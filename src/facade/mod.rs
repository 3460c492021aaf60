//! The one API of the core: the CLI calls it now, the HTTP server and the desktop shell
//! call it too, and none of them reach the store or the ingest pipeline around it.

mod ask;
mod bulk;
mod bundle;
mod calls;
mod demo;
mod diff;
mod explore;
mod ingest;
mod ingest_read;
mod jobs;
mod layout;
mod live;
mod log_append;
pub mod log_proofs;
pub mod log_verify;
mod observer;
pub mod otel;
mod paths;
pub mod runs;
mod search;
pub mod tlog;
pub mod witness;

pub use crate::api::IngestReport;
pub use crate::sources::lineage::commands::{suggest_type, word_diff, SUGGESTION_RULE};
pub use crate::sources::lineage::ops::parse_prompt_id;
pub use crate::sources::statements::ops::{
    add_key, generate_key, is_bundle_file, read_registry, read_trust, sign_file, verify_bundle_file,
    verify_files, Keys,
};
pub use calls::{find_operation, BodyLimits, Call, DesktopHost, Payload, OPERATIONS};
pub use demo::{write_council_files, DemoReport};
pub use diff::{diff_file_traces, diff_files, file_delta, file_snapshot, trace_id, DiffSide};
pub use jobs::parse_format;
pub use layout::{graph_file, layout_file, LaidOut};
pub use live::{ViewRequest, DEFAULT_BACKLOG_BYTES, DEFAULT_LIMIT, MAX_LIMIT};
pub use observer::{IngestObserver, Quiet};
pub use otel::{RejectedSpan, SpanExport};

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use crate::error::{Error, Result};
use crate::model::{Edge, GraphDelta, Node};
use crate::sources::Session;
use crate::store::server::ServerOptions;
use crate::store::supervisor::{RestartPolicy, Supervisor};
use crate::store::{NodeRecord, PathResult, Stats, Store, Subgraph, Table, TraceDirection};

/// Where the graph lives.
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    /// A shared server (`redis://` or `rediss://`, or a Redis Cluster: `redis+cluster://` or
    /// `rediss+cluster://` with one or more nodes); `None` starts the private server.
    pub url: Option<String>,
    /// The private server's settings; `None` for the app's default data folder.
    pub server: Option<ServerOptions>,
}

/// A batch of graph changes as streamed to a UI, numbered so a client that reconnects can
/// ask for what it missed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeltaBatch {
    pub graph: String,
    pub seq: u64,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    /// The knowledge-graph changes this delta writes (`docs/FORMATS.md` "Knowledge-graph
    /// statements"), sent after its nodes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub knowledge: Vec<crate::api::KnowledgeChange>,
}

/// Numbers batches and fans them out. No backlog: no caller asks for past batches (a UI
/// that reconnects asks its graph's live view, which keeps its own, bounded in bytes).
struct DeltaLog {
    next: u64,
    tx: broadcast::Sender<Arc<DeltaBatch>>,
}

impl DeltaLog {
    fn publish(
        &mut self,
        graph: &str,
        delta: GraphDelta,
        knowledge: Vec<crate::api::KnowledgeChange>,
    ) -> Arc<DeltaBatch> {
        let (nodes, edges) = delta.into_parts();
        self.next += 1;
        let batch = Arc::new(DeltaBatch { graph: graph.to_owned(), seq: self.next, nodes, edges, knowledge });
        let _ = self.tx.send(batch.clone());
        batch
    }
}

/// Where written deltas go: numbered for the session's subscribers, then to the graph's
/// live view. The sources' operations publish through it ([`crate::sources::Publish`]).
struct Publisher {
    deltas: Mutex<DeltaLog>,
    live: Arc<live::LiveViews>,
    /// Counts each graph's writes for the Runs view's kept rows.
    writes: Arc<runs::Writes>,
    /// The cross-graph search index, given every written delta's nodes.
    search: Arc<crate::search::Indexer>,
}

impl crate::sources::Publish for Publisher {
    fn publish(&self, graph: &str, delta: GraphDelta, knowledge: &[crate::sources::knowledge::ChangeEvent]) {
        let knowledge = knowledge.iter().map(stream_change).collect();
        self.search.written(graph, &delta);
        self.fan_out(graph, delta, knowledge);
    }
}

impl Publisher {
    /// Numbers a written delta for the subscribers and the graph's live view, and counts the
    /// write, without indexing it for search (a fresh import's nodes were indexed as read).
    /// The delta log's lock only numbers and queues the batch; the view's layout runs after
    /// it is released.
    fn fan_out(&self, graph: &str, delta: GraphDelta, knowledge: Vec<crate::api::KnowledgeChange>) {
        self.writes.wrote_delta(graph, &delta);
        let routed = {
            let mut log = self.deltas.lock().unwrap_or_else(PoisonError::into_inner);
            let batch = log.publish(graph, delta, knowledge);
            self.live.route(&batch)
        };
        self.live.apply(routed);
    }
}

/// A knowledge-graph change as a graph's stream carries it to a UI.
fn stream_change(e: &crate::sources::knowledge::ChangeEvent) -> crate::api::KnowledgeChange {
    crate::api::KnowledgeChange {
        statement: e.statement.id(),
        op: e.op.as_str().to_owned(),
        subject: e.statement.subject.id.clone(),
        object: e.statement.object.id.clone(),
        event: serde_json::to_value(e).unwrap_or(serde_json::Value::Null),
    }
}

/// A Provex session: the sources' part (the store, what each source keeps, its
/// operations: [`Session`], which a `Provex` dereferences to), the private server when there
/// is one, and the delta stream.
pub struct Provex {
    session: Session,
    /// The private server, kept running by its supervisor, when this session uses one.
    server: Option<Arc<Supervisor>>,
    publisher: Arc<Publisher>,
    live: Arc<live::LiveViews>,
    jobs: jobs::Jobs,
    data_dir: Option<PathBuf>,
    /// The folders `follow` and `upload` may use (see [`Provex::restrict_paths`]).
    paths: paths::PathPolicy,
    /// The chat endpoint of `ask`, read from the environment on first use (or `set_llm`).
    llm: ask::LlmSlot,
    /// The graphs' tamper-evident logs' frontiers.
    logs: tlog::Logs,
    /// How a new graph is built with GRAPH.BULK (command sizes).
    bulk: bulk::Settings,
    /// OTLP exports waiting for their graph's next group write.
    exports: otel::Exports,
    /// The Runs view's kept rows and write counts.
    runs: runs::Runs,
    /// The cross-graph search index's writer (`search.rs`).
    search: Arc<crate::search::Indexer>,
}

/// The PROV and A2A relations of an edge, as stored in `prov:base_type` and
/// `a2a:relation`.
pub(crate) fn edge_relations(e: &Edge) -> (Option<String>, Option<String>) {
    match e.kind {
        crate::model::EdgeKind::Prov(r) => (Some(r.as_str().to_owned()), None),
        crate::model::EdgeKind::A2a(r) => (None, Some(r.as_str().to_owned())),
        crate::model::EdgeKind::Plain => (None, None),
    }
}

impl std::ops::Deref for Provex {
    type Target = Session;

    fn deref(&self) -> &Session {
        &self.session
    }
}

impl Provex {
    /// Connects to the configured server, or starts the private one.
    pub async fn open(opts: ConnectOptions) -> Result<Provex> {
        let (url, server, data_dir) = match opts.url {
            Some(url) => (url, None, None),
            None => {
                let server_opts = match opts.server {
                    Some(s) => s,
                    None => ServerOptions::app_default()?,
                };
                let data_dir = server_opts.data_dir.parent().map(Path::to_path_buf);
                let server = Arc::new(Supervisor::start(server_opts, RestartPolicy::default())?);
                let url = server.url().ok_or_else(|| Error::Server("the private server stopped".into()))?;
                (url, Some(server), data_dir)
            }
        };
        let mut store = Store::connect(&url).await?;
        if let Some(s) = &server {
            store = store.supervised_by(s);
        }
        let live = Arc::new(live::LiveViews::default());
        live::announce_health(&live, store.health_changes());
        let (tx, _) = broadcast::channel(256);
        let store = Arc::new(store);
        let search = Arc::new(crate::search::Indexer::start(store.clone()));
        let writes = Arc::new(runs::Writes::default());
        let runs = runs::Runs::new(writes.clone(), store.clone());
        let publisher = Arc::new(Publisher {
            deltas: Mutex::new(DeltaLog { next: 0, tx }),
            live: live.clone(),
            writes: writes.clone(),
            search: search.clone(),
        });
        Ok(Provex {
            session: Session::new(store, publisher.clone()),
            server,
            publisher,
            live,
            jobs: jobs::Jobs::default(),
            data_dir,
            paths: paths::PathPolicy::default(),
            llm: Default::default(),
            logs: Default::default(),
            bulk: Default::default(),
            exports: Default::default(),
            runs,
            search,
        })
    }

    /// From now on, `follow` and `upload` read and write only inside the data folder (when
    /// this session has one) and `allow`: `provex serve` calls this when it listens on a
    /// non-loopback address. Each folder must exist.
    pub fn restrict_paths(&self, allow: Vec<PathBuf>) -> Result<()> {
        let mut roots = Vec::with_capacity(allow.len() + 1);
        if let Some(d) = &self.data_dir {
            std::fs::create_dir_all(d).map_err(|e| Error::io(d, e))?;
            roots.push(d.clone());
        }
        roots.extend(allow);
        self.paths.restrict(&roots)
    }

    /// The folders `follow` and `upload` are limited to, or `None` when they are not.
    pub fn allowed_paths(&self) -> Option<Vec<PathBuf>> {
        self.paths.allowed()
    }

    /// The URL of the server in use (password hidden; the private server's changes when it
    /// is started again).
    pub fn url(&self) -> String {
        self.store.url()
    }

    /// How the database makes acknowledged writes durable (known after the first write).
    pub fn durability(&self) -> crate::store::Durability {
        self.store.durability()
    }

    /// The private server's supervisor, when this session uses the private server.
    pub fn private_server(&self) -> Option<&Supervisor> {
        self.server.as_deref()
    }

    /// Subscribes to the deltas written from now on. Subscribe before starting an ingest
    /// to miss nothing.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<DeltaBatch>> {
        self.publisher.deltas.lock().unwrap_or_else(PoisonError::into_inner).tx.subscribe()
    }

    pub async fn graphs(&self) -> Result<Vec<String>> {
        self.store.graphs_list().await
    }

    pub async fn stats(&self, graph: &str) -> Result<Stats> {
        self.store.stats(graph).await
    }

    pub async fn node(&self, graph: &str, name: &str) -> Result<NodeRecord> {
        self.store.node(graph, name).await
    }

    pub async fn neighbours(&self, graph: &str, name: &str) -> Result<Subgraph> {
        self.store.neighbours(graph, name).await
    }

    pub async fn trace(&self, graph: &str, name: &str, dir: TraceDirection, depth: u32) -> Result<Subgraph> {
        self.store.trace(graph, name, dir, depth).await
    }

    pub async fn path(&self, graph: &str, from: &str, to: &str) -> Result<Option<PathResult>> {
        self.store.path(graph, from, to, 50).await
    }

    /// Read-only Cypher typed by a user.
    pub async fn query(&self, graph: &str, cypher: &str) -> Result<Table> {
        self.store.query(graph, cypher).await
    }

    /// Every node and edge of a graph.
    pub async fn dump(&self, graph: &str) -> Result<Subgraph> {
        self.store.dump(graph).await
    }

    pub async fn delete_graph(&self, graph: &str) -> Result<()> {
        self.store.delete_graph(graph).await?;
        self.forget_in_search(graph).await;
        self.live.forget(graph);
        self.ledgers.forget(graph);
        self.runs.forget(graph);
        Ok(())
    }

    /// Whether anything would receive what is published for this graph (a bulk build
    /// reads its rows back only for a listener).
    pub(crate) fn listened(&self, graph: &str) -> bool {
        self.publisher.deltas.lock().unwrap_or_else(PoisonError::into_inner).tx.receiver_count() > 0
            || self.live.watches(graph)
    }
}
