//! W3C PROV-JSON and PROV-O (Turtle) documents as the ingest pipeline reads them: a file read
//! whole, its records and relations each rejected with its line when it cannot be read
//! (`docs/FORMATS.md` "W3C PROV-JSON", "PROV-O (Turtle) in").

use std::path::Path;

use crate::error::{Error, Result};
use crate::sources::{Context, Format, Reader, Sink, Sniff, Source};

/// A PROV source: a document read whole in one serialisation, by its importer.
pub struct ProvDocument {
    format: Format,
    /// What the serialisation is called, in what a refusal says.
    name: &'static str,
    /// Why a stream of it cannot be read.
    whole_only: &'static str,
    looks_like: fn(Sniff<'_>) -> bool,
    import: Importer,
}

/// The PROV-JSON source.
pub const PROV_JSON: ProvDocument = ProvDocument {
    format: Format::ProvJson,
    name: "PROV-JSON",
    whole_only: "a PROV-JSON document is read whole: ingest it as a file",
    looks_like: |what| match what {
        Sniff::Record(obj) | Sniff::Document(obj) => super::import::looks_like(obj),
        Sniff::Array => false,
    },
    import: super::import::import,
};

/// The PROV-O source: Turtle, recognised by its extension or its first line (it is no JSON,
/// see [`looks_like_turtle`]).
pub const PROV_O: ProvDocument = ProvDocument {
    format: Format::ProvO,
    name: "PROV-O",
    whole_only: "a PROV-O document is read whole: ingest it as a file",
    looks_like: |_| false,
    import: super::turtle::import,
};

impl Source for ProvDocument {
    fn format(&self) -> Format {
        self.format
    }

    fn looks_like(&self, what: Sniff<'_>) -> bool {
        (self.looks_like)(what)
    }

    fn whole_only(&self) -> Option<&'static str> {
        Some(self.whole_only)
    }

    fn reads_whole(&self, _path: &Path, _first: Option<&str>) -> bool {
        true
    }

    fn read_whole(&self, path: &Path, out: &mut dyn Sink) -> Result<(u64, u64)> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        out.document(&bytes);
        add_document(&bytes, out, self.import);
        Ok((bytecount(&bytes), bytes.len() as u64))
    }

    fn reader(&self, _ctx: &Context) -> Box<dyn Reader> {
        Box::new(Refused(self.name))
    }
}

/// Whether a file whose first non-blank line is not JSON is Turtle: its extension says so,
/// or it opens with a directive, a comment or an IRI.
pub fn looks_like_turtle(path: &Path, first: &str) -> bool {
    let first = first.trim_start_matches('\u{feff}').trim_start();
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("ttl"))
        || ["@prefix", "@base", "PREFIX ", "BASE ", "prefix ", "base ", "#", "<"]
            .iter()
            .any(|d| first.starts_with(d))
}

/// Newlines in a byte slice.
fn bytecount(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|b| **b == b'\n').count() as u64
}

/// PROV documents are never read line by line (`.0`: the serialisation's name).
struct Refused(&'static str);

impl Reader for Refused {
    fn line(&mut self, number: u64, bytes: &[u8], out: &mut dyn Sink) {
        out.refuse(number, format!("{} documents are read whole", self.0), bytes);
    }
}

/// What reads one kind of PROV document: its records and relations, or the line and reason
/// it cannot be read at all.
type Importer = fn(&str) -> std::result::Result<super::import::Imported, (u64, String)>;

/// Adds a PROV document (the whole file): its records and relations, each one that cannot be
/// read rejected with its line.
fn add_document(bytes: &[u8], out: &mut dyn Sink, import: Importer) {
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
    match import(text) {
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
