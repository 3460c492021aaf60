//! The `provex verify` report: per document its signature status, evidence checks, consensus
//! and problems, a summary, and the exit status (0 when every signature and evidence check
//! passes, else 1; a statement below the consensus threshold is reported, not a failure).
//!
//! What fails: a signature other than `valid` on a statement or response (`unsigned`
//! included) and any signature other than `valid`/`unsigned` on a request; an evidence
//! segment `mismatch`; a claim `contentHash` that is not the claim's; a rejected record.
//! `unchecked` evidence (document absent) and id mismatches are reported but do not fail.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::document::{DocType, Document, Position, RecordError};
use super::evidence::EvidenceStatus;
use super::ledger::{Entry, Ledger};
use super::signature::{SignatureCheck, SignatureStatus};
use super::Problem;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifyReport {
    pub documents: Vec<DocumentReport>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejected: Vec<RecordError>,
    pub summary: Summary,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocumentReport {
    pub id: String,
    #[serde(rename = "type")]
    pub doc_type: DocType,
    pub position: Position,
    /// `None` for types that are not signed (source documents, agent records).
    pub signature: Option<SignatureStatus>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature_detail: Option<SignatureCheck>,
    pub evidence: Vec<EvidenceReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consensus: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
    pub problems: Vec<Problem>,
    /// Whether this document fails the check (see the module docs).
    pub failed: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvidenceReport {
    pub chunk_id: String,
    pub status: EvidenceStatus,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub documents: usize,
    pub rejected: usize,
    /// Documents by type.
    pub types: BTreeMap<String, usize>,
    /// Signed documents by signature status.
    pub signatures: BTreeMap<String, usize>,
    /// Evidence segments by status.
    pub evidence: BTreeMap<String, usize>,
    pub statements: usize,
    pub verified_statements: usize,
    pub failed_documents: usize,
    pub problems: usize,
    pub threshold: f64,
    pub passed: bool,
}

impl VerifyReport {
    /// 0 when every signature and evidence check passes, else 1.
    pub fn exit_code(&self) -> i32 {
        if self.summary.passed {
            0
        } else {
            1
        }
    }

    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The report of one document, by id.
    pub fn document(&self, id: &str) -> Option<&DocumentReport> {
        self.documents.iter().find(|d| d.id == id)
    }
}

fn signature_fails(doc_type: DocType, status: SignatureStatus) -> bool {
    match status {
        SignatureStatus::Valid => false,
        SignatureStatus::Unsigned => doc_type.requires_signature(),
        _ => true,
    }
}

impl Ledger {
    /// The verify report over everything in the ledger.
    pub fn report(&self) -> VerifyReport {
        let documents: Vec<DocumentReport> = self.entries().iter().map(|e| self.document_report(e)).collect();
        let mut summary = Summary {
            documents: documents.len(),
            rejected: self.rejected().len(),
            threshold: self.config().threshold,
            ..Summary::default()
        };
        for d in &documents {
            *summary.types.entry(d.doc_type.as_str().to_owned()).or_default() += 1;
            if let Some(s) = d.signature {
                *summary.signatures.entry(s.as_str().to_owned()).or_default() += 1;
            }
            for ev in &d.evidence {
                *summary.evidence.entry(ev.status.as_str().to_owned()).or_default() += 1;
            }
            if d.doc_type == DocType::Statement {
                summary.statements += 1;
                if d.verified == Some(true) {
                    summary.verified_statements += 1;
                }
            }
            summary.failed_documents += usize::from(d.failed);
            summary.problems += d.problems.len();
        }
        summary.passed = summary.failed_documents == 0 && summary.rejected == 0;
        VerifyReport { documents, rejected: self.rejected().to_vec(), summary }
    }

    fn document_report(&self, entry: &Entry) -> DocumentReport {
        let doc_type = entry.record.doc_type();
        let mut problems = entry.problems.clone();
        let mut evidence = Vec::new();
        let (mut consensus, mut verified) = (None, None);
        let mut failed = entry.signature.as_ref().is_some_and(|s| signature_fails(doc_type, s.status));
        if !entry.shadowed {
            match entry.document() {
                Document::Statement(st) => {
                    for check in self.evidence(st) {
                        failed |= check.status == EvidenceStatus::Mismatch;
                        evidence.push(EvidenceReport {
                            chunk_id: check.chunk_id,
                            status: check.status,
                            reasons: check.reasons,
                        });
                    }
                    failed |= problems.iter().any(|p| p.code == "claim_hash_mismatch");
                    if let Some(outcome) = self.consensus(&st.id) {
                        consensus = Some(outcome.consensus);
                        verified = Some(outcome.verified);
                        for x in outcome.excluded {
                            problems.push(Problem::new(
                                "verification_not_counted",
                                format!("{} by {}: {}", x.verification_id, x.agent, x.reason),
                            ));
                        }
                    }
                    for other in st.supports.iter().chain(&st.contradicts) {
                        if self.statement(other).is_none() {
                            problems.push(Problem::new(
                                "unknown_statement",
                                format!("related statement {other} is not in the stream"),
                            ));
                        }
                    }
                }
                Document::Request(r) if self.statement(&r.target_statement).is_none() => {
                    problems.push(Problem::new(
                        "unknown_statement",
                        format!("target statement {} is not in the stream", r.target_statement),
                    ));
                }
                Document::Response(r) if self.statement(&r.target_statement).is_none() => {
                    problems.push(Problem::new(
                        "unknown_statement",
                        format!("target statement {} is not in the stream", r.target_statement),
                    ));
                }
                _ => {}
            }
        }
        DocumentReport {
            id: entry.id().to_owned(),
            doc_type,
            position: entry.record.position,
            signature: entry.signature.as_ref().map(|s| s.status),
            signature_detail: entry.signature.clone().filter(|s| s.status != SignatureStatus::Valid),
            evidence,
            consensus,
            verified,
            problems,
            failed,
        }
    }
}
