//! Reads for semantic zoom: a graph's nodes and edges counted by what decides their cluster
//! (label, agent, context, signature status), so that the clusters of a graph of a million
//! nodes come from a few hundred grouped rows rather than from every node; and the nodes and
//! edges of one cluster. The cluster keys are made in Rust (`layout::cluster`), never in
//! Cypher: the queries select a superset, and the caller keeps the rows whose key matches.

use super::canvas_reads::{
    coalesce, edge_summary, opt, summary, summary_columns, EdgeSummary, NodeSummary, AGENT_KEYS,
    CONTEXT_KEYS, STATUS_KEY,
};
use super::raw::{int, RawRow};
use super::Store;
use crate::error::{Error, Result};
use crate::layout::cluster::{self, SOURCE_LABELS};

/// `count` nodes with these cluster-deciding fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeGroup {
    pub label: String,
    pub agent: Option<String>,
    /// The context, when read (else none, and only `has_context` says whether there is one).
    pub context: Option<String>,
    pub has_context: bool,
    pub status: Option<String>,
    pub count: u64,
}

/// The cluster-deciding fields of one end of an edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct End {
    pub label: String,
    pub agent: Option<String>,
    pub context: Option<String>,
    pub has_context: bool,
}

impl End {
    pub fn top_key(&self) -> String {
        cluster::top_key(&self.label, self.agent.as_deref(), self.has_context)
    }

    pub fn sub_key(&self) -> String {
        cluster::sub_key(&self.label, self.agent.as_deref(), self.context.as_deref())
    }
}

/// `count` edges between nodes with these fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgeGroup {
    pub from: End,
    pub to: End,
    pub count: u64,
}

/// A context column: its value (`contexts`), or whether there is a non-empty one.
fn context_column(var: &str, contexts: bool) -> String {
    let ctx = coalesce(var, &CONTEXT_KEYS);
    if contexts {
        ctx
    } else {
        format!("({ctx} IS NOT NULL AND {ctx} <> '')")
    }
}

/// A context cell: (the context if read, whether there is one).
fn context_cell(v: Option<&redis::Value>, contexts: bool) -> (Option<String>, bool) {
    if contexts {
        let c = opt(v).filter(|c| !c.is_empty());
        let has = c.is_some();
        (c, has)
    } else {
        let has = match v {
            Some(redis::Value::Int(i)) => *i != 0,
            other => opt(other).is_some_and(|s| s == "true" || s == "1"),
        };
        (None, has)
    }
}

/// A Cypher condition on `var` that holds for every node of top-level cluster `top` (and
/// perhaps a few others, which the caller drops), with its parameters as literals.
fn top_condition(var: &str, top: &str) -> Result<(String, Vec<(String, String)>)> {
    let agent = coalesce(var, &AGENT_KEYS);
    let sources = SOURCE_LABELS.iter().map(|l| format!("'{l}'")).collect::<Vec<_>>().join(", ");
    let literal = |s: &str| falkordb::to_cypher_param(s).map_err(|e| Error::Usage(e.to_string()));
    if top == "sources" {
        return Ok((format!("labels({var})[0] IN [{sources}]"), vec![]));
    }
    if top == "tasks" {
        // A superset: an empty agent id counts as none (`layout::cluster::top_key`).
        return Ok((
            format!("({agent} IS NULL OR {agent} = '') AND {} IS NOT NULL", coalesce(var, &CONTEXT_KEYS)),
            vec![],
        ));
    }
    if let Some(a) = top.strip_prefix("agent:") {
        return Ok((format!("{agent} = ${var}_agent"), vec![(format!("{var}_agent"), literal(a)?)]));
    }
    if let Some(l) = top.strip_prefix("kind:") {
        return Ok((format!("labels({var})[0] = ${var}_label"), vec![(format!("{var}_label"), literal(l)?)]));
    }
    Err(Error::Usage(format!("not a cluster: {top}")))
}

