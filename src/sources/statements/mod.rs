//! A2AP (docs/FORMATS.md "A2AP documents"): signed provenance statements and verifications, their
//! signatures, evidence integrity, consensus, verification trails and graph mapping, all pure;
//! and the operations over what a graph holds (`ops`: the graph's ledger, trails, verifying),
//! the one part that reads the database.

pub mod bundle;
pub mod canonical;
pub mod consensus;
pub mod document;
pub mod ed25519;
pub mod evidence;
pub mod graph;
mod graph_docs;
mod graph_terms;
pub mod graphql;
#[cfg(test)]
mod incremental_tests;
mod index;
pub mod keys;
pub mod ledger;
pub mod log_leaves;
pub mod ops;
pub mod parse;
pub mod report;
pub mod signature;
pub mod source;
pub mod standing;
pub mod stored;
pub mod trail;
pub mod trust;
mod votes;

pub use consensus::{ConsensusConfig, ReputationPolicy};
pub use document::{ByteRange, Finding, TimeSpan};
pub use document::{DocType, Document, Position, Record, RecordError};
pub use evidence::{chunk_id, sha256_tag, statement_id, EvidenceCheck, EvidenceStatus};
pub use index::Changes;
pub use keys::{KeyEntry, KeyFile, KeyRegistry};
pub use ledger::Ledger;
pub use parse::{parse_documents, parse_value};
pub use report::{DocumentReport, Summary, VerifyReport};
pub use signature::{
    check_signature, sign_text, sign_value, signed_bytes, KeyRef, SignatureCheck, SignatureStatus,
};
pub use standing::Standing;
pub use trail::{Trail, TrailClaim, TrailDocument, TrailEvidence, TrailRequest, TrailVerification};

use serde::{Deserialize, Serialize};

/// Something wrong with a document that is reported rather than rejecting it: a stable
/// `code` for a UI to match on and a human-readable message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Problem {
    pub code: String,
    pub message: String,
}

impl Problem {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Problem { code: code.to_owned(), message: message.into() }
    }
}
