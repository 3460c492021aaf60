//! The reads behind live semantic zoom (`facade::live::feed`): every node with what decides
//! its cluster, and every edge by its ends, read in slices of internal ids so that a graph of
//! a million nodes is never held as one reply. Internal ids are dense (FalkorDB reuses the
//! ids of deleted nodes), and a range on `id(n)` is a seek, not a scan.

use serde_json::Value;

use super::canvas_reads::coalesce;
use super::canvas_reads::{AGENT_KEYS, CONTEXT_KEYS, STATUS_KEY};
use super::Store;
use crate::error::{Error, Result};
use crate::model::vocab::{A2A_RELATION, NAME, PROV_BASE_TYPE};

/// Internal ids read per query.
const SLICE: i64 = 200_000;

/// A node as the cluster index keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberRow {
    pub label: String,
    pub name: String,
    pub agent: Option<String>,
    pub has_context: bool,
    pub status: Option<String>,
}

/// An edge as the cluster index keeps it: its ends as (label, name), its type and its kind's
/// discriminator (empty for a plain edge).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgeRow {
    pub source: (String, String),
    pub rel: String,
    pub kind: String,
    pub target: (String, String),
}

fn text(v: Option<Value>) -> Option<String> {
    match v {
        Some(Value::String(s)) if !s.is_empty() => Some(s),
        _ => None,
    }
}

impl Store {
    /// The highest internal node id of a graph (none when it has no nodes).
    async fn max_node_id(&self, graph: &str) -> Result<Option<i64>> {
        let rows = self.compact_ro(graph, "MATCH (n) RETURN max(id(n))").await?;
        Ok(rows.into_iter().next().and_then(|r| r.into_iter().next()).and_then(|v| v.as_i64()))
    }

    /// Every node of a graph with its cluster-deciding fields, slice by slice.
    pub async fn member_rows(&self, graph: &str, mut each: impl FnMut(MemberRow)) -> Result<()> {
        let Some(max) = self.max_node_id(graph).await? else { return Ok(()) };
        let ctx = coalesce("n", &CONTEXT_KEYS);
        let mut lo = 0;
        while lo <= max {
            let q = format!(
                "MATCH (n) WHERE id(n) >= {lo} AND id(n) < {} RETURN labels(n)[0], n.{NAME}, {}, \
                 ({ctx} IS NOT NULL AND {ctx} <> ''), n.`{STATUS_KEY}`",
                lo + SLICE,
                coalesce("n", &AGENT_KEYS),
            );
            for r in self.compact_ro(graph, &q).await? {
                let mut c = r.into_iter();
                let (label, name) = (text(c.next()), text(c.next()));
                let (Some(label), Some(name)) = (label, name) else { continue };
                let agent = text(c.next());
                let has_context = matches!(c.next(), Some(Value::Bool(true)));
                each(MemberRow { label, name, agent, has_context, status: text(c.next()) });
            }
            lo += SLICE;
        }
        Ok(())
    }

    /// Every edge of a graph by its ends, slice by slice of its source nodes.
    pub async fn edge_rows(&self, graph: &str, mut each: impl FnMut(EdgeRow)) -> Result<()> {
        let Some(max) = self.max_node_id(graph).await? else { return Ok(()) };
        let mut lo = 0;
        while lo <= max {
            let q = format!(
                "MATCH (a)-[r]->(b) WHERE id(a) >= {lo} AND id(a) < {} RETURN labels(a)[0], a.{NAME}, type(r), \
                 coalesce(r.`{PROV_BASE_TYPE}`, r.`{A2A_RELATION}`, ''), labels(b)[0], b.{NAME}",
                lo + SLICE,
            );
            for r in self.compact_ro(graph, &q).await? {
                let mut c = r.into_iter();
                let (la, a, rel) = (text(c.next()), text(c.next()), text(c.next()));
                let kind = text(c.next()).unwrap_or_default();
                let (lb, b) = (text(c.next()), text(c.next()));
                let (Some(la), Some(a), Some(rel), Some(lb), Some(b)) = (la, a, rel, lb, b) else {
                    continue;
                };
                each(EdgeRow { source: (la, a), rel, kind, target: (lb, b) });
            }
            lo += SLICE;
        }
        Ok(())
    }
}

/// A read that found no graph is an empty graph here (the feed fills as it is written).
pub fn empty_if_missing(r: Result<()>) -> Result<()> {
    match r {
        Err(Error::NotFound { what: "graph", .. }) => Ok(()),
        other => other,
    }
}
