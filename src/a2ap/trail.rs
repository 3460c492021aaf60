//! A statement's verification trail (A2AP "Statement + Evidence trail + Verification
//! history") as data: claim, evidence chain statement → chunk → document → source, every
//! verification and the consensus after each, for the CLI to print as JSON or text.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::document::{ByteRange, Document, Finding, TimeSpan};
use super::evidence::EvidenceStatus;
use super::ledger::{Ledger, Step};
use super::signature::SignatureStatus;
use super::standing::Standing;
use super::Problem;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Trail {
    pub statement_id: String,
    pub agent: String,
    pub generated_at: Option<String>,
    pub claim: TrailClaim,
    pub signature: SignatureStatus,
    pub evidence: Vec<TrailEvidence>,
    pub requests: Vec<TrailRequest>,
    pub verifications: Vec<TrailVerification>,
    pub consensus: f64,
    /// Consensus at or above the threshold, as the signed-statements format defines it.
    pub verified: bool,
    /// The headline: the worst of signature, claim hash, evidence and consensus
    /// (docs/FORMATS.md, "Standing").
    pub standing: Standing,
    pub threshold: f64,
    pub supports: Vec<String>,
    pub contradicts: Vec<String>,
    /// Statements that say they contradict this one.
    pub contradicted_by: Vec<String>,
    pub problems: Vec<Problem>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TrailClaim {
    pub text: String,
    pub confidence: Option<f64>,
    pub content_hash: Option<String>,
    pub generation_method: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TrailEvidence {
    pub chunk_id: String,
    pub quote: Option<String>,
    pub byte_range: ByteRange,
    pub timestamp: Option<TimeSpan>,
    pub document: TrailDocument,
    pub status: EvidenceStatus,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TrailDocument {
    pub id: String,
    /// `None` when the document is not in the stream.
    pub title: Option<String>,
    pub available: bool,
    pub source: Option<String>,
    pub source_name: Option<String>,
    pub source_url: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TrailRequest {
    pub request_id: String,
    pub agent: String,
    pub time: Option<String>,
    pub criteria: Vec<String>,
    pub signature: SignatureStatus,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TrailVerification {
    pub verification_id: String,
    pub agent: String,
    pub verdict: String,
    pub confidence: f64,
    pub findings: Vec<Finding>,
    pub time: Option<String>,
    pub signature: SignatureStatus,
    pub counted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub excluded_reason: Option<String>,
    pub consensus_after: f64,
    pub verified_after: bool,
}

impl Ledger {
    /// The trail of a statement, `None` if the ledger has no such statement.
    pub fn trail(&self, statement_id: &str) -> Option<Trail> {
        let entry = self.entry(statement_id)?;
        let Document::Statement(st) = entry.document() else {
            return None;
        };
        let checks = self.evidence(st);
        let evidence = st
            .evidence
            .iter()
            .zip(checks)
            .map(|(seg, check)| {
                let doc = self.source(&seg.source_document);
                let (source, source_name, source_url) = match doc.and_then(|d| d.source.as_ref()) {
                    Some(super::document::SourceRef::Id(id)) => (Some(id.clone()), None, None),
                    Some(super::document::SourceRef::Object { id, name, url }) => {
                        (Some(id.clone()), name.clone(), url.clone())
                    }
                    None => (None, None, None),
                };
                TrailEvidence {
                    chunk_id: seg.chunk_id.clone(),
                    quote: seg.quote_text.clone(),
                    byte_range: seg.byte_range,
                    timestamp: seg.timestamp.clone(),
                    document: TrailDocument {
                        id: seg.source_document.clone(),
                        title: doc.and_then(|d| d.title.clone()),
                        available: doc.is_some(),
                        source,
                        source_name,
                        source_url,
                    },
                    status: check.status,
                    reasons: check.reasons,
                }
            })
            .collect();
        let requests = self
            .requests_for(statement_id)
            .into_iter()
            .map(|(e, r)| TrailRequest {
                request_id: r.id.clone(),
                agent: r.requesting_agent.clone(),
                time: r.requested_at.clone(),
                criteria: r.verification_criteria.clone(),
                signature: status(e.signature.as_ref()),
            })
            .collect();
        let steps: Vec<Step> = self.timeline(statement_id);
        let verifications = steps
            .into_iter()
            .map(|s| {
                let findings = match self.entry(&s.verification_id).map(|e| e.document()) {
                    Some(Document::Response(r)) => r.findings.clone(),
                    _ => Vec::new(),
                };
                TrailVerification {
                    verification_id: s.verification_id,
                    agent: s.agent,
                    verdict: s.verdict,
                    confidence: s.confidence,
                    findings,
                    time: s.time,
                    signature: s.signature,
                    counted: s.counted,
                    excluded_reason: s.excluded_reason,
                    consensus_after: s.consensus_after,
                    verified_after: s.verified_after,
                }
            })
            .collect();
        let outcome = self.consensus(statement_id)?;
        let standing = self.standing_with(statement_id, &outcome)?;
        let contradicted_by =
            self.statements_contradicting(statement_id).into_iter().map(str::to_owned).collect();
        Some(Trail {
            statement_id: st.id.clone(),
            agent: st.agent.id().to_owned(),
            generated_at: st.generated_at_time.clone(),
            claim: TrailClaim {
                text: st.claim.text.clone(),
                confidence: st.claim.confidence,
                content_hash: st.claim.content_hash.clone(),
                generation_method: st.claim.generation_method.clone(),
            },
            signature: status(entry.signature.as_ref()),
            evidence,
            requests,
            verifications,
            consensus: outcome.consensus,
            verified: outcome.verified,
            standing,
            threshold: self.config().threshold,
            supports: st.supports.clone(),
            contradicts: st.contradicts.clone(),
            contradicted_by,
            problems: entry.problems.clone(),
        })
    }
}

fn status(check: Option<&super::SignatureCheck>) -> SignatureStatus {
    check.map(|c| c.status).unwrap_or(SignatureStatus::Unsigned)
}

impl Trail {
    /// The trail as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The trail as plain text, for a terminal.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{}", self.standing.describe());
        let _ = writeln!(out, "Statement {}", self.statement_id);
        let _ = writeln!(out, "  claim:     {}", self.claim.text);
        let _ = writeln!(
            out,
            "  by:        {} at {} (confidence {}), signature {}",
            self.agent,
            self.generated_at.as_deref().unwrap_or("?"),
            self.claim.confidence.map(|c| format!("{c:.2}")).unwrap_or_else(|| "?".into()),
            self.signature
        );
        let _ = writeln!(
            out,
            "  consensus: {:.3} ({} the threshold {}); standing {}",
            self.consensus,
            if self.verified { "at or above" } else { "below" },
            self.threshold,
            self.standing
        );
        for id in &self.contradicts {
            let _ = writeln!(out, "  contradicts {id}");
        }
        for id in &self.contradicted_by {
            let _ = writeln!(out, "  contradicted by {id}");
        }
        let _ = writeln!(out, "Evidence");
        for ev in &self.evidence {
            let when = ev
                .timestamp
                .as_ref()
                .map(|t| format!("{}–{}", t.start, t.end))
                .unwrap_or_else(|| "--:--:--".into());
            let _ = writeln!(out, "  [{when}] {:?} ({})", ev.quote.as_deref().unwrap_or(""), ev.status);
            let _ = writeln!(
                out,
                "      chunk {} bytes {}..{} of {} \"{}\"{}",
                ev.chunk_id,
                ev.byte_range.start,
                ev.byte_range.end,
                ev.document.id,
                ev.document.title.as_deref().unwrap_or("(not available)"),
                ev.document.source.as_ref().map(|s| format!(" from {s}")).unwrap_or_default()
            );
            for r in &ev.reasons {
                let _ = writeln!(out, "      ! {r}");
            }
        }
        let _ = writeln!(out, "Verifications");
        if self.verifications.is_empty() {
            let _ = writeln!(out, "  (none)");
        }
        for v in &self.verifications {
            let _ = writeln!(
                out,
                "  {} {} {} {:.2} signature {}{} -> consensus {:.3}",
                v.time.as_deref().unwrap_or("?"),
                v.agent,
                v.verdict,
                v.confidence,
                v.signature,
                v.excluded_reason.as_ref().map(|r| format!(" (not counted: {r})")).unwrap_or_default(),
                v.consensus_after
            );
            for f in &v.findings {
                let _ = writeln!(
                    out,
                    "      {} {}: {}",
                    f.criterion,
                    f.status,
                    f.evidence.as_deref().unwrap_or("")
                );
            }
        }
        for p in &self.problems {
            let _ = writeln!(out, "Problem {}: {}", p.code, p.message);
        }
        out
    }
}
