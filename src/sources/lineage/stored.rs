//! Prompt lineage as the graph stores it: the columns read back, their rows as views, and the
//! [`Book`] of every prompt and evolution a graph holds, which an ingest of lineage records
//! checks against (loaded once, before the records are read).

use std::sync::Arc;

use serde_json::Value;
use uuid::Uuid;

use self::string as s;
use super::book::{Evolution, Known};
use super::views::{EvolutionView, PromptView};
use super::{Book, EvolutionType, Version};
use crate::error::Result;
use crate::model::vocab::PROV_BASE_TYPE;
use crate::store::Store;

/// Node ids read per query when loading a whole graph's lineages.
const SLICE: i64 = 200_000;

/// The columns of a prompt as [`prompt_row`] reads them (`p` the prompt).
pub const PROMPT_COLUMNS: &str =
    "p.id, p.lineage_id, p.version, p.timestamp, p.chain_position, p.is_root, p.is_head, p.branch, p.model, p.content";

/// The columns of an evolution as [`edge_row`] reads them (`c` the child, `p` the parent).
pub const EDGE_COLUMNS: &str = "c.id, p.id, e.`lineage:evolution_type`, type(e), e.`lineage:confidence`, \
     e.`lineage:similarity_score`, e.`lineage:reason`, e.created_at, e.`lineage:primary`";

/// A stored value as text (a number written out; nothing for an empty string).
pub fn string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn b(v: &Value) -> bool {
    matches!(v, Value::Bool(true)) || v.as_str() == Some("true") || v.as_i64() == Some(1)
}

fn f(v: &Value) -> Option<f64> {
    v.as_f64().or_else(|| v.as_str().and_then(|s| s.parse().ok()))
}

/// A prompt from a row of [`PROMPT_COLUMNS`].
pub fn prompt_row(r: &[Value]) -> Option<PromptView> {
    Some(PromptView {
        id: s(r.first()?)?,
        lineage_id: s(&r[1]).unwrap_or_default(),
        version: s(&r[2]).unwrap_or_default(),
        timestamp: s(&r[3]).unwrap_or_default(),
        chain_position: r[4].as_u64().unwrap_or(0) as u32,
        is_root: b(&r[5]),
        is_head: b(&r[6]),
        branch: s(&r[7]),
        model: s(&r[8]),
        content: s(&r[9]),
    })
}

/// An evolution from a row of [`EDGE_COLUMNS`].
pub fn edge_row(r: &[Value]) -> Option<EvolutionView> {
    Some(EvolutionView {
        child: s(r.first()?)?,
        parent: s(&r[1])?,
        evolution_type: s(&r[2]).unwrap_or_default(),
        relation: s(&r[3]).unwrap_or_default(),
        confidence: f(&r[4]),
        similarity_score: f(&r[5]),
        reason: s(&r[6]),
        created_at: s(&r[7]),
        primary: r.get(8).is_none_or(|v| !matches!(v, Value::Bool(false)) && v.as_str() != Some("false")),
    })
}

fn version(text: &str) -> Version {
    let mut it = text.split('.').map(|p| p.parse::<u16>().unwrap_or(0));
    Version { major: it.next().unwrap_or(1), minor: it.next().unwrap_or(0), patch: it.next().unwrap_or(0) }
}

/// Every prompt and evolution `graph` holds (an empty book for a graph that does not exist).
pub async fn load_book(store: &Store, graph: &str) -> Result<Book> {
    let mut book = Book::new();
    if !store.graphs_list().await?.iter().any(|g| g == graph) {
        return Ok(book);
    }
    let max = store.compact_ro(graph, "MATCH (n) RETURN max(id(n))").await?;
    let max = max.first().and_then(|r| r.first()).and_then(Value::as_i64).unwrap_or(-1);
    let mut edges = Vec::new();
    let mut lo = 0;
    while lo <= max {
        let hi = lo + SLICE;
        let q = format!(
            "MATCH (p:Prompt) WHERE id(p) >= {lo} AND id(p) < {hi} AND p.lineage_id IS NOT NULL RETURN {PROMPT_COLUMNS}"
        );
        for r in store.compact_ro(graph, &q).await? {
            if let Some((id, known)) = prompt_row(&r).and_then(known) {
                book.add_prompt(id, known);
            }
        }
        let q = format!(
            "MATCH (c:Prompt)-[e]->(p:Prompt) WHERE id(c) >= {lo} AND id(c) < {hi} AND e.`{PROV_BASE_TYPE}` = 'WAS_DERIVED_FROM' RETURN {EDGE_COLUMNS}"
        );
        edges.extend(store.compact_ro(graph, &q).await?.iter().filter_map(|r| edge_row(r)));
        lo = hi;
    }
    for e in edges {
        let (Ok(child), Ok(parent)) = (Uuid::parse_str(&e.child), Uuid::parse_str(&e.parent)) else {
            continue;
        };
        let kind = EvolutionType::parse(&e.evolution_type).unwrap_or(EvolutionType::Evolves);
        if let Err(err) = book.add_evolution(Evolution { child, parent, kind, primary: e.primary }) {
            tracing::warn!("graph {graph}: a stored evolution is refused: {err}");
        }
    }
    Ok(book)
}

/// A stored prompt as the book knows it (`None` when its ids or time do not read).
fn known(p: PromptView) -> Option<(Uuid, Known)> {
    let (Ok(id), Ok(lineage)) = (Uuid::parse_str(&p.id), Uuid::parse_str(&p.lineage_id)) else {
        return None;
    };
    let ts = chrono::DateTime::parse_from_rfc3339(&p.timestamp).ok()?;
    let known = Known {
        lineage,
        timestamp: ts.to_utc(),
        version: version(&p.version),
        position: p.chain_position,
        content: Arc::from(p.content.unwrap_or_default()),
        children: 0,
        root: p.is_root,
    };
    Some((id, known))
}
