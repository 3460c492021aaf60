//! The prompt-lineage agent's records as its serde types write them (docs/FORMATS.md "Prompt lineage"; the
//! agent's `contracts/mod.rs`): a `LineageOutput` (it has `lineage_node`), a `DecisionEvent`
//! (`decision_type`), a `LineageInput` (`prompt_content`), one JSON object a line. Parsing
//! checks each record on its own, with the prompt-lineage format's error codes: its shape and bounds are
//! `VALIDATION_ERROR`, an evolution that cannot be one (an unknown type, an edge that is not
//! the node's, a loop) `INVALID_LINEAGE_RELATIONSHIP`. The constraints that need the other
//! records (cycles, one root, timestamp order) are checked where the graph is built.

use std::collections::BTreeMap;
use std::fmt;

use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;
use uuid::Uuid;

/// The prompt-lineage format's error codes for a rejected record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    InvalidLineageRelationship,
    ValidationError,
}

impl Code {
    pub fn as_str(self) -> &'static str {
        match self {
            Code::InvalidLineageRelationship => "INVALID_LINEAGE_RELATIONSHIP",
            Code::ValidationError => "VALIDATION_ERROR",
        }
    }
}

/// Why a record is rejected: `CODE: reason`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordError {
    pub code: Code,
    pub reason: String,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.reason)
    }
}

pub(crate) fn invalid(reason: impl Into<String>) -> RecordError {
    RecordError { code: Code::ValidationError, reason: reason.into() }
}

pub(crate) fn relationship(reason: impl Into<String>) -> RecordError {
    RecordError { code: Code::InvalidLineageRelationship, reason: reason.into() }
}

/// How a prompt came from its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EvolutionType {
    Evolves,
    Refines,
    Derives,
    Merges,
    Forks,
    Reverts,
}

impl EvolutionType {
    pub const ALL: [EvolutionType; 6] = [
        EvolutionType::Evolves,
        EvolutionType::Refines,
        EvolutionType::Derives,
        EvolutionType::Merges,
        EvolutionType::Forks,
        EvolutionType::Reverts,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EvolutionType::Evolves => "evolves",
            EvolutionType::Refines => "refines",
            EvolutionType::Derives => "derives",
            EvolutionType::Merges => "merges",
            EvolutionType::Forks => "forks",
            EvolutionType::Reverts => "reverts",
        }
    }

    /// The evolution type named `s` (as the agent writes it), or an
    /// `INVALID_LINEAGE_RELATIONSHIP`.
    pub fn parse(s: &str) -> Result<EvolutionType, RecordError> {
        EvolutionType::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| relationship(format!("unknown evolution type {s:?}")))
    }

    /// The type of the edge from the child to its parent (docs/FORMATS.md "Prompt lineage").
    pub fn edge_type(self) -> &'static str {
        match self {
            EvolutionType::Evolves => "WAS_EVOLVED_FROM",
            EvolutionType::Refines => "WAS_REFINED_FROM",
            EvolutionType::Derives => "WAS_DERIVED_FROM",
            EvolutionType::Merges => "WAS_MERGED_FROM",
            EvolutionType::Forks => "WAS_FORKED_FROM",
            EvolutionType::Reverts => "WAS_REVERTED_FROM",
        }
    }
}

/// A prompt's version in its lineage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
pub struct Version {
    pub major: u16,
    pub minor: u16,
    pub patch: u16,
}

impl Version {
    /// A lineage's first version.
    pub const ROOT: Version = Version { major: 1, minor: 0, patch: 0 };

