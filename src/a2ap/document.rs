//! A2AP documents (seed 001 §2, formats.md §2): their types, and parsing from JSON Lines or a
//! JSON array with per-record results, rejecting records with duplicate keys as ambiguous.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

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
    /// verdicts and must be signed. Seed 001 §2.2 gives requests no signature member, so an
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

/// A statement's agent: an object (seed 001 §2.1) or just its id.
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

/// `a2ap:ProvenanceStatement` (seed 001 §2.1). `supports` and `contradicts` are Provex
/// extensions (lists of statement ids) for seed 001 §3.2's SUPPORTS and CONTRADICTS; being
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

/// `a2ap:VerificationRequest` (seed 001 §2.2).
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

/// `a2ap:VerificationResponse` (seed 001 §2.3). `inResponseTo` (the request's id) is an
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

/// `a2ap:SourceDocument` (formats.md §2). `source` (seed 001 §3.2's SOURCED_FROM) is an
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

/// Parses a time such as `2025-10-14T10:30:00Z` (RFC 3339).
pub fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text).ok().map(|t| t.with_timezone(&Utc))
}

/// Parses A2AP documents: a JSON array of objects, or one object per line (blank lines are
/// skipped). Each record gives its own result, in input order, so that good records around a
/// bad one survive. A syntax error inside a JSON array ends that array (where the next
/// element starts cannot be known); in JSON Lines it costs only its line.
pub fn parse_documents(text: &str) -> Vec<Result<Record, RecordError>> {
    let trimmed = text.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if trimmed.starts_with('[') {
        parse_array(text, text.len() - trimmed.len())
    } else {
        parse_lines(text)
    }
}

fn parse_lines(text: &str) -> Vec<Result<Record, RecordError>> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_start_matches('\u{feff}');
        if line.trim().is_empty() {
            continue;
        }
        let position = Position { line: n + 1, index: out.len() };
        let result = match serde_json::from_str::<Checked>(line) {
            Ok(checked) => record_from_checked(position, checked),
            Err(e) => Err(RecordError { position, reason: format!("invalid JSON: {e}") }),
        };
        out.push(result);
    }
    out
}

fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset].iter().filter(|b| **b == b'\n').count() + 1
}

fn skip_ws(text: &str, mut pos: usize) -> usize {
    let bytes = text.as_bytes();
    while pos < bytes.len() && matches!(bytes[pos], b' ' | b'\t' | b'\n' | b'\r') {
        pos += 1;
    }
    pos
}

fn parse_array(text: &str, open: usize) -> Vec<Result<Record, RecordError>> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut pos = skip_ws(text, open + 1);
    let fail = |out: &mut Vec<_>, pos: usize, reason: String| {
        let position = Position { line: line_of(text, pos.min(text.len())), index: out.len() };
        out.push(Err(RecordError { position, reason }));
    };
    if bytes.get(pos) == Some(&b']') {
        pos = skip_ws(text, pos + 1);
        if pos < bytes.len() {
            fail(&mut out, pos, "trailing characters after the JSON array".into());
        }
        return out;
    }
    loop {
        let position = Position { line: line_of(text, pos.min(text.len())), index: out.len() };
        let mut stream = serde_json::Deserializer::from_str(&text[pos..]).into_iter::<Checked>();
        match stream.next() {
            Some(Ok(checked)) => {
                pos += stream.byte_offset();
                out.push(record_from_checked(position, checked));
            }
            Some(Err(e)) => {
                out.push(Err(RecordError {
                    position,
                    reason: format!("invalid JSON, the rest of the array is skipped: {e}"),
                }));
                return out;
            }
            None => {
                fail(&mut out, pos, "unterminated JSON array".into());
                return out;
            }
        }
        pos = skip_ws(text, pos);
        match bytes.get(pos) {
            Some(b',') => pos = skip_ws(text, pos + 1),
            Some(b']') => {
                pos = skip_ws(text, pos + 1);
                if pos < bytes.len() {
                    fail(&mut out, pos, "trailing characters after the JSON array".into());
                }
                return out;
            }
            _ => {
                fail(&mut out, pos, "expected ',' or ']' in the JSON array".into());
                return out;
            }
        }
    }
}

