//! Keeps the A2AP documents themselves in the graph, beside the nodes made from them, so
//! that what is stored can be verified again later (`provex verify --graph`) and trails
//! rebuilt from the graph alone: each document's exact JSON (what its signature covers)
//! with its arrival number, and the trusted keys on their agents' nodes.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::document::Document;
use super::keys::{KeyEntry, KeyRegistry};
use super::ledger::Ledger;
use super::{parse_value, Position, Record};
use crate::model::{GraphDelta, Label, Node, PropValue};

/// Node property holding a document (an [`Envelope`] as JSON text).
pub const DOCUMENT: &str = "a2ap:document";
/// Statement property holding the verification requests that target it (a list).
pub const REQUESTS: &str = "a2ap:requests";
/// Agent property holding the registry keys of that agent (JSON text).
pub const REGISTRY: &str = "a2ap:registry";

/// A stored document and where it came in the stream.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Envelope {
    pub arrival: usize,
    pub document: Value,
}

fn envelope(arrival: usize, value: &Value) -> String {
    serde_json::to_string(&Envelope { arrival, document: value.clone() }).unwrap_or_default()
}

/// The ledger's graph delta with every document and the registry kept in it.
pub fn delta_with_documents(ledger: &Ledger) -> GraphDelta {
    let mut delta = ledger.graph_delta();
    add_documents(ledger, &mut delta, 0..ledger.entries().len(), None);
    delta
}

/// The delta of what changed since the last call (see [`Ledger::take_delta`]) with the
/// documents and keys that changed: what an ingest writes after each chunk.
pub fn take_delta_with_documents(ledger: &mut Ledger) -> GraphDelta {
    let changes = ledger.pending_changes().clone();
    let mut delta = ledger.take_delta();
    add_documents(ledger, &mut delta, changes.entries.iter().copied(), Some(&changes.agents));
    delta
}

/// Adds the documents of `entries` and the keys of `agents` (all agents when `None`).
fn add_documents(
    ledger: &Ledger,
    delta: &mut GraphDelta,
    entries: impl Iterator<Item = usize>,
    agents: Option<&BTreeSet<String>>,
) {
    let mut request_targets: BTreeSet<&str> = BTreeSet::new();
    for i in entries {
        let entry = &ledger.entries()[i];
        let (label, id) = match entry.document() {
            Document::Statement(s) => (Label::Statement, s.id.clone()),
            Document::Response(r) => (Label::Verification, r.id.clone()),
            Document::Source(s) => (Label::Document, s.id.clone()),
            Document::Agent(a) => (Label::Agent, a.info.id.clone()),
            Document::Request(r) => {
                request_targets.insert(r.target_statement.as_str());
                continue;
            }
        };
        if entry.shadowed {
            // A different document under an id already taken: kept on the first one's node
            // would overwrite it, so it is not stored (the report still lists it).
            continue;
        }
        let text = envelope(entry.arrival, &entry.record.value);
        delta.add_node(Node::new(label, id).with(DOCUMENT, text));
    }
    for statement in request_targets {
        let list: Vec<PropValue> =
            ledger.all_requests_for(statement).map(|e| envelope(e.arrival, &e.record.value).into()).collect();
        delta.add_node(Node::new(Label::Statement, statement).with(REQUESTS, PropValue::List(list)));
    }
    let mut by_agent: BTreeMap<String, Vec<KeyEntry>> = Default::default();
    for e in ledger.registry().entries() {
        if agents.is_none_or(|a| a.contains(&e.agent)) {
            by_agent.entry(e.agent.clone()).or_default().push(e);
        }
    }
    for (agent, mut keys) in by_agent {
        keys.sort_by(|a, b| a.key_id.cmp(&b.key_id));
        let text = serde_json::to_string(&keys).unwrap_or_default();
        delta.add_node(Node::new(Label::Agent, agent).with(REGISTRY, text));
    }
}

/// Rebuilds the records of stored envelopes, in arrival order. An envelope that no longer
/// parses is returned as an error naming it.
pub fn records_from_envelopes(texts: &[String]) -> (Vec<Record>, Vec<String>) {
    let mut envelopes: Vec<Envelope> = Vec::new();
    let mut errors = Vec::new();
    for t in texts {
        match serde_json::from_str::<Envelope>(t) {
            Ok(e) => envelopes.push(e),
            Err(e) => errors.push(format!("stored document is not readable: {e}")),
        }
    }
    envelopes.sort_by_key(|e| e.arrival);
    envelopes.dedup_by(|a, b| a.arrival == b.arrival && a.document == b.document);
    let mut records = Vec::new();
    for (i, env) in envelopes.into_iter().enumerate() {
        match parse_value(env.document) {
            Ok((value, document)) => {
                records.push(Record { position: Position { line: i + 1, index: i }, value, document })
            }
            Err(e) => errors.push(format!("stored document {}: {e}", env.arrival)),
        }
    }
    (records, errors)
}

/// Adds the keys stored on agents' nodes to a registry.
pub fn add_stored_keys(registry: &mut KeyRegistry, texts: &[String]) -> Vec<String> {
    let mut errors = Vec::new();
    for t in texts {
        match serde_json::from_str::<Vec<KeyEntry>>(t) {
            Ok(keys) => {
                for k in keys {
                    if let Err(e) = registry.add_entry(&k) {
                        errors.push(format!("stored key {}: {e}", k.key_id));
                    }
                }
            }
            Err(e) => errors.push(format!("stored keys are not readable: {e}")),
        }
    }
    errors
}
