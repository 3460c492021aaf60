//! What a diff means for claims, read before its node and edge lists (`provex diff`,
//! Compare): the A2AP statements and verifications added and removed, and the changed values
//! that decide whether a claim stands (verdicts, consensus, signature and evidence statuses,
//! quotes). Also how much each node label and edge type matters, which orders those lists:
//! claims and verifications first, runtime message rows last.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{EdgeKey, NodeKey, PropMap, Snapshot};

/// A node only one graph has, with its properties.
type Listed<'a> = (&'a NodeKey, &'a PropMap);

/// A statement or verification only one of the two graphs has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SummaryItem {
    pub name: String,
    /// What it says: a claim's text, a verification's verdict.
    pub text: Option<String>,
    /// The agent that signed it.
    pub agent: Option<String>,
    /// A verification's statement.
    pub claim: Option<String>,
    /// That statement's text (in B, else in A).
    pub claim_text: Option<String>,
}

/// One changed value that bears on a claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct StatusChange {
    /// `claim`, `standing`, `verified`, `consensus`, `signature`, `evidence`, `quote`,
    /// `verdict` or `counted`.
    pub what: String,
    /// The statement it bears on.
    pub claim: Option<String>,
    /// That statement's text (in B, else in A).
    pub claim_text: Option<String>,
    /// The node's label, or the edge's type.
    pub label: String,
    /// The node's name, or the edge's source.
    pub name: String,
    /// The edge's target (none for a node).
    pub target: Option<String>,
    pub property: String,
    #[ts(type = "JsonValue | null")]
    pub before: Option<Value>,
    #[ts(type = "JsonValue | null")]
    pub after: Option<Value>,
}

/// The diff as it bears on claims.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DiffSummary {
    pub claims_added: Vec<SummaryItem>,
    pub claims_removed: Vec<SummaryItem>,
    pub verifications_added: Vec<SummaryItem>,
    pub verifications_removed: Vec<SummaryItem>,
    /// Claims first (by name), then by what changed in [`WATCHED`] order.
    pub changes: Vec<StatusChange>,
}

impl DiffSummary {
    pub fn is_empty(&self) -> bool {
        self.claims_added.is_empty()
            && self.claims_removed.is_empty()
            && self.verifications_added.is_empty()
            && self.verifications_removed.is_empty()
            && self.changes.is_empty()
    }
}

const STATEMENT: &str = "Statement";
const VERIFICATION: &str = "Verification";
const CITES: &str = "CITES";
const VALIDATES: &str = "VALIDATES";

/// The properties watched, by node label or edge type, and what each tells (in the order
/// changes are listed).
const WATCHED: [(&str, &str, &str); 11] = [
    (STATEMENT, "claim_text", "claim"),
    (STATEMENT, "standing", "standing"),
    (STATEMENT, "verified", "verified"),
    (STATEMENT, "consensus_score", "consensus"),
    (STATEMENT, "signature_status", "signature"),
    (STATEMENT, "evidence_status", "evidence"),
    (CITES, "quote_text", "quote"),
    (CITES, "evidence_status", "evidence"),
    (VERIFICATION, "verdict", "verdict"),
    (VERIFICATION, "signature_status", "signature"),
    (VERIFICATION, "counted", "counted"),
];

/// How much a node label matters in a diff: 0 first.
pub fn node_rank(label: &str) -> u8 {
    match label {
        STATEMENT => 0,
        VERIFICATION => 1,
        "Agent" | "Chunk" | "Document" | "Source" => 2,
        "Explain" | "DialogMessage" | "KGStatement" | "KGResource" | "KnowledgeUpdate" | "Prompt"
        | "LineageDecision" | "LineageReject" | "Entity" | "Activity" | "Bundle" | "AuditBundle" => 3,
        "A2ATask"
        | "A2ATaskExecution"
        | "A2ATaskState"
        | "Artifact"
        | "LlmCall"
        | "ToolCall"
        | "AgentRuntimeInstance"
        | "AgentBoot"
        | "AgentArchive" => 4,
        // Runtime messages and payloads, then anything else.
        "Message" | "A2AMessageProcessing" | "LlmPrompt" | "ToolArgs" => 5,
        _ => 6,
    }
}

/// How much an edge type matters in a diff: as the nodes it joins.
pub fn edge_rank(rel: &str) -> u8 {
    match rel {
        CITES | "GENERATED" | "SUPPORTS" | "CONTRADICTS" => 0,
        VALIDATES | "VERIFIED" | "CHALLENGED" | "REQUESTED_VERIFICATION" | "PERFORMED_BY" => 1,
        "PART_OF" | "SOURCED_FROM" => 2,
        r if r.starts_with("WAS_") && !matches!(r, "WAS_DERIVED_FROM" | "WAS_INFLUENCED_BY") => 4,
        _ => 3,
    }
}

