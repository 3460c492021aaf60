//! Batched, idempotent upserts: `UNWIND $rows …` parts per label (a node is created with its
//! properties, or set when it is there) and `MERGE` parts per (source label, relationship
//! type, target label, kind) group, one per set of property names
//! (`shapes.rs`: properties set one by one, not from a map per row). Small parts are chained
//! into one query (`… WITH count(*) AS c UNWIND …`) and queries are pipelined, because
//! FalkorDB's cost per query (about 0.3 ms) outweighs its cost per row when a live ingest
//! writes a few dozen rows every few milliseconds.

use std::collections::BTreeMap;

use falkordb::FalkorValue;
use serde::Serialize;

use super::raw::Upsert;
use super::shapes::{self, Row};
use super::{Store, BATCH_ROWS};
use crate::error::Result;
use crate::model::vocab::{
    EdgeKind, Label, RelType, TgType, A2A_RELATION, EXTRA_LABELS, PROV_BASE_TYPE, PROV_TYPE,
};
use crate::model::{Edge, GraphDelta, Node, PropValue, Props};

/// What one write sent.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct WriteStats {
    pub nodes: u64,
    pub edges: u64,
    pub queries: u64,
}

/// The `prov:type` of an `Explain` node whose record has not said what it is.
const EXPLAIN_TYPE: &str = "tg:Explain";

/// The upsert of every node with one label, its rows in parameter `rows` (`[name, values…]`)
/// and `set` setting their properties ([`shapes::parts`]). A node other than an `Explain`
/// gets its label's kinds on every write; an `Explain` node gets its default kinds on creation
/// only: a placeholder written after the record that named it must not overwrite what the
/// record said.
///
/// With `props` (the same properties as a map's entries) a node not there yet is created
/// with its properties, and only a node already there is `SET`: FalkorDB updates a node's
/// indexes after a `SET` by reading its labels, which first merges every label it has
/// written but not yet sorted into its matrices, so a `MERGE … SET` of new nodes paid for
/// that merge (it grows with the graph) on each write (`bench/ui`'s stream at 1,000
/// events/s: 40% of FalkorDB's CPU in GraphBLAS's sort and add). A delta names each node
/// once, so no row creates what an earlier row of the same write created.
fn node_query(label: Label, rows: &str, set: &str, props: Option<&str>) -> String {
    let base = label.base_type().as_str();
    let Some(props) = props else {
        let mut q = format!("UNWIND ${rows} AS r MERGE (n:`{label}` {{name: r[0]}})");
        if label == Label::Explain {
            q.push_str(&format!(
                " ON CREATE SET n.`{PROV_TYPE}` = '{EXPLAIN_TYPE}', n.`{PROV_BASE_TYPE}` = '{base}'"
            ));
        } else {
            q.push_str(&format!(" SET {}", kinds("n", label, " = ")));
        }
        if !set.is_empty() {
            q.push(' ');
            q.push_str(set);
        }
        return q;
    };
    let mut create = String::from("name: r[0]");
    let mut update = String::new();
    if label == Label::Explain {
        for (key, default) in [(PROV_TYPE, EXPLAIN_TYPE), (PROV_BASE_TYPE, base)] {
            if !props.contains(&format!("`{key}`: ")) {
                create.push_str(&format!(", `{key}`: '{default}'"));
            }
        }
    } else {
        create.push_str(", ");
        create.push_str(&kinds("", label, ": "));
        update.push_str(&format!(" SET {}", kinds("n", label, " = ")));
    }
    if !props.is_empty() {
        create.push_str(", ");
        create.push_str(props);
    }
    if !set.is_empty() {
        update.push(' ');
        update.push_str(set);
    }
    let mut q = format!(
        "UNWIND ${rows} AS r OPTIONAL MATCH (n:`{label}` {{name: r[0]}}) \
         FOREACH (_ IN CASE WHEN n IS NULL THEN [1] ELSE [] END | CREATE (:`{label}` {{{create}}}))"
    );
    if !update.is_empty() {
        q.push_str(&format!(" FOREACH (_ IN CASE WHEN n IS NULL THEN [] ELSE [1] END |{update})"));
    }
    q
}

/// A node's kinds from its label (`prov:type`, `prov:base_type`) as `SET` items of `var`
/// (`n.`k` = 'v'`) or, with no variable, map entries (`` `k`: 'v' ``).
fn kinds(var: &str, label: Label, sep: &str) -> String {
    let mut out = String::new();
    for (i, (key, value)) in
        [(PROV_TYPE, label.prov_type().to_string()), (PROV_BASE_TYPE, label.base_type().as_str().to_owned())]
            .iter()
            .enumerate()
    {
        if i > 0 {
            out.push_str(", ");
        }
        if !var.is_empty() {
            out.push_str(var);
            out.push('.');
        }
        out.push_str(&format!("`{key}`{sep}"));
        shapes::push_str(&mut out, value);
    }
    out
}