fn record_from_checked(position: Position, checked: Checked) -> Result<Record, RecordError> {
    if !checked.duplicates.is_empty() {
        return Err(RecordError {
            position,
            reason: format!(
                "ambiguous document: duplicate key{} {}",
                if checked.duplicates.len() > 1 { "s" } else { "" },
                checked.duplicates.join(", ")
            ),
        });
    }
    parse_value(checked.value)
        .map_err(|reason| RecordError { position, reason })
        .map(|(value, document)| Record { position, value, document })
}

/// Reads one document from a JSON value already known to be free of duplicate keys. Returns
/// the value back with its typed reading, or why it is not a document.
pub fn parse_value(value: Value) -> Result<(Value, Document), String> {
    let obj = value.as_object().ok_or("a document must be a JSON object")?;
    let ty = match obj.get("@type") {
        Some(Value::String(t)) => t.as_str(),
        Some(_) => return Err("\"@type\" must be a string".into()),
        None => return Err("missing \"@type\"".into()),
    };
    let doc_type = DocType::parse(ty).ok_or_else(|| format!("unsupported @type {ty:?}"))?;
    match obj.get("@id") {
        Some(Value::String(id)) if !id.trim().is_empty() => {}
        Some(_) => return Err("\"@id\" must be a non-empty string".into()),
        None => return Err("missing \"@id\"".into()),
    }
    fn typed<T: serde::de::DeserializeOwned>(v: &Value, ty: DocType) -> Result<T, String> {
        T::deserialize(v).map_err(|e| format!("invalid {ty}: {e}"))
    }
    let document = match doc_type {
        DocType::Statement => Document::Statement(typed(&value, doc_type)?),
        DocType::VerificationRequest => Document::Request(typed(&value, doc_type)?),
        DocType::VerificationResponse => Document::Response(typed(&value, doc_type)?),
        DocType::SourceDocument => Document::Source(typed(&value, doc_type)?),
        DocType::SoftwareAgent => Document::Agent(typed(&value, doc_type)?),
    };
    Ok((value, document))
}

/// Parses one JSON text into a value, rejecting duplicate keys at any depth.
pub fn parse_strict(text: &str) -> Result<Value, String> {
    let checked: Checked = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
    if checked.duplicates.is_empty() {
        Ok(checked.value)
    } else {
        Err(format!("ambiguous JSON: duplicate keys {}", checked.duplicates.join(", ")))
    }
}

/// A JSON value with the JSON-pointer paths of the keys that occurred more than once in an
/// object (serde_json alone silently keeps the last).
struct Checked {
    value: Value,
    duplicates: Vec<String>,
}

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        CheckedSeed.deserialize(deserializer)
    }
}

struct CheckedSeed;

impl<'de> DeserializeSeed<'de> for CheckedSeed {
    type Value = Checked;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Checked, D::Error> {
        deserializer.deserialize_any(CheckedVisitor)
    }
}

struct CheckedVisitor;

fn leaf(value: Value) -> Checked {
    Checked { value, duplicates: Vec::new() }
}

fn pointer_escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