fn text(p: &PropMap, k: &str) -> Option<String> {
    p.get(k).and_then(Value::as_str).map(str::to_owned)
}

/// The statement each verification verifies, in either graph.
fn verified_statements<'a>(a: &'a Snapshot, b: &'a Snapshot) -> HashMap<&'a str, &'a str> {
    a.edges
        .keys()
        .chain(b.edges.keys())
        .filter(|k| k.rel == VALIDATES)
        .map(|k| (k.source.as_str(), k.target.as_str()))
        .collect()
}

/// A statement's text, in `b`, else in `a`.
fn claim_text(a: &Snapshot, b: &Snapshot, name: &str) -> Option<String> {
    let key = NodeKey { label: STATEMENT.to_owned(), name: name.to_owned() };
    b.nodes
        .get(&key)
        .and_then(|p| text(p, "claim_text"))
        .or_else(|| a.nodes.get(&key).and_then(|p| text(p, "claim_text")))
}

fn item(
    k: &NodeKey,
    p: &PropMap,
    claims: &HashMap<&str, &str>,
    texts: impl Fn(&str) -> Option<String>,
) -> SummaryItem {
    let statement = k.label == STATEMENT;
    let claim = if statement { None } else { claims.get(k.name.as_str()).map(|s| (*s).to_owned()) };
    SummaryItem {
        name: k.name.clone(),
        text: text(p, if statement { "claim_text" } else { "verdict" }),
        agent: text(p, "author_id"),
        claim_text: if statement { text(p, "claim_text") } else { claim.as_deref().and_then(texts) },
        claim,
    }
}

/// The changes of one node or edge's watched properties.
fn watched(
    out: &mut Vec<StatusChange>,
    at: (&str, &str, Option<&str>),
    claim: Option<&str>,
    before: &PropMap,
    after: &PropMap,
) {
    let (label, name, target) = at;
    for (_, property, what) in WATCHED.iter().filter(|(l, ..)| *l == label) {
        if !before.contains_key(*property) && !after.contains_key(*property) {
            continue;
        }
        out.push(StatusChange {
            what: (*what).to_owned(),
            claim: claim.map(str::to_owned),
            claim_text: None,
            label: label.to_owned(),
            name: name.to_owned(),
            target: target.map(str::to_owned),
            property: (*property).to_owned(),
            before: before.get(*property).cloned(),
            after: after.get(*property).cloned(),
        });
    }
}

/// The summary of a diff of `a` and `b`, from the added, removed and changed nodes and the
/// changed edges the diff found.
pub(super) fn summarise(
    a: &Snapshot,
    b: &Snapshot,
    nodes: (&[Listed<'_>], &[Listed<'_>]),
    changed_nodes: &[(&NodeKey, PropMap, PropMap)],
    changed_edges: &[(&EdgeKey, PropMap, PropMap)],
) -> DiffSummary {
    let claims = verified_statements(a, b);
    let (added, removed) = nodes;
    let of = |list: &[Listed<'_>], label: &str| -> Vec<SummaryItem> {
        list.iter()
            .filter(|(k, _)| k.label == label)
            .map(|(k, p)| item(k, p, &claims, |n| claim_text(a, b, n)))
            .collect()
    };
    let mut changes = Vec::new();
    for (k, before, after) in changed_nodes {
        let claim = match k.label.as_str() {
            STATEMENT => Some(k.name.as_str()),
            VERIFICATION => claims.get(k.name.as_str()).copied(),
            _ => continue,
        };
        watched(&mut changes, (&k.label, &k.name, None), claim, before, after);
    }
    for (k, before, after) in changed_edges {
        if k.rel == CITES {
            watched(&mut changes, (&k.rel, &k.source, Some(&k.target)), Some(&k.source), before, after);
        }
    }
    for c in &mut changes {
        c.claim_text = c.claim.as_deref().and_then(|n| claim_text(a, b, n));
    }
    let order = |c: &StatusChange| WATCHED.iter().position(|(l, p, _)| *l == c.label && *p == c.property);
    changes.sort_by(|x, y| {
        (&x.claim, order(x), &x.name, &x.target).cmp(&(&y.claim, order(y), &y.name, &y.target))
    });
    DiffSummary {
        claims_added: of(added, STATEMENT),
        claims_removed: of(removed, STATEMENT),
        verifications_added: of(added, VERIFICATION),
        verifications_removed: of(removed, VERIFICATION),
        changes,
    }
}
