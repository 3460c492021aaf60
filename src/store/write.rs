//! Batched, idempotent upserts: one `UNWIND $rows … MERGE` part per label and per
//! (source label, relationship type, target label, kind) group. Small parts are chained
//! into one query (`… WITH count(*) AS c UNWIND …`) and queries are pipelined, because
//! FalkorDB's cost per query (about 0.3 ms) outweighs its cost per row when a live ingest
//! writes a few dozen rows every few milliseconds.

use std::collections::BTreeMap;

use falkordb::FalkorValue;
use serde::Serialize;

use super::raw::Upsert;
use super::value::{props_param, str_param};
use super::{Store, BATCH_ROWS};
use crate::error::{Error, Result};
use crate::model::vocab::{EdgeKind, Label, RelType, TgType, EXTRA_LABELS, PROV_BASE_TYPE, PROV_TYPE};
use crate::model::{Edge, GraphDelta, Node, Props};

/// What one write sent.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct WriteStats {
    pub nodes: u64,
    pub edges: u64,
    pub queries: u64,
}

/// The `prov:type` of an `Explain` node whose record has not said what it is.
const EXPLAIN_TYPE: &str = "tg:Explain";

/// The upsert of every node with one label, its rows in parameter `rows`. An `Explain`
/// node gets its default kinds on creation only: a placeholder written after the record
/// that named it must not overwrite what the record said.
fn node_query(label: Label, rows: &str) -> String {
    if label == Label::Explain {
        let base = label.base_type().as_str();
        return format!(
            "UNWIND ${rows} AS r MERGE (n:`{label}` {{name: r.name}}) \
             ON CREATE SET n.`{PROV_TYPE}` = '{EXPLAIN_TYPE}', n.`{PROV_BASE_TYPE}` = '{base}' SET n += r.props"
        );
    }
    format!("UNWIND ${rows} AS r MERGE (n:`{label}` {{name: r.name}}) SET n += r.props")
}

/// The upsert of every edge of one group, its rows in parameter `rows` and its kind in
/// `kind`. The edge's identity is its endpoints, type and kind property (`prov:base_type`
/// or `a2a:relation`), so a PROV edge and an A2A-derived edge of the same type between the
/// same nodes stay two edges.
fn edge_query(
    source: Label,
    rel: RelType,
    kind: EdgeKind,
    target: Label,
    rows: &str,
    kind_param: &str,
) -> String {
    let key = match kind.key() {
        Some((k, _)) => format!(" {{`{k}`: ${kind_param}}}"),
        None => String::new(),
    };
    format!(
        "UNWIND ${rows} AS r MATCH (a:`{source}` {{name: r.s}}) MATCH (b:`{target}` {{name: r.t}}) \
         MERGE (a)-[e:`{rel}`{key}]->(b) SET e += r.props"
    )
}

/// Parts of one phase (nodes, or edges) chained into queries of at most [`BATCH_ROWS`]
/// rows. The aggregate between two parts ends the first before the second starts, and
/// lets the second run when the first had no rows.
#[derive(Default)]
struct Chain {
    done: Vec<Upsert>,
    cypher: String,
    params: Vec<(String, String)>,
    rows: usize,
}

impl Chain {
    /// Adds a part; `query` builds its Cypher from the names of its parameters.
    fn add(
        &mut self,
        rows: &[FalkorValue],
        kind: Option<&str>,
        query: impl FnOnce(&str, &str) -> String,
    ) -> Result<()> {
        if self.rows > 0 && self.rows + rows.len() > BATCH_ROWS {
            self.cut();
        }
        let n = self.params.len();
        let (r, k) = (format!("r{n}"), format!("k{n}"));
        if !self.cypher.is_empty() {
            self.cypher.push_str(" WITH count(*) AS c ");
        }
        self.cypher.push_str(&query(&r, &k));
        self.params.push((r, literal(&FalkorValue::Array(rows.to_vec()))?));
        if let Some(kind) = kind {
            self.params.push((k, literal(&str_param(kind))?));
        }
        self.rows += rows.len();
        Ok(())
    }

