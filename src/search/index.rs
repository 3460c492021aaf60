//! The cross-graph search index as stored: one FalkorDB graph of Provex's own
//! ([`SEARCH_GRAPH`], hidden from every list of graphs), one `Item` node per indexed thing,
//! with exact-match indexes on its ids and its graph and a full-text index on its words. A
//! search is three index lookups and one full-text query, whatever the number of graphs;
//! a graph's items are removed with it.

use falkordb::FalkorValue;
use redis::Value;

use super::items::Item;
use super::query::Query;
use crate::error::{Error, Result};
use crate::store::raw::{int, string};
use crate::store::reserved::SEARCH_GRAPH;
use crate::store::Store;

/// The label of the index's nodes.
const ITEM: &str = "Item";
/// Server-side time limit of a search's queries, in milliseconds.
pub const SEARCH_TIMEOUT_MS: i64 = 2_000;
/// Server-side time limit of the index's writes, in milliseconds.
const WRITE_TIMEOUT_MS: i64 = crate::store::QUERY_TIMEOUT_MS;
/// Rows per write.
pub const WRITE_ROWS: usize = 2_000;
/// Items removed per query when a graph is deleted (each query well under its time limit).
const DELETE_ROWS: usize = 10_000;

/// One item found: where, what, its text, and how it matched.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub graph: String,
    pub node: String,
    pub kind: String,
    pub label: String,
    pub text: Option<String>,
    /// Matched by an id, exactly (else by its words).
    pub exact: bool,
}

fn literal(v: &FalkorValue) -> Result<String> {
    falkordb::to_cypher_param(v).map_err(|e| Error::Query(e.to_string()))
}

fn opt_str(v: Option<&str>) -> FalkorValue {
    v.map_or(FalkorValue::None, |s| FalkorValue::String(s.to_owned()))
}

