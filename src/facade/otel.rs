//! OpenTelemetry spans exported to Provex live (OTLP/HTTP and OTLP/gRPC receivers call
//! [`Provex::export_spans`]; docs/FORMATS.md "OpenTelemetry traces"). A request goes through
//! the same path as a streamed ingest: its graph log leaves, its upserts, the live stream a
//! canvas watches, and the placeholders of other sources relinked; it is on disk when the
//! call returns, so what an exporter is told was accepted is stored.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use futures_util::StreamExt;
use serde::Serialize;

use super::{Provex, Quiet};
use crate::error::Result;
use crate::ingest::{Format, IngestOptions};
use crate::sources::otel::normalise::rejected;
pub use crate::sources::otel::normalise::RejectedSpan;
use crate::sources::otel::wire::encode_json;
use crate::sources::otel::ExportTraceServiceRequest;

/// What one export gave: spans stored, and spans refused with their reasons (OTLP's
/// partial success).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SpanExport {
    pub accepted: u64,
    pub rejected: Vec<RejectedSpan>,
}

impl Provex {
    /// Stores the spans of one OTLP export request into `graph`; bad spans are refused with
    /// their trace id, span id and reason, the rest stored. Returns once the stored spans
    /// are on disk.
    pub async fn export_spans(&self, graph: &str, request: ExportTraceServiceRequest) -> Result<SpanExport> {
        crate::store::validate_graph_name(graph)?;
        let total: u64 =
            request.resource_spans.iter().flat_map(|r| &r.scope_spans).map(|s| s.spans.len() as u64).sum();
        let rejected = rejected(&request);
        let accepted = total - rejected.len() as u64;
        if accepted == 0 {
            return Ok(SpanExport { accepted, rejected });
        }
        let mut line = encode_json(&request).into_bytes();
        line.push(b'\n');
        let upload = self.new_upload_path(&format!("otlp-{graph}.jsonl"))?;
        let opts = IngestOptions {
            format: Format::Otlp,
            rejects: Some(upload.with_extension("rejected.jsonl")),
            max_line_bytes: line.len().max(crate::ingest::DEFAULT_MAX_LINE_BYTES),
            ..Default::default()
        };
        let name = PathBuf::from(format!("OTLP export to {graph}"));
        let body = futures_util::stream::once(async move { Ok(axum::body::Bytes::from(line)) }).boxed();
        self.ingest_stream(graph, name, body, opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
            .await?;
        Ok(SpanExport { accepted, rejected })
    }
}
