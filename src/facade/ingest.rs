//! The facade's ingest: files or a stream read by the ingest pipeline on their own task
//! (`ingest/`), while this side writes each batch: the log leaves first (leading the same
//! pipeline as the graph changes), then the graph changes (with GRAPH.BULK for a new graph),
//! then what each source does after a write (signed statements to the graph's ledger,
//! reasoning placeholders relinked).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::api::IngestReport;
use tokio::sync::mpsc;

use super::ingest_read::Input;
use super::observer::IngestObserver;
use super::{bulk, calls, read_registry, Provex};
use crate::error::{Error, Result};
use crate::ingest::{self, Chunk, IngestOptions};
use crate::model::Label;
use crate::sources::otel::timings::{self, Phase};
use crate::sources::reasoning::relink;
use crate::sources::statements::KeyRegistry;
use crate::store::WriteStats;

impl crate::api::IngestReport {
    /// Counts what one write wrote.
    pub(super) fn count(&mut self, stats: WriteStats) {
        self.nodes_written += stats.nodes;
        self.edges_written += stats.edges;
    }
}

/// What the writing side of one ingest keeps between batches.
struct Writing<'a> {
    graph: &'a str,
    report: IngestReport,
    /// The graph being gathered for GRAPH.BULK, while it is.
    bulk: Option<bulk::Pending>,
    /// The key registry given for signed statements.
    extra_keys: Option<KeyRegistry>,
    events_by_file: HashMap<PathBuf, u64>,
    /// Whether the graph may hold reasoning placeholders that nodes of other sources could
    /// take the place of: it has Explain nodes already, or this ingest writes some.
    may_hold_placeholders: bool,
    /// Placeholders are folded once the bulk-built graph exists.
    absorb_at_end: bool,
    /// Whether any leaf joined the graph's log.
    logged: bool,
    /// OpenTelemetry span placeholders are folded once the bulk-built graph exists.
    fold_spans_at_end: bool,
    observer: Arc<dyn IngestObserver>,
}

/// Where a batch's leaves went in its graph's log, and whether they are appended yet.
#[derive(Clone, Copy)]
struct Logged {
    first: u64,
    appended: bool,
}

/// How long one batch's steps took on its way to the live stream: logged at debug level on
/// target `provex::write_path` (the UI benchmark's event → pixels pass reads them), so that
/// a slower live path names the step that got slower.
struct Steps {
    started: Instant,
    events: u64,
    nodes: usize,
    /// The log append when it took a round trip of its own (or reading the log's end).
    log: Duration,
    /// The graph write (with the log append leading its pipeline).
    write: Duration,
    /// Publishing to the live stream: the live view's layout and its stream message.
    publish: Duration,
}

impl Steps {
    fn new(events: u64) -> Steps {
        let zero = Duration::ZERO;
        Steps { started: Instant::now(), events, nodes: 0, log: zero, write: zero, publish: zero }
    }

    fn done(self, graph: &str) {
        let ms = |d: Duration| (d.as_secs_f64() * 1e4).round() / 10.0;
        tracing::debug!(
            target: "provex::write_path",
            graph,
            events = self.events,
            nodes = self.nodes,
            log_ms = ms(self.log),
            write_ms = ms(self.write),
            publish_ms = ms(self.publish),
            total_ms = ms(self.started.elapsed()),
            "batch written"
        );
    }
}