    /// The version of a child made from a prompt of this version, as the agent numbers it:
    /// evolves, refines and reverts bump the patch; derives and forks the minor version
    /// (patch to 0); merges the major (minor and patch to 0).
    pub fn next(self, t: EvolutionType) -> Version {
        let Version { major, minor, patch } = self;
        match t {
            EvolutionType::Evolves | EvolutionType::Refines | EvolutionType::Reverts => {
                Version { major, minor, patch: patch.saturating_add(1) }
            }
            EvolutionType::Derives | EvolutionType::Forks => {
                Version { major, minor: minor.saturating_add(1), patch: 0 }
            }
            EvolutionType::Merges => Version { major: major.saturating_add(1), minor: 0, patch: 0 },
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// A prompt's model settings.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Metadata {
    #[serde(default)]
    pub model: String,
    #[serde(default = "default_temperature")]
    pub temperature: f64,
    #[serde(default)]
    pub max_tokens: Option<u64>,
    #[serde(default)]
    pub tools_available: Vec<String>,
    #[serde(default)]
    pub custom: BTreeMap<String, String>,
}

fn default_temperature() -> f64 {
    0.7
}

impl Default for Metadata {
    fn default() -> Self {
        Metadata {
            model: String::new(),
            temperature: default_temperature(),
            max_tokens: None,
            tools_available: Vec::new(),
            custom: BTreeMap::new(),
        }
    }
}

/// Why a prompt evolved.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Reason {
    pub category: String,
    pub description: String,
    pub trigger_source: String,
    #[serde(default)]
    pub performance_delta: Option<Value>,
}

/// A tracked prompt (`LineageNode`: a `PromptNode` with its place in a lineage).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PromptRecord {
    pub id: Uuid,
    pub session_id: Uuid,
    pub timestamp: DateTime<Utc>,
    #[serde(default)]
    pub template_id: Option<Uuid>,
    pub content: String,
    #[serde(default)]
    pub variables: BTreeMap<String, String>,
    #[serde(default)]
    pub metadata: Metadata,
    pub lineage_id: Uuid,
    pub lineage_version: Version,
    pub chain_position: u32,
    pub is_root: bool,
    pub is_head: bool,
    #[serde(default)]
    pub branch: Option<String>,
    #[serde(default)]
    pub creating_agent: Option<Uuid>,
    #[serde(default)]
    pub performance_metrics: Option<Value>,
    pub lineage_tracked_at: DateTime<Utc>,
}

/// An evolution edge (`LineageEdge`): `from` the parent, `to` the child.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct EvolutionRecord {
    pub id: Uuid,
    pub from: Uuid,
    pub to: Uuid,
    pub edge_type: String,
    #[serde(rename = "evolution_type")]
    pub evolution: String,
    #[serde(default)]
    pub evolution_reason: Option<Reason>,
    pub similarity_score: f64,
    #[serde(default)]
    pub diff_summary: Option<Value>,
    pub created_at: DateTime<Utc>,
    #[serde(default)]
    pub properties: BTreeMap<String, String>,
}

/// `LineageOutput`: a prompt the agent tracked, with the edge it made.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct OutputRecord {
    pub lineage_node: PromptRecord,
    pub lineage_id: Uuid,
    #[serde(default)]
    pub evolution_edge: Option<EvolutionRecord>,
    pub chain_position: u32,
    pub chain_depth: u32,
    pub confidence: f64,
    pub constraints_applied: Vec<String>,
    #[serde(default)]
    pub warnings: Vec<String>,
    pub timestamp: DateTime<Utc>,
}

/// What a decision produced.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct DecisionOutputs {
    pub node_id: Uuid,
    pub lineage_id: Uuid,
    #[serde(default)]
    pub edge_id: Option<Uuid>,
    pub chain_position: u32,
    pub chain_depth: u32,
}

/// Where a decision ran.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ExecutionRef {
    pub trace_id: String,
    pub span_id: String,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub request_id: Option<String>,
}

/// `DecisionEvent`: the agent's record of one tracking decision.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct DecisionRecord {
    pub event_id: Uuid,
    pub agent_id: String,
    pub agent_version: String,
    pub decision_type: String,
    pub inputs_hash: String,
    pub outputs: DecisionOutputs,
    pub confidence: f64,
    pub constraints_applied: Vec<String>,
    pub execution_ref: ExecutionRef,
    pub timestamp: DateTime<Utc>,
    #[serde(default)]
    pub metadata: BTreeMap<String, Value>,
}

/// `LineageInput`: a prompt not tracked yet (Provex does the agent's work on it).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct InputRecord {
    pub prompt_content: String,
    pub session_id: Uuid,
    #[serde(default)]
    pub template_id: Option<Uuid>,
    #[serde(default)]
    pub parent_prompt_id: Option<Uuid>,
    #[serde(default, rename = "evolution_type")]
    pub evolution: Option<String>,
    #[serde(default)]
    pub evolution_reason: Option<Reason>,
    #[serde(default)]
    pub creating_agent_id: Option<Uuid>,
    #[serde(default)]
    pub lineage_id: Option<Uuid>,
    #[serde(default)]
    pub metadata: Metadata,
    #[serde(default)]
    pub variables: BTreeMap<String, String>,
    #[serde(default)]
    pub tags: Vec<String>,
    /// The timestamp as written (the prompt's id is made from it, not reformatted).
    #[serde(skip)]
    pub timestamp_text: String,
    #[serde(default)]
    pub timestamp: Option<DateTime<Utc>>,
}

