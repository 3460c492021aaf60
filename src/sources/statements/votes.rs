//! What the ledger derives per statement from its indexes: votes in time order,
//! reputations, consensus now and after each verification. Under fixed reputations (the
//! default) nothing here looks beyond the statement's own verifications.

use std::collections::HashMap;

use super::consensus::{self, Outcome, ReputationPolicy, Vote};
use super::document::Document;
use super::ledger::{vote, Ledger, Step};

impl Ledger {
    /// A statement's votes, in time order.
    pub(super) fn votes_for(&self, statement_id: &str) -> Vec<Vote> {
        self.responses_for(statement_id).into_iter().map(|(e, r)| vote(e, r)).collect()
    }

    /// Every vote, in time order (only reputations by accuracy need them all).
    fn all_votes(&self) -> Vec<Vote> {
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

    /// Reputations from the verifications up to `upto` (all when `None`). `all` are every
    /// vote when the policy needs them (see [`Ledger::votes_if_needed`]).
    pub(super) fn reputation_fn(
        &self,
        all: &[Vote],
        upto: Option<(i64, usize)>,
    ) -> impl Fn(&str) -> f64 + '_ {
        let computed = match self.config().reputation {
            ReputationPolicy::Fixed => HashMap::new(),
            ReputationPolicy::Accuracy { accurate_at } => {
                let prefix: Vec<&Vote> = all.iter().filter(|v| upto.is_none_or(|u| v.order <= u)).collect();
                consensus::accuracy_reputations(&prefix, accurate_at)
            }
        };
        move |agent: &str| {
            computed.get(agent).or_else(|| self.explicit_reputation.get(agent)).copied().unwrap_or(1.0)
        }
    }

    /// Every vote when reputations are computed from them, else none (they are fixed).
    pub(super) fn votes_if_needed(&self) -> Vec<Vote> {
        match self.config().reputation {
            ReputationPolicy::Fixed => Vec::new(),
            ReputationPolicy::Accuracy { .. } => self.all_votes(),
        }
    }

    /// An agent's reputation now.
    pub fn reputation(&self, agent: &str) -> f64 {
        let votes = self.votes_if_needed();
        self.reputation_fn(&votes, None)(agent)
    }

    /// A statement's consensus now (`None` if no such statement).
    pub fn consensus(&self, statement_id: &str) -> Option<Outcome> {
        self.statement(statement_id)?;
        let all = self.votes_if_needed();
        Some(self.consensus_with(statement_id, &all))
    }

    /// A statement's consensus given every vote (empty under fixed reputations).
    pub(super) fn consensus_with(&self, statement_id: &str, all: &[Vote]) -> Outcome {
        let rep = self.reputation_fn(all, None);
        let mine = self.votes_for(statement_id);
        let mine: Vec<&Vote> = mine.iter().collect();
        consensus::consensus(&mine, &rep, self.config().threshold)
    }

    /// The consensus after each of a statement's verifications, in time order (reputations
    /// as they were at that point).
    pub fn timeline(&self, statement_id: &str) -> Vec<Step> {
        let all = self.votes_if_needed();
        self.timeline_with(statement_id, &all)
    }

    pub(super) fn timeline_with(&self, statement_id: &str, all: &[Vote]) -> Vec<Step> {
        let votes = self.votes_for(statement_id);
        let mine: Vec<&Vote> = votes.iter().collect();
        let mut steps = Vec::new();
        for (i, v) in mine.iter().enumerate() {
            let rep = self.reputation_fn(all, Some(v.order));
            let outcome = consensus::consensus(&mine[..=i], &rep, self.config().threshold);
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
