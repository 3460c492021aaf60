//! W3C PROV-JSON documents as the ingest pipeline reads them: a file read whole, its
//! records and relations each rejected with its line when it cannot be read
//! (`docs/FORMATS.md` "W3C PROV-JSON").

use std::path::Path;

use crate::error::{Error, Result};
use crate::sources::{Context, Format, Reader, Sink, Sniff, Source};

/// The PROV-JSON source.
pub struct Prov;

impl Source for Prov {
    fn format(&self) -> Format {
        Format::ProvJson
    }

    fn looks_like(&self, what: Sniff<'_>) -> bool {
        match what {
            Sniff::Record(obj) | Sniff::Document(obj) => super::import::looks_like(obj),
            Sniff::Array => false,
        }
    }

    fn whole_only(&self) -> Option<&'static str> {
        Some("a PROV-JSON document is read whole: ingest it as a file")
    }

    fn reads_whole(&self, _path: &Path, _first: Option<&str>) -> bool {
        true
    }

    fn read_whole(&self, path: &Path, out: &mut dyn Sink) -> Result<(u64, u64)> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        out.document(&bytes);
        add_document(&bytes, out);
        Ok((bytecount(&bytes), bytes.len() as u64))
    }

    fn reader(&self, _ctx: &Context) -> Box<dyn Reader> {
        Box::new(Refused)
    }
}

/// Newlines in a byte slice.
fn bytecount(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|b| **b == b'\n').count() as u64
}

/// PROV-JSON is never read line by line.
struct Refused;

impl Reader for Refused {
    fn line(&mut self, number: u64, bytes: &[u8], out: &mut dyn Sink) {
        out.refuse(number, "PROV-JSON documents are read whole".into(), bytes);
    }
}

/// Adds a PROV-JSON document (the whole file): its records and relations, each one that
/// cannot be read rejected with its line.
fn add_document(bytes: &[u8], out: &mut dyn Sink) {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let line = bytecount(&bytes[..e.valid_up_to()]) + 1;
            let at = e.valid_up_to();
            let start = bytes[..at].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
            let end = bytes[at..].iter().position(|b| *b == b'\n').map_or(bytes.len(), |i| at + i);
            out.refuse(line, format!("not valid UTF-8 (at byte {at})"), &bytes[start..end]);
            return;
        }
    };
    match super::import::import(text) {
        Ok(imported) => {
            // The lines split once: looking each rejected record's line up from the top
            // made a document of many rejected records quadratic.
            let lines: Vec<&str> =
                if imported.rejected.is_empty() { Vec::new() } else { text.lines().collect() };
            for (line, reason) in imported.rejected {
                let t = lines.get(line.saturating_sub(1) as usize).copied().unwrap_or("");
                out.refuse(line, reason, t.as_bytes());
            }
            out.accept(imported.statements);
            out.delta().extend(imported.delta);
        }
        Err((line, reason)) => {
            let t = text.lines().nth(line.saturating_sub(1) as usize).unwrap_or("");
            out.refuse(line, reason, t.as_bytes());
        }
    }
}
