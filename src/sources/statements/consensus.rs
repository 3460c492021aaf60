//! Consensus over a statement's verifications (the A2AP specification as docs/FORMATS.md "A2AP documents" fixes it) and
//! agent reputation (the A2AP specification).
//!
//! - Consensus: the reputation-weighted mean over the counted verifications, where a
//!   `VALIDATED` verdict counts its confidence and any other verdict 0. A verification whose
//!   signature is not `valid` is not counted and is listed with why. When one agent verified a
//!   statement more than once, only its latest counted verification (by time, then arrival)
//!   counts: an agent can revise its verdict but not multiply its weight. No counted
//!   verification (or a total weight of 0) gives 0.0, as in the A2AP specification
//! - Reputation: [`ReputationPolicy::Fixed`] (the default) gives every agent 1.0 unless set
//!   explicitly. [`ReputationPolicy::Accuracy`] is the A2AP specification's rule: an agent's
//!   reputation is the share of its verifications that are `VALIDATED` verdicts on statements
//!   whose consensus is at least `accurate_at` (0.8 in A2AP); an agent with no counted
//!   verification keeps 1.0. To keep this from being circular (consensus is weighted by
//!   reputation), the consensus it looks at is the unweighted one.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::signature::SignatureStatus;

/// How reputations are found.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "policy")]
pub enum ReputationPolicy {
    Fixed,
    Accuracy { accurate_at: f64 },
}

/// Consensus settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ConsensusConfig {
    /// `verified` is `consensus >= threshold` (0.7).
    pub threshold: f64,
    pub reputation: ReputationPolicy,
}

impl Default for ConsensusConfig {
    fn default() -> Self {
        ConsensusConfig { threshold: 0.7, reputation: ReputationPolicy::Fixed }
    }
}

impl ReputationPolicy {
    /// The A2AP specification's rule with its threshold of 0.8.
    pub const SEED: ReputationPolicy = ReputationPolicy::Accuracy { accurate_at: 0.8 };
}

/// One verification as consensus sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Vote {
    pub verification_id: String,
    pub statement_id: String,
    pub agent: String,
    pub verdict: String,
    pub confidence: f64,
    pub signature: SignatureStatus,
    /// Time order: epoch milliseconds (`i64::MAX` when the time is missing or unreadable),
    /// then arrival.
    pub order: (i64, usize),
}

impl Vote {
    pub fn is_validated(&self) -> bool {
        self.verdict == "VALIDATED"
    }

    /// What the verification contributes before weighting.
    pub fn score(&self) -> f64 {
        if self.is_validated() {
            self.confidence.clamp(0.0, 1.0)
        } else {
            0.0
        }
    }
}

/// Why a verification was left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Excluded {
    pub verification_id: String,
    pub agent: String,
    pub reason: String,
}

/// A statement's consensus over some verifications.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub consensus: f64,
    pub verified: bool,
    /// A counted verification gives a verdict other than `VALIDATED`.
    pub challenged: bool,
    /// The verifications that counted, with the weight each got.
    pub counted: Vec<Counted>,
    pub excluded: Vec<Excluded>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Counted {
    pub verification_id: String,
    pub agent: String,
    pub score: f64,
    pub weight: f64,
}

/// Computes consensus over the votes (any order) with the given reputations.
pub fn consensus(votes: &[&Vote], reputation: &dyn Fn(&str) -> f64, threshold: f64) -> Outcome {
    let mut sorted: Vec<&Vote> = votes.to_vec();
    sorted.sort_by_key(|v| v.order);
    let mut latest: BTreeMap<&str, &Vote> = BTreeMap::new();
    let mut excluded = Vec::new();
    for v in &sorted {
        if v.signature != SignatureStatus::Valid {
            excluded.push(Excluded {
                verification_id: v.verification_id.clone(),
                agent: v.agent.clone(),
                reason: format!("signature {}", v.signature),
            });
            continue;
        }
        if let Some(prev) = latest.insert(&v.agent, v) {
            excluded.push(Excluded {
                verification_id: prev.verification_id.clone(),
                agent: prev.agent.clone(),
                reason: format!("superseded by {} from the same agent", v.verification_id),
            });
        }
    }
    let mut counted: Vec<Counted> = latest
        .values()
        .map(|v| Counted {
            verification_id: v.verification_id.clone(),
            agent: v.agent.clone(),
            score: v.score(),
            weight: reputation(&v.agent).max(0.0),
        })
        .collect();
    counted.sort_by_key(|c| sorted.iter().position(|v| v.verification_id == c.verification_id));
    let total: f64 = counted.iter().map(|c| c.weight).sum();
    let consensus =
        if total > 0.0 { counted.iter().map(|c| c.score * c.weight).sum::<f64>() / total } else { 0.0 };
    let challenged = latest.values().any(|v| !v.is_validated());
    Outcome { consensus, verified: consensus >= threshold, challenged, counted, excluded }
}

