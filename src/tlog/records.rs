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

use crate::a2ap::graph::key;
use crate::a2ap::stored::{Envelope, DOCUMENT};
use crate::a2ap::Record;
use crate::model::{GraphDelta, Label, Node, PropValue, Props};

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

/// The leaf of each document of a batch, by `@id` (the first document of an id wins, as in
/// the ledger).
#[derive(Default)]
pub struct DocumentLeaves(HashMap<String, (u64, Value)>);

impl DocumentLeaves {
    /// The leaves of `records`, `leaves[i]` being the log index of record `i`'s line (none
    /// for a document that came in no line of its own).
    pub fn new(records: &[Record], leaves: &[Option<u64>]) -> Self {
        let mut map = HashMap::new();
        for (r, leaf) in records.iter().zip(leaves) {
            if let Some(leaf) = leaf {
                map.entry(r.id().to_owned()).or_insert_with(|| (*leaf, r.value.clone()));
            }
        }
        DocumentLeaves(map)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Sets `log_leaves` and `log_digest` on each node of `delta` that holds a document of
    /// this batch (the very document: a later one under an id already taken is not stored).
    pub fn stamp(&self, delta: &mut GraphDelta) {
        if self.0.is_empty() {
            return;
        }
        let mut stamps = Vec::new();
        for node in delta.nodes() {
            let Some(PropValue::Str(text)) = node.props.get(DOCUMENT) else { continue };
            let Some((leaf, value)) = self.0.get(&node.name) else { continue };
            match serde_json::from_str::<Envelope>(text) {
                Ok(env) if &env.document == value => {}
                _ => continue,
            }
            let own: Props = covered(node.label)
                .iter()
                .filter_map(|k| node.props.get(*k).map(|v| (std::borrow::Cow::Borrowed(*k), v.clone())))
                .collect();
            let digest = super::props_digest(&own);
            stamps.push(
                Node::new(node.label, node.name.clone())
                    .with(super::LEAVES_PROP, PropValue::List(vec![PropValue::Int(*leaf as i64)]))
                    .with(super::DIGEST_PROP, digest),
            );
        }
        for s in stamps {
            delta.add_node(s);
        }
    }
}
