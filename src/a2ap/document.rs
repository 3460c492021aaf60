//! A2AP documents (docs/FORMATS.md, "A2AP documents"): their types, and where a record was in its
//! input. Parsing them is in [`super::parse`].

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use super::parse::{parse_documents, parse_strict, parse_time, parse_value};

/// The `@type` of a document this module understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DocType {
    #[serde(rename = "a2ap:ProvenanceStatement")]
    Statement,
    #[serde(rename = "a2ap:VerificationRequest")]
    VerificationRequest,
    #[serde(rename = "a2ap:VerificationResponse")]
    VerificationResponse,
    #[serde(rename = "a2ap:SourceDocument")]
    SourceDocument,
    #[serde(rename = "prov:SoftwareAgent")]
    SoftwareAgent,
}

impl DocType {
    pub const ALL: [DocType; 5] = [
        DocType::Statement,
        DocType::VerificationRequest,
        DocType::VerificationResponse,
        DocType::SourceDocument,
        DocType::SoftwareAgent,
    ];

    /// The `@type` text.
    pub const fn as_str(self) -> &'static str {
        match self {
            DocType::Statement => "a2ap:ProvenanceStatement",
            DocType::VerificationRequest => "a2ap:VerificationRequest",
            DocType::VerificationResponse => "a2ap:VerificationResponse",
            DocType::SourceDocument => "a2ap:SourceDocument",
            DocType::SoftwareAgent => "prov:SoftwareAgent",
        }
    }

    pub fn parse(text: &str) -> Option<DocType> {
        DocType::ALL.into_iter().find(|t| t.as_str() == text)
    }

    /// Whether a missing signature is a failure: statements and responses carry claims and
    /// verdicts and must be signed. A2AP gives requests no signature member, so an
    /// unsigned request is reported `unsigned` but is not a failure; source documents and
    /// agent records are not signed at all.
    pub const fn requires_signature(self) -> bool {
        matches!(self, DocType::Statement | DocType::VerificationResponse)
    }

    /// Whether documents of this type are signed (their signature is checked and reported).
    pub const fn is_signed_type(self) -> bool {
        matches!(self, DocType::Statement | DocType::VerificationRequest | DocType::VerificationResponse)
    }
}

impl fmt::Display for DocType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A statement's agent: an object (A2AP) or just its id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AgentRef {
    Id(String),
    Object(AgentInfo),
}

impl AgentRef {
    pub fn id(&self) -> &str {
        match self {
            AgentRef::Id(id) => id,
            AgentRef::Object(info) => &info.id,
        }
    }

    pub fn info(&self) -> Option<&AgentInfo> {
        match self {
            AgentRef::Object(info) => Some(info),
            AgentRef::Id(_) => None,
        }
    }
}

/// Descriptive members of an agent (inside a statement or a `prov:SoftwareAgent` record).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentInfo {
    #[serde(rename = "@id")]
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub publisher: Option<String>,
    #[serde(default)]
    pub capabilities: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Claim {
    pub text: String,
    #[serde(default)]
    pub confidence: Option<f64>,
    #[serde(default)]
    pub generation_method: Option<String>,
    #[serde(default)]
    pub content_hash: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ByteRange {
    pub start: u64,
    pub end: u64,
}

/// A `hh:mm:ss` span in the source recording.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct TimeSpan {
    pub start: String,
    pub end: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvidenceSegment {
    pub source_document: String,
    pub chunk_id: String,
    pub byte_range: ByteRange,
    #[serde(default)]
    pub timestamp: Option<TimeSpan>,
    #[serde(default)]
    pub quote_text: Option<String>,
    #[serde(default)]
    pub relevance_score: Option<f64>,
    #[serde(default)]
    pub content_hash: Option<String>,
}

/// `a2ap:ProvenanceStatement` (A2AP). `supports` and `contradicts` are Provex
/// extensions (lists of statement ids) for A2AP's SUPPORTS and CONTRADICTS; being
/// members of the document they are covered by its signature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Statement {
    #[serde(rename = "@id")]
    pub id: String,
    #[serde(default)]
    pub generated_at_time: Option<String>,
    pub agent: AgentRef,
    pub claim: Claim,
    #[serde(default)]
    pub evidence: Vec<EvidenceSegment>,
    #[serde(default)]
    pub supports: Vec<String>,
    #[serde(default)]
    pub contradicts: Vec<String>,
}

/// `a2ap:VerificationRequest` (A2AP).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VerificationRequest {
    #[serde(rename = "@id")]
    pub id: String,
    #[serde(default)]
    pub requested_at: Option<String>,
    pub requesting_agent: String,
    pub target_statement: String,
    #[serde(default)]
    pub verification_criteria: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Finding {
    pub criterion: String,
    pub status: String,
    #[serde(default)]
    pub evidence: Option<String>,
    #[serde(default)]
    pub confidence: Option<f64>,
}

