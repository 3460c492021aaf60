//! Parents that arrive after their children (docs/FORMATS.md "OpenTelemetry traces"): a
//! span whose parent (or linked span) is not in its request names it as a bare `Span`
//! placeholder, since what the parent does, and so its label, is not known yet. Once the
//! parent is stored under its own label, the placeholder's edges move to it, with their
//! properties, and the placeholder goes. A parent whose label is `Span` simply fills the
//! placeholder in.

use falkordb::FalkorValue;

use super::conventions::SPAN_LABELS;
use crate::error::Result;
use crate::model::{GraphDelta, Label, RelType};
use crate::store::value::{as_string, str_param};
use crate::store::Store;

/// The span names of a delta that a fold may concern: spans stored under a label other
/// than `Span` (they may fill placeholders written earlier), and bare placeholders (their
/// span may be stored already).
pub fn filling(delta: &GraphDelta) -> Vec<String> {
    delta
        .nodes()
        .filter(|n| n.name.starts_with("otel:"))
        .filter(|n| SPAN_LABELS.contains(&n.label) || (n.label == Label::Span && n.props.is_empty()))
        .map(|n| n.name.clone())
        .collect()
}

/// Folds the placeholders of the spans named `names` (every placeholder of the graph when
/// `None`) that are now stored under their own label; returns how many.
pub async fn fold_placeholders(store: &Store, graph: &str, names: Option<&[String]>) -> Result<u64> {
    let found = match names {
        Some([]) => return Ok(0),
        Some(names) => {
            let list = FalkorValue::Array(names.iter().map(|n| str_param(n)).collect());
            store
                .run_ro(
                    graph,
                    "UNWIND $names AS x MATCH (p:Span {name: x}) WHERE p.`otel:span_id` IS NULL RETURN p.name",
                    vec![("names", list)],
                )
                .await?
                .1
        }
        None => {
            store
                .run_ro(
                    graph,
                    "MATCH (p:Span) WHERE p.`otel:span_id` IS NULL AND p.name STARTS WITH 'otel:' \
                     RETURN p.name LIMIT 100000",
                    vec![],
                )
                .await?
                .1
        }
    };
    let names: Vec<FalkorValue> =
        found.iter().filter_map(|r| r.first().and_then(as_string)).map(|n| str_param(&n)).collect();
    if names.is_empty() {
        return Ok(0);
    }
    let list = FalkorValue::Array(names);
    let mut folded = 0;
    for label in SPAN_LABELS {
        let q = format!("MATCH (y:`{label}`) WHERE y.name IN $names RETURN y.name");
        let (_, rows) = store.run_ro(graph, &q, vec![("names", list.clone())]).await?;
        for name in rows.iter().filter_map(|r| r.first().and_then(as_string)) {
            fold(store, graph, *label, &name).await?;
            folded += 1;
        }
    }
    Ok(folded)
}

/// Moves the edges of placeholder `name` to the `label` node of that name (merged with
/// the edges it has already), then deletes the placeholder.
async fn fold(store: &Store, graph: &str, label: Label, name: &str) -> Result<()> {
    let types = store
        .run(graph, "MATCH (p:Span {name: $n})-[e]-() RETURN DISTINCT type(e)", vec![("n", str_param(name))])
        .await?;
    // Types come from the vocabulary, never from what the graph returned.
    for rel in types.iter().filter_map(|r| r.first().and_then(as_string)).filter_map(|t| RelType::parse(&t)) {
        for (from, to) in [
            ("(p)-[e:`{rel}`]->(x)", "(y)-[f:`{rel}`]->(x)"),
            ("(x)-[e:`{rel}`]->(p)", "(x)-[f:`{rel}`]->(y)"),
        ] {
            let q = format!(
                "MATCH (p:Span {{name: $n}}), (y:`{label}` {{name: $n}}) MATCH {from} WHERE x <> p \
                 MERGE {to} SET f += properties(e)"
            )
            .replace("{rel}", rel.as_str());
            store.run(graph, &q, vec![("n", str_param(name))]).await?;
        }
    }
    store.run(graph, "MATCH (p:Span {name: $n}) DETACH DELETE p", vec![("n", str_param(name))]).await?;
    Ok(())
}
