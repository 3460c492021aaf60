//! A claim's standing: the one word a UI, the CLI and GraphQL headline a statement with, the
//! worst thing true of it (docs/FORMATS.md, "Standing"). `verified` keeps the signed-statements
//! format's meaning (consensus at or above the threshold); a statement can be `verified` and
//! still stand on an invalid signature or an altered quote, and then its standing says so.
//!
//! From worst to best, the first that applies:
//!
//! | standing | when |
//! |---|---|
//! | `invalid_signature` | the statement's own signature is `invalid` or `malformed` |
//! | `unknown_signer` | its key is `unknown_key` or `untrusted_key` for its agent |
//! | `unsigned` | it carries no signature |
//! | `claim_mismatch` | its `claim.contentHash` is not the hash of its claim text |
//! | `quote_mismatch` | an evidence segment's quote or range does not match its document |
//! | `challenged` | a verification that counts gives a verdict other than `VALIDATED` |
//! | `unverified` | consensus is below the threshold (`verified` false) |
//! | `verified` | none of the above and `verified` is true |
//!
//! `unchecked` evidence (the document is absent) and verifications that do not count (a forged
//! or unsigned verification) do not change the standing: they are reported beside it.

use serde::{Deserialize, Serialize};

use super::consensus::Outcome;
use super::document::Document;
use super::evidence::{claim_hash_matches, EvidenceStatus};
use super::ledger::Ledger;
use super::signature::SignatureStatus;

/// A claim's overall standing, worst first (the derived order: `a < b` means `a` is worse).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    InvalidSignature,
    UnknownSigner,
    Unsigned,
    ClaimMismatch,
    QuoteMismatch,
    Challenged,
    Unverified,
    Verified,
}

/// What a standing is made of: the statement's signature, its evidence checks, whether its
/// claim hash holds, and its consensus outcome.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Facts<'a> {
    pub signature: SignatureStatus,
    pub evidence: &'a [EvidenceStatus],
    pub claim_hash_ok: bool,
    /// A counted verification's verdict is not `VALIDATED`.
    pub challenged: bool,
    pub verified: bool,
}

impl Standing {
    /// Every standing, worst first.
    pub const ALL: [Standing; 8] = [
        Standing::InvalidSignature,
        Standing::UnknownSigner,
        Standing::Unsigned,
        Standing::ClaimMismatch,
        Standing::QuoteMismatch,
        Standing::Challenged,
        Standing::Unverified,
        Standing::Verified,
    ];