impl Provex {
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
        if opts.lineage.is_none() && reads_lineage(files, opts.format) {
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
        let bulk = if opts.bulk && !opts.follow && !self.store.graphs_list().await?.iter().any(|g| g == graph)
        {
            Some(bulk::Pending::new(opts.bulk_max_rows))
        } else {
            self.store.ensure_indexes(graph).await?;
            None
        };
        let fresh = bulk.is_some();
        let mut w = Writing {
            graph,
            report: IngestReport { graph: graph.to_owned(), ..Default::default() },
            bulk,
            extra_keys: opts.keys.as_deref().map(read_registry).transpose()?,
            events_by_file: HashMap::new(),
            may_hold_placeholders: relink::has_explain(&self.store, graph).await,
            absorb_at_end: false,
            logged: false,
            fold_spans_at_end: false,
            observer: observer.clone(),
        };
        // The report acknowledges everything written, so it waits until that is on disk.
        let batch = self.store.batch();
        let started = Instant::now();
        let coalesce = opts.batch_events as u64;
        let (tx, rx) = mpsc::channel::<Chunk>(4);
        let reader = super::ingest_read::spawn_reader(inputs, opts, cancel.clone(), observer, tx);
        let mut write_error = self.write_all(&mut w, rx, coalesce, &cancel).await.err();
        if write_error.is_none() {
            write_error = self.finish_writes(&mut w, &cancel).await.err();
        }
        let files_result = reader.await.map_err(|e| Error::Server(format!("ingest thread: {e}")))?;
        if fresh && (write_error.is_some() || cancel.load(Ordering::Relaxed)) {
            self.forget_unbuilt(graph).await;
        }
        if let Some(e) = write_error {
            return Err(e);
        }
        let mut report = w.report;
        report.files = files_result?;
        if w.logged {
            // A signed checkpoint after each ingest (kept beside the log). What was written
            // stands without it: `provex log checkpoint` makes one later.
            if let Err(e) = self.log_checkpoint(graph).await {
                tracing::warn!(graph, "no checkpoint of the log after this ingest: {e}");
            }
        }
        // What the ingest wrote is found by a search across graphs once it is acknowledged.
        self.search_flush().await;
        // And the Runs view's rows kept in the database have its time span.
        self.runs_flush().await;
        self.store.commit(batch).await?;
        report.events = report.files.iter().map(|f| f.events).sum();
        report.rejected = report.files.iter().map(|f| f.rejected).sum();
        report.elapsed_ms = started.elapsed().as_millis() as u64;
        if report.method.is_empty() {
            report.method = "merge".into();
        }
        Ok(report)
    }

    /// Writes one batch its caller read and normalised itself (with a leaf per record), by
    /// the same steps as a streamed ingest's batch (log leaves, upserts, live stream,
    /// placeholders, checkpoint); returns once it is on disk. OTLP exports grouped into one
    /// write come this way (`otel.rs`).
    pub(super) async fn write_prepared(&self, graph: &str, chunk: Chunk) -> Result<IngestReport> {
        let t = Instant::now();
        self.refuse_read_only(graph).await?;
        self.store.ensure_indexes(graph).await?;
        let mut w = Writing {
            graph,
            report: IngestReport { graph: graph.to_owned(), ..Default::default() },
            bulk: None,
            extra_keys: None,
            events_by_file: HashMap::new(),
            may_hold_placeholders: relink::has_explain(&self.store, graph).await,
            absorb_at_end: false,
            logged: false,
            fold_spans_at_end: false,
            observer: Arc::new(super::Quiet),
        };
        timings::since(Phase::Checks, t);
        let batch = self.store.batch();
        self.write_chunk(&mut w, chunk).await?;
        self.finish_writes(&mut w, &AtomicBool::new(false)).await?;
        let t = Instant::now();
        if w.logged {
            if let Err(e) = self.log_checkpoint(graph).await {
                tracing::warn!(graph, "no checkpoint of the log after this write: {e}");
            }
        }
        timings::since(Phase::Checkpoint, t);
        let t = Instant::now();
        self.store.commit(batch).await?;
        timings::since(Phase::Commit, t);
        Ok(w.report)
    }

