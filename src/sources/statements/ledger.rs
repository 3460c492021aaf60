//! The incremental state of an A2AP stream: documents in arrival order, the keys learnt so far,
//! and everything derived from them (signature statuses, evidence checks, consensus over time,
//! reputations), recomputed as documents arrive.

use std::collections::{BTreeSet, HashMap, HashSet};

use ed25519_dalek::VerifyingKey;
use serde::{Deserialize, Serialize};

use super::consensus::{ConsensusConfig, ReputationPolicy, Vote};
use super::document::{
    DocType, Document, Record, RecordError, SourceDocument, Statement, VerificationRequest,
    VerificationResponse,
};
use super::evidence::{check_statement_evidence, statement_problems, EvidenceCheck};
use super::index::{id_key, pk_key, Changes, Index};
use super::keys::{decode_public_key, embedded_form, KeyEntry, KeyRegistry, KeyResolution, EMBEDDED_PREFIX};
use super::parse::{parse_documents, parse_time};
use super::signature::{batch_verified, check_signature_with, SignatureCheck};
use super::Problem;
use crate::model::Label;

/// How many documents [`Ledger::push_all`] verifies in one batch: large enough that the
/// multi-scalar multiplication is cheap per signature, small enough that a bad signature
/// costs few extra checks.
const BATCH: usize = 256;

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

/// Documents in arrival order and everything derived from them, with indexes by statement,
/// source and key, and the changes not yet written to the graph.
#[derive(Debug, Clone, Default)]
pub struct Ledger {
    config: ConsensusConfig,
    registry: KeyRegistry,
    entries: Vec<Entry>,
    rejected: Vec<RecordError>,
    by_id: HashMap<String, usize>,
    pub(super) explicit_reputation: HashMap<String, f64>,
    index: Index,
    changes: Changes,
    /// Nodes already written by [`Ledger::take_delta`] (agents, and the stubs an edge needs).
    pub(super) emitted: HashSet<(Label, String)>,
    signature_checks: u64,
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

    /// How many signatures this ledger has checked (each check verifies one Ed25519
    /// signature when the key is known): what tests and benchmarks count to show that
    /// reading a ledger verifies nothing again.
    pub fn signature_checks(&self) -> u64 {
        self.signature_checks
    }

    /// Sets an agent's reputation (used by [`ReputationPolicy::Fixed`]; default 1.0).
    pub fn set_reputation(&mut self, agent: &str, reputation: f64) {
        self.explicit_reputation.insert(agent.to_owned(), reputation);
        self.changes.agents.insert(agent.to_owned());
        self.touch_all();
    }

    /// Parses a text (JSON Lines or array) and adds its records in order. Returns how many
    /// records were added and the rejected ones (which are also kept for the report).
    pub fn ingest_text(&mut self, text: &str) -> (usize, Vec<RecordError>) {
        let mut records = Vec::new();
        let mut rejected = Vec::new();
        for result in parse_documents(text) {
            match result {
                Ok(record) => records.push(record),
                Err(e) => {
                    self.rejected.push(e.clone());
                    rejected.push(e);
                }
            }
        }
        (self.push_all(records), rejected)
    }

    /// Adds documents in order, as [`Ledger::push`] does one by one, verifying their
    /// signatures in batches first. Returns how many were added.
    pub fn push_all(&mut self, records: impl IntoIterator<Item = Record>) -> usize {
        let mut added = 0;
        let mut records = records.into_iter().peekable();
        while records.peek().is_some() {
            let chunk: Vec<Record> = records.by_ref().take(BATCH).collect();
            let verified = batch_verified(&chunk, &self.registry);
            for (record, key) in chunk.into_iter().zip(verified) {
                if self.push_verified(record, key.as_ref()) {
                    added += 1;
                }
            }
        }
        added
    }

    /// Keeps a rejected record for the report.
    pub fn push_rejected(&mut self, error: RecordError) {
        self.rejected.push(error);
    }

