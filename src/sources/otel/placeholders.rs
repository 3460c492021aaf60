//! Parents that arrive after their children (docs/FORMATS.md "OpenTelemetry traces"): a
//! span whose parent (or linked span) is not in its request names it as a bare `Span`
//! placeholder, since what the parent does, and so its label, is not known yet. Once the
//! parent is stored under its own label, the placeholder's edges move to it, with their
//! properties, and the placeholder goes. A parent whose label is `Span` simply fills the
//! placeholder in.

use falkordb::FalkorValue;

use super::conventions::SPAN_LABELS;
use crate::error::Result;
use crate::model::{GraphDelta, Label};
use crate::store::placeholders::{fold_named, name_params, EdgeMove};
use crate::store::value::str_param;
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
/// `None`) that are now stored under their own label; returns those spans by label and name.
pub async fn fold_placeholders(
    store: &Store,
    graph: &str,
    names: Option<&[String]>,
) -> Result<Vec<(Label, String)>> {
    let found = match names {
        Some([]) => return Ok(Vec::new()),
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
    let names = name_params(&found);
    fold_named(store, graph, Label::Span, names, SPAN_LABELS, EdgeMove::Merge).await
}