/// Creates the index's graph and its indexes (again is harmless).
pub async fn ensure_schema(store: &Store) -> Result<()> {
    let mut queries: Vec<String> = ["uid", "key", "alt", "graph", "trace"]
        .iter()
        .map(|p| format!("CREATE INDEX FOR (i:{ITEM}) ON (i.{p})"))
        .collect();
    // No stop words: "the" or "a" in a claim is searched like any word. (An index made
    // before names' words were an item's own holds `node` as well: it finds the same.)
    queries.push(format!(
        "CALL db.idx.fulltext.createNodeIndex({{label: '{ITEM}', stopwords: []}}, 'text', 'words')"
    ));
    for q in queries {
        match store.reserved_schema(SEARCH_GRAPH, &q, WRITE_TIMEOUT_MS).await {
            Ok(()) => {}
            Err(Error::Query(m)) if m.contains("already indexed") || m.contains("already exists") => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// An item as one row of a write's parameter.
fn item_row(i: &Item) -> FalkorValue {
    FalkorValue::Map(
        [
            ("u", FalkorValue::String(i.uid.clone())),
            ("g", FalkorValue::String(i.graph.clone())),
            ("n", FalkorValue::String(i.node.clone())),
            ("k", FalkorValue::String(i.kind.to_owned())),
            ("l", FalkorValue::String(i.label.clone())),
            ("key", FalkorValue::String(i.key.clone())),
            ("alt", opt_str(i.alt.as_deref())),
            ("t", opt_str(i.text.as_deref())),
            ("w", opt_str(i.words.as_deref())),
            ("tr", opt_str(i.trace.as_deref())),
            ("root", i.root.map_or(FalkorValue::None, FalkorValue::Bool)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect(),
    )
}

/// Writes items (a new one is added, one already there takes the new values; a write that
/// carries no text, or a placeholder's unknown root, keeps what the item has).
pub async fn upsert(store: &Store, items: &[Item]) -> Result<()> {
    for chunk in items.chunks(WRITE_ROWS) {
        let rows: Vec<FalkorValue> = chunk.iter().map(item_row).collect();
        let q = format!(
            "UNWIND $rows AS r MERGE (i:{ITEM} {{uid: r.u}}) \
             ON CREATE SET i.graph = r.g, i.node = r.n, i.key = r.key \
             SET i.kind = r.k, i.label = r.l, i.alt = coalesce(r.alt, i.alt), \
             i.text = coalesce(r.t, i.text), i.words = coalesce(r.w, i.words), \
             i.trace = coalesce(r.tr, i.trace), i.root = coalesce(r.root, i.root)"
        );
        let params = [("rows", literal(&FalkorValue::Array(rows))?)];
        store.reserved_query(SEARCH_GRAPH, &q, &params, true, WRITE_TIMEOUT_MS).await?;
    }
    Ok(())
}

/// Adds items known to be new to the index (no item has their `uid`), each once: a
/// `CREATE` of each, without looking each up as [`upsert`] does. A page's rows are lists,
/// not maps (no key per value to write or for the server to parse), and the next page is
/// encoded while the server writes the one before.
pub async fn create(store: &Store, items: Vec<Item>) -> Result<()> {
    let q = format!(
        "UNWIND $rows AS r CREATE (i:{ITEM} {{uid: r[0], graph: r[1], node: r[2], kind: r[3], \
         label: r[4], key: r[5], alt: r[6], text: r[7], words: r[8], trace: r[9], root: r[10] = 'y'}})"
    );
    let mut pages = pages(items).into_iter();
    let Some(first) = pages.next() else { return Ok(()) };
    let mut rows = create_rows(&first)?;
    loop {
        let params = [("rows", rows)];
        let next = pages.next();
        let write = store.reserved_query(SEARCH_GRAPH, &q, &params, true, WRITE_TIMEOUT_MS);
        let encode = async move {
            match next {
                Some(page) => tokio::task::spawn_blocking(move || create_rows(&page))
                    .await
                    .map(Some)
                    .map_err(|e| Error::Server(format!("encoding the search index's rows: {e}"))),
                None => Ok(None),
            }
        };
        let (written, encoded) = tokio::join!(write, encode);
        written?;
        match encoded?.transpose()? {
            Some(next) => rows = next,
            None => return Ok(()),
        }
    }
}

/// Items cut into pages of at most [`WRITE_ROWS`], each a write.
fn pages(items: Vec<Item>) -> Vec<Vec<Item>> {
    let mut out = Vec::with_capacity(items.len().div_ceil(WRITE_ROWS));
    let mut items = items.into_iter().peekable();
    while items.peek().is_some() {
        out.push(items.by_ref().take(WRITE_ROWS).collect());
    }
    out
}

/// The rows of a [`create`]: each item as the list `[uid, graph, node, kind, label, key,
/// alt, text, words, trace, root]` (a missing one is null: the property is not set; a
/// span's root is `"y"` or `"n"`, which the query reads back as a boolean).
fn create_rows(items: &[Item]) -> Result<String> {
    let rows: Vec<[Option<&str>; 11]> = items
        .iter()
        .map(|i| {
            [
                Some(i.uid.as_str()),
                Some(i.graph.as_str()),
                Some(i.node.as_str()),
                Some(i.kind),
                Some(i.label.as_str()),
                Some(i.key.as_str()),
                i.alt.as_deref(),
                i.text.as_deref(),
                i.words.as_deref(),
                i.trace.as_deref(),
                i.root.map(|r| if r { "y" } else { "n" }),
            ]
        })
        .collect();
    falkordb::to_cypher_param(&rows).map_err(|e| Error::Query(e.to_string()))
}

/// Whether the index holds any item of `graph`.
pub async fn has_items(store: &Store, graph: &str) -> Result<bool> {
    let q = format!("MATCH (i:{ITEM} {{graph: $g}}) RETURN 1 LIMIT 1");
    let params = [("g", literal(&FalkorValue::String(graph.to_owned()))?)];
    let rows = store.reserved_query(SEARCH_GRAPH, &q, &params, false, WRITE_TIMEOUT_MS).await?;
    Ok(!rows.is_empty())
}

/// Removes every item of a graph (`None`: of every graph); how many were removed.
pub async fn remove_graph(store: &Store, graph: Option<&str>) -> Result<u64> {
    let (q, params) = match graph {
        Some(g) => (
            format!("MATCH (i:{ITEM} {{graph: $g}}) WITH i LIMIT {DELETE_ROWS} DELETE i RETURN count(i)"),
            vec![("g", literal(&FalkorValue::String(g.to_owned()))?)],
        ),
        None => (format!("MATCH (i:{ITEM}) WITH i LIMIT {DELETE_ROWS} DELETE i RETURN count(i)"), vec![]),
    };
    let mut removed = 0;
    loop {
        let rows = store.reserved_query(SEARCH_GRAPH, &q, &params, true, WRITE_TIMEOUT_MS).await?;
        let n = rows.first().and_then(|r| r.first()).and_then(int).unwrap_or(0) as u64;
        removed += n;
        if n < DELETE_ROWS as u64 {
            return Ok(removed);
        }
    }
}

/// How many items the index holds for `graph`.
pub async fn count(store: &Store, graph: &str) -> Result<u64> {
    let q = format!("MATCH (i:{ITEM} {{graph: $g}}) RETURN count(i)");
    let params = [("g", literal(&FalkorValue::String(graph.to_owned()))?)];
    let rows = store.reserved_query(SEARCH_GRAPH, &q, &params, false, SEARCH_TIMEOUT_MS).await?;
    Ok(rows.first().and_then(|r| r.first()).and_then(int).unwrap_or(0) as u64)
}

const RETURNED: &str = "i.graph, i.node, i.kind, i.label, i.text";

fn found(row: &[Value], exact: bool) -> Option<Found> {
    Some(Found {
        graph: string(row.first()?)?,
        node: string(row.get(1)?)?,
        kind: row.get(2).and_then(string).unwrap_or_default(),
        label: row.get(3).and_then(string).unwrap_or_default(),
        text: row.get(4).and_then(string),
        exact,
    })
}

/// Items whose id is `query`'s text exactly (a name, a span's or a name's id, a trace's),
/// then those whose words match it (best first), at most `limit`, each node once.
pub async fn find(store: &Store, query: &Query, limit: usize) -> Result<Vec<Found>> {
    let mut out: Vec<Found> = Vec::new();
    if let Some(exact) = &query.exact {
        let params = [("q", literal(&FalkorValue::String(exact.clone()))?)];
        for field in ["key", "alt"] {
            let q = format!("MATCH (i:{ITEM}) WHERE i.{field} = $q RETURN {RETURNED} ORDER BY i.graph, i.node LIMIT {limit}");
            let rows = store.reserved_query(SEARCH_GRAPH, &q, &params, false, SEARCH_TIMEOUT_MS).await?;
            out.extend(rows.iter().filter_map(|r| found(r, true)));
        }
        // A trace id: in each graph, the trace's root span, or its first span written.
        let q = format!(
            "MATCH (i:{ITEM}) WHERE i.trace = $q \
             WITH i.graph AS g, collect(i) AS spans, min(id(i)) AS first \
             WITH head([s IN spans WHERE s.root = true] + [s IN spans WHERE id(s) = first]) AS i \
             RETURN i.graph, i.node, 'trace', i.label, null ORDER BY i.graph LIMIT {limit}"
        );
        let rows = store.reserved_query(SEARCH_GRAPH, &q, &params, false, SEARCH_TIMEOUT_MS).await?;
        out.extend(rows.iter().filter_map(|r| found(r, true)));
    }
    if let Some(text) = query.fulltext() {
        let params = [("q", literal(&FalkorValue::String(text))?)];
        let q = format!(
            "CALL db.idx.fulltext.queryNodes('{ITEM}', $q) YIELD node, score \
             WITH node AS i, score RETURN {RETURNED} ORDER BY score DESC, i.graph, i.node LIMIT {limit}"
        );
        match store.reserved_query(SEARCH_GRAPH, &q, &params, false, SEARCH_TIMEOUT_MS).await {
            Ok(rows) => out.extend(rows.iter().filter_map(|r| found(r, false))),
            // Before the first item there is no full-text index to ask.
            Err(Error::Query(m)) if m.to_ascii_lowercase().contains("no such index") => {}
            Err(e) => return Err(e),
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|f| seen.insert((f.graph.clone(), f.node.clone())));
    out.truncate(limit);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(n: usize, text: Option<&str>) -> Item {
        Item {
            uid: format!("g\u{1f}n{n}"),
            graph: "g".into(),
            node: format!("n{n}"),
            kind: "node",
            label: "Artifact".into(),
            key: format!("n{n}"),
            alt: None,
            text: text.map(str::to_owned),
            words: Some(format!("n{n}")),
            trace: None,
            root: None,
        }
    }

    #[test]
    fn created_rows_are_lists_in_the_order_the_query_reads_them() {
        let mut it = item(1, Some("it's \\ a\nclaim"));
        it.alt = Some("0a".into());
        let mut span = item(3, None);
        (span.kind, span.trace, span.root) = ("span", Some("ab".into()), Some(false));
        let rows = create_rows(&[it, item(2, None), span]).unwrap();
        assert_eq!(
            rows,
            "[['g\u{1f}n1', 'g', 'n1', 'node', 'Artifact', 'n1', '0a', 'it\\'s \\\\ a\\nclaim', 'n1', null, null], \
             ['g\u{1f}n2', 'g', 'n2', 'node', 'Artifact', 'n2', null, null, 'n2', null, null], \
             ['g\u{1f}n3', 'g', 'n3', 'span', 'Artifact', 'n3', null, null, 'n3', 'ab', 'n']]"
        );
        let sizes: Vec<usize> =
            pages((0..2 * WRITE_ROWS + 1).map(|n| item(n, None)).collect()).iter().map(Vec::len).collect();
        assert_eq!(sizes, [WRITE_ROWS, WRITE_ROWS, 1]);
        assert!(pages(Vec::new()).is_empty());
    }
}
