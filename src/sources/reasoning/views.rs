//! What the explorer's reasoning view shows: a graph's sessions with their
//! question, status and size, and one session's chain from the question to the selected
//! answer, each step with what TrustGraph recorded of it, its sub-entities (thoughts, selected
//! edges and chunks, facts), the dialog beside it, and the nodes of other sources the chain
//! goes on into (the relinking of steps to other sources).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

/// One session of a graph.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct SessionSummary {
    /// The session's IRI (its question node).
    pub id: String,
    /// `agent` (ReAct), `graphrag`, `docrag`, or `seed` (provenance nodes).
    pub kind: String,
    pub question: Option<String>,
    /// `running`, `answered` or `failed`.
    pub status: String,
    /// Explain nodes of the session besides its question.
    #[ts(type = "number")]
    pub steps: u64,
    pub started: Option<String>,
    /// The session's answer, conclusion or synthesis, when there is one.
    pub answer: Option<String>,
}

/// One recorded step (or sub-entity) of a session.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ReasoningStep {
    pub id: String,
    /// Its TrustGraph types (`Analysis`, `ToolUse`, …).
    pub types: Vec<String>,
    pub label: Option<String>,
    /// What was recorded of it: `tg:*`, `prov:*`, `rdfs:*` properties.
    #[ts(type = "Record<string, JsonValue>")]
    pub properties: BTreeMap<String, Value>,
    pub derived_from: Vec<String>,
    /// Its thought, selected edges or chunks, facts.
    pub parts: Vec<ReasoningStep>,
    /// A failed tool (`tg:Error`, `tg:toolError`).
    pub failed: bool,
    /// Not recorded yet: only named by another step.
    pub placeholder: bool,
}

/// A dialog message of the session.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct DialogLine {
    #[ts(type = "number")]
    pub seq: u64,
    pub kind: String,
    pub content: Option<String>,
    pub model: Option<String>,
    #[ts(type = "number | null")]
    pub in_token: Option<i64>,
    #[ts(type = "number | null")]
    pub out_token: Option<i64>,
}

/// A node of another source that a step names (a retrieved statement, a fact's source).
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct CrossLink {
    /// The step that names it.
    pub from: String,
    pub id: String,
    pub label: String,
    /// Its text, when it has one (a statement's claim).
    pub text: Option<String>,
    /// A statement's standing (its headline verdict, docs/FORMATS.md "Standing").
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub standing: Option<String>,
}

/// A session's chain from its question to the selected node.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ReasoningChain {
    pub session: String,
    /// What kind of session it is, read from its identifier's prefix (docs/FORMATS.md,
    /// "TrustGraph query-time provenance"): `agent` (a ReAct agent), `graphrag`, `docrag`, or `seed`.
    pub kind: String,
    pub question: Option<String>,
    pub status: String,
    pub selected: String,
    /// Question first, the selected node last.
    pub chain: Vec<ReasoningStep>,
    /// The session's latest step (what a live session is on).
    pub latest: Option<String>,
    pub dialog: Vec<DialogLine>,
    pub links: Vec<CrossLink>,
    /// The worst standing of the statements the chain draws on (none when it cites none):
    /// an answer that rests on a claim with an invalid signature headlines that.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub standing: Option<String>,
}
