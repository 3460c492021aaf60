//! OpenTelemetry spans exported to Provex live (OTLP/HTTP and OTLP/gRPC receivers call
//! [`Provex::export_received`]; docs/FORMATS.md "OpenTelemetry traces"). The decoded request
//! goes straight to the normaliser, on the exporter's own task; its graph change then joins
//! the exports waiting on the same graph, and one of them writes them all in one store write
//! (group commit) through the same steps as a streamed ingest's batch: the log leaves first
//! (one per export, of the request body as received), the upserts, the live stream a canvas
//! watches, the placeholders folded. Every export is answered once that write is on disk, so
//! what an exporter is told was accepted is stored; a failed write fails every export in it.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use serde::Serialize;
use std::time::Instant;

use tokio::sync::oneshot;

use super::Provex;
use crate::error::{Error, Result};
use crate::ingest::Chunk;
use crate::model::GraphDelta;
pub use crate::sources::otel::normalise::RejectedSpan;
use crate::sources::otel::timings::{self, Phase};
use crate::sources::otel::wire::encode_protobuf;
use crate::sources::otel::{normalise, ExportTraceServiceRequest};

/// The most spans one group write takes (an export larger than that is written alone).
pub const MAX_GROUP_SPANS: u64 = 8192;

/// What one export gave: spans stored, and spans refused with their reasons (OTLP's
/// partial success).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SpanExport {
    pub accepted: u64,
    pub rejected: Vec<RejectedSpan>,
}

/// One export waiting for its graph's next write.
struct Waiting {
    /// Its spans, normalised, with the leaf of its body.
    chunk: Chunk,
    done: oneshot::Sender<Result<()>>,
    /// When it was queued.
    queued: Instant,
}

/// The exports waiting on one graph, and the right to write them.
#[derive(Default)]
struct GraphQueue {
    waiting: Mutex<VecDeque<Waiting>>,
    /// Held by the export writing a group; the next holder takes whatever queued meanwhile.
    writer: tokio::sync::Mutex<()>,
}

/// The OTLP exports waiting to be written, by graph.
#[derive(Default)]
pub(crate) struct Exports {
    graphs: Mutex<HashMap<String, Arc<GraphQueue>>>,
}

impl Exports {
    fn queue(&self, graph: &str) -> Arc<GraphQueue> {
        let mut graphs = self.graphs.lock().unwrap_or_else(PoisonError::into_inner);
        graphs.entry(graph.to_owned()).or_default().clone()
    }
}

impl GraphQueue {
    /// The next group: the oldest exports, up to [`MAX_GROUP_SPANS`] spans (at least one).
    fn take_group(&self) -> Vec<Waiting> {
        let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        let mut group = Vec::new();
        let mut spans = 0;
        while let Some(next) = waiting.front() {
            if !group.is_empty() && spans + next.chunk.events > MAX_GROUP_SPANS {
                break;
            }
            spans += next.chunk.events;
            group.extend(waiting.pop_front());
        }
        group
    }
}

/// The name the log gives the source of an export's leaf.
fn source_name(graph: &str) -> String {
    format!("OTLP export to {graph}")
}

impl Provex {
    /// Stores the spans of one OTLP export request into `graph`, logged as its protobuf
    /// encoding (for a request built in memory; a receiver passes the body it received to
    /// [`Provex::export_received`]).
    pub async fn export_spans(&self, graph: &str, request: ExportTraceServiceRequest) -> Result<SpanExport> {
        let body = encode_protobuf(&request);
        self.export_received(graph, request, &body).await
    }

    /// Stores the spans of one OTLP export request, decoded from `body` (the request body as
    /// received, gzip undone: the record its log leaf hashes), into `graph`; bad spans are
    /// refused with their trace id, span id and reason, the rest stored. Returns once the
    /// stored spans are on disk.
    pub async fn export_received(
        &self,
        graph: &str,
        request: ExportTraceServiceRequest,
        body: &[u8],
    ) -> Result<SpanExport> {
        crate::store::validate_graph_name(graph)?;
        let received_at = Instant::now();
        let mut delta = GraphDelta::new();
        delta.begin_record(0);
        let counts = normalise(&request, &mut delta);
        timings::since(Phase::Normalise, received_at);
        drop(request);
        let done = SpanExport { accepted: counts.accepted, rejected: counts.rejected };
        if done.accepted == 0 {
            return Ok(done);
        }
        let received = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let source = source_name(graph);
        let chunk = Chunk {
            leaves: vec![crate::tlog::leaf_hash(&source, received, body)],
            delta,
            events: done.accepted,
            file: PathBuf::from(source),
            ..Default::default()
        };
        self.group_commit(graph, chunk).await?;
        timings::since(Phase::Export, received_at);
        Ok(done)
    }

    /// Queues `chunk` behind the exports waiting on `graph` and returns once a group write
    /// holding it is on disk. The first export to get the writer's place writes every export
    /// queued by then (up to [`MAX_GROUP_SPANS`] spans), in order, and answers each.
    async fn group_commit(&self, graph: &str, chunk: Chunk) -> Result<()> {
        let queue = self.exports.queue(graph);
        let (done, mut answer) = oneshot::channel();
        queue.waiting.lock().unwrap_or_else(PoisonError::into_inner).push_back(Waiting {
            chunk,
            done,
            queued: Instant::now(),
        });
        loop {
            let writer = tokio::select! {
                biased;
                r = &mut answer => return answered(r),
                w = queue.writer.lock() => w,
            };
            // A writer before this one may have taken (and answered) this export.
            if let Ok(r) = answer.try_recv() {
                return r;
            }
            let group = queue.take_group();
            if group.is_empty() {
                // Taken by the writer before, not answered yet.
                drop(writer);
                return answered(answer.await);
            }
            self.write_group(graph, group).await;
            drop(writer);
        }
    }