    fn cut(&mut self) {
        if self.cypher.is_empty() {
            return;
        }
        self.done.push(Upsert {
            cypher: std::mem::take(&mut self.cypher),
            params: std::mem::take(&mut self.params),
            rows: std::mem::take(&mut self.rows),
        });
    }

    fn finish(mut self) -> Vec<Upsert> {
        self.cut();
        self.done
    }
}

fn literal(v: &FalkorValue) -> Result<String> {
    falkordb::to_cypher_param(v).map_err(|e| Error::Query(e.to_string()))
}

/// Node properties exactly as the `MERGE` path sets them.
pub(crate) fn node_props(label: Label, name: &str, props: &Props) -> Props {
    let mut props = props.clone();
    if label == Label::Explain {
        // Its kinds come from its record (`rdf:type`); these are the defaults of a node
        // only named so far (the upsert sets them on creation only, see `node_query`).
        props.entry(PROV_TYPE.into()).or_insert_with(|| EXPLAIN_TYPE.into());
        props.entry(PROV_BASE_TYPE.into()).or_insert_with(|| label.base_type().as_str().into());
    } else {
        props.insert(PROV_TYPE.into(), label.prov_type().into());
        props.insert(PROV_BASE_TYPE.into(), label.base_type().as_str().into());
    }
    props.insert("name".into(), name.into());
    props
}

/// Edge properties exactly as the `MERGE` path sets them (its kind's key included).
pub(crate) fn edge_props(kind: EdgeKind, props: &Props) -> Props {
    let mut props = props.clone();
    if let Some((k, v)) = kind.key() {
        props.insert(k.into(), v.into());
    }
    props
}

fn node_row(node: &Node) -> FalkorValue {
    let props = match node.label {
        // Its defaults are set on creation only (see `node_query`).
        Label::Explain => {
            let mut p = node.props.clone();
            p.insert("name".into(), node.name.as_str().into());
            p
        }
        label => node_props(label, &node.name, &node.props),
    };
    FalkorValue::Map(
        [("name".to_owned(), str_param(&node.name)), ("props".to_owned(), props_param(&props))]
            .into_iter()
            .collect(),
    )
}

fn edge_row(edge: &Edge) -> FalkorValue {
    let props = edge_props(edge.kind, &edge.props);
    FalkorValue::Map(
        [
            ("s".to_owned(), str_param(&edge.source.name)),
            ("t".to_owned(), str_param(&edge.target.name)),
            ("props".to_owned(), props_param(&props)),
        ]
        .into_iter()
        .collect(),
    )
}

impl Store {
    /// Creates the `name` index of every label once per graph (and per process).
    pub async fn ensure_indexes(&self, graph: &str) -> Result<()> {
        if self.indexed.lock().await.contains(graph) {
            return Ok(());
        }
        let (_, rows) = self
            .run_ro(graph, "CALL db.indexes() YIELD label, properties RETURN label, properties", vec![])
            .await
            .unwrap_or_default();
        let existing: Vec<String> = rows
            .iter()
            .filter(|r| matches!(r.get(1), Some(FalkorValue::Array(p)) if p.iter().any(|x| matches!(x, FalkorValue::String(s) if s == "name"))))
            .filter_map(|r| super::value::as_string(&r[0]))
            .collect();
        for label in Label::ALL {
            if existing.iter().any(|l| l == label.as_str()) {
                continue;
            }
            let q = format!("CREATE INDEX FOR (n:`{label}`) ON (n.name)");
            if let Err(e) = self.run_retrying(graph, &q, vec![]).await {
                if !e.to_string().contains("already indexed") {
                    return Err(e);
                }
            }
        }
        // Lookups the read views rely on, such as a span's trace (docs/FORMATS.md "OpenTelemetry traces").
        for (label, prop) in crate::model::indexes::property_indexes() {
            let has = |r: &Vec<FalkorValue>| {
                super::value::as_string(&r[0]).as_deref() == Some(label.as_str())
                    && matches!(r.get(1), Some(FalkorValue::Array(p)) if p.iter().any(|x| matches!(x, FalkorValue::String(s) if s == prop)))
            };
            if !rows.iter().any(has) {
                let q = format!("CREATE INDEX FOR (n:`{label}`) ON (n.`{prop}`)");
                if let Err(e) = self.run_retrying(graph, &q, vec![]).await {
                    if !e.to_string().contains("already indexed") {
                        return Err(e);
                    }
                }
            }
        }
        self.indexed.lock().await.insert(graph.to_owned());
        Ok(())
    }