/// The A2AP specification's reputations from a set of votes (over all statements). Agents with no
/// counted vote are absent (the caller gives them 1.0).
pub fn accuracy_reputations(votes: &[&Vote], accurate_at: f64) -> HashMap<String, f64> {
    let mut by_statement: BTreeMap<&str, Vec<&Vote>> = BTreeMap::new();
    for v in votes {
        by_statement.entry(&v.statement_id).or_default().push(v);
    }
    let mut tally: HashMap<String, (u32, u32)> = HashMap::new();
    for statement_votes in by_statement.values() {
        let outcome = consensus(statement_votes, &|_| 1.0, 0.0);
        for c in &outcome.counted {
            let entry = tally.entry(c.agent.clone()).or_default();
            entry.1 += 1;
            let validated =
                statement_votes.iter().any(|v| v.verification_id == c.verification_id && v.is_validated());
            if validated && outcome.consensus >= accurate_at {
                entry.0 += 1;
            }
        }
    }
    tally.into_iter().map(|(agent, (good, all))| (agent, f64::from(good) / f64::from(all))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vote(id: &str, st: &str, agent: &str, verdict: &str, conf: f64, sig: SignatureStatus, t: i64) -> Vote {
        Vote {
            verification_id: id.into(),
            statement_id: st.into(),
            agent: agent.into(),
            verdict: verdict.into(),
            confidence: conf,
            signature: sig,
            order: (t, t as usize),
        }
    }

    use SignatureStatus::*;

    #[test]
    fn challenged_forged_unsigned_and_superseded() {
        let a = vote("v1", "s", "a", "VALIDATED", 0.9, Valid, 1);
        let b = vote("v2", "s", "b", "CHALLENGED", 0.8, Valid, 2);
        let forged = vote("v3", "s", "c", "VALIDATED", 1.0, Invalid, 3);
        let unsigned = vote("v4", "s", "d", "VALIDATED", 1.0, Unsigned, 4);
        let out = consensus(&[&a, &b, &forged, &unsigned], &|_| 1.0, 0.7);
        assert!((out.consensus - 0.45).abs() < 1e-12);
        assert!(!out.verified);
        assert_eq!(out.excluded.len(), 2);
        assert_eq!(out.excluded[0].reason, "signature invalid");
        assert_eq!(out.excluded[1].reason, "signature unsigned");
        // b revises its verdict: only its latest counts.
        let b2 = vote("v5", "s", "b", "VALIDATED", 0.7, Valid, 5);
        let out = consensus(&[&b2, &a, &b], &|_| 1.0, 0.7);
        assert!((out.consensus - 0.8).abs() < 1e-12);
        assert!(out.verified);
        assert!(out.excluded[0].reason.contains("superseded by v5"));
        // Weighted by reputation.
        let out = consensus(&[&a, &b], &|ag| if ag == "a" { 3.0 } else { 1.0 }, 0.7);
        assert!((out.consensus - 2.7 / 4.0).abs() < 1e-12);
        // Nothing counted: 0.
        assert_eq!(consensus(&[&forged], &|_| 1.0, 0.7).consensus, 0.0);
        assert_eq!(consensus(&[], &|_| 1.0, 0.0).consensus, 0.0);
        assert!(consensus(&[], &|_| 1.0, 0.0).verified);
    }

    #[test]
    fn accuracy_reputation_follows_seed_6_3() {
        let votes = [
            vote("1", "s1", "a", "VALIDATED", 0.9, Valid, 1),
            vote("2", "s1", "b", "VALIDATED", 0.9, Valid, 2),
            vote("3", "s2", "a", "VALIDATED", 0.9, Valid, 3),
            vote("4", "s2", "b", "CHALLENGED", 0.9, Valid, 4),
            vote("5", "s3", "c", "VALIDATED", 0.9, Invalid, 5),
        ];
        let refs: Vec<&Vote> = votes.iter().collect();
        let rep = accuracy_reputations(&refs, 0.8);
        assert_eq!(rep["a"], 0.5); // s1 accurate; s2's consensus 0.45 < 0.8
        assert_eq!(rep["b"], 0.5); // s1 accurate; a challenge is never counted accurate
        assert!(!rep.contains_key("c"));
    }
}
