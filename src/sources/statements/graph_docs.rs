//! How one A2AP document becomes nodes and edges (agent cards, source documents, verification
//! requests and responses). `graph.rs` decides which documents and which derived state a
//! delta draws; this module draws each one.

use serde_json::Value;

use super::document::{SoftwareAgent, SourceDocument, SourceRef, VerificationRequest, VerificationResponse};
use super::graph_terms::{agent_info_props, agent_ref, edge, key, sig_status, statement_ref};
use super::ledger::{Entry, Step};
use super::signature::{signature_value, SignatureStatus};
use crate::model::{Edge, GraphDelta, Label, Node, RelType};

/// An agent card's node, with its reputation now.
pub(super) fn agent_card_node(a: &SoftwareAgent, reputation: f64) -> Node {
    let mut node = Node::new(Label::Agent, a.info.id.clone())
        .with(key::AGENT_ID, a.info.id.as_str())
        .with(key::REPUTATION, reputation);
    if let Some(k) = &a.public_key {
        node = node.with(key::PUBLIC_KEY, k.as_str());
    }
    agent_info_props(node, &a.info)
}

/// A source document's node, and the source it came from with its `SOURCED_FROM` edge.
pub(super) fn source_delta(delta: &mut GraphDelta, d: &SourceDocument) {
    let mut node = Node::new(Label::Document, d.id.clone())
        .with(key::DOC_ID, d.id.as_str())
        .with(key::TEXT, d.text.as_str())
        .with(key::BYTE_LENGTH, d.text.len() as u64);
    if let Some(t) = &d.title {
        node = node.with(key::TITLE, t.as_str());
    }
    if let Some(src) = &d.source {
        let mut s = Node::new(Label::Source, src.id()).with(key::SOURCE_ID, src.id());
        if let SourceRef::Object { name, url, .. } = src {
            if let Some(n) = name {
                s = s.with(key::SOURCE_NAME, n.as_str());
            }
            if let Some(u) = url {
                s = s.with(key::URL, u.as_str());
            }
        }
        delta.add_edge(edge(RelType::SourcedFrom, node.node_ref(), s.node_ref()));
        delta.add_node(s);
    }
    delta.add_node(node);
}

/// A verification request's `REQUESTED_VERIFICATION` edge, drawn only when its signature is
/// valid or absent.
pub(super) fn request_edge(entry: &Entry, r: &VerificationRequest) -> Option<Edge> {
    if !matches!(sig_status(entry), SignatureStatus::Valid | SignatureStatus::Unsigned) {
        return None;
    }
    let mut e = edge(
        RelType::RequestedVerification,
        agent_ref(&r.requesting_agent),
        statement_ref(&r.target_statement),
    )
    .with(key::REQUEST_ID, r.id.as_str())
    .with(key::SIGNATURE_STATUS, sig_status(entry).as_str());
    if let Some(t) = &r.requested_at {
        e = e.with(key::TIMESTAMP, t.as_str());
    }
    if !r.verification_criteria.is_empty() {
        e = e.with(
            key::CRITERIA,
            crate::model::PropValue::List(
                r.verification_criteria.iter().map(|c| c.as_str().into()).collect(),
            ),
        );
    }
    Some(e)
}

/// A verification response's node (with its step, when known) and its edges: `VALIDATES`
/// and `PERFORMED_BY` always, `VERIFIED` (and `CHALLENGED` for a refutation) only when its
/// signature is valid.
pub(super) fn response_parts(
    entry: &Entry,
    r: &VerificationResponse,
    step: Option<&Step>,
) -> (Node, Vec<Edge>) {
    let status = sig_status(entry);
    let mut node = Node::new(Label::Verification, r.id.clone())
        .with(key::VERIFICATION_ID, r.id.as_str())
        .with(key::AUTHOR_ID, r.responding_agent.as_str())
        .with(key::VERDICT, r.verdict.as_str())
        .with(key::CONFIDENCE, r.confidence)
        .with(key::SIGNATURE_STATUS, status.as_str())
        .with_json(key::FINDINGS, &serde_json::to_value(&r.findings).unwrap_or(Value::Null));
    if let Some(t) = &r.responded_at {
        node = node.with(key::VERIFIED_AT, t.as_str());
    }
    if let Some(v) = signature_value(&entry.record.value) {
        node = node.with(key::SIGNATURE, v);
    }
    if let Some(step) = step {
        node = node.with(key::COUNTED, step.counted).with(key::CONSENSUS_AFTER, step.consensus_after);
    }
    let vref = node.node_ref();
    let mut edges = vec![
        edge(RelType::Validates, vref.clone(), statement_ref(&r.target_statement))
            .with(key::VERDICT, r.verdict.as_str()),
        edge(RelType::PerformedBy, vref, agent_ref(&r.responding_agent))
            .with(key::SIGNATURE_STATUS, status.as_str()),
    ];
    if status == SignatureStatus::Valid {
        edges.push(agent_edge(RelType::Verified, r).with(key::VERDICT, r.verdict.as_str()));
        if !r.is_validated() {
            edges.push(agent_edge(RelType::Challenged, r).with(key::REASON, r.reason()));
        }
    }
    (node, edges)
}

/// The responding agent's `VERIFIED` or `CHALLENGED` edge to the statement, naming the
/// verification and its time.
fn agent_edge(rel: RelType, r: &VerificationResponse) -> Edge {
    let mut e = edge(rel, agent_ref(&r.responding_agent), statement_ref(&r.target_statement))
        .with(key::VERIFICATION_ID, r.id.as_str());
    if let Some(t) = &r.responded_at {
        e = e.with(key::TIMESTAMP, t.as_str());
    }
    e
}