    /// Writes a delta: nodes first, then edges, in queries of at most [`BATCH_ROWS`] rows,
    /// and returns once it is on disk ([`Store::commit`]). Every query is an upsert, so
    /// writing the same delta again changes nothing.
    pub async fn write(&self, graph: &str, delta: &GraphDelta) -> Result<WriteStats> {
        let batch = self.batch();
        let stats = self.write_unsynced(graph, delta).await?;
        self.commit(batch).await?;
        Ok(stats)
    }

    /// [`Store::write`] without the durability barrier, for a caller that writes many deltas
    /// and acknowledges them together: it takes a [`Store::batch`] before the first and
    /// calls [`Store::commit`] after the last.
    pub async fn write_unsynced(&self, graph: &str, delta: &GraphDelta) -> Result<WriteStats> {
        self.ensure_indexes(graph).await?;
        let (queries, stats) = upserts(delta)?;
        self.raw_write(graph, &queries).await?;
        Ok(stats)
    }

    /// [`Store::write_unsynced`] of a delta whose nodes name leaves of the graph's log, with
    /// the log append of those leaves ([`Store::log_append`]: `bytes` at hash index `at`)
    /// leading the same pipeline as the delta's first upserts: one round trip where two
    /// followed each other. The server runs a connection's commands in order and writes its
    /// append-only file in that order, so the leaves are still appended before the nodes are
    /// written. `false` when the append was refused (the log does not end at `at`): the
    /// upserts sent with it ran all the same, and the caller writes them again naming the
    /// leaves where they went.
    pub async fn log_append_and_write(
        &self,
        graph: &str,
        at: u64,
        bytes: &[u8],
        delta: &GraphDelta,
    ) -> Result<(bool, WriteStats)> {
        self.ensure_indexes(graph).await?;
        let (queries, stats) = upserts(delta)?;
        let mut end = queries.len().min(1);
        let mut rows = queries.first().map_or(0, |q| q.rows);
        while end < queries.len() && rows + queries[end].rows <= BATCH_ROWS {
            rows += queries[end].rows;
            end += 1;
        }
        let appended = self.log_append_with(graph, at, bytes, &queries[..end]).await?;
        if appended {
            self.raw_write(graph, &queries[end..]).await?;
        }
        Ok((appended, stats))
    }
}

/// A delta's upserts (nodes, their further labels, then edges) and what they write.
fn upserts(delta: &GraphDelta) -> Result<(Vec<Upsert>, WriteStats)> {
    let mut stats = WriteStats::default();

    let mut by_label: BTreeMap<Label, Vec<FalkorValue>> = BTreeMap::new();
    for node in delta.nodes() {
        by_label.entry(node.label).or_default().push(node_row(node));
    }
    let mut nodes = Chain::default();
    for (label, rows) in by_label {
        for batch in rows.chunks(BATCH_ROWS) {
            stats.nodes += batch.len() as u64;
            nodes.add(batch, None, |r, _| node_query(label, r))?;
        }
    }

    type Group = (Label, RelType, EdgeKind, Label);
    let mut by_group: BTreeMap<Group, Vec<FalkorValue>> = BTreeMap::new();
    for edge in delta.edges() {
        let g = (edge.source.label, edge.rel, edge.kind, edge.target.label);
        by_group.entry(g).or_default().push(edge_row(edge));
    }
    let mut edges = Chain::default();
    for ((source, rel, kind, target), rows) in by_group {
        for batch in rows.chunks(BATCH_ROWS) {
            stats.edges += batch.len() as u64;
            let kind_value = kind.key().map(|(_, v)| v);
            edges.add(batch, kind_value, |r, k| edge_query(source, rel, kind, target, r, k))?;
        }
    }
    let mut queries = nodes.finish();
    queries.extend(extra_labels(delta)?);
    queries.extend(edges.finish());
    stats.queries = queries.len() as u64;
    Ok((queries, stats))
}