/// One record of a lineage file.
#[derive(Debug, Clone, PartialEq)]
pub enum LineageRecord {
    Output(Box<OutputRecord>),
    Decision(Box<DecisionRecord>),
    Input(Box<InputRecord>),
}

/// The agent's largest prompt, in bytes.
pub const MAX_CONTENT: usize = 1_000_000;

fn shaped<T: DeserializeOwned>(v: Value, what: &str) -> Result<T, RecordError> {
    serde_json::from_value(v).map_err(|e| invalid(format!("not a valid {what}: {e}")))
}

fn unit(what: &str, x: f64) -> Result<(), RecordError> {
    if (0.0..=1.0).contains(&x) {
        Ok(())
    } else {
        Err(invalid(format!("{what} {x} is outside [0, 1]")))
    }
}

fn content(what: &str, text: &str) -> Result<(), RecordError> {
    if text.trim().is_empty() {
        return Err(invalid(format!("{what} is empty")));
    }
    if text.len() > MAX_CONTENT {
        return Err(invalid(format!("{what} is {} bytes, over the agent's {MAX_CONTENT}", text.len())));
    }
    Ok(())
}

/// Whether a JSON object is one of the agent's records (by the field that tells them apart).
pub fn looks_like(obj: &serde_json::Map<String, Value>) -> bool {
    obj.contains_key("lineage_node")
        || (obj.contains_key("decision_type") && obj.contains_key("event_id"))
        || obj.contains_key("prompt_content")
}

/// Reads one record, checking what can be checked on it alone.
pub fn parse_record(text: &str) -> Result<LineageRecord, RecordError> {
    let v: Value = serde_json::from_str(text).map_err(|e| invalid(format!("malformed JSON: {e}")))?;
    let Some(obj) = v.as_object() else { return Err(invalid("a record is a JSON object")) };
    if obj.contains_key("lineage_node") {
        let r: OutputRecord = shaped(v, "LineageOutput")?;
        content("lineage_node.content", &r.lineage_node.content)?;
        unit("confidence", r.confidence)?;
        if r.lineage_node.lineage_id != r.lineage_id {
            return Err(relationship("lineage_node.lineage_id differs from the output's lineage_id"));
        }
        if let Some(e) = &r.evolution_edge {
            EvolutionType::parse(&e.evolution)?;
            unit("evolution_edge.similarity_score", e.similarity_score)?;
            if e.to != r.lineage_node.id {
                return Err(relationship(format!(
                    "the evolution edge goes to {}, not to the node {}",
                    e.to, r.lineage_node.id
                )));
            }
            if e.from == e.to {
                return Err(relationship(format!("prompt {} would evolve from itself", e.to)));
            }
        }
        return Ok(LineageRecord::Output(Box::new(r)));
    }
    if obj.contains_key("decision_type") {
        let r: DecisionRecord = shaped(v, "DecisionEvent")?;
        if r.decision_type != "prompt_lineage_tracking" {
            return Err(invalid(format!(
                "decision_type {:?} is not prompt_lineage_tracking",
                r.decision_type
            )));
        }
        unit("confidence", r.confidence)?;
        return Ok(LineageRecord::Decision(Box::new(r)));
    }
    if obj.contains_key("prompt_content") {
        let written = obj.get("timestamp").and_then(Value::as_str).map(str::to_owned);
        let mut r: InputRecord = shaped(v, "LineageInput")?;
        r.timestamp_text = written.ok_or_else(|| invalid("a LineageInput needs its timestamp"))?;
        content("prompt_content", &r.prompt_content)?;
        let evolution = r.evolution.as_deref().map(EvolutionType::parse).transpose()?;
        match (r.parent_prompt_id, evolution) {
            (Some(_), None) => return Err(invalid("evolution_type is required with parent_prompt_id")),
            (None, Some(t)) if t != EvolutionType::Merges => {
                return Err(invalid(format!("a {} evolution needs parent_prompt_id", t.as_str())))
            }
            _ => {}
        }
        return Ok(LineageRecord::Input(Box::new(r)));
    }
    Err(invalid("not a lineage record: it has none of lineage_node, decision_type, prompt_content"))
}

#[cfg(test)]
#[path = "records_tests.rs"]
mod tests;
