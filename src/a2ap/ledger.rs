//! The incremental state of an A2AP stream: documents in arrival order, the keys learnt so far,
//! and everything derived from them (signature statuses, evidence checks, consensus over time,
//! reputations), recomputed as documents arrive.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::consensus::{self, ConsensusConfig, Outcome, ReputationPolicy, Vote};
use super::document::{
    parse_documents, parse_time, DocType, Document, Record, RecordError, SourceDocument, Statement,
    VerificationRequest, VerificationResponse,
};
use super::evidence::{check_statement_evidence, statement_problems, EvidenceCheck};
use super::keys::KeyRegistry;
use super::signature::{check_record, SignatureCheck};
use super::Problem;

/// One accepted document and what is known of it.
#[derive(Debug, Clone)]
pub struct Entry {
    pub record: Record,
    /// Arrival number (0-based, over accepted records).
    pub arrival: usize,
    /// The signature check under the keys known now (`None` for unsigned types).
    pub signature: Option<SignatureCheck>,
    /// The document's time in epoch milliseconds, when it has a readable one.
    pub time_ms: Option<i64>,
    /// Problems found when the document arrived (more are found when reporting).
    pub problems: Vec<Problem>,
    /// Another document with the same `@id` but different content came first: this one is
    /// reported but takes no part in consensus, trails or the graph.
    pub shadowed: bool,
}

impl Entry {
    pub fn id(&self) -> &str {
        self.record.id()
    }

    pub fn document(&self) -> &Document {
        &self.record.document
    }
}

/// The consensus after one verification, in time order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub verification_id: String,
    pub agent: String,
    pub verdict: String,
    pub confidence: f64,
    pub time: Option<String>,
    pub signature: super::SignatureStatus,
    /// Whether this verification counts in the consensus right after it.
    pub counted: bool,
    /// Why it does not count, when it does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excluded_reason: Option<String>,
    pub consensus_after: f64,
    pub verified_after: bool,
}

/// Documents in arrival order and everything derived from them.
#[derive(Debug, Clone, Default)]
pub struct Ledger {
    config: ConsensusConfig,
    registry: KeyRegistry,
    entries: Vec<Entry>,
    rejected: Vec<RecordError>,
    by_id: HashMap<String, usize>,
    explicit_reputation: HashMap<String, f64>,
}

impl Ledger {
    /// A ledger trusting the keys of `registry` (more are learnt from `prov:SoftwareAgent`
    /// records with a `publicKey`).
    pub fn new(registry: KeyRegistry, config: ConsensusConfig) -> Self {
        Ledger { config, registry, ..Ledger::default() }
    }

    pub fn config(&self) -> &ConsensusConfig {
        &self.config
    }

    /// The keys known now: the registry given plus those of agent records.
    pub fn registry(&self) -> &KeyRegistry {
        &self.registry
    }

    /// Sets an agent's reputation (used by [`ReputationPolicy::Fixed`]; default 1.0).
    pub fn set_reputation(&mut self, agent: &str, reputation: f64) {
        self.explicit_reputation.insert(agent.to_owned(), reputation);
    }

    /// Parses a text (JSON Lines or array) and adds its records in order. Returns how many
    /// records were added and the rejected ones (which are also kept for the report).
    pub fn ingest_text(&mut self, text: &str) -> (usize, Vec<RecordError>) {
        let mut added = 0;
        let mut rejected = Vec::new();
        for result in parse_documents(text) {
            match result {
                Ok(record) => {
                    if self.push(record) {
                        added += 1;
                    }
                }
                Err(e) => {
                    self.rejected.push(e.clone());
                    rejected.push(e);
                }
            }
        }
        (added, rejected)
    }

    /// Keeps a rejected record for the report.
    pub fn push_rejected(&mut self, error: RecordError) {
        self.rejected.push(error);
    }

