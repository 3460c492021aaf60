//! Inputs read whole rather than line by line: a W3C PROV-JSON document (`prov::import`)
//! and an audit bundle (`a2ap::bundle`), whose A2AP documents are checked with the keys it
//! marks trusted.

use std::path::Path;

use super::{reader, FileIngest};
use crate::error::{Error, Result};

/// Whether a file is an audit bundle (`provex bundle`): a JSON object over many lines whose
/// `@type` says so.
pub(super) fn is_bundle(path: &Path) -> bool {
    let opens_object = reader::first_line(path).ok().flatten().is_some_and(|l| {
        l.trim_start_matches('\u{feff}').trim_start().starts_with('{')
            && serde_json::from_str::<serde_json::Value>(&l).is_err()
    });
    opens_object && std::fs::read_to_string(path).is_ok_and(|t| crate::sources::statements::bundle::is_bundle(&t))
}

/// Newlines in a byte slice.
pub(super) fn bytecount(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|b| **b == b'\n').count() as u64
}

impl FileIngest<'_> {
    /// Adds a PROV-JSON document (the whole file): its records and relations, each one
    /// that cannot be read rejected with its line.
    pub(super) fn add_prov_json(&mut self, bytes: &[u8]) {
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let line = bytecount(&bytes[..e.valid_up_to()]) + 1;
                let at = e.valid_up_to();
                let start = bytes[..at].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
                let end = bytes[at..].iter().position(|b| *b == b'\n').map_or(bytes.len(), |i| at + i);
                self.reject(line, format!("not valid UTF-8 (at byte {at})"), &bytes[start..end]);
                return;
            }
        };
        match crate::sources::prov::import::import(text) {
            Ok(imported) => {
                // The lines split once: looking each rejected record's line up from the top
                // made a document of many rejected records quadratic.
                let lines: Vec<&str> =
                    if imported.rejected.is_empty() { Vec::new() } else { text.lines().collect() };
                for (line, reason) in imported.rejected {
                    let t = lines.get(line.saturating_sub(1) as usize).copied().unwrap_or("").to_owned();
                    self.reject(line, reason, t.as_bytes());
                }
                self.report.events += imported.statements;
                self.chunk.events += imported.statements;
                self.chunk.delta.extend(imported.delta);
            }
            Err((line, reason)) => {
                let t = text.lines().nth(line.saturating_sub(1) as usize).unwrap_or("").to_owned();
                self.reject(line, reason, t.as_bytes());
            }
        }
    }

    /// Adds an audit bundle: its documents, with the keys it marks trusted, and the bundle
    /// itself as a node, which makes the graph read-only (see `Provex::ingest`).
    pub(super) fn add_bundle(&mut self, path: &Path) -> Result<()> {
        // An audit bundle: its documents, checked with the keys it marks trusted.
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let bundle: crate::sources::statements::bundle::AuditBundle = serde_json::from_str(&text).map_err(|e| {
            Error::Input { path: path.to_owned(), reason: format!("not an audit bundle: {e}") }
        })?;
        self.report.lines = text.lines().count() as u64;
        self.chunk.keys = bundle
            .keys
            .iter()
            .filter(|k| k.trusted)
            .map(|k| crate::sources::statements::KeyEntry {
                key_id: k.key_id.clone(),
                agent: k.agent.clone(),
                public_key: k.public_key.clone(),
            })
            .collect();
        let docs = serde_json::to_string(&bundle.documents).unwrap_or_default();
        self.add_a2ap(&docs, None);
        // The bundle itself, which makes the graph read-only (see `Provex::ingest`).
        let mut node = crate::model::Node::new(
            crate::model::Label::AuditBundle,
            format!("audit bundle of {}", bundle.graph),
        )
        .with("graph", bundle.graph.as_str())
        .with("statements", bundle.statements.len() as i64)
        .with("documents", bundle.documents.len() as i64);
        if let Some(sig) = &bundle.signature {
            node = node.with("signed_by", format!("{} ({})", sig.agent, sig.key_id));
        }
        // What `provex verify FILE` says of it (no trust file here: at best "not pinned"),
        // for the explorer to show beside the bundle.
        let check =
            crate::sources::statements::bundle::verify(&text).unwrap_or_else(crate::sources::statements::bundle::BundleCheck::unreadable);
        node = node.with("verdict", check.trust.as_str()).with("headline", check.headline.as_str());
        if let Some(signer) = &check.signer {
            node = node.with("fingerprint", signer.fingerprint.as_str());
        }
        self.chunk.delta.add_node(node);
        Ok(())
    }
}
