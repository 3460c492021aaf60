//! What the `provex lineage` commands (and the explorer's lineage view) show: prompts and
//! evolution edges as stored, a lineage's history, a comparison of two prompts with its
//! confidence parts and word diff, statistics, and similar prompts.

use std::collections::BTreeMap;

use serde::Serialize;

use super::confidence::Breakdown;

/// A stored prompt.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct PromptView {
    pub id: String,
    pub lineage_id: String,
    pub version: String,
    pub timestamp: String,
    pub chain_position: u32,
    pub is_root: bool,
    pub is_head: bool,
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Left out unless asked for (`--include-content`); always there for inspect and replay.
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// A stored evolution edge: `child` came from `parent`.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct EvolutionView {
    pub child: String,
    pub parent: String,
    pub evolution_type: String,
    /// The relationship type stored (`WAS_REFINED_FROM`, …).
    pub relation: String,
    /// False for the extra parents of a merge (`properties.merged_from`).
    pub primary: bool,
    pub confidence: Option<f64>,
    pub similarity_score: Option<f64>,
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
}

/// A lineage subgraph: prompts and the evolutions among them.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct LineageGraph {
    /// The prompt asked about.
    pub focus: String,
    pub lineage_id: String,
    pub prompts: Vec<PromptView>,
    pub evolutions: Vec<EvolutionView>,
}

/// One lineage of a graph, as the explorer lists them.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct LineageSummary {
    pub lineage_id: String,
    /// The root prompt's id (none while the root has not arrived).
    pub root: Option<String>,
    /// The root prompt's first words.
    pub title: String,
    pub prompts: u64,
    pub heads: u64,
    pub first: String,
    pub last: String,
}

/// `lineage inspect`: a prompt, its history back to the root (oldest first), its children.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Inspection {
    pub prompt: PromptView,
    /// Each step from the root to the prompt: the prompt and the edge into it.
    pub history: Vec<HistoryStep>,
    pub children: Vec<EvolutionView>,
    pub heads: Vec<String>,
}

/// One prompt of a history, with the evolution that made it (none for the root).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryStep {
    pub prompt: PromptView,
    pub evolution: Option<EvolutionView>,
}

/// One step of `lineage replay`: a prompt as it joined its lineage, in time order.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ReplayStep {
    pub step: u32,
    pub prompt: PromptView,
    /// The edges into it, with the confidence recomputed from the texts.
    pub from: Vec<ReplayEdge>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ReplayEdge {
    pub edge: EvolutionView,
    #[ts(type = "{ jaccard: number, edit_ratio: number, semantic: number | null, confidence: number }")]
    pub computed: Breakdown,
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// `lineage compare A B`.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct Comparison {
    pub a: String,
    pub b: String,
    pub jaccard: f64,
    pub edit_ratio: f64,
    pub semantic: Option<f64>,
    pub confidence: f64,
    /// Why the semantic part is absent, when it is.
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The evolution type the rule proposes (`--suggest-type`), with the rule.
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggested_type: Option<String>,
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion_rule: Option<String>,
    /// The word-level diff from A to B (`--detailed`).
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<Vec<DiffOp>>,
}

/// One run of a word diff: `equal`, `delete` (only in A) or `insert` (only in B).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct DiffOp {
    pub op: String,
    pub text: String,
}

/// `lineage stats`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LineageStats {
    /// The lineage the figures are of, or none for the whole graph.
    pub lineage_id: Option<String>,
    pub prompts: u64,
    pub lineages: u64,
    pub by_evolution_type: BTreeMap<String, u64>,
    /// Prompts by chain position.
    pub depth_distribution: BTreeMap<u32, u64>,
    pub max_depth: u32,
    pub heads: u64,
    /// Prompts with more than one child.
    pub branch_points: u64,
    pub branches: Vec<String>,
    pub mean_confidence: Option<f64>,
    pub rejected_by_code: BTreeMap<String, u64>,
}

/// One prompt found by `lineage similar`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimilarHit {
    pub id: String,
    pub jaccard: f64,
    pub edit_ratio: f64,
    pub confidence: f64,
}