    /// Writes a group of exports in one batch and answers each: all stored, or all failed.
    async fn write_group(&self, graph: &str, group: Vec<Waiting>) {
        let mut answers = Vec::with_capacity(group.len());
        let mut all: Option<Chunk> = None;
        let started = Instant::now();
        for w in group {
            timings::record(Phase::Queued, started.saturating_duration_since(w.queued));
            answers.push(w.done);
            match all.as_mut() {
                Some(c) => c.absorb(w.chunk),
                None => all = Some(w.chunk),
            }
        }
        let Some(chunk) = all else { return };
        let result = self.write_prepared(graph, chunk).await;
        timings::since(Phase::GroupWrite, started);
        for a in answers {
            let _ = a.send(match &result {
                Ok(_) => Ok(()),
                Err(e) => Err(same_error(e)),
            });
        }
    }
}

/// What the writer said, or (its task was dropped mid-write) that nothing is confirmed.
fn answered(r: std::result::Result<Result<()>, oneshot::error::RecvError>) -> Result<()> {
    r.unwrap_or_else(|_| {
        Err(Error::ConnectionLost {
            during: "an OTLP export's write".into(),
            reason: "the write holding it stopped before it was confirmed on disk".into(),
        })
    })
}

/// The same failure, for each export of a failed group (errors are not `Clone`: an I/O
/// error keeps its kind and message).
fn same_error(e: &Error) -> Error {
    match e {
        Error::Usage(m) => Error::Usage(m.clone()),
        Error::Connection { url, reason } => Error::Connection { url: url.clone(), reason: reason.clone() },
        Error::ServerMissing { looked, install } => {
            Error::ServerMissing { looked: looked.clone(), install: install.clone() }
        }
        Error::Server(m) => Error::Server(m.clone()),
        Error::ConnectionLost { during, reason } => {
            Error::ConnectionLost { during: during.clone(), reason: reason.clone() }
        }
        Error::Query(m) => Error::Query(m.clone()),
        Error::NotFound { what, name } => Error::NotFound { what, name: name.clone() },
        Error::Io { path, source } => {
            Error::Io { path: path.clone(), source: std::io::Error::new(source.kind(), source.to_string()) }
        }
        Error::Input { path, reason } => Error::Input { path: path.clone(), reason: reason.clone() },
        Error::ForbiddenPath(m) => Error::ForbiddenPath(m.clone()),
        Error::BadRequest(m) => Error::BadRequest(m.clone()),
        Error::PayloadTooLarge(m) => Error::PayloadTooLarge(m.clone()),
        Error::Busy(m) => Error::Busy(m.clone()),
        Error::Timeout(m) => Error::Timeout(m.clone()),
        Error::Unsupported(m) => Error::Unsupported(m.clone()),
        Error::LlmNotConfigured => Error::LlmNotConfigured,
        Error::Llm { url, reason } => Error::Llm { url: url.clone(), reason: reason.clone() },
        Error::WriteRefused(m) => Error::WriteRefused(m.clone()),
        Error::NotStored(m) => Error::NotStored(m.clone()),
        Error::Witness { code, message } => Error::Witness { code: *code, message: message.clone() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiting(spans: u64) -> (Waiting, oneshot::Receiver<Result<()>>) {
        let (done, rx) = oneshot::channel();
        (Waiting { chunk: Chunk { events: spans, ..Default::default() }, done, queued: Instant::now() }, rx)
    }

    #[test]
    fn groups_take_the_oldest_exports_up_to_the_bound() {
        let q = GraphQueue::default();
        let mut keep = Vec::new();
        for spans in [100, 5000, 4000, 200, 9000, 10] {
            let (w, rx) = waiting(spans);
            keep.push(rx);
            q.waiting.lock().unwrap().push_back(w);
        }
        let sizes = |g: Vec<Waiting>| g.iter().map(|w| w.chunk.events).collect::<Vec<_>>();
        assert_eq!(sizes(q.take_group()), [100, 5000]);
        assert_eq!(sizes(q.take_group()), [4000, 200]);
        // An export over the bound is written alone.
        assert_eq!(sizes(q.take_group()), [9000]);
        assert_eq!(sizes(q.take_group()), [10]);
        assert!(q.take_group().is_empty());
    }

    #[test]
    fn every_export_of_a_failed_group_gets_the_same_failure() {
        let e = Error::ConnectionLost { during: "a write".into(), reason: "reset".into() };
        let copy = same_error(&e);
        assert_eq!((copy.code(), copy.to_string()), (e.code(), e.to_string()));
        let io = Error::io("x", std::io::Error::new(std::io::ErrorKind::StorageFull, "disk full"));
        let copy = same_error(&io);
        assert_eq!((copy.code(), copy.to_string()), (io.code(), io.to_string()));
    }

    #[tokio::test]
    async fn an_export_whose_writer_stopped_is_not_acknowledged() {
        let (tx, rx) = oneshot::channel::<Result<()>>();
        drop(tx);
        let e = answered(rx.await).unwrap_err();
        assert_eq!(e.code(), crate::api::ErrorCode::ConnectionLost, "{e}");
    }
}
