//! The one API of the core: the CLI calls it now, the HTTP server and the desktop shell
//! call it too, and none of them reach the store or the ingest pipeline around it.

mod a2ap;
mod ask;
mod bulk;
mod calls;
mod demo;
mod diff;
mod explore;
mod export;
mod jobs;
pub mod knowledge;
mod layout;
mod lineage;
mod lineage_ops;
mod live;
mod paths;
mod reasoning;
mod relink;
pub mod tlog;

pub use a2ap::{
    add_key, generate_key, is_bundle_file, read_registry, read_trust, sign_file, verify_bundle_file,
    verify_files, Keys,
};
pub use calls::{BodyLimits, Call, DesktopHost, Payload};
pub use demo::{write_council_files, DemoReport};
pub use diff::{diff_files, file_delta, file_snapshot, DiffSide};
pub use jobs::parse_format;
pub use layout::{graph_file, layout_file, LaidOut};
pub use lineage::parse_prompt_id;
pub use lineage_ops::{suggest_type, word_diff, SUGGESTION_RULE};
pub use live::{ViewRequest, DEFAULT_BACKLOG_BYTES, DEFAULT_LIMIT, MAX_LIMIT};

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, mpsc};

use crate::error::{Error, Result};
use crate::ingest::{self, Chunk, FileReport, IngestOptions, Rejected, RejectsFile};
use crate::model::{Edge, GraphDelta, Node};
use crate::store::server::ServerOptions;
use crate::store::supervisor::{RestartPolicy, Supervisor};
use crate::store::{NodeRecord, PathResult, Stats, Store, Subgraph, Table, TraceDirection};

/// Where the graph lives.
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    /// A shared server (`redis://` or `rediss://`); `None` starts the private server.
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
    /// The knowledge-graph changes this delta writes (seed 004), sent after its nodes.
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

/// Progress callbacks of an ingest (the CLI draws a progress bar from them).
pub trait IngestObserver: Send + Sync {
    fn file_started(&self, _path: &Path, _bytes: u64) {}
    fn progress(&self, _path: &Path, _offset: u64, _events: u64) {}
    fn rejected(&self, _record: &Rejected) {}
}

/// An observer that ignores everything.
pub struct Quiet;
impl IngestObserver for Quiet {}

/// What an ingest did.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq, ts_rs::TS)]
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

/// One input of an ingest.
enum Input {
    File(PathBuf),
    /// A stream's bytes as they arrive, and the name that stands for it.
    Stream {
        name: PathBuf,
        source: calls::Payload,
    },
}

