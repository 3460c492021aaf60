//! Which spans of an OTLP request can be stored (docs/FORMATS.md "OpenTelemetry traces":
//! ids of the right length and not all zero, times in order and within range), and what a
//! request is told of those that cannot: each span's ids and the reason.

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::trace::v1::Span;
use serde::Serialize;

use super::wire::hex;

/// One span refused, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RejectedSpan {
    /// Lower-case hex, as it came (possibly of the wrong length).
    pub trace_id: String,
    pub span_id: String,
    pub reason: String,
}

impl std::fmt::Display for RejectedSpan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "span {} of trace {}: {}", self.span_id, self.trace_id, self.reason)
    }
}

/// What a request gave: spans taken, and spans refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SpanCounts {
    pub accepted: u64,
    pub rejected: Vec<RejectedSpan>,
}

/// Why a span cannot be stored, if it cannot.
pub fn check(span: &Span) -> Result<(), String> {
    let id_ok = |b: &[u8], n: usize| b.len() == n && b.iter().any(|&x| x != 0);
    if !id_ok(&span.trace_id, 16) {
        return Err(format!("trace id is {} bytes, not 16 (or all zero)", span.trace_id.len()));
    }
    if !id_ok(&span.span_id, 8) {
        return Err(format!("span id is {} bytes, not 8 (or all zero)", span.span_id.len()));
    }
    if !span.parent_span_id.is_empty() && !id_ok(&span.parent_span_id, 8) {
        return Err(format!("parent span id is {} bytes, not 8", span.parent_span_id.len()));
    }
    if span.end_time_unix_nano < span.start_time_unix_nano {
        return Err(format!(
            "ends before it starts ({} < {})",
            span.end_time_unix_nano, span.start_time_unix_nano
        ));
    }
    if span.start_time_unix_nano > i64::MAX as u64 || span.end_time_unix_nano > i64::MAX as u64 {
        return Err("a time is past the year 2262".into());
    }
    for (i, l) in span.links.iter().enumerate() {
        if !id_ok(&l.trace_id, 16) || !id_ok(&l.span_id, 8) {
            return Err(format!("link {i} has a bad trace or span id"));
        }
    }
    Ok(())
}

/// The spans a request refuses, without normalising it.
pub fn rejected(request: &ExportTraceServiceRequest) -> Vec<RejectedSpan> {
    spans(request).filter_map(|(_, s)| check(s).err().map(|reason| rejection(s, reason))).collect()
}

pub(super) fn rejection(s: &Span, reason: String) -> RejectedSpan {
    RejectedSpan { trace_id: hex(&s.trace_id), span_id: hex(&s.span_id), reason }
}

fn spans(r: &ExportTraceServiceRequest) -> impl Iterator<Item = (&[KeyValue], &Span)> {
    r.resource_spans.iter().flat_map(|rs| {
        let attrs = rs.resource.as_ref().map_or(&[][..], |r| &r.attributes[..]);
        rs.scope_spans.iter().flat_map(move |ss| ss.spans.iter().map(move |s| (attrs, s)))
    })
}
