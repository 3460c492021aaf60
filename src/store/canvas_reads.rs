//! Reads for UIs: every node with the few properties a canvas filters and searches on, in
//! the order they were created (FalkorDB ids grow as nodes are created), every edge by its
//! endpoints' names, and text search over names, claims and quotes.

use falkordb::FalkorValue;

use super::raw::{int, string, RawRow};
use super::value::as_string;
use super::Store;
use crate::error::Result;
use crate::model::vocab::{NAME, PROV_BASE_TYPE};

/// A node's drawing data as stored (no position yet).
#[derive(Debug, Clone, PartialEq)]
pub struct NodeSummary {
    pub name: String,
    pub label: String,
    pub base_type: Option<String>,
    pub agent: Option<String>,
    pub context: Option<String>,
    pub status: Option<String>,
    pub text: Option<String>,
    /// A statement's standing (its headline verdict).
    pub standing: Option<String>,
}

impl NodeSummary {
    /// A node's drawing data from its properties, `prop` answering the text of the first of
    /// some keys the node has: what a live delta's node and a traced node are drawn with, as
    /// the stored ones are read.
    pub fn from_props(
        name: String,
        label: String,
        base_type: Option<String>,
        prop: impl Fn(&[&str]) -> Option<String>,
    ) -> NodeSummary {
        NodeSummary {
            name,
            label,
            base_type,
            agent: prop(&AGENT_KEYS),
            context: prop(&CONTEXT_KEYS),
            status: prop(&[STATUS_KEY]),
            text: prop(&VIEW_TEXT_KEYS),
            standing: prop(&[STANDING_KEY]).or_else(|| derived_standing(|k| prop(&[k]))),
        }
    }
}

/// An edge between node names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgeSummary {
    pub source: String,
    pub target: String,
    pub rel: String,
    pub prov: Option<String>,
    pub a2a: Option<String>,
}

/// Properties that name the agent of a node, in order of preference: the runtime's agent id,
/// an agent's own id, and the author of an A2AP statement or verification (so that semantic
/// zoom clusters claims and verifications under who made them).
pub const AGENT_KEYS: [&str; 3] = ["a2a:agent_id", "agent_id", "author_id"];
/// Properties that name the context (conversation) of a node.
pub const CONTEXT_KEYS: [&str; 1] = ["a2a:context_id"];
/// The signature status of a signed A2AP document.
pub const STATUS_KEY: &str = "signature_status";
/// A statement's standing: the worst of signature, evidence and consensus.
pub const STANDING_KEY: &str = "standing";
/// The standing of an OpenTelemetry span that failed: its status is `error`, or it recorded
/// an exception event (docs/FORMATS.md "OpenTelemetry traces"). A span that did not fail has
/// no standing.
pub const SPAN_FAILED: &str = "failed";

/// A node's standing when it has none of its own: [`SPAN_FAILED`] for a failed span, read
/// through `get` (a property's text by key).
pub fn derived_standing(get: impl Fn(&str) -> Option<String>) -> Option<String> {
    let failed = get("otel:status").as_deref() == Some("error") || get("otel:exception.type").is_some();
    failed.then(|| SPAN_FAILED.to_owned())
}

/// The Cypher of a node's standing: its own, else [`derived_standing`]'s.
fn standing_column(var: &str) -> String {
    format!(
        "coalesce({var}.`{STANDING_KEY}`, CASE WHEN {var}.`otel:status` = 'error' \
         OR {var}.`otel:exception.type` IS NOT NULL THEN '{SPAN_FAILED}' END)"
    )
}

/// Properties whose text is shown and searched, in order of preference.
pub const TEXT_KEYS: [&str; 10] = [
    "claim_text",
    "quote_text",
    "a2a:content",
    "a2a:prompt",
    "title",
    "text",
    // A TrustGraph question, a prompt or a dialog message, a TrustGraph design-note node, any described step.
    "tg:query",
    "content",
    "tg:content",
    "rdfs:label",
];
/// What names a node that has no text of its own, in order of preference: a verification's
/// verdict, a tool call's tool, a model call's model, a task state, an artifact's type, a
/// source's or an agent's name, an OpenTelemetry agent's name, span's name, model, service
/// or message content.
const NAMING_KEYS: [&str; 15] = [
    "verdict",
    "a2a:tool_name",
    "a2a:model",
    "a2a:task_state",
    "source_name",
    "agent_name",
    "a2a:agent_type",
    "a2a:archive_path",
    "a2a:artifact_type",
    "otel:agent_name",
    "otel:agent_id",
    "otel:name",
    "otel:model",
    "otel:service",
    "otel:content",
];
/// What a view carries as a node's text: its own text (`TEXT_KEYS`) or, for a node that has
/// none, what names it to a reader (`NAMING_KEYS`; the canvas labels nodes with it). Search
/// keeps to `TEXT_KEYS`, and finds verdicts by problem.
pub const VIEW_TEXT_KEYS: [&str; TEXT_KEYS.len() + NAMING_KEYS.len()] = concat(TEXT_KEYS, NAMING_KEYS);