    /// Writes the batches as they come, until the readers are done or the ingest is
    /// stopped. Chunks that queued while a write ran go out together with the next one (up
    /// to a batch): a following reader sends small chunks often, and the writer keeps up.
    async fn write_all(
        &self,
        w: &mut Writing<'_>,
        mut rx: mpsc::Receiver<Chunk>,
        coalesce: u64,
        cancel: &AtomicBool,
    ) -> Result<()> {
        let mut carry: Option<Chunk> = None;
        loop {
            let mut chunk = match carry.take() {
                Some(c) => c,
                None => match rx.recv().await {
                    Some(c) => c,
                    None => return Ok(()),
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
                return Ok(());
            }
            self.write_chunk(w, chunk).await?;
        }
    }

    /// Writes one batch: its log leaves, its graph changes, then each source's after-write
    /// step.
    async fn write_chunk(&self, w: &mut Writing<'_>, mut chunk: Chunk) -> Result<()> {
        let graph = w.graph;
        let mut steps = Steps::new(chunk.events);
        // The batch's records join the graph's log before its nodes are written: a crash
        // leaves leaves without nodes, never nodes without leaves. Nodes written now name the
        // leaves where this session's log ends, and the append leads their write's pipeline
        // (`log_append.rs`); a batch gathered for GRAPH.BULK appends its leaves at once.
        let mut log: Option<Logged> = None;
        if !chunk.leaves.is_empty() && self.log_enabled() {
            let t = Instant::now();
            let appended = w.bulk.is_some();
            let first = if appended {
                let first = self.log_append(graph, &chunk.leaves).await?;
                timings::since(Phase::LogAppend, t);
                first
            } else {
                self.log_next_index(graph).await?
            };
            steps.log += t.elapsed();
            chunk.delta.stamp_log_leaves(first, crate::tlog::props_digest);
            log = Some(Logged { first, appended });
            w.logged = true;
        }
        for r in &chunk.rejected {
            w.observer.rejected(r);
        }
        let spans = crate::sources::otel::placeholders::filling(&chunk.delta);
        w.fold_spans_at_end |= !spans.is_empty() && w.bulk.is_some();
        // Reasoning steps that name a node of another source get their edge to it.
        chunk.delta = relink::relink(&self.store, graph, chunk.delta.take()).await?;
        w.may_hold_placeholders |= chunk.delta.nodes().any(|n| n.label == Label::Explain);
        // Nodes of other sources may take the place of reasoning placeholders of their name.
        let others = !chunk.records.is_empty()
            || chunk.delta.nodes().any(|n| relink::OTHER_SOURCES.contains(&n.label));
        if let Some(pending) = w.bulk.as_mut() {
            if pending.fits(&chunk.delta) && chunk.records.is_empty() {
                self.gather_fresh(graph, pending, std::mem::take(&mut chunk.delta)).await;
            } else {
                self.build_fresh(graph, w.bulk.take().expect("pending"), &mut w.report).await?;
            }
        }
        if (!chunk.delta.is_empty() || !chunk.records.is_empty()) && w.report.method == "bulk" {
            w.report.method = "bulk+merge".into();
        }
        if !chunk.delta.is_empty() {
            // The search index's queue has room for what this write publishes.
            self.search.room().await;
            let t = Instant::now();
            let stats = match &mut log {
                Some(l) if !l.appended => {
                    let (first, stats) =
                        self.log_append_and_write(graph, &chunk.leaves, l.first, &mut chunk.delta).await?;
                    *l = Logged { first, appended: true };
                    stats
                }
                _ => self.store.write_unsynced(graph, &chunk.delta).await?,
            };
            timings::since(Phase::Upserts, t);
            steps.write = t.elapsed();
            steps.nodes = chunk.delta.node_count();
            w.report.count(stats);
        }
        // A batch that wrote no nodes now (documents only): its leaves go before the documents'.
        if let Some(l) = log.as_mut().filter(|l| !l.appended) {
            let t = Instant::now();
            *l = Logged { first: self.log_append(graph, &chunk.leaves).await?, appended: true };
            timings::since(Phase::LogAppend, t);
            steps.log += t.elapsed();
        }
        let events = w.events_by_file.entry(chunk.file.clone()).or_default();
        *events += chunk.events;
        w.observer.progress(&chunk.file, chunk.offset, *events);
        let t = Instant::now();
        // OpenTelemetry parents stored after their children fill their placeholders.
        if !chunk.delta.is_empty() {
            self.publish(graph, chunk.delta);
        }
        steps.publish = t.elapsed();
        if !spans.is_empty() && w.bulk.is_none() {
            let t = Instant::now();
            match crate::sources::otel::placeholders::fold_placeholders(&self.store, graph, Some(&spans))
                .await
            {
                Ok(folded) => self.publish_folded(graph, &folded).await,
                Err(e) => tracing::warn!(graph, "span placeholders not folded: {e}"),
            }
            timings::since(Phase::Fold, t);
        }
        if !chunk.records.is_empty() {
            let record_leaves = match log {
                Some(l) => crate::sources::statements::log_leaves::DocumentLeaves::new(
                    &chunk.file.to_string_lossy(),
                    &chunk.records,
                    &chunk.record_leaves,
                    l.first,
                ),
                None => crate::sources::statements::log_leaves::DocumentLeaves::default(),
            };
            let keys = bundle_keys(w.extra_keys.as_ref(), &chunk.keys);
            let stats = self
                .add_documents(graph, keys.as_ref().or(w.extra_keys.as_ref()), chunk.records, &record_leaves)
                .await?;
            w.report.count(stats);
        }
        if others && w.may_hold_placeholders {
            if w.bulk.is_some() {
                w.absorb_at_end = true;
            } else {
                self.absorb_placeholders(graph).await;
            }
        }
        steps.done(graph);
        Ok(())
    }

    /// After the last batch: the bulk-built graph, then the placeholders it lets fold.
    async fn finish_writes(&self, w: &mut Writing<'_>, cancel: &AtomicBool) -> Result<()> {
        if let Some(pending) = w.bulk.take() {
            if !cancel.load(Ordering::Relaxed) {
                self.build_fresh(w.graph, pending, &mut w.report).await?;
            }
        }
        if w.absorb_at_end {
            self.absorb_placeholders(w.graph).await;
        }
        if w.fold_spans_at_end {
            match crate::sources::otel::placeholders::fold_placeholders(&self.store, w.graph, None).await {
                Ok(folded) => self.publish_folded(w.graph, &folded).await,
                Err(e) => tracing::warn!(graph = w.graph, "span placeholders not folded: {e}"),
            }
        }
        Ok(())
    }

    /// Folds reasoning placeholders into the nodes of other sources that now hold their
    /// names. What was written stays when it fails; the next write (or re-run) says what is
    /// wrong.
    async fn absorb_placeholders(&self, graph: &str) {
        match relink::absorb_placeholders(&self.store, graph).await {
            Ok(folded) => self.publish_folded(graph, &folded).await,
            Err(e) => tracing::warn!(graph, "placeholders not folded: {e}"),
        }
    }

    /// Tells the live stream which nodes placeholders were folded into, as stored, so a
    /// drawing that shows a placeholder under their name shows them instead.
    pub(super) async fn publish_folded(&self, graph: &str, folded: &[(Label, String)]) {
        if folded.is_empty() {
            return;
        }
        match crate::store::placeholders::folded_nodes(&self.store, graph, folded).await {
            Ok(delta) if !delta.is_empty() => self.publish(graph, delta),
            Ok(_) => {}
            Err(e) => tracing::warn!(graph, "folded placeholders not streamed: {e}"),
        }
    }
}

/// An audit bundle's trusted keys joined to the registry given, for its statements (`None`
/// when the batch came from no bundle).
fn bundle_keys(
    given: Option<&KeyRegistry>,
    keys: &[crate::sources::statements::KeyEntry],
) -> Option<KeyRegistry> {
    if keys.is_empty() {
        return None;
    }
    let mut registry = given.cloned().unwrap_or_default();
    for k in keys {
        if let Err(e) = registry.add_entry(k) {
            tracing::warn!("a bundle's key {}: {e}", k.key_id);
        }
    }
    Some(registry)
}

/// Whether any of the files is read as prompt-lineage records.
fn reads_lineage(files: &[PathBuf], format: ingest::Format) -> bool {
    match format {
        ingest::Format::Lineage => true,
        ingest::Format::Auto => files.iter().any(|f| ingest::detect(f).ok() == Some(ingest::Format::Lineage)),
        _ => false,
    }
}