/// The queries that give nodes their further labels ([`EXTRA_LABELS`]: [`TgType`] names; any
/// other text is ignored), one per label set: labels cannot be parameters, so they come
/// from the vocabulary only.
fn extra_labels(delta: &GraphDelta) -> Result<Vec<Upsert>> {
    let mut by_set: BTreeMap<(Label, Vec<TgType>), Vec<FalkorValue>> = BTreeMap::new();
    for node in delta.nodes() {
        let set = further_labels(node);
        if !set.is_empty() {
            by_set.entry((node.label, set)).or_default().push(str_param(&node.name));
        }
    }
    let mut chain = Chain::default();
    for ((label, set), names) in by_set {
        let labels: String = set.iter().map(|t| format!(":`{t}`")).collect();
        // Setting a label costs FalkorDB a matrix update per node: not again on re-ingest.
        let has: String = set.iter().map(|t| format!("n:`{t}`")).collect::<Vec<_>>().join(" AND ");
        for batch in names.chunks(BATCH_ROWS) {
            chain.add(batch, None, |r, _| {
                format!("UNWIND ${r} AS x MATCH (n:`{label}` {{name: x}}) WHERE NOT ({has}) SET n{labels}")
            })?;
        }
    }
    Ok(chain.finish())
}

/// A node's further labels ([`EXTRA_LABELS`] that name a [`TgType`]), sorted.
pub(crate) fn further_labels(node: &Node) -> Vec<TgType> {
    let Some(crate::model::PropValue::List(items)) = node.props.get(EXTRA_LABELS) else { return Vec::new() };
    let mut set: Vec<TgType> = items.iter().filter_map(|v| v.as_str().and_then(TgType::parse)).collect();
    set.sort();
    set.dedup();
    set
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::vocab::ProvRelation;

    fn rows(n: usize) -> Vec<FalkorValue> {
        (0..n).map(|i| FalkorValue::String(format!("n{i}"))).collect()
    }

    #[test]
    fn small_parts_chain_into_one_query_with_their_own_parameters() {
        let mut chain = Chain::default();
        chain.add(&rows(2), None, |r, _| node_query(Label::LlmCall, r)).unwrap();
        let kind = EdgeKind::Prov(ProvRelation::Used);
        chain
            .add(&rows(3), Some("USED"), |r, k| {
                edge_query(Label::LlmCall, RelType::WasUsedBy, kind, Label::ToolCall, r, k)
            })
            .unwrap();
        let queries = chain.finish();
        assert_eq!(queries.len(), 1);
        let q = &queries[0];
        assert_eq!(q.rows, 5);
        assert_eq!(q.cypher.matches(" WITH count(*) AS c ").count(), 1);
        assert!(q.cypher.starts_with("UNWIND $r0 AS r MERGE (n:`LlmCall`"), "{}", q.cypher);
        assert!(q.cypher.contains("UNWIND $r1 AS r MATCH (a:`LlmCall`"), "{}", q.cypher);
        assert!(q.cypher.contains("{`prov:base_type`: $k1}"), "{}", q.cypher);
        let names: Vec<&str> = q.params.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["r0", "r1", "k1"]);
        assert_eq!(q.params[2].1, "'USED'");
    }

    #[test]
    fn chains_are_cut_at_the_batch_size() {
        let mut chain = Chain::default();
        for _ in 0..3 {
            chain.add(&rows(BATCH_ROWS / 2), None, |r, _| node_query(Label::Artifact, r)).unwrap();
        }
        chain.add(&rows(BATCH_ROWS), None, |r, _| node_query(Label::Artifact, r)).unwrap();
        let sizes: Vec<usize> = chain.finish().iter().map(|q| q.rows).collect();
        assert_eq!(sizes, [BATCH_ROWS, BATCH_ROWS / 2, BATCH_ROWS]);
    }
}
