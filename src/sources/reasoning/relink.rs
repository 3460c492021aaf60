//! One evidence chain across sources, in the graph itself: a TrustGraph step
//! that names a node of another source (an A2AP statement its answer derives from, a fact's
//! source) gets its edge to that node, not to a placeholder of its own with the same name.
//! Names are unique in a graph, so a placeholder is made only for what no source holds yet,
//! and one is absorbed into the real node when that node arrives later. The ingest
//! pipeline runs [`relink`] on each batch before it is written and
//! [`absorb_placeholders`] after a batch of other sources is.

use std::collections::HashMap;

use falkordb::FalkorValue;

use crate::error::Result;
use crate::model::{GraphDelta, Label, NodeRef};
use crate::store::placeholders::{fold_named, name_params, EdgeMove};
use crate::store::value::{as_string, str_param};
use crate::store::Store;

/// The labels of other sources a TrustGraph step may name, looked up by name (indexed).
pub const OTHER_SOURCES: &[Label] = &[
    Label::Statement,
    Label::Chunk,
    Label::Document,
    Label::Source,
    Label::Agent,
    Label::Verification,
    Label::Entity,
    Label::Activity,
    Label::Prompt,
    Label::Artifact,
    Label::Message,
];

/// `delta` with its bare `Explain` placeholders for names the graph already holds under
/// another label replaced by those nodes.
pub async fn relink(store: &Store, graph: &str, delta: GraphDelta) -> Result<GraphDelta> {
    let names: Vec<String> = delta
        .nodes()
        .filter(|n| n.label == Label::Explain && n.props.is_empty() && !n.name.starts_with("urn:trustgraph:"))
        .map(|n| n.name.clone())
        .collect();
    if names.is_empty() || !store.graphs_list().await?.iter().any(|g| g == graph) {
        return Ok(delta);
    }
    let list = FalkorValue::Array(names.iter().map(|n| str_param(n)).collect());
    let mut found: HashMap<String, Label> = HashMap::new();
    for label in OTHER_SOURCES {
        let q = format!("MATCH (y:`{label}`) WHERE y.name IN $names RETURN y.name");
        let (_, rows) = store.run_ro(graph, &q, vec![("names", list.clone())]).await?;
        for r in rows {
            if let Some(n) = r.first().and_then(as_string) {
                found.entry(n).or_insert(*label);
            }
        }
    }
    if found.is_empty() {
        return Ok(delta);
    }
    let (nodes, edges) = delta.into_parts();
    let mut out = GraphDelta::with_capacity(nodes.len(), edges.len());
    for n in nodes {
        if !(n.label == Label::Explain && n.props.is_empty() && found.contains_key(&n.name)) {
            out.add_node(n);
        }
    }
    let retarget = |r: NodeRef| match (r.label, found.get(&r.name)) {
        (Label::Explain, Some(l)) => NodeRef::new(*l, r.name),
        _ => r,
    };
    for mut e in edges {
        e.source = retarget(e.source);
        e.target = retarget(e.target);
        out.add_edge(e);
    }
    Ok(out)
}

/// Whether `graph` exists and holds `Explain` nodes (false when it cannot tell).
pub async fn has_explain(store: &Store, graph: &str) -> bool {
    match store.run_ro(graph, "MATCH (p:Explain) RETURN p.name LIMIT 1", vec![]).await {
        Ok((_, rows)) => !rows.is_empty(),
        Err(_) => false,
    }
}

/// Folds bare `Explain` placeholders into the nodes of other sources that now hold their
/// names (a statement that arrived after the explain stream naming it): the placeholder's
/// edges move to the real node, with their properties, and the placeholder goes. Returns
/// the nodes they were folded into, by label and name. A placeholder has no properties but
/// its name and default kinds.
pub async fn absorb_placeholders(store: &Store, graph: &str) -> Result<Vec<(Label, String)>> {
    let rows = store
        .run(
            graph,
            "MATCH (p:Explain) WHERE size(keys(p)) <= 3 AND p.`tg:session` IS NULL \
             AND p.`provex:labels` IS NULL RETURN p.name LIMIT 100000",
            vec![],
        )
        .await?;
    fold_named(store, graph, Label::Explain, name_params(&rows), OTHER_SOURCES, EdgeMove::Create).await
}
