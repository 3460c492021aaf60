//! The A2AP graph schema's words: the property names of its nodes and edges, and the node
//! references, edges and agent properties that `graph.rs` (what a delta draws) and
//! `graph_docs.rs` (how each document is drawn) both build with.

use super::ledger::Entry;
use super::signature::SignatureStatus;
use crate::model::{Edge, Label, Node, NodeRef, RelType};

/// Property names of A2AP nodes and edges (the A2AP specification names, plus derived state).
pub mod key {
    pub const AGENT_ID: &str = "agent_id";
    /// The agent that made a statement or a verification (semantic zoom clusters by it).
    pub const AUTHOR_ID: &str = "author_id";
    pub const NAME: &str = "agent_name";
    pub const VERSION: &str = "version";
    pub const PUBLISHER: &str = "publisher";
    pub const CAPABILITIES: &str = "capabilities";
    pub const PUBLIC_KEY: &str = "public_key";
    pub const REPUTATION: &str = "reputation";
    pub const STATEMENT_ID: &str = "statement_id";
    pub const CLAIM_TEXT: &str = "claim_text";
    pub const CONFIDENCE: &str = "confidence";
    pub const CONTENT_HASH: &str = "content_hash";
    pub const GENERATION_METHOD: &str = "generation_method";
    pub const SIGNATURE: &str = "signature";
    pub const SIGNATURE_STATUS: &str = "signature_status";
    pub const SIGNATURE_KEY: &str = "signature_key";
    pub const GENERATED_AT: &str = "generated_at";
    pub const VERIFIED: &str = "verified";
    /// A statement's headline: the worst of signature, evidence and consensus
    /// ([`crate::sources::statements::Standing`]).
    pub const STANDING: &str = "standing";
    pub const CONSENSUS_SCORE: &str = "consensus_score";
    pub const EVIDENCE_STATUS: &str = "evidence_status";
    pub const CHUNK_ID: &str = "chunk_id";
    pub const DOC_ID: &str = "doc_id";
    pub const TEXT: &str = "text";
    pub const BYTE_START: &str = "byte_start";
    pub const BYTE_END: &str = "byte_end";
    pub const TIMESTAMP_START: &str = "timestamp_start";
    pub const TIMESTAMP_END: &str = "timestamp_end";
    pub const TITLE: &str = "title";
    pub const BYTE_LENGTH: &str = "byte_length";
    pub const SOURCE_ID: &str = "source_id";
    pub const SOURCE_NAME: &str = "source_name";
    pub const URL: &str = "url";
    pub const VERIFICATION_ID: &str = "verification_id";
    pub const VERDICT: &str = "verdict";
    pub const VERIFIED_AT: &str = "verified_at";
    pub const FINDINGS: &str = "findings";
    pub const COUNTED: &str = "counted";
    pub const CONSENSUS_AFTER: &str = "consensus_after";
    pub const TIMESTAMP: &str = "timestamp";
    pub const REASON: &str = "reason";
    pub const REQUEST_ID: &str = "request_id";
    pub const CRITERIA: &str = "criteria";
    pub const RELEVANCE_SCORE: &str = "relevance_score";
    pub const QUOTE_TEXT: &str = "quote_text";
}

pub(super) fn edge(rel: RelType, source: NodeRef, target: NodeRef) -> Edge {
    let kind = rel.a2ap_kind().unwrap_or(crate::model::EdgeKind::Plain);
    Edge::new(rel, kind, source, target)
}

pub(super) fn agent_ref(id: &str) -> NodeRef {
    NodeRef::new(Label::Agent, id)
}

pub(super) fn statement_ref(id: &str) -> NodeRef {
    NodeRef::new(Label::Statement, id)
}

pub(super) fn sig_status(entry: &Entry) -> SignatureStatus {
    entry.signature.as_ref().map(|s| s.status).unwrap_or(SignatureStatus::Unsigned)
}

pub(super) fn agent_info_props(mut node: Node, info: &super::document::AgentInfo) -> Node {
    if let Some(n) = &info.name {
        node = node.with(key::NAME, n.as_str());
    }
    if let Some(v) = &info.version {
        node = node.with(key::VERSION, v.as_str());
    }
    if let Some(p) = &info.publisher {
        node = node.with(key::PUBLISHER, p.as_str());
    }
    if !info.capabilities.is_empty() {
        node = node.with(
            key::CAPABILITIES,
            crate::model::PropValue::List(info.capabilities.iter().map(|c| c.as_str().into()).collect()),
        );
    }
    node
}
