//! A2AP documents as a [`GraphDelta`] in A2AP's schema (its nodes, relationships and
//! reputation edges), with the derived state a UI shows (signature and evidence status,
//! consensus, verdicts). Node `name` is the document's `@id`.
//!
//! Accountability edges (`VERIFIED`, `CHALLENGED`, `GENERATED`, `REQUESTED_VERIFICATION`) are
//! drawn only for documents whose signature is `valid`: an unproven document is still shown
//! (its node and `PERFORMED_BY`/`VALIDATES` edges carry its signature status) but is not
//! attributed to the agent it names.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::Value;

use super::document::{Document, SourceRef, Statement};
use super::evidence::EvidenceStatus;
use super::index::Changes;
use super::keys::embedded_form;
use super::ledger::{order, Entry, Ledger, Step};
use super::signature::{signature_value, SignatureStatus};
use crate::model::{Edge, GraphDelta, Label, Node, NodeRef, RelType};

/// Property names of A2AP nodes and edges (A2AP names, plus derived state).
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
    /// ([`crate::a2ap::Standing`]).
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

fn edge(rel: RelType, source: NodeRef, target: NodeRef) -> Edge {
    let kind = rel.a2ap_kind().unwrap_or(crate::model::EdgeKind::Plain);
    Edge::new(rel, kind, source, target)
}

fn agent_ref(id: &str) -> NodeRef {
    NodeRef::new(Label::Agent, id)
}

fn statement_ref(id: &str) -> NodeRef {
    NodeRef::new(Label::Statement, id)
}

fn sig_status(entry: &Entry) -> SignatureStatus {
    entry.signature.as_ref().map(|s| s.status).unwrap_or(SignatureStatus::Unsigned)
}

/// What one delta holds: entries written in full, statements whose consensus changed, and
/// verifications whose step (counted, consensus after) may have changed.
#[derive(Debug, Default)]
struct Plan {
    full: BTreeSet<usize>,
    consensus: BTreeSet<String>,
    steps: BTreeSet<usize>,
    agents: BTreeSet<String>,
}

/// Nodes already written, which a delta need not write again unless they changed.
type Emitted = HashSet<(Label, String)>;

impl Ledger {
    /// Everything in the ledger as a graph delta (idempotent: the same ledger gives the same
    /// delta, and applying it twice changes nothing).
    pub fn graph_delta(&self) -> GraphDelta {
        let plan = Plan { full: (0..self.entries().len()).collect(), ..Plan::default() };
        self.delta_of(&plan, None)
    }

    /// The graph of what changed since the last call (new documents, and the statements,
    /// verifications and agents whose derived state they change), as a delta to merge into
    /// what was written before. What it returns counts as written.
    pub fn take_delta(&mut self) -> GraphDelta {
        let changes = self.take_changes();
        let plan = self.plan(&changes);
        let emitted = std::mem::take(&mut self.emitted);
        let delta = self.delta_of(&plan, Some(&emitted));
        self.emitted = emitted;
        for n in delta.nodes() {
            if matches!(n.label, Label::Agent | Label::Document | Label::Statement) {
                self.emitted.insert((n.label, n.name.clone()));
            }
        }
        delta
    }

    /// What a set of changes touches.
    fn plan(&self, changes: &Changes) -> Plan {
        let mut plan = Plan { agents: changes.agents.clone(), ..Plan::default() };
        for &i in &changes.entries {
            let entry = &self.entries()[i];
            if entry.shadowed && entry.record.doc_type() != super::DocType::VerificationRequest {
                continue;
            }
            plan.full.insert(i);
            match entry.document() {
                Document::Source(d) => plan.full.extend(self.statements_citing(&d.id).map(|e| e.arrival)),
                // Edges to a statement that came before it were not drawn (the store links
                // existing nodes only): draw them now.
                Document::Statement(s) => {
                    plan.full.extend(self.responses_for(&s.id).into_iter().map(|(e, _)| e.arrival));
                    plan.full.extend(self.all_requests_for(&s.id).map(|e| e.arrival));
                }
                Document::Response(r) => {
                    plan.consensus.insert(r.target_statement.clone());
                    let mine = order(entry);
                    for (other, _) in self.responses_for(&r.target_statement) {
                        if order(other) > mine {
                            plan.steps.insert(other.arrival);
                        }
                    }
                }
                _ => {}
            }
        }
        plan
    }

