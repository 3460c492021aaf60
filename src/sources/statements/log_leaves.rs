//! The log leaves and digests of the nodes made from A2AP documents (docs/FORMATS.md,
//! "Tamper-evident log"). Those nodes are written from the graph's ledger, not from a
//! record's own delta, so they are stamped here: a statement, verification, source document
//! or agent record's node names the leaf of the line it came in on, and its digest covers
//! the document as stored (`a2ap:document`, what its signature covers) and the properties
//! read from that document alone. State derived from other documents (signature and
//! evidence status, consensus, standing, reputation, the requests that target it) changes as
//! later documents arrive and is left out: `provex verify --graph` recomputes it from the
//! stored documents.

use std::collections::HashMap;

use serde_json::Value;

use super::graph::key;
use super::stored::{Envelope, DOCUMENT};
use super::Record;
use crate::model::{GraphDelta, Label, Node, PropValue, Props};
use crate::tlog::{LINE_PROP, RECEIVED_PROP, SOURCE_PROP};

/// The properties of a node made from a document of its own that the digest covers: the
/// document, and what is read from it alone.
pub fn covered(label: Label) -> &'static [&'static str] {
    match label {
        Label::Statement => &[
            DOCUMENT,
            key::STATEMENT_ID,
            key::AUTHOR_ID,
            key::CLAIM_TEXT,
            key::CONFIDENCE,
            key::CONTENT_HASH,
            key::GENERATION_METHOD,
            key::GENERATED_AT,
            key::SIGNATURE,
        ],
        Label::Verification => &[
            DOCUMENT,
            key::VERIFICATION_ID,
            key::AUTHOR_ID,
            key::VERDICT,
            key::CONFIDENCE,
            key::FINDINGS,
            key::VERIFIED_AT,
            key::SIGNATURE,
        ],
        Label::Document => &[DOCUMENT, key::DOC_ID, key::TEXT, key::BYTE_LENGTH, key::TITLE],
        // An agent's name, version and key may also come from the statements that name it
        // or from the key registry: only its record and id are its own.
        Label::Agent => &[DOCUMENT, key::AGENT_ID],
        _ => &[],
    }
}

/// What a document's leaf hashed besides its source: the line it came in on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineEntry {
    /// The leaf's position among its batch's leaves.
    pub leaf: u32,
    pub received_ms: u64,
    /// The line, when the document written as compact JSON is not the line.
    pub line: Option<String>,
}

impl LineEntry {
    /// The entry of `record`, read from `line`, whose leaf is `leaf` of its batch.
    pub fn new(leaf: u32, record: &Record, line: &str) -> Self {
        let same = serde_json::to_string(&record.value).is_ok_and(|t| t == line);
        LineEntry { leaf, received_ms: 0, line: (!same).then(|| line.to_owned()) }
    }

    /// The same entry in a batch whose first `shift` leaves come before it.
    pub fn shifted(mut self, shift: u32) -> Self {
        self.leaf += shift;
        self
    }
}

/// Sets the time of receipt of the documents of leaf `leaf` (the last ones pushed).
pub fn received(entries: &mut [Option<LineEntry>], leaf: u32, ms: u64) {
    for e in entries.iter_mut().rev() {
        match e {
            Some(e) if e.leaf == leaf => e.received_ms = ms,
            _ => break,
        }
    }
}

/// The leaf of each document of a batch, by `@id` (the first document of an id wins, as in
/// the ledger), and the source its lines came from.
#[derive(Default)]
pub struct DocumentLeaves {
    source: String,
    by_id: HashMap<String, (u64, LineEntry, Value)>,
}

impl DocumentLeaves {
    /// The leaves of `records` read from `source`, `entries[i]` being record `i`'s line, the
    /// batch's first leaf being `first` in the log.
    pub fn new(source: &str, records: &[Record], entries: &[Option<LineEntry>], first: u64) -> Self {
        let mut by_id = HashMap::new();
        for (r, e) in records.iter().zip(entries) {
            if let Some(e) = e {
                by_id
                    .entry(r.id().to_owned())
                    .or_insert_with(|| (first + u64::from(e.leaf), e.clone(), r.value.clone()));
            }
        }
        DocumentLeaves { source: source.to_owned(), by_id }
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Sets `log_leaves` and `log_digest` on each node of `delta` that holds a document of
    /// this batch (the very document: a later one under an id already taken is not stored).
    pub fn stamp(&self, delta: &mut GraphDelta) {
        if self.by_id.is_empty() {
            return;
        }
        let mut stamps = Vec::new();
        for node in delta.nodes() {
            let Some(PropValue::Str(text)) = node.props.get(DOCUMENT) else { continue };
            let Some((leaf, entry, value)) = self.by_id.get(&node.name) else { continue };
            match serde_json::from_str::<Envelope>(text) {
                Ok(env) if &env.document == value => {}
                _ => continue,
            }
            let own: Props = covered(node.label)
                .iter()
                .filter_map(|k| node.props.get(*k).map(|v| (std::borrow::Cow::Borrowed(*k), v.clone())))
                .collect();
            let digest = crate::tlog::props_digest(&own);
            let stamp = Node::new(node.label, node.name.clone())
                .with(crate::tlog::LEAVES_PROP, PropValue::List(vec![PropValue::Int(*leaf as i64)]))
                .with(crate::tlog::DIGEST_PROP, digest)
                .with(SOURCE_PROP, self.source.as_str())
                .with(RECEIVED_PROP, entry.received_ms as i64);
            stamps.push(match &entry.line {
                Some(line) => stamp.with(LINE_PROP, line.as_str()),
                None => stamp,
            });
        }
        for s in stamps {
            delta.add_node(s);
        }
    }
}