/// `a2ap:VerificationResponse` (A2AP). `inResponseTo` (the request's id) is an
/// optional Provex extension.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VerificationResponse {
    #[serde(rename = "@id")]
    pub id: String,
    #[serde(default)]
    pub responded_at: Option<String>,
    pub responding_agent: String,
    pub target_statement: String,
    pub verdict: String,
    pub confidence: f64,
    #[serde(default)]
    pub findings: Vec<Finding>,
    #[serde(default)]
    pub in_response_to: Option<String>,
}

impl VerificationResponse {
    pub const VALIDATED: &'static str = "VALIDATED";

    pub fn is_validated(&self) -> bool {
        self.verdict == Self::VALIDATED
    }

    /// Why the verifier did not validate: the findings that did not pass, else the verdict.
    pub fn reason(&self) -> String {
        let failed: Vec<String> = self
            .findings
            .iter()
            .filter(|f| f.status != "PASS")
            .map(|f| match &f.evidence {
                Some(e) => format!("{}: {}", f.criterion, e),
                None => format!("{}: {}", f.criterion, f.status),
            })
            .collect();
        if failed.is_empty() {
            self.verdict.clone()
        } else {
            failed.join("; ")
        }
    }
}

/// Where a source document comes from: an id, or an object with `@id`, `name`, `url`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SourceRef {
    Id(String),
    Object {
        #[serde(rename = "@id")]
        id: String,
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        url: Option<String>,
    },
}

impl SourceRef {
    pub fn id(&self) -> &str {
        match self {
            SourceRef::Id(id) | SourceRef::Object { id, .. } => id,
        }
    }
}

/// `a2ap:SourceDocument` (docs/FORMATS.md, "A2AP documents"). `source` (A2AP's SOURCED_FROM) is an
/// optional Provex extension.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceDocument {
    #[serde(rename = "@id")]
    pub id: String,
    #[serde(default)]
    pub title: Option<String>,
    pub text: String,
    #[serde(default)]
    pub source: Option<SourceRef>,
}

/// A `prov:SoftwareAgent` record. `publicKey` (`ed25519:<base64>` or bare base64) registers
/// the key for the agent; `keyId` (optional) lets documents name it by id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SoftwareAgent {
    #[serde(flatten)]
    pub info: AgentInfo,
    #[serde(default)]
    pub public_key: Option<String>,
    #[serde(default)]
    pub key_id: Option<String>,
}

/// A parsed document of one of the five types.
#[derive(Debug, Clone, PartialEq)]
pub enum Document {
    Statement(Statement),
    Request(VerificationRequest),
    Response(VerificationResponse),
    Source(SourceDocument),
    Agent(SoftwareAgent),
}

impl Document {
    pub fn doc_type(&self) -> DocType {
        match self {
            Document::Statement(_) => DocType::Statement,
            Document::Request(_) => DocType::VerificationRequest,
            Document::Response(_) => DocType::VerificationResponse,
            Document::Source(_) => DocType::SourceDocument,
            Document::Agent(_) => DocType::SoftwareAgent,
        }
    }

    pub fn id(&self) -> &str {
        match self {
            Document::Statement(s) => &s.id,
            Document::Request(r) => &r.id,
            Document::Response(r) => &r.id,
            Document::Source(s) => &s.id,
            Document::Agent(a) => &a.info.id,
        }
    }

    /// The agent that signs (and answers for) the document, for signed types.
    pub fn signer(&self) -> Option<&str> {
        match self {
            Document::Statement(s) => Some(s.agent.id()),
            Document::Request(r) => Some(&r.requesting_agent),
            Document::Response(r) => Some(&r.responding_agent),
            Document::Source(_) | Document::Agent(_) => None,
        }
    }

    /// The document's own time (`generatedAtTime`, `requestedAt`, `respondedAt`) as written.
    pub fn time_text(&self) -> Option<&str> {
        match self {
            Document::Statement(s) => s.generated_at_time.as_deref(),
            Document::Request(r) => r.requested_at.as_deref(),
            Document::Response(r) => r.responded_at.as_deref(),
            Document::Source(_) | Document::Agent(_) => None,
        }
    }
}

/// Where a record was in its input: the 1-based line of its first character and its
/// 0-based index among the records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    pub line: usize,
    pub index: usize,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {} (record {})", self.line, self.index + 1)
    }
}

/// A good record: where it was, its JSON exactly as parsed (what the signature covers), and
/// its typed reading.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub position: Position,
    pub value: Value,
    pub document: Document,
}

impl Record {
    pub fn id(&self) -> &str {
        self.document.id()
    }

    pub fn doc_type(&self) -> DocType {
        self.document.doc_type()
    }
}

/// A rejected record: where it was and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordError {
    pub position: Position,
    pub reason: String,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.position, self.reason)
    }
}

impl std::error::Error for RecordError {}