    fn delta_of(&self, plan: &Plan, emitted: Option<&Emitted>) -> GraphDelta {
        let mut delta = GraphDelta::new();
        // Derived state computed once: reputations now, and each verification's step.
        let all = self.votes_if_needed();
        let reputation = self.reputation_fn(&all, None);
        let mut targets: BTreeSet<&str> = BTreeSet::new();
        for &i in plan.full.iter().chain(&plan.steps) {
            if let Document::Response(r) = self.entries()[i].document() {
                targets.insert(r.target_statement.as_str());
            }
        }
        let steps: HashMap<String, Step> = targets
            .into_iter()
            .flat_map(|t| self.timeline_with(t, &all))
            .map(|s| (s.verification_id.clone(), s))
            .collect();
        let is_new = |label: Label, id: &str| emitted.is_none_or(|e| !e.contains(&(label, id.to_owned())));
        let agent_node_if_needed = |id: &str| {
            (is_new(Label::Agent, id) || plan.agents.contains(id))
                .then(|| agent_node(id, self, reputation(id)))
        };
        let add_agent = |delta: &mut GraphDelta, id: &str| {
            if let Some(n) = agent_node_if_needed(id) {
                delta.add_node(n);
            }
        };
        for agent in &plan.agents {
            delta.add_node(agent_node(agent, self, reputation(agent)));
        }
        for t in &plan.consensus {
            if self.statement(t).is_some() {
                let o = self.consensus_with(t, &all);
                let mut node = Node::new(Label::Statement, t.clone())
                    .with(key::CONSENSUS_SCORE, o.consensus)
                    .with(key::VERIFIED, o.verified);
                if let Some(standing) = self.standing_with(t, &o) {
                    node = node.with(key::STANDING, standing.as_str());
                }
                delta.add_node(node);
            }
        }
        for &i in &plan.steps {
            if let (Document::Response(r), Some(step)) =
                (self.entries()[i].document(), steps.get(self.entries()[i].id()))
            {
                delta.add_node(
                    Node::new(Label::Verification, r.id.clone())
                        .with(key::COUNTED, step.counted)
                        .with(key::CONSENSUS_AFTER, step.consensus_after),
                );
            }
        }
        for entry in plan.full.iter().map(|&i| &self.entries()[i]).filter(|e| !e.shadowed) {
            match entry.document() {
                Document::Agent(a) => {
                    let mut node = Node::new(Label::Agent, a.info.id.clone())
                        .with(key::AGENT_ID, a.info.id.as_str())
                        .with(key::REPUTATION, reputation(&a.info.id));
                    if let Some(k) = &a.public_key {
                        node = node.with(key::PUBLIC_KEY, k.as_str());
                    }
                    delta.add_node(agent_info_props(node, &a.info));
                }
                Document::Source(d) => {
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
                Document::Statement(st) => {
                    let anode = match st.agent.info() {
                        Some(_) => Some(agent_node_if_needed(st.agent.id()).unwrap_or_else(|| {
                            Node::new(Label::Agent, st.agent.id()).with(key::AGENT_ID, st.agent.id())
                        })),
                        None => agent_node_if_needed(st.agent.id()),
                    };
                    self.statement_delta(&mut delta, entry, st, anode, &is_new)
                }
                Document::Request(r) => {
                    add_agent(&mut delta, &r.requesting_agent);
                    if matches!(sig_status(entry), SignatureStatus::Valid | SignatureStatus::Unsigned) {
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
                        delta.add_edge(e);
                    }
                }
                Document::Response(r) => {
                    let status = sig_status(entry);
                    let step = steps.get(&r.id);
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
                        node = node
                            .with(key::COUNTED, step.counted)
                            .with(key::CONSENSUS_AFTER, step.consensus_after);
                    }
                    let vref = node.node_ref();
                    delta.add_node(node);
                    add_agent(&mut delta, &r.responding_agent);
                    delta.add_edge(
                        edge(RelType::Validates, vref.clone(), statement_ref(&r.target_statement))
                            .with(key::VERDICT, r.verdict.as_str()),
                    );
                    delta.add_edge(
                        edge(RelType::PerformedBy, vref, agent_ref(&r.responding_agent))
                            .with(key::SIGNATURE_STATUS, status.as_str()),
                    );
                    if status == SignatureStatus::Valid {
                        let mut verified = edge(
                            RelType::Verified,
                            agent_ref(&r.responding_agent),
                            statement_ref(&r.target_statement),
                        )
                        .with(key::VERDICT, r.verdict.as_str())
                        .with(key::VERIFICATION_ID, r.id.as_str());
                        if let Some(t) = &r.responded_at {
                            verified = verified.with(key::TIMESTAMP, t.as_str());
                        }
                        delta.add_edge(verified);
                        if !r.is_validated() {
                            let mut challenged = edge(
                                RelType::Challenged,
                                agent_ref(&r.responding_agent),
                                statement_ref(&r.target_statement),
                            )
                            .with(key::REASON, r.reason())
                            .with(key::VERIFICATION_ID, r.id.as_str());
                            if let Some(t) = &r.responded_at {
                                challenged = challenged.with(key::TIMESTAMP, t.as_str());
                            }
                            delta.add_edge(challenged);
                        }
                    }
                }
            }
        }
        delta
    }