    /// Adds a document. Returns `false` (and changes nothing) when the very same document is
    /// already there, so that replaying a stream is harmless.
    pub fn push(&mut self, record: Record) -> bool {
        let id = record.id().to_owned();
        let mut problems = Vec::new();
        let mut shadowed = false;
        if let Some(&first) = self.by_id.get(&id) {
            if self.entries[first].record.value == record.value {
                return false;
            }
            shadowed = true;
            problems.push(Problem::new(
                "duplicate_id",
                format!(
                    "another document with @id {id} came first ({}); this one is ignored",
                    self.entries[first].record.position
                ),
            ));
        }
        let time_ms = match record.document.time_text() {
            Some(text) => match parse_time(text) {
                Some(t) => Some(t.timestamp_millis()),
                None => {
                    problems.push(Problem::new("bad_time", format!("time {text:?} is not RFC 3339")));
                    None
                }
            },
            None => None,
        };
        let mut keys_changed = false;
        if let (Document::Agent(agent), false) = (&record.document, shadowed) {
            match self.registry.add_agent_record(agent) {
                Ok(added) => keys_changed = added,
                Err(e) => problems.push(Problem::new("agent_key_rejected", e)),
            }
        }
        match &record.document {
            Document::Statement(s) => {
                problems.extend(statement_problems(s));
                if let Some(c) = s.claim.confidence {
                    if !(0.0..=1.0).contains(&c) {
                        problems.push(Problem::new(
                            "confidence_out_of_range",
                            format!("claim confidence {c} is outside 0..1"),
                        ));
                    }
                }
            }
            Document::Response(r) if !(0.0..=1.0).contains(&r.confidence) => {
                problems.push(Problem::new(
                    "confidence_out_of_range",
                    format!("confidence {} is outside 0..1 (clamped for consensus)", r.confidence),
                ));
            }
            _ => {}
        }
        let signature = record.doc_type().is_signed_type().then(|| check_record(&record, &self.registry));
        let arrival = self.entries.len();
        if !shadowed {
            self.by_id.insert(id, arrival);
        }
        self.entries.push(Entry { record, arrival, signature, time_ms, problems, shadowed });
        if keys_changed {
            for entry in &mut self.entries {
                if entry.signature.is_some() {
                    entry.signature = Some(check_record(&entry.record, &self.registry));
                }
            }
        }
        true
    }

    /// Every accepted document, in arrival order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Every rejected record, in arrival order.
    pub fn rejected(&self) -> &[RecordError] {
        &self.rejected
    }

    /// The (first) document with this `@id`.
    pub fn entry(&self, id: &str) -> Option<&Entry> {
        self.by_id.get(id).map(|&i| &self.entries[i])
    }

