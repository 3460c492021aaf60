//! OTLP JSON files as the ingest pipeline reads them (docs/FORMATS.md "OpenTelemetry
//! traces"): one `ExportTraceServiceRequest` or `TracesData` per line (what the Collector's
//! file exporter writes), or one such document per file. A bad span is refused with its
//! trace id, span id and reason; the other spans of its line are kept.

use std::path::Path;

use super::normalise::normalise;
use super::wire::decode_json;
use crate::error::{Error, Result};
use crate::sources::{utf8, Context, Format, Reader, Sink, Sniff, Source};

/// The OpenTelemetry source.
pub struct Otel;

impl Source for Otel {
    fn format(&self) -> Format {
        Format::Otlp
    }

    /// A request or document: an object with `resourceSpans`.
    fn looks_like(&self, what: Sniff<'_>) -> bool {
        matches!(what, Sniff::Record(o) | Sniff::Document(o) if o.contains_key("resourceSpans"))
    }

    /// A file whose first line is not a whole JSON object is one pretty-printed document.
    fn reads_whole(&self, _path: &Path, first: Option<&str>) -> bool {
        first.is_some_and(|l| serde_json::from_str::<serde::de::IgnoredAny>(l).is_err())
    }

    fn read_whole(&self, path: &Path, out: &mut dyn Sink) -> Result<(u64, u64)> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let lines = bytes.iter().filter(|b| **b == b'\n').count() as u64;
        out.document(&bytes);
        request(1, &bytes, out);
        Ok((lines, bytes.len() as u64))
    }

    fn reader(&self, _ctx: &Context) -> Box<dyn Reader> {
        Box::new(Lines)
    }
}

/// Each line is a request of its own.
struct Lines;

impl Reader for Lines {
    fn line(&mut self, number: u64, bytes: &[u8], out: &mut dyn Sink) {
        request(number, bytes, out);
    }
}

/// Decodes and normalises one request into `out`, refusing what cannot be read.
fn request(number: u64, bytes: &[u8], out: &mut dyn Sink) {
    if let Err(reason) = utf8(bytes) {
        return out.refuse(number, reason, bytes);
    }
    let req = match decode_json(bytes) {
        Ok(r) => r,
        Err(e) => return out.refuse(number, e.to_string(), bytes),
    };
    let counts = normalise(&req, out.delta());
    for r in counts.rejected {
        out.refuse(number, r.to_string(), bytes);
    }
    out.accept(counts.accepted);
}
