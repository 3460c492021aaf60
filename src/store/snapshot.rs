//! Reads a whole graph with every property of every node and edge (for `provex diff`):
//! one query for the nodes and one for the edges (single hops, no variable-length pattern),
//! each returning `properties(…)` as a map, sent side by side on connections of their own
//! and decoded from the compact reply format by [`super::compact`]. (Through the typed
//! client, maps decoded three times slower than one column per property key, and a read of
//! 100,000 nodes took seconds; `toJSON(properties(n))` does not escape quotes inside
//! strings.)

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

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

/// A `properties(…)` column as a sorted map.
fn props(v: Value) -> BTreeMap<String, Value> {
    match v {
        Value::Object(m) => m.into_iter().collect(),
        _ => BTreeMap::new(),
    }
}

fn string(v: Value) -> String {
    match v {
        Value::String(s) => s,
        _ => String::new(),
    }
}

impl Store {
    /// Every node and edge of a graph with all their properties. A node without a `name`
    /// is named `#<internal id>`.
    pub async fn read_all(&self, graph: &str) -> Result<(Vec<StoredNode>, Vec<StoredEdge>)> {
        // The nodes are converted while the edges are still arriving.
        let read_nodes = async {
            let rows = self.compact_ro(graph, "MATCH (n) RETURN id(n), labels(n)[0], properties(n)").await?;
            let mut names: HashMap<i64, usize> = HashMap::with_capacity(rows.len());
            let mut nodes = Vec::with_capacity(rows.len());
            for r in rows {
                let mut cols = r.into_iter();
                let (Some(Value::Number(id)), Some(label), Some(map)) =
                    (cols.next(), cols.next(), cols.next())
                else {
                    continue;
                };
                let Some(id) = id.as_i64() else { continue };
                let mut props = props(map);
                let name = match props.remove(NAME) {
                    Some(Value::String(s)) => s,
                    None | Some(Value::Null) => format!("#{id}"),
                    Some(other) => other.to_string(),
                };
                names.insert(id, nodes.len());
                nodes.push(StoredNode { label: string(label), name, props });
            }
            Ok::<_, crate::error::Error>((names, nodes))
        };
        let ((names, nodes), edge_rows) = tokio::try_join!(
            read_nodes,
            self.compact_ro(graph, "MATCH (a)-[e]->(b) RETURN id(a), type(e), id(b), properties(e)"),
        )?;
        let name = |v: Option<&Value>| {
            let id = v.and_then(Value::as_i64).unwrap_or(-1);
            names.get(&id).map(|&i| nodes[i].name.clone()).unwrap_or_else(|| format!("#{id}"))
        };
        let edges = edge_rows
            .into_iter()
            .map(|r| {
                let (source, target) = (name(r.first()), name(r.get(2)));
                let mut cols = r.into_iter().skip(1);
                let rel = cols.next().map(string).unwrap_or_default();
                let props = cols.nth(1).map(props).unwrap_or_default();
                StoredEdge { source, rel, target, props }
            })
            .collect();
        Ok((nodes, edges))
    }
}