    fn live(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| !e.shadowed)
    }

    pub fn statement(&self, id: &str) -> Option<&Statement> {
        match self.entry(id)?.document() {
            Document::Statement(s) => Some(s),
            _ => None,
        }
    }

    pub fn source(&self, id: &str) -> Option<&SourceDocument> {
        match self.entry(id)?.document() {
            Document::Source(s) => Some(s),
            _ => None,
        }
    }

    /// Statement ids in arrival order.
    pub fn statement_ids(&self) -> Vec<&str> {
        self.live().filter(|e| e.record.doc_type() == DocType::Statement).map(Entry::id).collect()
    }

    /// A statement's evidence checks against the source documents known now.
    pub fn evidence(&self, statement: &Statement) -> Vec<EvidenceCheck> {
        check_statement_evidence(statement, |id| self.source(id))
    }

    /// The verification responses targeting a statement, in time order.
    pub fn responses_for(&self, statement_id: &str) -> Vec<(&Entry, &VerificationResponse)> {
        let mut out: Vec<(&Entry, &VerificationResponse)> = self
            .live()
            .filter_map(|e| match e.document() {
                Document::Response(r) if r.target_statement == statement_id => Some((e, r)),
                _ => None,
            })
            .collect();
        out.sort_by_key(|(e, _)| order(e));
        out
    }

    /// The verification requests targeting a statement, in time order.
    pub fn requests_for(&self, statement_id: &str) -> Vec<(&Entry, &VerificationRequest)> {
        let mut out: Vec<(&Entry, &VerificationRequest)> = self
            .live()
            .filter_map(|e| match e.document() {
                Document::Request(r) if r.target_statement == statement_id => Some((e, r)),
                _ => None,
            })
            .collect();
        out.sort_by_key(|(e, _)| order(e));
        out
    }

    pub(super) fn votes(&self) -> Vec<Vote> {
        let mut votes: Vec<Vote> = self
            .live()
            .filter_map(|e| match e.document() {
                Document::Response(r) => Some(vote(e, r)),
                _ => None,
            })
            .collect();
        votes.sort_by_key(|v| v.order);
        votes
    }

    /// Reputations from the verifications up to `upto` (all when `None`).
    pub(super) fn reputation_fn(
        &self,
        votes: &[Vote],
        upto: Option<(i64, usize)>,
    ) -> impl Fn(&str) -> f64 + '_ {
        let computed = match self.config.reputation {
            ReputationPolicy::Fixed => HashMap::new(),
            ReputationPolicy::Accuracy { accurate_at } => {
                let prefix: Vec<&Vote> = votes.iter().filter(|v| upto.is_none_or(|u| v.order <= u)).collect();
                consensus::accuracy_reputations(&prefix, accurate_at)
            }
        };
        move |agent: &str| {
            computed.get(agent).or_else(|| self.explicit_reputation.get(agent)).copied().unwrap_or(1.0)
        }
    }

    /// An agent's reputation now.
    pub fn reputation(&self, agent: &str) -> f64 {
        let votes = self.votes();
        self.reputation_fn(&votes, None)(agent)
    }

    /// A statement's consensus now (`None` if no such statement).
    pub fn consensus(&self, statement_id: &str) -> Option<Outcome> {
        self.statement(statement_id)?;
        let votes = self.votes();
        let rep = self.reputation_fn(&votes, None);
        let mine: Vec<&Vote> = votes.iter().filter(|v| v.statement_id == statement_id).collect();
        Some(consensus::consensus(&mine, &rep, self.config.threshold))
    }

    /// The consensus after each of a statement's verifications, in time order (reputations
    /// as they were at that point).
    pub fn timeline(&self, statement_id: &str) -> Vec<Step> {
        let votes = self.votes();
        let mine: Vec<&Vote> = votes.iter().filter(|v| v.statement_id == statement_id).collect();
        let mut steps = Vec::new();
        for (i, v) in mine.iter().enumerate() {
            let rep = self.reputation_fn(&votes, Some(v.order));
            let outcome = consensus::consensus(&mine[..=i], &rep, self.config.threshold);
            let counted = outcome.counted.iter().any(|c| c.verification_id == v.verification_id);
            let excluded_reason = outcome
                .excluded
                .iter()
                .find(|x| x.verification_id == v.verification_id)
                .map(|x| x.reason.clone());
            let time =
                self.entry(&v.verification_id).and_then(|e| e.document().time_text()).map(str::to_owned);
            steps.push(Step {
                verification_id: v.verification_id.clone(),
                agent: v.agent.clone(),
                verdict: v.verdict.clone(),
                confidence: v.confidence,
                time,
                signature: v.signature,
                counted,
                excluded_reason,
                consensus_after: outcome.consensus,
                verified_after: outcome.verified,
            });
        }
        steps
    }
}

fn order(entry: &Entry) -> (i64, usize) {
    (entry.time_ms.unwrap_or(i64::MAX), entry.arrival)
}

fn vote(entry: &Entry, r: &VerificationResponse) -> Vote {
    Vote {
        verification_id: r.id.clone(),
        statement_id: r.target_statement.clone(),
        agent: r.responding_agent.clone(),
        verdict: r.verdict.clone(),
        confidence: r.confidence,
        signature: entry.signature.as_ref().map(|s| s.status).unwrap_or(super::SignatureStatus::Unsigned),
        order: order(entry),
    }
}