impl Store {
    /// Every node counted by label, agent, signature status and (with `contexts`) context;
    /// only the nodes that may be in top-level cluster `within`, when given.
    pub async fn node_groups(
        &self,
        graph: &str,
        contexts: bool,
        within: Option<&str>,
    ) -> Result<Vec<NodeGroup>> {
        let (cond, params) = match within {
            Some(top) => top_condition("n", top)?,
            None => (String::new(), vec![]),
        };
        let ctx = context_column("n", contexts);
        let q = format!(
            "MATCH (n) {} RETURN labels(n)[0] AS l, {} AS ag, {ctx} AS cx, n.`{STATUS_KEY}` AS st, count(n) AS c",
            if cond.is_empty() { String::new() } else { format!("WHERE {cond}") },
            coalesce("n", &AGENT_KEYS),
        );
        let params: Vec<(&str, String)> = params.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
        let rows = self.raw_ro(graph, &q, &params).await?;
        Ok(rows
            .iter()
            .map(|r| {
                let (context, has_context) = context_cell(r.get(2), contexts);
                NodeGroup {
                    label: opt(r.first()).unwrap_or_default(),
                    agent: opt(r.get(1)),
                    context,
                    has_context,
                    status: opt(r.get(3)),
                    count: r.get(4).and_then(int).unwrap_or(0) as u64,
                }
            })
            .collect())
    }

    /// Every edge counted by its ends' label, agent and (with `contexts`) context; only the
    /// edges whose two ends may both be in top-level cluster `within`, when given. (The
    /// relationship is bound: FalkorDB counted `(a)-[]->(b)` once per pair of nodes, not
    /// once per edge.)
    pub async fn edge_groups(
        &self,
        graph: &str,
        contexts: bool,
        within: Option<&str>,
    ) -> Result<Vec<EdgeGroup>> {
        let mut params = Vec::new();
        let mut conds = Vec::new();
        if let Some(top) = within {
            for var in ["a", "b"] {
                let (c, p) = top_condition(var, top)?;
                conds.push(c);
                params.extend(p);
            }
        }
        let ctx = |v: &str| context_column(v, contexts);
        let q = format!(
            "MATCH (a)-[r]->(b) {} RETURN labels(a)[0] AS la, {} AS aa, {} AS ca, labels(b)[0] AS lb, {} AS ab, {} AS cb, \
             count(r) AS c",
            if conds.is_empty() { String::new() } else { format!("WHERE {}", conds.join(" AND ")) },
            coalesce("a", &AGENT_KEYS),
            ctx("a"),
            coalesce("b", &AGENT_KEYS),
            ctx("b"),
        );
        let params: Vec<(&str, String)> = params.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
        let rows = self.raw_ro(graph, &q, &params).await?;
        Ok(rows
            .iter()
            .map(|r: &RawRow| {
                let end = |at: usize| {
                    let (context, has_context) = context_cell(r.get(at + 2), contexts);
                    End {
                        label: opt(r.get(at)).unwrap_or_default(),
                        agent: opt(r.get(at + 1)),
                        context,
                        has_context,
                    }
                };
                EdgeGroup { from: end(0), to: end(3), count: r.get(6).and_then(int).unwrap_or(0) as u64 }
            })
            .collect())
    }

    /// The nodes of cluster `key` (a top-level or a sub-cluster key), in creation order, at
    /// most `limit`; the edges between them; and how many nodes the cluster has.
    pub async fn cluster_members(
        &self,
        graph: &str,
        key: &str,
        limit: u32,
    ) -> Result<(Vec<NodeSummary>, Vec<EdgeSummary>, u64)> {
        let top = key.split(cluster::SEP).next().unwrap_or(key);
        let (cond, params) = top_condition("n", top)?;
        let q = format!("MATCH (n) WHERE {cond} RETURN {} ORDER BY id(n)", summary_columns("n"));
        let params: Vec<(&str, String)> = params.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
        let rows = self.raw_ro(graph, &q, &params).await?;
        let sub = key.contains(cluster::SEP);
        let mut matched = 0u64;
        let nodes: Vec<NodeSummary> = rows
            .iter()
            .filter_map(summary)
            .filter(|n| {
                let k = if sub {
                    cluster::sub_key(&n.label, n.agent.as_deref(), n.context.as_deref())
                } else {
                    let has_context = n.context.as_deref().is_some_and(|c| !c.is_empty());
                    cluster::top_key(&n.label, n.agent.as_deref(), has_context)
                };
                k == key
            })
            .filter(|_| {
                matched += 1;
                matched <= u64::from(limit)
            })
            .collect();
        let names: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
        let list = falkordb::to_cypher_param(&names).map_err(|e| Error::Query(e.to_string()))?;
        let q = "MATCH (a)-[r]->(b) WHERE a.name IN $names AND b.name IN $names \
                 RETURN a.name, b.name, type(r), r.`prov:base_type`, r.`a2a:relation`";
        let rows = self.raw_ro(graph, q, &[("names", list)]).await?;
        let edges = rows.iter().filter_map(edge_summary).collect();
        Ok((nodes, edges, matched))
    }
}
