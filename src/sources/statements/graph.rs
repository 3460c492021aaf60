//! A2AP documents as a [`GraphDelta`] in the A2AP graph schema (nodes, relations and reputation
//! relationships), with the derived state a UI shows (signature and evidence status,
//! consensus, verdicts). Node `name` is the document's `@id`.
//!
//! Accountability edges (`VERIFIED`, `CHALLENGED`, `GENERATED`, `REQUESTED_VERIFICATION`) are
//! drawn only for documents whose signature is `valid`: an unproven document is still shown
//! (its node and `PERFORMED_BY`/`VALIDATES` edges carry its signature status) but is not
//! attributed to the agent it names.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::consensus::Vote;
use super::document::{Document, Statement};
use super::evidence::EvidenceStatus;
use super::graph_docs;
pub use super::graph_terms::key;
use super::graph_terms::{agent_info_props, agent_ref, edge, sig_status, statement_ref};
use super::index::Changes;
use super::keys::embedded_form;
use super::ledger::{order, Entry, Ledger, Step};
use super::signature::{signature_value, SignatureStatus};
use crate::model::{GraphDelta, Label, Node, NodeRef, RelType};

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
        let steps = self.steps_of(plan, &all);
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
        self.derived_state_delta(&mut delta, plan, &all, &steps);
        for entry in plan.full.iter().map(|&i| &self.entries()[i]).filter(|e| !e.shadowed) {
            match entry.document() {
                Document::Agent(a) => delta.add_node(graph_docs::agent_card_node(a, reputation(&a.info.id))),
                Document::Source(d) => graph_docs::source_delta(&mut delta, d),
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
                    if let Some(e) = graph_docs::request_edge(entry, r) {
                        delta.add_edge(e);
                    }
                }
                Document::Response(r) => {
                    let (node, edges) = graph_docs::response_parts(entry, r, steps.get(&r.id));
                    delta.add_node(node);
                    add_agent(&mut delta, &r.responding_agent);
                    for e in edges {
                        delta.add_edge(e);
                    }
                }
            }
        }
        delta
    }

    /// Each verification's step (counted, consensus after) for the statements the plan's
    /// responses target.
    fn steps_of(&self, plan: &Plan, all: &[Vote]) -> HashMap<String, Step> {
        let mut targets: BTreeSet<&str> = BTreeSet::new();
        for &i in plan.full.iter().chain(&plan.steps) {
            if let Document::Response(r) = self.entries()[i].document() {
                targets.insert(r.target_statement.as_str());
            }
        }
        targets
            .into_iter()
            .flat_map(|t| self.timeline_with(t, all))
            .map(|s| (s.verification_id.clone(), s))
            .collect()
    }

    /// The derived state a plan changes: statements' consensus, verdict and standing, and
    /// verifications' steps.
    fn derived_state_delta(
        &self,
        delta: &mut GraphDelta,
        plan: &Plan,
        all: &[Vote],
        steps: &HashMap<String, Step>,
    ) {
        for t in &plan.consensus {
            if self.statement(t).is_some() {
                let o = self.consensus_with(t, all);
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
        .filter_map(|e| crate::sources::statements::keys::decode_public_key(&e.public_key).ok())
        .map(|k| embedded_form(&k))
        .collect();
    if let Some(first) = keys.first() {
        node = node.with(key::PUBLIC_KEY, first.as_str());
    }
    node
}