/// The upsert of every edge of one group, its rows in parameter `rows` (`[source, target,
/// values…]`), `set` setting their properties, and its kind in `kind`. The edge's identity
/// is its endpoints, type and kind property (`prov:base_type` or `a2a:relation`), so a PROV
/// edge and an A2A-derived edge of the same type between the same nodes stay two edges, and
/// an edge with no kind stays apart from both ([`plain_edge_query`]).
fn edge_query(
    source: Label,
    rel: RelType,
    kind: EdgeKind,
    target: Label,
    rows: &str,
    kind_param: &str,
    set: &str,
) -> String {
    let ends = format!(
        "UNWIND ${rows} AS r MATCH (a:`{source}` {{name: r[0]}}) MATCH (b:`{target}` {{name: r[1]}})"
    );
    let Some((k, _)) = kind.key() else { return plain_edge_query(&ends, rel, set) };
    let mut q = format!("{ends} MERGE (a)-[e:`{rel}` {{`{k}`: ${kind_param}}}]->(b) ");
    // Never a `MERGE` with nothing after it: FalkorDB 4.16 lets such a `MERGE` find an edge
    // an earlier part of the same query created, so a plain edge would become a kinded one.
    q.push_str(if set.is_empty() { "SET e += {}" } else { set });
    q
}

/// The upsert of edges with no kind: a `MERGE` with no kind in its pattern finds an edge of
/// any kind of the type, but only once the graph had the type when the query began, so what
/// it made depended on what was written before. The edge with no kind is looked for, made
/// when missing (with its properties), or else given them: it stays apart from kinded ones
/// in any order.
fn plain_edge_query(ends: &str, rel: RelType, set: &str) -> String {
    let kindless = |v: &str| format!("{v}.`{PROV_BASE_TYPE}` IS NULL AND {v}.`{A2A_RELATION}` IS NULL");
    let mut q = format!(
        "{ends} OPTIONAL MATCH (a)-[x:`{rel}`]->(b) WHERE {} WITH a, b, r, count(x) AS found \
         FOREACH (_ IN CASE WHEN found = 0 THEN [1] ELSE [] END | CREATE (a)-[e:`{rel}`]->(b) {set})",
        kindless("x")
    );
    if !set.is_empty() {
        // Not `WITH … WHERE found > 0 MATCH`: FalkorDB 4.16 moves that filter ahead of the
        // `FOREACH`, which then creates nothing.
        q.push_str(&format!(
            " WITH a, b, r, found OPTIONAL MATCH (a)-[e:`{rel}`]->(b) WHERE found > 0 AND {} {set}",
            kindless("e")
        ));
    }
    q
}

/// Parts of one phase (nodes, or edges) chained into queries of at most [`BATCH_ROWS`]
/// rows. The aggregate between two parts ends the first before the second starts, and lets
/// the second run when the first had no rows; where the chains are cut changes nothing.
#[derive(Default)]
struct Chain {
    done: Vec<Upsert>,
    cypher: String,
    params: Vec<(String, String)>,
    rows: usize,
}

