//! Placeholders folded into the node they stood for. A source that names a node before it
//! knows that node's label writes a placeholder under a stand-in label (a TrustGraph step
//! naming another source's node, an OpenTelemetry span whose parent has not arrived); once
//! the node is stored under its own label, the placeholder's edges move to it, with their
//! properties, and the placeholder goes; the nodes it went into are read back
//! ([`folded_nodes`]) for the live stream, so a watching canvas draws the node, not the
//! placeholder.

use falkordb::FalkorValue;

use super::value::{as_string, str_param, to_json};
use super::Store;
use crate::error::Result;
use crate::model::{GraphDelta, Label, PropValue, RelType};

/// How a placeholder's edges are written on the real node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeMove {
    /// A new edge for each (the real node has none of its own to the same node yet).
    Create,
    /// Merged with an edge of the same type the real node has to the same node already.
    Merge,
}

/// Folds the `placeholder`-labelled nodes among `names` whose name is now stored under one
/// of `targets`; returns the nodes they were folded into, by label and name.
pub async fn fold_named(
    store: &Store,
    graph: &str,
    placeholder: Label,
    names: Vec<FalkorValue>,
    targets: &[Label],
    mode: EdgeMove,
) -> Result<Vec<(Label, String)>> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let list = FalkorValue::Array(names);
    let mut folded = Vec::new();
    for label in targets {
        let q = format!("MATCH (y:`{label}`) WHERE y.name IN $names RETURN y.name");
        let (_, rows) = store.run_ro(graph, &q, vec![("names", list.clone())]).await?;
        for name in rows.iter().filter_map(|r| r.first().and_then(as_string)) {
            fold(store, graph, placeholder, *label, &name, mode).await?;
            folded.push((*label, name));
        }
    }
    Ok(folded)
}

/// The nodes placeholders were folded into, as stored, as a delta for the live stream (an
/// update of each: a drawing that still shows a placeholder under their name shows them).
pub async fn folded_nodes(store: &Store, graph: &str, folded: &[(Label, String)]) -> Result<GraphDelta> {
    let mut delta = GraphDelta::new();
    for (label, name) in folded {
        let q = format!("MATCH (y:`{label}` {{name: $n}}) RETURN properties(y) LIMIT 1");
        let (_, rows) = store.run_ro(graph, &q, vec![("n", str_param(name))]).await?;
        let Some(serde_json::Value::Object(props)) = rows.first().and_then(|r| r.first()).map(to_json) else {
            continue;
        };
        let id = delta.upsert_node(*label, name);
        let node = delta.node_props(id);
        for (k, v) in props {
            if k != crate::model::vocab::NAME {
                if let Some(v) = PropValue::from_json(&v) {
                    node.insert(k.into(), v);
                }
            }
        }
    }
    Ok(delta)
}

/// The names in the first column of `rows`, as query parameters.
pub fn name_params(rows: &[Vec<FalkorValue>]) -> Vec<FalkorValue> {
    rows.iter().filter_map(|r| r.first().and_then(as_string)).map(|n| str_param(&n)).collect()
}

/// Moves the edges of the `placeholder` node `name` to the `label` node of that name, then
/// deletes the placeholder.
async fn fold(
    store: &Store,
    graph: &str,
    placeholder: Label,
    label: Label,
    name: &str,
    mode: EdgeMove,
) -> Result<()> {
    let n = || vec![("n", str_param(name))];
    let types = store
        .run(graph, &format!("MATCH (p:`{placeholder}` {{name: $n}})-[e]-() RETURN DISTINCT type(e)"), n())
        .await?;
    let write = match mode {
        EdgeMove::Create => "CREATE {to} SET f = properties(e)",
        EdgeMove::Merge => "MERGE {to} SET f += properties(e)",
    };
    // Types come from the vocabulary, never from what the graph returned.
    for rel in types.iter().filter_map(|r| r.first().and_then(as_string)).filter_map(|t| RelType::parse(&t)) {
        for (from, to) in [
            ("(p)-[e:`{rel}`]->(x)", "(y)-[f:`{rel}`]->(x)"),
            ("(x)-[e:`{rel}`]->(p)", "(x)-[f:`{rel}`]->(y)"),
        ] {
            let q = format!(
                "MATCH (p:`{placeholder}` {{name: $n}}), (y:`{label}` {{name: $n}}) MATCH {from} WHERE x <> p {}",
                write.replace("{to}", to)
            )
            .replace("{rel}", rel.as_str());
            store.run(graph, &q, n()).await?;
        }
    }
    store.run(graph, &format!("MATCH (p:`{placeholder}` {{name: $n}}) DETACH DELETE p"), n()).await?;
    Ok(())
}
