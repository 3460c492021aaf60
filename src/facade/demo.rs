//! The council-meeting demo through the facade: its files, and its records streamed into a
//! graph at once or paced over time as a live run would be.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Provex;
use crate::demo::council::{self, Stream};
use crate::error::{Error, Result};
use crate::ingest::{normalize_line, Format};
use crate::model::GraphDelta;
use crate::sources::statements::log_leaves;

/// The leaves of the demo records not yet written, as an ingest's batch keeps them.
#[derive(Default)]
struct DemoLog {
    leaves: Vec<crate::tlog::Hash>,
    /// Each leaf's time of receipt (Unix ms).
    received: Vec<u64>,
    /// Each document's line, beside the documents not yet written.
    entries: Vec<Option<log_leaves::LineEntry>>,
    /// Whether anything was appended to the log.
    logged: bool,
}

impl DemoLog {
    /// The leaf of a record received now from its stream's file; its position in the batch.
    fn leaf(&mut self, stream: Stream, line: &str) -> u32 {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        self.leaves.push(crate::tlog::leaf_hash(file_of(stream), now, line.as_bytes()));
        self.received.push(now);
        (self.leaves.len() - 1) as u32
    }
}

/// The demo file a stream's records are written to (`write_council_files`), the source its
/// leaves name.
fn file_of(stream: Stream) -> &'static str {
    match stream {
        Stream::Events => "council-events.jsonl",
        Stream::A2ap => "council-a2ap.jsonl",
        Stream::Explain => "council-explain.jsonl",
        Stream::Otel => "council-otel.jsonl",
    }
}

/// What a demo run did.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq, ts_rs::TS)]
pub struct DemoReport {
    pub graph: Option<String>,
    pub events: usize,
    pub documents: usize,
    pub files: Vec<PathBuf>,
}

/// Writes the demo's files (events, documents, key registry, transcript) into `dir`.
pub fn write_council_files(dir: &Path) -> Result<Vec<PathBuf>> {
    council::generate().write_to(dir)
}

impl Provex {
    /// Streams the council demo into `graph`: all at once, or with `pace` one record every
    /// `pace` milliseconds, in the order a live run emits them. `cancel` stops it early.
    pub async fn demo_council(
        &self,
        graph: &str,
        pace: Option<u64>,
        cancel: Arc<AtomicBool>,
    ) -> Result<DemoReport> {
        crate::store::validate_graph_name(graph)?;
        self.refuse_read_only(graph).await?;
        let demo = council::generate();
        let registry = council::demo_registry();
        let mut report = DemoReport { graph: Some(graph.to_owned()), ..Default::default() };
        // Acknowledged as a whole, once on disk (one barrier, not one per paced record).
        let batch = self.store.batch();
        let start = tokio::time::Instant::now();
        let mut events = GraphDelta::new();
        let mut docs: Vec<crate::sources::statements::Record> = Vec::new();
        let mut explain = crate::sources::reasoning::StreamState::default();
        // Each record joins the graph's log as if read from the demo's file of its stream.
        let mut log = DemoLog::default();
        for (offset, record) in demo.schedule(pace) {
            if cancel.load(Ordering::Relaxed) {
                break;
            }
            if pace.is_some() {
                tokio::time::sleep_until(start + Duration::from_millis(offset)).await;
            }
            let leaf = log.leaf(record.stream, &record.line);
            events.begin_record(leaf);
            match record.stream {
                Stream::Events => {
                    normalize_line(Format::A2a, record.line.as_bytes(), &mut events)
                        .map_err(|e| Error::Server(format!("demo event: {e}")))?;
                    report.events += 1;
                }
                Stream::Explain => {
                    let v: serde_json::Value = serde_json::from_str(&record.line)
                        .map_err(|e| Error::Server(format!("demo explain message: {e}")))?;
                    explain
                        .line(&v, &mut events)
                        .map_err(|e| Error::Server(format!("demo explain message: {e}")))?;
                    report.events += 1;
                }
                Stream::Otel => {
                    let request = crate::sources::otel::wire::decode_json(record.line.as_bytes())
                        .map_err(|e| Error::Server(format!("demo spans: {e}")))?;
                    crate::sources::otel::normalise(&request, &mut events);
                    report.events += 1;
                }
                Stream::A2ap => {
                    for r in crate::sources::statements::parse_documents(&record.line) {
                        let r = r.map_err(|e| Error::Server(format!("demo document: {e}")))?;
                        log.entries.push(Some(log_leaves::LineEntry::new(leaf, &r, &record.line)));
                        log_leaves::received(&mut log.entries, leaf, log.received[leaf as usize]);
                        docs.push(r);
                        report.documents += 1;
                    }
                }
            }
            if pace.is_some() {
                self.flush_demo(graph, &mut events, &registry, &mut docs, &mut log).await?;
            }
        }
        self.flush_demo(graph, &mut events, &registry, &mut docs, &mut log).await?;
        if log.logged {
            // A signed checkpoint after the run, as after an ingest.
            if let Err(e) = self.log_checkpoint(graph).await {
                tracing::warn!(graph, "no checkpoint of the log after the demo: {e}");
            }
        }
        self.store.commit(batch).await?;
        Ok(report)
    }

    async fn flush_demo(
        &self,
        graph: &str,
        events: &mut GraphDelta,
        registry: &crate::sources::statements::KeyRegistry,
        docs: &mut Vec<crate::sources::statements::Record>,
        log: &mut DemoLog,
    ) -> Result<()> {
        // The records join the log before their nodes are written (as an ingest's batch).
        let mut stamps = log_leaves::DocumentLeaves::default();
        if !log.leaves.is_empty() && self.log_enabled() {
            let first = self.log_append(graph, &log.leaves).await?;
            events.stamp_log_leaves(first, crate::tlog::props_digest);
            stamps = log_leaves::DocumentLeaves::new(file_of(Stream::A2ap), docs, &log.entries, first);
            log.logged = true;
        }
        log.leaves.clear();
        log.received.clear();
        log.entries.clear();
        // Documents first: the research question's steps name the statements they hold.
        if !docs.is_empty() {
            self.add_documents(graph, Some(registry), std::mem::take(docs), &stamps).await?;
        }
        if !events.is_empty() {
            let spans = crate::sources::otel::placeholders::filling(events);
            let delta = crate::sources::reasoning::relink::relink(&self.store, graph, events.take()).await?;
            self.store.write_unsynced(graph, &delta).await?;
            self.publish(graph, delta);
            // A span's parent streamed after it takes its placeholder's place.
            let folded =
                crate::sources::otel::placeholders::fold_placeholders(&self.store, graph, Some(&spans))
                    .await?;
            self.publish_folded(graph, &folded).await;
        }
        Ok(())
    }
}