    /// The standing of a statement: the worst of its signature, evidence and consensus.
    pub fn of(f: &Facts<'_>) -> Standing {
        let signature = match f.signature {
            SignatureStatus::Valid => Standing::Verified,
            SignatureStatus::Invalid | SignatureStatus::Malformed => Standing::InvalidSignature,
            SignatureStatus::UnknownKey | SignatureStatus::UntrustedKey => Standing::UnknownSigner,
            SignatureStatus::Unsigned => Standing::Unsigned,
        };
        let claim = if f.claim_hash_ok { Standing::Verified } else { Standing::ClaimMismatch };
        let evidence = if f.evidence.contains(&EvidenceStatus::Mismatch) {
            Standing::QuoteMismatch
        } else {
            Standing::Verified
        };
        let consensus = if f.challenged {
            Standing::Challenged
        } else if f.verified {
            Standing::Verified
        } else {
            Standing::Unverified
        };
        signature.min(claim).min(evidence).min(consensus)
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Standing::InvalidSignature => "invalid_signature",
            Standing::UnknownSigner => "unknown_signer",
            Standing::Unsigned => "unsigned",
            Standing::ClaimMismatch => "claim_mismatch",
            Standing::QuoteMismatch => "quote_mismatch",
            Standing::Challenged => "challenged",
            Standing::Unverified => "unverified",
            Standing::Verified => "verified",
        }
    }

    /// The standing in words, as the CLI headlines a trail.
    pub const fn describe(self) -> &'static str {
        match self {
            Standing::InvalidSignature => "INVALID SIGNATURE: the statement's signature does not hold",
            Standing::UnknownSigner => "UNKNOWN SIGNER: the statement's key is not trusted for its agent",
            Standing::Unsigned => "UNSIGNED: the statement carries no signature",
            Standing::ClaimMismatch => "CLAIM MISMATCH: the claim text is not what its content hash says",
            Standing::QuoteMismatch => "QUOTE MISMATCH: a quote does not match its source document",
            Standing::Challenged => "CHALLENGED: a verifier that counts challenges it",
            Standing::Unverified => "UNVERIFIED: consensus is below the threshold",
            Standing::Verified => "VERIFIED: signature, evidence and consensus all hold",
        }
    }

    /// Whether the standing is a failure of the statement itself (signature, claim or quote),
    /// worse than any consensus.
    pub fn is_broken(self) -> bool {
        self < Standing::Challenged
    }

    /// Reads the stored form (`None` for anything else).
    pub fn parse(s: &str) -> Option<Standing> {
        Standing::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

impl Ledger {
    /// A statement's standing now (`None` if the ledger has no such statement).
    pub fn standing(&self, statement_id: &str) -> Option<Standing> {
        let outcome = self.consensus(statement_id)?;
        self.standing_with(statement_id, &outcome)
    }

    /// A statement's standing given its consensus outcome (computed once by the caller).
    pub fn standing_with(&self, statement_id: &str, outcome: &Outcome) -> Option<Standing> {
        let entry = self.entry(statement_id)?;
        let Document::Statement(st) = entry.document() else {
            return None;
        };
        let evidence: Vec<EvidenceStatus> = self.evidence(st).into_iter().map(|c| c.status).collect();
        Some(Standing::of(&Facts {
            signature: entry.signature.as_ref().map(|s| s.status).unwrap_or(SignatureStatus::Unsigned),
            evidence: &evidence,
            claim_hash_ok: claim_hash_matches(st) != Some(false),
            challenged: outcome.challenged,
            verified: outcome.verified,
        }))
    }
}

impl std::fmt::Display for Standing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use EvidenceStatus::*;
    use SignatureStatus::*;

    fn of(
        signature: SignatureStatus,
        evidence: &[EvidenceStatus],
        hash: bool,
        ch: bool,
        v: bool,
    ) -> Standing {
        Standing::of(&Facts { signature, evidence, claim_hash_ok: hash, challenged: ch, verified: v })
    }

    #[test]
    fn the_worst_fact_wins_over_any_consensus() {
        // The council's parking-study claim: forged signature, altered quote, consensus 0.89.
        assert_eq!(of(Invalid, &[Mismatch], true, false, true), Standing::InvalidSignature);
        assert_eq!(of(Malformed, &[Match], true, false, true), Standing::InvalidSignature);
        assert_eq!(of(UnknownKey, &[Mismatch], true, false, true), Standing::UnknownSigner);
        assert_eq!(of(UntrustedKey, &[Match], true, false, true), Standing::UnknownSigner);
        assert_eq!(of(Unsigned, &[Match], false, false, true), Standing::Unsigned);
        assert_eq!(of(Valid, &[Mismatch], false, true, true), Standing::ClaimMismatch);
        assert_eq!(of(Valid, &[Match, Mismatch], true, true, true), Standing::QuoteMismatch);
        assert_eq!(of(Valid, &[Match], true, true, true), Standing::Challenged);
        assert_eq!(of(Valid, &[Match], true, false, false), Standing::Unverified);
        assert_eq!(of(Valid, &[Match, Unchecked], true, false, true), Standing::Verified);
        assert_eq!(of(Valid, &[], true, false, true), Standing::Verified);
    }

    #[test]
    fn order_names_and_parse_agree() {
        let mut sorted = Standing::ALL;
        sorted.sort();
        assert_eq!(sorted, Standing::ALL, "declared worst first");
        for s in Standing::ALL {
            assert_eq!(Standing::parse(s.as_str()), Some(s));
            assert_eq!(serde_json::to_value(s).unwrap(), serde_json::json!(s.as_str()));
        }
        assert!(Standing::QuoteMismatch.is_broken() && !Standing::Challenged.is_broken());
        assert_eq!(Standing::parse("nope"), None);
    }
}
