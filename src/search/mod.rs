//! Search across graphs: a claim's text, a quote, an agent, a document, a trace or span id,
//! a prompt, answered with the graph and the node, from one index that the write path keeps
//! current (`indexer.rs`) rather than a scan of every graph per query. The index is a graph
//! of Provex's own (`store::reserved`, hidden from every list of graphs; `index.rs`); what
//! it holds of a node is in `items.rs`; what a search text may be is in `query.rs`.

pub mod fresh;
pub mod index;
pub mod indexer;
pub mod items;
pub mod query;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::error::Result;
use crate::store::canvas_reads::VIEW_TEXT_KEYS;
use crate::store::raw::{int, string};
use crate::store::Store;
pub use indexer::Indexer;
pub use query::{parse, Query, MAX_QUERY_CHARS, MAX_WORDS};

/// Hits a search gives unless asked otherwise.
pub const DEFAULT_HITS: u32 = 50;
/// Most hits a search may ask for.
pub const MAX_HITS: u32 = 200;
/// Characters of context either side of the first matched word in a snippet.
const SNIPPET_CONTEXT: usize = 60;
/// Nodes read per query when the index is rebuilt.
const REINDEX_PAGE: i64 = 5_000;

/// A node found by a search across graphs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct GraphHit {
    pub graph: String,
    /// The node's name (a trace's hit: its root span).
    pub id: String,
    /// What it is: `claim`, `quote`, `agent`, `document`, `prompt`, `message`, `span`,
    /// `trace`, … (a node of no such kind: `node`).
    pub kind: String,
    pub label: String,
    /// Its text around the first word that matched, or its id.
    pub snippet: String,
    /// `id` when the search text is its id (a node's name, a trace or span id), `text` when
    /// its words matched.
    pub matched: String,
}

/// A snippet of `text` around the first of `words` it holds (any case), cut at
/// [`SNIPPET_CONTEXT`] characters either side.
pub fn snippet(text: &str, words: &[String]) -> String {
    let chars: Vec<char> = text.chars().collect();
    let lower: Vec<char> = chars.iter().map(|c| c.to_lowercase().next().unwrap_or(*c)).collect();
    let at = words
        .iter()
        .filter_map(|w| {
            let w: Vec<char> = w.chars().collect();
            (!w.is_empty() && w.len() <= lower.len())
                .then(|| lower.windows(w.len()).position(|win| win == w.as_slice()))
                .flatten()
        })
        .min()
        .unwrap_or(0);
    let start = at.saturating_sub(SNIPPET_CONTEXT);
    let end = (at + 2 * SNIPPET_CONTEXT).min(chars.len());
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.extend(chars[start..end].iter().map(|c| if c.is_whitespace() { ' ' } else { *c }));
    if end < chars.len() {
        out.push('…');
    }
    out.trim().to_owned()
}

/// Searches every graph through the index: the hits whose id is the text, then those whose
/// words match it, best first, at most `limit` (1 to [`MAX_HITS`]).
pub async fn search_all(store: &Store, text: &str, limit: u32) -> Result<Vec<GraphHit>> {
    let query = parse(text)?;
    if query.is_empty() {
        return Ok(Vec::new());
    }
    let limit = limit.clamp(1, MAX_HITS) as usize;
    let found = index::find(store, &query, limit).await?;
    Ok(found
        .into_iter()
        .map(|f| {
            let snippet = match f.text.as_deref() {
                Some(t) if !t.is_empty() => snippet(t, &query.words),
                _ => f.node.clone(),
            };
            GraphHit {
                graph: f.graph,
                id: f.node,
                kind: f.kind,
                label: f.label,
                snippet,
                matched: if f.exact { "id" } else { "text" }.to_owned(),
            }
        })
        .collect())
}

/// Rebuilds one graph's part of the index from what the graph holds: its items removed,
/// then every node read again, a page at a time. How many items it now has.
pub async fn reindex_graph(store: &Store, graph: &str) -> Result<u64> {
    index::ensure_schema(store).await?;
    index::remove_graph(store, Some(graph)).await?;
    let keys: Vec<&str> = VIEW_TEXT_KEYS
        .iter()
        .copied()
        .chain([crate::model::indexes::OTEL_TRACE_ID, items::OTEL_SPAN_ID, items::OTEL_PARENT_SPAN_ID])
        .collect();
    let columns: Vec<String> = keys.iter().map(|k| format!("n.`{k}`")).collect();
    let max = store.raw_ro(graph, "MATCH (n) RETURN max(id(n))", &[]).await?;
    let max = max.first().and_then(|r| r.first()).and_then(int).unwrap_or(-1);
    let q = format!(
        "MATCH (n) WHERE id(n) >= $from AND id(n) < $to RETURN n.name, labels(n)[0], {}",
        columns.join(", ")
    );
    let mut written = 0;
    let mut from = 0;
    while from <= max {
        let params = [("from", from.to_string()), ("to", (from + REINDEX_PAGE).to_string())];
        let rows = store.raw_ro(graph, &q, &params).await?;
        let mut batch = Vec::with_capacity(rows.len());
        for r in &rows {
            let (Some(name), Some(label)) = (r.first().and_then(string), r.get(1).and_then(string)) else {
                continue;
            };
            let get = |k: &str| keys.iter().position(|x| *x == k).and_then(|i| r.get(i + 2)).and_then(string);
            batch.push(items::node_item(graph, &name, &label, get));
        }
        index::upsert(store, &batch).await?;
        written += batch.len() as u64;
        from += REINDEX_PAGE;
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::snippet;

    #[test]
    fn a_snippet_centres_on_the_first_word_found() {
        let text = format!("{} the Park opens in May {}", "a".repeat(100), "b".repeat(200));
        let s = snippet(&text, &["park".to_owned()]);
        assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
        assert!(s.contains("the Park opens in May"), "{s}");
        assert_eq!(snippet("short\ntext", &["nothing".to_owned()]), "short text");
        assert_eq!(snippet("İİİ needle", &["needle".to_owned()]), "İİİ needle");
        assert_eq!(snippet("", &[]), "");
    }
}
