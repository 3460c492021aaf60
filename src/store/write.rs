//! Batched, idempotent upserts: one `UNWIND $rows … MERGE` query per label and per
//! (source label, relationship type, target label, kind) group.

use std::collections::BTreeMap;

use falkordb::FalkorValue;
use serde::Serialize;

use super::value::{props_param, str_param};
use super::{Store, BATCH_ROWS};
use crate::error::Result;
use crate::model::vocab::{EdgeKind, Label, RelType, PROV_BASE_TYPE, PROV_TYPE};
use crate::model::{Edge, GraphDelta, Node};

/// What one write sent.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct WriteStats {
    pub nodes: u64,
    pub edges: u64,
    pub queries: u64,
}

/// The upsert of every node with one label.
fn node_query(label: Label) -> String {
    format!("UNWIND $rows AS r MERGE (n:`{label}` {{name: r.name}}) SET n += r.props")
}

/// The upsert of every edge of one group. The edge's identity is its endpoints, type and
/// kind property (`prov:base_type` or `a2a:relation`), so a PROV edge and an A2A-derived
/// edge of the same type between the same nodes stay two edges.
fn edge_query(source: Label, rel: RelType, kind: EdgeKind, target: Label) -> String {
    let key = match kind.key() {
        Some((k, _)) => format!(" {{`{k}`: $kind}}"),
        None => String::new(),
    };
    format!(
        "UNWIND $rows AS r MATCH (a:`{source}` {{name: r.s}}) MATCH (b:`{target}` {{name: r.t}}) \
         MERGE (a)-[e:`{rel}`{key}]->(b) SET e += r.props"
    )
}

fn node_row(node: &Node) -> FalkorValue {
    let mut props = node.props.clone();
    props.insert(PROV_TYPE.into(), node.label.prov_type().into());
    props.insert(PROV_BASE_TYPE.into(), node.label.base_type().as_str().into());
    props.insert("name".into(), node.name.clone().into());
    FalkorValue::Map(
        [("name".to_owned(), str_param(&node.name)), ("props".to_owned(), props_param(&props))]
            .into_iter()
            .collect(),
    )
}

fn edge_row(edge: &Edge) -> FalkorValue {
    let mut props = edge.props.clone();
    if let Some((k, v)) = edge.kind.key() {
        props.insert(k.into(), v.into());
    }
    FalkorValue::Map(
        [
            ("s".to_owned(), str_param(&edge.source.name)),
            ("t".to_owned(), str_param(&edge.target.name)),
            ("props".to_owned(), props_param(&props)),
        ]
        .into_iter()
        .collect(),
    )
}

impl Store {
    /// Creates the `name` index of every label once per graph (and per process).
    pub async fn ensure_indexes(&self, graph: &str) -> Result<()> {
        if self.indexed.lock().await.contains(graph) {
            return Ok(());
        }
        let (_, rows) = self
            .run_ro(graph, "CALL db.indexes() YIELD label, properties RETURN label, properties", vec![])
            .await
            .unwrap_or_default();
        let existing: Vec<String> = rows
            .iter()
            .filter(|r| matches!(r.get(1), Some(FalkorValue::Array(p)) if p.iter().any(|x| matches!(x, FalkorValue::String(s) if s == "name"))))
            .filter_map(|r| super::value::as_string(&r[0]))
            .collect();
        for label in Label::ALL {
            if existing.iter().any(|l| l == label.as_str()) {
                continue;
            }
            let q = format!("CREATE INDEX FOR (n:`{label}`) ON (n.name)");
            if let Err(e) = self.run_retrying(graph, &q, vec![]).await {
                if !e.to_string().contains("already indexed") {
                    return Err(e);
                }
            }
        }
        self.indexed.lock().await.insert(graph.to_owned());
        Ok(())
    }

    /// Writes a delta: nodes first, then edges, each group in batches of [`BATCH_ROWS`].
    /// Every query is an upsert, so writing the same delta again changes nothing.
    pub async fn write(&self, graph: &str, delta: &GraphDelta) -> Result<WriteStats> {
        self.ensure_indexes(graph).await?;
        let mut stats = WriteStats::default();

        let mut by_label: BTreeMap<Label, Vec<FalkorValue>> = BTreeMap::new();
        for node in delta.nodes() {
            by_label.entry(node.label).or_default().push(node_row(node));
        }
        for (label, rows) in by_label {
            let q = node_query(label);
            for batch in rows.chunks(BATCH_ROWS) {
                stats.nodes += batch.len() as u64;
                stats.queries += 1;
                self.run_retrying(graph, &q, vec![("rows", FalkorValue::Array(batch.to_vec()))]).await?;
            }
        }

        type Group = (Label, RelType, EdgeKind, Label);
        let mut by_group: BTreeMap<Group, Vec<FalkorValue>> = BTreeMap::new();
        for edge in delta.edges() {
            let g = (edge.source.label, edge.rel, edge.kind, edge.target.label);
            by_group.entry(g).or_default().push(edge_row(edge));
        }
        for ((source, rel, kind, target), rows) in by_group {
            let q = edge_query(source, rel, kind, target);
            for batch in rows.chunks(BATCH_ROWS) {
                stats.edges += batch.len() as u64;
                stats.queries += 1;
                let mut params = vec![("rows", FalkorValue::Array(batch.to_vec()))];
                if let Some((_, v)) = kind.key() {
                    params.push(("kind", str_param(v)));
                }
                self.run_retrying(graph, &q, params).await?;
            }
        }
        Ok(stats)
    }
}