/// A Provex session: a store, the private server when there is one, and the delta stream.
pub struct Provex {
    store: Arc<Store>,
    /// The private server, kept running by its supervisor, when this session uses one.
    server: Option<Arc<Supervisor>>,
    deltas: Mutex<DeltaLog>,
    live: Arc<live::LiveViews>,
    jobs: jobs::Jobs,
    ledgers: a2ap::Ledgers,
    data_dir: Option<PathBuf>,
    /// The folders `follow` and `upload` may use (see [`Provex::restrict_paths`]).
    paths: paths::PathPolicy,
    /// The embeddings endpoint of lineage confidences, read from the environment once.
    /// `None` until first used (then the environment's, or what `set_embeddings` gave).
    embedder: Mutex<Option<Option<Arc<crate::lineage::embeddings::Embedder>>>>,
    similar: lineage_ops::SimilarCache,
    knowledge: knowledge::KnowledgeHub,
    /// The chat endpoint of `ask`, read from the environment on first use (or `set_llm`).
    llm: ask::LlmSlot,
    /// The graphs' tamper-evident logs' frontiers.
    logs: tlog::Logs,
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
        Ok(Provex {
            store: Arc::new(store),
            server,
            deltas: Mutex::new(DeltaLog { next: 0, tx }),
            live,
            jobs: jobs::Jobs::default(),
            ledgers: a2ap::Ledgers::default(),
            data_dir,
            paths: paths::PathPolicy::default(),
            embedder: Mutex::new(None),
            similar: Default::default(),
            knowledge: Default::default(),
            llm: Default::default(),
            logs: Default::default(),
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

    /// Ingests files into a graph. Parsing runs on a blocking thread while the previous
    /// batch is written, so the two overlap. Rejected records go to the rejects file(s)
    /// and to `observer`; the good records around them are all written.
    pub async fn ingest(
        &self,
        graph: &str,
        files: &[PathBuf],
        opts: IngestOptions,
        cancel: Arc<AtomicBool>,
        observer: Arc<dyn IngestObserver>,
    ) -> Result<IngestReport> {
        crate::store::validate_graph_name(graph)?;
        if files.is_empty() {
            return Err(Error::Usage("no input files".into()));
        }
        self.refuse_read_only(graph).await?;
        for f in files {
            if !f.is_file() {
                return Err(Error::io(f, std::io::Error::new(std::io::ErrorKind::NotFound, "no such file")));
            }
        }
        let mut opts = opts;
        if opts.lineage.is_none() && self.reads_lineage(files, opts.format) {
            opts.lineage = Some(self.lineage_context(graph).await?);
        }
        let inputs = files.iter().cloned().map(Input::File).collect();
        self.ingest_inputs(graph, inputs, opts, cancel, observer).await
    }

    /// Ingests a stream as it arrives (standard input, a request body): `source` gives its
    /// bytes and `name` stands for it in reports and rejects. It is read on the async runtime
    /// (a silent stream holds no thread) and only as fast as the store writes, so a sender
    /// faster than the database is slowed down, never dropped nor buffered without bound.
    /// Ends with the stream; an error of the stream ends it with that error, once the whole
    /// lines before it are written.
    pub async fn ingest_stream(
        &self,
        graph: &str,
        name: PathBuf,
        source: calls::Payload,
        opts: IngestOptions,
        cancel: Arc<AtomicBool>,
        observer: Arc<dyn IngestObserver>,
    ) -> Result<IngestReport> {
        crate::store::validate_graph_name(graph)?;
        self.refuse_read_only(graph).await?;
        let mut opts = IngestOptions { bulk: false, ..opts };
        if opts.lineage.is_none() && matches!(opts.format, ingest::Format::Auto | ingest::Format::Lineage) {
            opts.lineage = Some(self.lineage_context(graph).await?);
        }
        self.ingest_inputs(graph, vec![Input::Stream { name, source }], opts, cancel, observer).await
    }

    async fn ingest_inputs(
        &self,
        graph: &str,
        inputs: Vec<Input>,
        opts: IngestOptions,
        cancel: Arc<AtomicBool>,
        observer: Arc<dyn IngestObserver>,
    ) -> Result<IngestReport> {
        // A graph that does not exist yet is built with GRAPH.BULK from everything read
        // (up to `bulk_max_rows`); a followed file or an existing graph gets upserts.
        let mut bulk =
            if opts.bulk && !opts.follow && !self.store.graphs_list().await?.iter().any(|g| g == graph) {
                Some(bulk::Pending::new(opts.bulk_max_rows))
            } else {
                self.store.ensure_indexes(graph).await?;
                None
            };
        let extra_keys = opts.keys.as_deref().map(read_registry).transpose()?;
        // The report acknowledges everything written, so it waits until that is on disk.
        let batch = self.store.batch();
        let started = Instant::now();
        let (tx, mut rx) = mpsc::channel::<Chunk>(4);
        let coalesce = opts.batch_events as u64;
        let obs = observer.clone();
        let stop = cancel.clone();
        let single = inputs.len() == 1;
        let mut inputs = inputs.into_iter();
        let reader = match inputs.next() {
            // One stream, read on the runtime as its bytes arrive.
            Some(Input::Stream { name, source }) if single => tokio::spawn(async move {
                let mut rejects = match opts.rejects.clone() {
                    Some(p) => RejectsFile::at(p),
                    None => RejectsFile::beside(&name),
                }
                .with_quota(opts.rejects_quota);
                obs.file_started(&name, 0);
                let mut keep = move || !stop.load(Ordering::Relaxed);
                let report = ingest::stream::read(&name, source, &opts, &mut rejects, &mut keep, &tx).await;
                rejects.close()?;
                Ok(vec![report?])
            }),
            first => {
                let inputs: Vec<Input> = first.into_iter().chain(inputs).collect();
                tokio::task::spawn_blocking(move || -> Result<Vec<FileReport>> {
                    let mut shared =
                        opts.rejects.clone().map(|p| RejectsFile::at(p).with_quota(opts.rejects_quota));
                    let mut reports = Vec::new();
                    for input in inputs {
                        let Input::File(path) = input else {
                            return Err(Error::Usage("a stream is ingested alone".into()));
                        };
                        let path = &path;
                        let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
                        obs.file_started(path, bytes);
                        let mut own;
                        let rejects = match shared.as_mut() {
                            Some(r) => r,
                            None => {
                                own = RejectsFile::beside(path).with_quota(opts.rejects_quota);
                                &mut own
                            }
                        };
                        let mut keep = || !stop.load(Ordering::Relaxed);
                        let mut send = |c: Chunk| tx.blocking_send(c).is_ok();
                        reports.push(ingest::read_file(path, &opts, rejects, &mut keep, &mut send)?);
                        if stop.load(Ordering::Relaxed) {
                            break;
                        }
                    }
                    if let Some(r) = shared.as_mut() {
                        r.close()?;
                    }
                    Ok(reports)
                })
            }
        };

        let mut report = IngestReport { graph: graph.to_owned(), ..Default::default() };
        let mut events_by_file: std::collections::HashMap<PathBuf, u64> = Default::default();
        let mut write_error = None;
        let mut absorb_at_end = false;
        // Whether the graph may hold TrustGraph placeholders that nodes of other sources could
        // take the place of: it has Explain nodes already, or this ingest writes some.
        let mut may_hold_placeholders = self.has_explain(graph).await;
        // Chunks that queued while a write ran go out together with the next one (up to a
        // batch): a following reader sends small chunks often, and the writer keeps up.
        let mut carry: Option<Chunk> = None;
        let mut logged = false;
        loop {
            let mut chunk = match carry.take() {
                Some(c) => c,
                None => match rx.recv().await {
                    Some(c) => c,
                    None => break,
                },
            };
            while chunk.events < coalesce {
                match rx.try_recv() {
                    Ok(next) if next.file == chunk.file => chunk.absorb(next),
                    Ok(next) => {
                        carry = Some(next);
                        break;
                    }
                    Err(_) => break,
                }
            }
            // Stopped (a closing window, a stopped job): write nothing more.
            if cancel.load(Ordering::Relaxed) {
                break;
            }
            // The batch's records join the graph's log before its nodes are written: a crash
            // leaves leaves without nodes, never nodes without leaves.
            let mut record_leaves = crate::tlog::records::DocumentLeaves::default();
            if !chunk.leaves.is_empty() && self.log_enabled() {
                match self.log_append(graph, &chunk.leaves).await {
                    Ok(first) => {
                        chunk.delta.stamp_log_leaves(first);
                        record_leaves = crate::tlog::records::DocumentLeaves::new(
                            &chunk.file.to_string_lossy(),
                            &chunk.records,
                            &chunk.record_leaves,
                            first,
                        );
                    }
                    Err(e) => {
                        write_error = Some(e);
                        break;
                    }
                }
                logged = true;
            }
            for r in &chunk.rejected {
                observer.rejected(r);
            }
            if chunk.delta.nodes().any(|n| n.label == crate::model::Label::Explain) {
                match self.relink(graph, chunk.delta.take()).await {
                    Ok(d) => chunk.delta = d,
                    Err(e) => {
                        write_error = Some(e);
                        break;
                    }
                }
            }
            may_hold_placeholders |= chunk.delta.nodes().any(|n| n.label == crate::model::Label::Explain);
            // Nodes of other sources may take the place of TrustGraph placeholders of their name.
            let others = !chunk.records.is_empty()
                || chunk.delta.nodes().any(|n| relink::OTHER_SOURCES.contains(&n.label));
            if let Some(pending) = bulk.as_mut() {
                if pending.fits(&chunk.delta) && chunk.records.is_empty() {
                    pending.absorb(std::mem::take(&mut chunk.delta));
                } else if let Err(e) =
                    self.build_fresh(graph, bulk.take().expect("pending"), &mut report).await
                {
                    write_error = Some(e);
                    break;
                }
            }
            if (!chunk.delta.is_empty() || !chunk.records.is_empty()) && report.method == "bulk" {
                report.method = "bulk+merge".into();
            }
            if !chunk.delta.is_empty() {
                match self.store.write_unsynced(graph, &chunk.delta).await {
                    Ok(stats) => {
                        report.nodes_written += stats.nodes;
                        report.edges_written += stats.edges;
                    }
                    Err(e) => {
                        write_error = Some(e);
                        break;
                    }
                }
            }
            let events = events_by_file.entry(chunk.file.clone()).or_default();
            *events += chunk.events;
            observer.progress(&chunk.file, chunk.offset, *events);
            if !chunk.delta.is_empty() {
                self.publish(graph, chunk.delta);
            }
            if !chunk.records.is_empty() {
                // An audit bundle's trusted keys join the registry given, for its documents.
                let mut bundle_keys = None;
                if !chunk.keys.is_empty() {
                    let mut registry = extra_keys.clone().unwrap_or_default();
                    for k in &chunk.keys {
                        if let Err(e) = registry.add_entry(k) {
                            tracing::warn!("a bundle's key {}: {e}", k.key_id);
                        }
                    }
                    bundle_keys = Some(registry);
                }
                match self
                    .add_documents(
                        graph,
                        bundle_keys.as_ref().or(extra_keys.as_ref()),
                        chunk.records,
                        &record_leaves,
                    )
                    .await
                {
                    Ok(stats) => {
                        report.nodes_written += stats.nodes;
                        report.edges_written += stats.edges;
                    }
                    Err(e) => {
                        write_error = Some(e);
                        break;
                    }
                }
            }
            if others && may_hold_placeholders {
                if bulk.is_some() {
                    absorb_at_end = true;
                } else if let Err(e) = self.absorb_placeholders(graph).await {
                    // What was written stays; the next write (or re-run) says what is wrong.
                    tracing::warn!(graph, "placeholders not folded: {e}");
                }
            }
        }
        drop(rx);
        if let (Some(pending), None) = (bulk.take(), &write_error) {
            if !cancel.load(Ordering::Relaxed) {
                if let Err(e) = self.build_fresh(graph, pending, &mut report).await {
                    write_error = Some(e);
                }
            }
        }
        if absorb_at_end && write_error.is_none() {
            if let Err(e) = self.absorb_placeholders(graph).await {
                tracing::warn!(graph, "placeholders not folded: {e}");
            }
        }
        let files_result = reader.await.map_err(|e| Error::Server(format!("ingest thread: {e}")))?;
        if let Some(e) = write_error {
            return Err(e);
        }
        report.files = files_result?;
        if logged {
            // A signed checkpoint after each ingest (kept beside the log). What was written
            // stands without it: `provex log checkpoint` makes one later.
            if let Err(e) = self.log_checkpoint(graph).await {
                tracing::warn!(graph, "no checkpoint of the log after this ingest: {e}");
            }
        }
        self.store.commit(batch).await?;
        report.events = report.files.iter().map(|f| f.events).sum();
        report.rejected = report.files.iter().map(|f| f.rejected).sum();
        report.elapsed_ms = started.elapsed().as_millis() as u64;
        if report.method.is_empty() {
            report.method = "merge".into();
        }
        Ok(report)
    }

    /// Whether any of the files is read as prompt-lineage records.
    fn reads_lineage(&self, files: &[PathBuf], format: ingest::Format) -> bool {
        match format {
            ingest::Format::Lineage => true,
            ingest::Format::Auto => {
                files.iter().any(|f| ingest::detect(f).ok() == Some(ingest::Format::Lineage))
            }
            _ => false,
        }
    }

    /// Subscribes to the deltas written from now on. Subscribe before starting an ingest
    /// to miss nothing.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<DeltaBatch>> {
        self.deltas.lock().unwrap_or_else(PoisonError::into_inner).tx.subscribe()
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
        self.live.forget(graph);
        self.ledgers.forget(graph);
        Ok(())
    }

    /// An audit bundle opened as a graph stays as the bundle said: nothing more is written
    /// into it.
    pub(crate) async fn refuse_read_only(&self, graph: &str) -> Result<()> {
        let q = "MATCH (n:AuditBundle) RETURN count(n)";
        let bundles = match self.store.run_ro(graph, q, vec![]).await {
            Ok((_, rows)) => {
                rows.first().and_then(|r| r.first()).and_then(crate::store::value::as_i64).unwrap_or(0)
            }
            Err(Error::NotFound { what: "graph", .. }) => 0,
            Err(e) => return Err(e),
        };
        if bundles > 0 {
            return Err(Error::Usage(format!(
                "graph {graph} is an audit bundle, opened read-only; open other files into another graph"
            )));
        }
        Ok(())
    }

    /// Writes a delta directly (for sources that are not files, such as the demo stream).
    pub async fn write(&self, graph: &str, delta: GraphDelta) -> Result<()> {
        self.store.write(graph, &delta).await?;
        self.publish(graph, delta);
        Ok(())
    }

    /// Hands a written delta to subscribers and to the graph's live view. The delta log's
    /// lock only numbers and queues the batch; the view's layout runs after it is released.
    fn publish(&self, graph: &str, delta: GraphDelta) {
        self.publish_with(graph, delta, Vec::new());
    }

    /// [`Provex::publish`], with the knowledge-graph changes the delta writes.
    fn publish_with(&self, graph: &str, delta: GraphDelta, knowledge: Vec<crate::api::KnowledgeChange>) {
        let routed = {
            let mut log = self.deltas.lock().unwrap_or_else(PoisonError::into_inner);
            let batch = log.publish(graph, delta, knowledge);
            self.live.route(&batch)
        };
        self.live.apply(routed);
    }
}
