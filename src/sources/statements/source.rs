//! A2AP signed statements as the ingest pipeline reads them (`docs/FORMATS.md` "A2AP
//! documents", "Audit bundles"): JSON lines, one JSON array read whole, or an audit bundle
//! whose statements are checked with the keys it marks trusted. The statements go to the
//! graph's ledger, which verifies them after the batch is written.

use std::path::Path;

use super::bundle::{self, AuditBundle, BundleCheck};
use super::KeyEntry;
use crate::error::{Error, Result};
use crate::model::{Label, Node};
use crate::sources::{utf8, Context, Format, Reader, Sink, Sniff, Source};

/// The signed-statements source.
pub struct Statements;

impl Source for Statements {
    fn format(&self) -> Format {
        Format::A2ap
    }

    /// A record with `@type` or `@context`, a JSON array, or an audit bundle.
    fn looks_like(&self, what: Sniff<'_>) -> bool {
        match what {
            Sniff::Record(obj) => obj.contains_key("@type") || obj.contains_key("@context"),
            Sniff::Array => true,
            Sniff::Document(obj) => obj.get("@type").and_then(|t| t.as_str()) == Some(bundle::BUNDLE_TYPE),
        }
    }

    fn reads_whole(&self, path: &Path, first: Option<&str>) -> bool {
        first.is_some_and(|l| opens_array(l) || opens_object(l) && is_bundle(path))
    }

    fn read_whole(&self, path: &Path, out: &mut dyn Sink) -> Result<(u64, u64)> {
        let text = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        out.document(&text);
        if is_bundle(path) {
            return read_bundle(path, &String::from_utf8_lossy(&text), out);
        }
        // A JSON array is one text, read whole.
        let lines = text.iter().filter(|b| **b == b'\n').count() as u64;
        add_documents(&String::from_utf8_lossy(&text), None, out);
        Ok((lines, 0))
    }

    fn reader(&self, _ctx: &Context) -> Box<dyn Reader> {
        Box::new(Lines)
    }
}

/// Whether a file's first line opens a JSON array (after a byte-order mark).
pub fn opens_array(first_line: &str) -> bool {
    first_line.trim_start_matches('\u{feff}').trim_start().starts_with('[')
}

/// Whether a first line opens a JSON object it does not close (one text over many lines).
fn opens_object(first_line: &str) -> bool {
    first_line.trim_start_matches('\u{feff}').trim_start().starts_with('{')
        && serde_json::from_str::<serde_json::Value>(first_line).is_err()
}

/// Whether a file is an audit bundle (`provex bundle`).
fn is_bundle(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|t| bundle::is_bundle(&t))
}

/// Statements need nothing between lines.
struct Lines;

impl Reader for Lines {
    fn line(&mut self, number: u64, bytes: &[u8], out: &mut dyn Sink) {
        match utf8(bytes) {
            Ok(text) => add_documents(text, Some(number), out),
            Err(reason) => out.refuse(number, reason, bytes),
        }
    }
}

/// Adds the statements parsed from `text`; `line` is the line number when the text is one
/// line of a file.
fn add_documents(text: &str, line: Option<u64>, out: &mut dyn Sink) {
    for result in super::parse_documents(text) {
        match result {
            Ok(mut record) => {
                if let Some(n) = line {
                    record.position.line = n as usize;
                }
                out.accept(1);
                out.statement(record, line.map(|_| text));
            }
            Err(e) => {
                let number = line.unwrap_or(e.position.line as u64);
                let shown = match line {
                    Some(_) => text,
                    None => text.lines().nth(e.position.line.saturating_sub(1)).unwrap_or(""),
                };
                out.refuse(number, e.reason, shown.as_bytes());
            }
        }
    }
}

/// Reads an audit bundle: its statements, with the keys it marks trusted, and the bundle
/// itself as a node, which makes the graph read-only (see `Provex::ingest`).
fn read_bundle(path: &Path, text: &str, out: &mut dyn Sink) -> Result<(u64, u64)> {
    let bundle: AuditBundle = serde_json::from_str(text)
        .map_err(|e| Error::Input { path: path.to_owned(), reason: format!("not an audit bundle: {e}") })?;
    out.trust(
        bundle
            .keys
            .iter()
            .filter(|k| k.trusted)
            .map(|k| KeyEntry {
                key_id: k.key_id.clone(),
                agent: k.agent.clone(),
                public_key: k.public_key.clone(),
            })
            .collect(),
    );
    let docs = serde_json::to_string(&bundle.documents).unwrap_or_default();
    add_documents(&docs, None, out);
    let mut node = Node::new(Label::AuditBundle, format!("audit bundle of {}", bundle.graph))
        .with("graph", bundle.graph.as_str())
        .with("statements", bundle.statements.len() as i64)
        .with("documents", bundle.documents.len() as i64);
    if let Some(sig) = &bundle.signature {
        node = node.with("signed_by", format!("{} ({})", sig.agent, sig.key_id));
    }
    // What `provex verify FILE` says of it (no trust file here: at best "not pinned"),
    // for the explorer to show beside the bundle.
    let check = bundle::verify(text).unwrap_or_else(BundleCheck::unreadable);
    node = node.with("verdict", check.trust.as_str()).with("headline", check.headline.as_str());
    if let Some(signer) = &check.signer {
        node = node.with("fingerprint", signer.fingerprint.as_str());
    }
    out.delta().add_node(node);
    Ok((text.lines().count() as u64, 0))
}
