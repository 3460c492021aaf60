//! Reads a whole graph with every property of every node and edge (for `provex diff`):
//! one query for the nodes, one for the edges (single hops, no variable-length pattern).

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::value::{as_i64, as_string, to_json};
use super::Store;
use crate::error::Result;
use crate::model::vocab::NAME;

/// A node as stored: its label, its `name`, and its other properties.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredNode {
    pub label: String,
    pub name: String,
    pub props: BTreeMap<String, Value>,
}

/// An edge as stored, between node names, with all its properties (its kind's included).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEdge {
    pub source: String,
    pub rel: String,
    pub target: String,
    pub props: BTreeMap<String, Value>,
}

fn props_of(v: Option<&falkordb::FalkorValue>) -> BTreeMap<String, Value> {
    match v {
        Some(falkordb::FalkorValue::Map(m)) => m.iter().map(|(k, v)| (k.clone(), to_json(v))).collect(),
        _ => BTreeMap::new(),
    }
}

impl Store {
    /// Every node and edge of a graph with all their properties. A node without a `name`
    /// is named `#<internal id>`.
    pub async fn read_all(&self, graph: &str) -> Result<(Vec<StoredNode>, Vec<StoredEdge>)> {
        let (_, rows) =
            self.run_ro(graph, "MATCH (n) RETURN id(n), labels(n)[0], properties(n)", vec![]).await?;
        let mut names: HashMap<i64, String> = HashMap::with_capacity(rows.len());
        let mut nodes = Vec::with_capacity(rows.len());
        for r in rows {
            let Some(id) = r.first().and_then(as_i64) else { continue };
            let mut props = props_of(r.get(2));
            let name = match props.remove(NAME) {
                Some(Value::String(s)) => s,
                Some(other) => other.to_string(),
                None => format!("#{id}"),
            };
            let label = r.get(1).and_then(as_string).unwrap_or_default();
            names.insert(id, name.clone());
            nodes.push(StoredNode { label, name, props });
        }
        let (_, rows) = self
            .run_ro(graph, "MATCH (a)-[e]->(b) RETURN id(a), type(e), id(b), properties(e)", vec![])
            .await?;
        let name = |v: Option<&falkordb::FalkorValue>| {
            let id = v.and_then(as_i64).unwrap_or(-1);
            names.get(&id).cloned().unwrap_or_else(|| format!("#{id}"))
        };
        let edges = rows
            .iter()
            .map(|r| StoredEdge {
                source: name(r.first()),
                rel: r.get(1).and_then(as_string).unwrap_or_default(),
                target: name(r.get(2)),
                props: props_of(r.get(3)),
            })
            .collect();
        Ok((nodes, edges))
    }
}
