//! Reads a whole graph with every property of every node and edge (for `provex diff`):
//! one query for the nodes and one for the edges (single hops, no variable-length pattern),
//! each returning `properties(…)` as a map, sent side by side on connections of their own
//! and decoded from the compact reply format by [`super::compact`]. (Through the typed
//! client, maps decoded three times slower than one column per property key, and a read of
//! 100,000 nodes took seconds; `toJSON(properties(n))` does not escape quotes inside
//! strings.)

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::compact::{decode, int};
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

/// The properties map of a compact column, as a sorted map.
fn props(v: Option<&redis::Value>) -> BTreeMap<String, Value> {
    match v.map(decode) {
        Some(Value::Object(m)) => m.into_iter().collect(),
        _ => BTreeMap::new(),
    }
}

impl Store {
    /// Every node and edge of a graph with all their properties. A node without a `name`
    /// is named `#<internal id>`.
    pub async fn read_all(&self, graph: &str) -> Result<(Vec<StoredNode>, Vec<StoredEdge>)> {
        let (node_rows, edge_rows) = tokio::try_join!(
            self.compact_ro(graph, "MATCH (n) RETURN id(n), labels(n)[0], properties(n)"),
            self.compact_ro(graph, "MATCH (a)-[e]->(b) RETURN id(a), type(e), id(b), properties(e)"),
        )?;
        let mut names: HashMap<i64, String> = HashMap::with_capacity(node_rows.len());
        let mut nodes = Vec::with_capacity(node_rows.len());
        for r in &node_rows {
            let Some(id) = r.first().and_then(int) else { continue };
            let mut props = props(r.get(2));
            let name = match props.remove(NAME) {
                Some(Value::String(s)) => s,
                None | Some(Value::Null) => format!("#{id}"),
                Some(other) => other.to_string(),
            };
            let label = match r.get(1).map(decode) {
                Some(Value::String(l)) => l,
                _ => String::new(),
            };
            names.insert(id, name.clone());
            nodes.push(StoredNode { label, name, props });
        }
        drop(node_rows);
        let name = |v: Option<&redis::Value>| {
            let id = v.and_then(int).unwrap_or(-1);
            names.get(&id).cloned().unwrap_or_else(|| format!("#{id}"))
        };
        let edges = edge_rows
            .iter()
            .map(|r| StoredEdge {
                source: name(r.first()),
                rel: match r.get(1).map(decode) {
                    Some(Value::String(t)) => t,
                    _ => String::new(),
                },
                target: name(r.get(2)),
                props: props(r.get(3)),
            })
            .collect();
        Ok((nodes, edges))
    }
}