    fn statement_delta(
        &self,
        delta: &mut GraphDelta,
        entry: &Entry,
        st: &Statement,
        anode: Option<Node>,
        is_new: &dyn Fn(Label, &str) -> bool,
    ) {
        let status = sig_status(entry);
        let checks = self.evidence(st);
        let overall = if checks.iter().any(|c| c.status == EvidenceStatus::Mismatch) {
            EvidenceStatus::Mismatch
        } else if !checks.is_empty() && checks.iter().all(|c| c.status == EvidenceStatus::Match) {
            EvidenceStatus::Match
        } else {
            EvidenceStatus::Unchecked
        };
        let outcome = self.consensus(&st.id);
        let mut node = Node::new(Label::Statement, st.id.clone())
            .with(key::STATEMENT_ID, st.id.as_str())
            .with(key::AUTHOR_ID, st.agent.id())
            .with(key::CLAIM_TEXT, st.claim.text.as_str())
            .with(key::SIGNATURE_STATUS, status.as_str())
            .with(key::EVIDENCE_STATUS, overall.as_str());
        if let Some(c) = st.claim.confidence {
            node = node.with(key::CONFIDENCE, c);
        }
        if let Some(h) = &st.claim.content_hash {
            node = node.with(key::CONTENT_HASH, h.as_str());
        }
        if let Some(m) = &st.claim.generation_method {
            node = node.with(key::GENERATION_METHOD, m.as_str());
        }
        if let Some(t) = &st.generated_at_time {
            node = node.with(key::GENERATED_AT, t.as_str());
        }
        if let Some(v) = signature_value(&entry.record.value) {
            node = node.with(key::SIGNATURE, v);
        }
        if let Some(o) = &outcome {
            node = node.with(key::CONSENSUS_SCORE, o.consensus).with(key::VERIFIED, o.verified);
            if let Some(standing) = self.standing_with(&st.id, o) {
                node = node.with(key::STANDING, standing.as_str());
            }
        }
        let sref = node.node_ref();
        delta.add_node(node);
        let agent = st.agent.id();
        if let Some(mut anode) = anode {
            if let Some(info) = st.agent.info() {
                anode = agent_info_props(anode, info);
            }
            delta.add_node(anode);
        }
        if status == SignatureStatus::Valid {
            let mut g = edge(RelType::Generated, agent_ref(agent), sref.clone());
            if let Some(t) = &st.generated_at_time {
                g = g.with(key::TIMESTAMP, t.as_str());
            }
            delta.add_edge(g);
        }
        for (seg, check) in st.evidence.iter().zip(checks) {
            let mut chunk = Node::new(Label::Chunk, seg.chunk_id.clone())
                .with(key::CHUNK_ID, seg.chunk_id.as_str())
                .with(key::DOC_ID, seg.source_document.as_str())
                .with(key::BYTE_START, seg.byte_range.start)
                .with(key::BYTE_END, seg.byte_range.end)
                .with(key::EVIDENCE_STATUS, check.status.as_str());
            // The chunk's text is the document's own bytes when they can be read, so that a
            // quote altered by a statement never overwrites the shared chunk.
            let doc_text = self
                .source(&seg.source_document)
                .and_then(|d| d.text.get(seg.byte_range.start as usize..seg.byte_range.end as usize));
            if let Some(text) = doc_text.or(seg.quote_text.as_deref()) {
                chunk = chunk.with(key::TEXT, text);
            }
            if let Some(ts) = &seg.timestamp {
                chunk = chunk
                    .with(key::TIMESTAMP_START, ts.start.as_str())
                    .with(key::TIMESTAMP_END, ts.end.as_str());
            }
            let cref = chunk.node_ref();
            delta.add_node(chunk);
            let mut cites = edge(RelType::Cites, sref.clone(), cref.clone())
                .with(key::EVIDENCE_STATUS, check.status.as_str());
            if let Some(q) = &seg.quote_text {
                cites = cites.with(key::QUOTE_TEXT, q.as_str());
            }
            if let Some(r) = seg.relevance_score {
                cites = cites.with(key::RELEVANCE_SCORE, r);
            }
            delta.add_edge(cites);
            let dref = NodeRef::new(Label::Document, seg.source_document.clone());
            if is_new(Label::Document, &seg.source_document) {
                delta.add_node(
                    Node::new(Label::Document, seg.source_document.clone())
                        .with(key::DOC_ID, seg.source_document.as_str()),
                );
            }
            delta.add_edge(edge(RelType::PartOf, cref, dref));
        }
        for other in &st.supports {
            if is_new(Label::Statement, other) {
                delta.add_node(
                    Node::new(Label::Statement, other.clone()).with(key::STATEMENT_ID, other.as_str()),
                );
            }
            delta.add_edge(edge(RelType::Supports, sref.clone(), statement_ref(other)));
        }
        for other in &st.contradicts {
            if is_new(Label::Statement, other) {
                delta.add_node(
                    Node::new(Label::Statement, other.clone()).with(key::STATEMENT_ID, other.as_str()),
                );
            }
            delta.add_edge(edge(RelType::Contradicts, sref.clone(), statement_ref(other)));
        }
    }
}

fn agent_node(id: &str, ledger: &Ledger, reputation: f64) -> Node {
    let mut node = Node::new(Label::Agent, id).with(key::AGENT_ID, id).with(key::REPUTATION, reputation);
    let keys: Vec<String> = ledger
        .registry()
        .entries()
        .into_iter()
        .filter(|e| e.agent == id)
        .filter_map(|e| crate::a2ap::keys::decode_public_key(&e.public_key).ok())
        .map(|k| embedded_form(&k))
        .collect();
    if let Some(first) = keys.first() {
        node = node.with(key::PUBLIC_KEY, first.as_str());
    }
    node
}

fn agent_info_props(mut node: Node, info: &super::document::AgentInfo) -> Node {
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