    /// Trusts one more key. Only the entries whose signature names that key (by id, or as
    /// the same public key) are verified again. Returns whether the key is new.
    pub fn add_key(&mut self, entry: &KeyEntry) -> Result<bool, String> {
        let before = self.registry.len();
        self.registry.add_entry(entry)?;
        if self.registry.len() == before {
            return Ok(false);
        }
        let key = decode_public_key(&entry.public_key)?;
        self.reverify_key(&entry.key_id, &entry.agent, &key);
        Ok(true)
    }

    /// Adds a document. Returns `false` (and changes nothing) when the very same document is
    /// already there, so that replaying a stream is harmless.
    pub fn push(&mut self, record: Record) -> bool {
        self.push_verified(record, None)
    }

    /// [`Ledger::push`], with the key a batch already found the signature to match under.
    fn push_verified(&mut self, record: Record, verified: Option<&VerifyingKey>) -> bool {
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
        let mut new_key = None;
        if let (Document::Agent(agent), false) = (&record.document, shadowed) {
            match self.registry.add_agent_record(agent) {
                Ok(true) => new_key = agent_key(agent),
                Ok(false) => {}
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
        let arrival = self.entries.len();
        if !shadowed {
            self.by_id.insert(id, arrival);
        }
        self.entries.push(Entry { record, arrival, signature: None, time_ms, problems, shadowed });
        if self.entries[arrival].record.doc_type().is_signed_type() {
            self.check(arrival, verified);
        }
        self.index_entry(arrival);
        if let Some((key_id, agent, key)) = new_key {
            self.reverify_key(&key_id, &agent, &key);
        }
        true
    }

    /// Checks an entry's signature under the keys known now and indexes it by its key.
    fn check(&mut self, i: usize, verified: Option<&VerifyingKey>) {
        self.signature_checks += 1;
        let record = &self.entries[i].record;
        let check = check_signature_with(&record.value, record.document.signer(), &self.registry, verified);
        let key_ref = self.entries[i]
            .record
            .value
            .get("signature")
            .and_then(|s| s.get("publicKey"))
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned);
        if let Some(key_ref) = key_ref {
            Index::add(&mut self.index.by_key, &id_key(&key_ref), i);
            let resolved = match self.registry.resolve(&key_ref) {
                KeyResolution::Registered { key, .. } | KeyResolution::Embedded(key) => Some(key),
                _ => None,
            };
            if let Some(key) = resolved {
                Index::add(&mut self.index.by_key, &pk_key(&key), i);
            }
        }
        self.entries[i].signature = Some(check);
    }

    /// Verifies again the entries a new key can change, and marks its agent changed.
    fn reverify_key(&mut self, key_id: &str, agent: &str, key: &VerifyingKey) {
        let mut affected: BTreeSet<usize> =
            Index::get(&self.index.by_key, &id_key(key_id)).iter().copied().collect();
        affected.extend(Index::get(&self.index.by_key, &pk_key(key)).iter().copied());
        for i in affected {
            let before = self.entries[i].signature.as_ref().map(|s| s.status);
            self.check(i, None);
            if self.entries[i].signature.as_ref().map(|s| s.status) != before {
                self.touch(i);
            }
        }
        self.changes.agents.insert(agent.to_owned());
    }

    /// Adds a new entry to the indexes and marks what it changes.
    fn index_entry(&mut self, i: usize) {
        let entry = &self.entries[i];
        let shadowed = entry.shadowed;
        match entry.document() {
            Document::Request(r) => {
                let target = r.target_statement.clone();
                Index::add(&mut self.index.requests, &target, i);
                self.changes.entries.insert(i);
                return;
            }
            _ if shadowed => return,
            Document::Response(r) => {
                let target = r.target_statement.clone();
                Index::add(&mut self.index.responses, &target, i);
            }
            Document::Statement(s) => {
                let cited: BTreeSet<String> = s.evidence.iter().map(|e| e.source_document.clone()).collect();
                for source in cited {
                    Index::add(&mut self.index.citing, &source, i);
                }
                let contradicted: BTreeSet<String> = s.contradicts.iter().cloned().collect();
                for c in contradicted {
                    Index::add(&mut self.index.contradicting, &c, i);
                }
            }
            Document::Source(_) | Document::Agent(_) => {}
        }
        self.touch(i);
    }

    /// Marks an entry changed, and with it what its graph depends on.
    fn touch(&mut self, i: usize) {
        self.changes.entries.insert(i);
        if let ReputationPolicy::Accuracy { .. } = self.config.reputation {
            if matches!(self.entries[i].document(), Document::Response(_)) {
                self.touch_all();
            }
        }
    }

    /// Marks every entry and agent changed (reputations changed, which every node shows).
    fn touch_all(&mut self) {
        self.changes.entries.extend(0..self.entries.len());
        let agents = self.registry.entries().into_iter().map(|k| k.agent);
        self.changes.agents.extend(agents);
        self.emitted.retain(|(label, _)| *label != Label::Agent);
    }

    /// Takes what changed since the last call (the graph written from it is then current).
    pub fn take_changes(&mut self) -> Changes {
        std::mem::take(&mut self.changes)
    }

    /// What changed and is not yet taken.
    pub fn pending_changes(&self) -> &Changes {
        &self.changes
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

    pub(super) fn live(&self) -> impl Iterator<Item = &Entry> {
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

    /// The live statements that say they contradict `statement_id`, in arrival order.
    pub fn statements_contradicting(&self, statement_id: &str) -> Vec<&str> {
        let at: BTreeSet<usize> =
            Index::get(&self.index.contradicting, statement_id).iter().copied().collect();
        at.into_iter()
            .map(|i| &self.entries[i])
            .filter(|e| !e.shadowed)
            .filter(|e| matches!(e.document(), Document::Statement(s) if s.contradicts.iter().any(|c| c == statement_id)))
            .map(Entry::id)
            .collect()
    }

    /// The live statements whose evidence cites a source document, in arrival order.
    pub fn statements_citing(&self, source_id: &str) -> impl Iterator<Item = &Entry> {
        Index::get(&self.index.citing, source_id).iter().map(|&i| &self.entries[i])
    }

    /// Every request targeting a statement, shadowed ones too, in arrival order.
    pub fn all_requests_for(&self, statement_id: &str) -> impl Iterator<Item = &Entry> {
        Index::get(&self.index.requests, statement_id).iter().map(|&i| &self.entries[i])
    }

    /// A statement's evidence checks against the source documents known now.
    pub fn evidence(&self, statement: &Statement) -> Vec<EvidenceCheck> {
        check_statement_evidence(statement, |id| self.source(id))
    }

    /// The verification responses targeting a statement, in time order.
    pub fn responses_for(&self, statement_id: &str) -> Vec<(&Entry, &VerificationResponse)> {
        let mut out: Vec<(&Entry, &VerificationResponse)> = Index::get(&self.index.responses, statement_id)
            .iter()
            .map(|&i| &self.entries[i])
            .filter_map(|e| match e.document() {
                Document::Response(r) => Some((e, r)),
                _ => None,
            })
            .collect();
        out.sort_by_key(|(e, _)| order(e));
        out
    }

    /// The verification requests targeting a statement, in time order.
    pub fn requests_for(&self, statement_id: &str) -> Vec<(&Entry, &VerificationRequest)> {
        let mut out: Vec<(&Entry, &VerificationRequest)> = self
            .all_requests_for(statement_id)
            .filter(|e| !e.shadowed)
            .filter_map(|e| match e.document() {
                Document::Request(r) => Some((e, r)),
                _ => None,
            })
            .collect();
        out.sort_by_key(|(e, _)| order(e));
        out
    }
}

/// The key an agent record brings: its id (or embedded form), agent and key.
fn agent_key(agent: &super::document::SoftwareAgent) -> Option<(String, String, VerifyingKey)> {
    let text = agent.public_key.as_deref()?;
    let key = decode_public_key(text.strip_prefix(EMBEDDED_PREFIX).unwrap_or(text)).ok()?;
    let key_id = agent.key_id.clone().unwrap_or_else(|| embedded_form(&key));
    Some((key_id, agent.info.id.clone(), key))
}

pub(super) fn order(entry: &Entry) -> (i64, usize) {
    (entry.time_ms.unwrap_or(i64::MAX), entry.arrival)
}

pub(super) fn vote(entry: &Entry, r: &VerificationResponse) -> Vote {
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