impl<'de> Visitor<'de> for CheckedVisitor {
    type Value = Checked;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Checked, E> {
        Ok(leaf(Value::Bool(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Checked, E> {
        Ok(leaf(Value::from(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Checked, E> {
        Ok(leaf(Value::from(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Checked, E> {
        serde_json::Number::from_f64(v)
            .map(|n| leaf(Value::Number(n)))
            .ok_or_else(|| E::custom("non-finite number"))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Checked, E> {
        Ok(leaf(Value::String(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Checked, E> {
        Ok(leaf(Value::String(v)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Checked, E> {
        Ok(leaf(Value::Null))
    }

    fn visit_none<E: de::Error>(self) -> Result<Checked, E> {
        Ok(leaf(Value::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
        let mut items = Vec::new();
        let mut duplicates = Vec::new();
        while let Some(child) = seq.next_element_seed(CheckedSeed)? {
            let i = items.len();
            duplicates.extend(child.duplicates.into_iter().map(|d| format!("/{i}{d}")));
            items.push(child.value);
        }
        Ok(Checked { value: Value::Array(items), duplicates })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
        let mut obj = Map::new();
        let mut duplicates = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let child = map.next_value_seed(CheckedSeed)?;
            let here = format!("/{}", pointer_escape(&key));
            duplicates.extend(child.duplicates.into_iter().map(|d| format!("{here}{d}")));
            if obj.contains_key(&key) {
                duplicates.push(here);
            } else {
                obj.insert(key, child.value);
            }
        }
        Ok(Checked { value: Value::Object(obj), duplicates })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = r#"{"@type":"a2ap:SourceDocument","@id":"urn:doc:x","title":"T","text":"hello"}"#;

    #[test]
    fn jsonl_records_survive_around_bad_ones() {
        let text = format!(
            "{SOURCE}\n\nnot json\n{}\n{}\n{SOURCE}\n",
            r#"{"@type":"a2ap:SourceDocument","@id":"urn:doc:y","text":"a","text":"b"}"#,
            r#"{"@type":"a2ap:Unknown","@id":"urn:x"}"#
        );
        let results = parse_documents(&text);
        assert_eq!(results.len(), 5);
        assert!(results[0].is_ok());
        let e = results[1].as_ref().unwrap_err();
        assert_eq!(e.position.line, 3);
        assert!(e.reason.contains("invalid JSON"));
        let e = results[2].as_ref().unwrap_err();
        assert_eq!(e.position.line, 4);
        assert!(e.reason.contains("duplicate key /text"), "{}", e.reason);
        assert!(results[3].as_ref().unwrap_err().reason.contains("unsupported @type"));
        assert_eq!(results[4].as_ref().unwrap().position, Position { line: 6, index: 4 });
    }

    #[test]
    fn duplicates_are_found_at_any_depth() {
        let nested = r#"{"a":[{"b":{"c":1,"c":2}}],"d":{"e~/":1,"e~/":1}}"#;
        let err = parse_strict(nested).unwrap_err();
        assert!(err.contains("/a/0/b/c"), "{err}");
        assert!(err.contains("/d/e~0~1"), "{err}");
        assert!(parse_strict(r#"{"a":{"c":1},"b":{"c":1}}"#).is_ok());
    }

    #[test]
    fn arrays_give_line_numbers_and_per_record_results() {
        let text = format!(
            "[\n  {SOURCE},\n  {},\n  {{\"@type\":\"a2ap:SourceDocument\"}}\n]\n",
            r#"{"@type":"a2ap:SourceDocument","@id":"urn:doc:y","text":"a","title":"1","title":"2"}"#
        );
        let results = parse_documents(&text);
        assert_eq!(results.len(), 3);
        assert_eq!(results[0].as_ref().unwrap().position, Position { line: 2, index: 0 });
        assert_eq!(results[1].as_ref().unwrap_err().position.line, 3);
        let e = results[2].as_ref().unwrap_err();
        assert_eq!(e.position.line, 4);
        assert!(e.reason.contains("missing \"@id\""));
        assert!(parse_documents("[]").is_empty());
        assert!(parse_documents("[ {\"a\":1} ").last().unwrap().is_err());
    }

    #[test]
    fn typed_reading_names_the_missing_member() {
        let results = parse_documents(
            r#"{"@type":"a2ap:ProvenanceStatement","@id":"urn:uuid:1","agent":"urn:agent:a"}"#,
        );
        let e = results[0].as_ref().unwrap_err();
        assert!(e.reason.contains("claim"), "{}", e.reason);
    }
}