impl Chain {
    /// Adds a part of `rows` rows, each a Cypher literal; `query` builds its Cypher from the
    /// names of its parameters.
    fn add(&mut self, rows: &[String], kind: Option<&str>, query: impl FnOnce(&str, &str) -> String) {
        if self.rows > 0 && self.rows + rows.len() > BATCH_ROWS {
            self.cut();
        }
        let n = self.params.len();
        let (r, k) = (format!("r{n}"), format!("k{n}"));
        if !self.cypher.is_empty() {
            self.cypher.push_str(" WITH count(*) AS c ");
        }
        self.cypher.push_str(&query(&r, &k));
        let mut list = String::with_capacity(rows.iter().map(|r| r.len() + 2).sum::<usize>() + 2);
        list.push('[');
        for (i, row) in rows.iter().enumerate() {
            if i > 0 {
                list.push_str(", ");
            }
            list.push_str(row);
        }
        list.push(']');
        self.params.push((r, list));
        if let Some(kind) = kind {
            let mut lit = String::new();
            shapes::push_str(&mut lit, kind);
            self.params.push((k, lit));
        }
        self.rows += rows.len();
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

impl Store {
    /// Adds every label ([`Store::ensure_schemas`]) and creates the `name` index of every
    /// label, once per graph (and per process), each index while no other query of the graph
    /// from this process is planned (`gate.rs`: an index changes what planning reads).
    pub async fn ensure_indexes(&self, graph: &str) -> Result<()> {
        if self.indexed.lock().await.contains(graph) {
            return Ok(());
        }
        self.ensure_schemas(graph).await?;
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
            if let Err(e) = self.run_exclusive(graph, &q).await {
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
                if let Err(e) = self.run_exclusive(graph, &q).await {
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
        self.ensure_types(graph, &super::gate::delta_types(delta)).await?;
        let (queries, stats) = upserts(delta, false)?;
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
        self.ensure_types(graph, &super::gate::delta_types(delta)).await?;
        // Nodes alone where the pipeline is one transaction (`log.rs`).
        let (queries, stats) = upserts(delta, !self.is_cluster())?;
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

/// A delta's upserts (nodes, their further labels, then edges) and what they write. With
/// `nodes_alone` each part of the nodes is a query of its own instead of a link of a chain:
/// its text is then the same from batch to batch (its label and property names), so FalkorDB
/// runs it from its cache of plans, where a chain's text changes with the batch's mix of
/// labels and property sets and is planned again every time. A part costs a query only inside
/// a transaction, where the queries run one after another with no thread hand-off each
/// (`log.rs`, [`super::log::one_transaction`]): measured there, the nodes' upserts of 300
/// live-sized batches took 0.28–0.32 s of the server's CPU alone against 0.53–0.55 s chained;
/// in a plain pipeline, where each query waits for a thread, alone was no cheaper.
fn upserts(delta: &GraphDelta, nodes_alone: bool) -> Result<(Vec<Upsert>, WriteStats)> {
    let mut stats = WriteStats::default();

    let mut by_label: BTreeMap<Label, Vec<&Node>> = BTreeMap::new();
    for node in delta.nodes() {
        by_label.entry(node.label).or_default().push(node);
    }
    let mut nodes = Chain::default();
    for (label, members) in by_label {
        let leads: Vec<[&str; 1]> = members.iter().map(|n| [n.name.as_str()]).collect();
        let rows: Vec<Row<'_>> = members
            .iter()
            .zip(&leads)
            .map(|(n, lead)| Row { lead, props: node_columns(label, &n.props) })
            .collect();
        stats.nodes += rows.len() as u64;
        for part in shapes::parts(&rows, "n") {
            for batch in part.rows.chunks(BATCH_ROWS) {
                if nodes_alone {
                    nodes.cut();
                }
                nodes.add(batch, None, |r, _| node_query(label, r, &part.set, part.props.as_deref()));
            }
        }
    }

    type Group = (Label, RelType, EdgeKind, Label);
    let mut by_group: BTreeMap<Group, Vec<&Edge>> = BTreeMap::new();
    for edge in delta.edges() {
        let g = (edge.source.label, edge.rel, edge.kind, edge.target.label);
        by_group.entry(g).or_default().push(edge);
    }
    let mut edges = Chain::default();
    for ((source, rel, kind, target), members) in by_group {
        let leads: Vec<[&str; 2]> =
            members.iter().map(|e| [e.source.name.as_str(), e.target.name.as_str()]).collect();
        // The kind's key is set by the `MERGE` pattern.
        let kind_key = kind.key().map(|(k, _)| k);
        let rows: Vec<Row<'_>> = members
            .iter()
            .zip(&leads)
            .map(|(e, lead)| Row {
                lead,
                props: e
                    .props
                    .iter()
                    .filter(|(k, _)| Some(k.as_ref()) != kind_key)
                    .map(|(k, v)| (k.as_ref(), v))
                    .collect(),
            })
            .collect();
        stats.edges += rows.len() as u64;
        let kind_value = kind.key().map(|(_, v)| v);
        for part in shapes::parts(&rows, "e") {
            for batch in part.rows.chunks(BATCH_ROWS) {
                edges.add(batch, kind_value, |r, k| edge_query(source, rel, kind, target, r, k, &part.set));
            }
        }
    }
    let mut queries = nodes.finish();
    queries.extend(extra_labels(delta));
    queries.extend(edges.finish());
    stats.queries = queries.len() as u64;
    Ok((queries, stats))
}

/// The properties a node's upsert sets from its row: all but its name (the `MERGE` pattern
/// sets it) and, but for an `Explain` node, its kinds (its label's, set by [`node_query`]);
/// as [`node_props`] makes them.
fn node_columns(label: Label, props: &Props) -> Vec<(&str, &PropValue)> {
    props
        .iter()
        .map(|(k, v)| (k.as_ref(), v))
        .filter(|(k, _)| {
            *k != "name" && (label == Label::Explain || (*k != PROV_TYPE && *k != PROV_BASE_TYPE))
        })
        .collect()
}

/// The queries that give nodes their further labels ([`EXTRA_LABELS`]: [`TgType`] names; any
/// other text is ignored), one per label set: labels cannot be parameters, so they come
/// from the vocabulary only.
fn extra_labels(delta: &GraphDelta) -> Vec<Upsert> {
    let mut by_set: BTreeMap<(Label, Vec<TgType>), Vec<String>> = BTreeMap::new();
    for node in delta.nodes() {
        let set = further_labels(node);
        if !set.is_empty() {
            let mut name = String::new();
            shapes::push_str(&mut name, &node.name);
            by_set.entry((node.label, set)).or_default().push(name);
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
            });
        }
    }
    chain.finish()
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
#[path = "write_tests.rs"]
mod tests;