/// Two lists of keys as one, the first's first (`C` is their length together).
const fn concat<const A: usize, const B: usize, const C: usize>(
    a: [&'static str; A],
    b: [&'static str; B],
) -> [&'static str; C] {
    assert!(A + B == C);
    let mut out = [""; C];
    let mut i = 0;
    while i < A {
        out[i] = a[i];
        i += 1;
    }
    while i < C {
        out[i] = b[i - A];
        i += 1;
    }
    out
}
/// How much of a node's text a view carries (cut in Rust: a text property may hold a
/// list, which Cypher's `left` refuses).
pub const TEXT_CHARS: usize = 200;

/// `var`'s first non-null property of `keys`, as a Cypher expression.
pub(super) fn coalesce(var: &str, keys: &[&str]) -> String {
    let items: Vec<String> = keys.iter().map(|k| format!("{var}.`{k}`")).collect();
    if items.len() == 1 {
        items[0].clone()
    } else {
        format!("coalesce({})", items.join(", "))
    }
}

/// A reply cell as text, if it is one.
/// An edge read as `a.name, b.name, type(r), r.`prov:base_type`, r.`a2a:relation``.
pub(super) fn edge_summary(r: &RawRow) -> Option<EdgeSummary> {
    Some(EdgeSummary {
        source: opt(r.first())?,
        target: opt(r.get(1))?,
        rel: opt(r.get(2))?,
        prov: opt(r.get(3)),
        a2a: opt(r.get(4)),
    })
}

pub(super) fn opt(v: Option<&redis::Value>) -> Option<String> {
    v.and_then(string)
}

impl Store {
    /// Every node of a graph in creation order.
    pub async fn view_nodes(&self, graph: &str) -> Result<Vec<NodeSummary>> {
        let q = format!("MATCH (n) RETURN {} ORDER BY id(n)", summary_columns("n"));
        let rows = self.raw_ro(graph, &q, &[]).await?;
        Ok(rows.iter().filter_map(summary).collect())
    }

    /// Every edge of a graph.
    pub async fn view_edges(&self, graph: &str) -> Result<Vec<EdgeSummary>> {
        let q = "MATCH (a)-[r]->(b) RETURN a.name, b.name, type(r), r.`prov:base_type`, r.`a2a:relation`";
        let rows = self.raw_ro(graph, q, &[]).await?;
        Ok(rows.iter().filter_map(edge_summary).collect())
    }

    /// The name of the node created last, if any.
    pub async fn latest_node(&self, graph: &str, label: Option<&str>) -> Result<Option<String>> {
        let pattern = match label {
            Some(l) => format!("(n:`{}`)", l.replace('`', "")),
            None => "(n)".to_owned(),
        };
        let q = format!("MATCH {pattern} RETURN n.name ORDER BY id(n) DESC LIMIT 1");
        let rows = self.raw_ro(graph, &q, &[]).await?;
        Ok(rows.first().and_then(|r| opt(r.first())))
    }

    /// Nodes whose name or text contains `needle` (any case): name, label, and each text
    /// property's value.
    pub async fn search(
        &self,
        graph: &str,
        needle: &str,
        limit: u32,
    ) -> Result<Vec<(String, String, Vec<(String, String)>)>> {
        let fields: Vec<&str> = std::iter::once(NAME).chain(TEXT_KEYS).collect();
        let cond: Vec<String> = fields
            .iter()
            // toJSON takes any value (some of these properties hold lists elsewhere).
            .map(|k| format!("toLower(toJSON(n.`{k}`)) CONTAINS $q"))
            .collect();
        let ret: Vec<String> = fields.iter().map(|k| format!("n.`{k}`")).collect();
        let q = format!(
            "MATCH (n) WHERE {} RETURN labels(n)[0], {} ORDER BY id(n) LIMIT {limit}",
            cond.join(" OR "),
            ret.join(", ")
        );
        let (_, rows) =
            self.run_ro(graph, &q, vec![("q", FalkorValue::String(needle.to_lowercase()))]).await?;
        Ok(rows
            .into_iter()
            .filter_map(|r| {
                let label = as_string(r.first()?)?;
                let name = as_string(r.get(1)?)?;
                let values = fields
                    .iter()
                    .zip(r.iter().skip(1))
                    .filter_map(|(k, v)| Some(((*k).to_owned(), as_string(v)?)))
                    .collect();
                Some((name, label, values))
            })
            .collect())
    }
}

/// The columns [`summary`] reads, for node `var`.
pub(super) fn summary_columns(var: &str) -> String {
    format!(
        "id({var}), {var}.{NAME}, labels({var})[0], {var}.`{PROV_BASE_TYPE}`, {}, {}, {var}.`{STATUS_KEY}`, {}, {}",
        coalesce(var, &AGENT_KEYS),
        coalesce(var, &CONTEXT_KEYS),
        coalesce(var, &VIEW_TEXT_KEYS),
        standing_column(var),
    )
}

/// A node's summary from a row of [`summary_columns`].
pub(super) fn summary(r: &RawRow) -> Option<NodeSummary> {
    int(r.first()?)?;
    Some(NodeSummary {
        name: opt(r.get(1))?,
        label: opt(r.get(2)).unwrap_or_default(),
        base_type: opt(r.get(3)),
        agent: opt(r.get(4)),
        context: opt(r.get(5)),
        status: opt(r.get(6)),
        text: opt(r.get(7)),
        standing: opt(r.get(8)),
    })
}

#[cfg(test)]
mod tests {
    use super::{TEXT_KEYS, VIEW_TEXT_KEYS};

    #[test]
    fn a_view_prefers_a_nodes_own_text_to_what_names_it() {
        assert_eq!(&VIEW_TEXT_KEYS[..TEXT_KEYS.len()], &TEXT_KEYS[..]);
        assert!(VIEW_TEXT_KEYS.contains(&"verdict"));
    }
}
