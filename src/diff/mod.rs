//! Differences between two graphs (`provex diff`): which nodes and edges one graph adds,
//! removes and changes with respect to another, computed over two in-memory snapshots.
//!
//! A node is identified as the store's `MERGE` identifies it: by label and `name`. An edge
//! by its source's name, its type, its kind (the value of `prov:base_type` or
//! `a2a:relation`, none for a plain edge) and its target's name. A snapshot holds every
//! property as stored, except the identity itself (`name`, and an edge's kind property).
//! Each list is sorted by how much what it holds matters (claims and verifications first,
//! runtime message rows last: [`node_rank`], [`edge_rank`]), then by identity, so the same
//! two graphs always give the same diff; a summary of what it means for claims comes first
//! ([`DiffSummary`]), and, when either graph holds OpenTelemetry spans, what it means for
//! the runs they record ([`TraceDiff`]: spans matched by what they are, not by their ids).

mod summary;
#[cfg(test)]
mod tests;
mod text;
mod traces;

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::vocab::{A2A_RELATION, NAME, PROV_BASE_TYPE};
use crate::model::{GraphDelta, PropValue, Props};
use crate::store::write::{edge_props, node_props};

pub use summary::{edge_rank, node_rank, DiffSummary, StatusChange, SummaryItem};
pub use text::render_text;
pub use traces::{AgentDiff, CallDiff, ContentItem, MessageDiff, ToolDiff, TraceDiff, TraceSide};

/// Properties by name, as JSON values.
pub type PropMap = BTreeMap<String, Value>;

/// A node's identity.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeKey {
    pub label: String,
    pub name: String,
}

/// An edge's identity.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EdgeKey {
    pub source: String,
    pub rel: String,
    pub kind: Option<String>,
    pub target: String,
}

/// Every node and edge of a graph with their properties.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    pub nodes: Table<NodeKey>,
    pub edges: Table<EdgeKey>,
}

/// Elements by key. foldhash rather than SipHash: keys come from graphs, not from a party
/// that could choose them to collide, and hashing 280,000 keys twice is most of a diff.
pub type Table<K> = HashMap<K, PropMap, foldhash::fast::RandomState>;

/// A property value as the store keeps it: what `store::value::prop_param` writes, read
/// back as JSON (a non-finite float is stored as its text).
pub fn prop_json(v: &PropValue) -> Value {
    match v {
        PropValue::Bool(b) => Value::Bool(*b),
        PropValue::Int(i) => Value::from(*i),
        PropValue::Float(f) => match serde_json::Number::from_f64(*f) {
            Some(n) => Value::Number(n),
            None => Value::String(f.to_string()),
        },
        PropValue::Str(s) => Value::String(s.clone()),
        PropValue::List(items) => Value::Array(items.iter().map(prop_json).collect()),
    }
}

fn props_json(props: &Props, skip: &[&str]) -> PropMap {
    props
        .iter()
        .filter(|(k, _)| !skip.contains(&k.as_ref()))
        .map(|(k, v)| (k.to_string(), prop_json(v)))
        .collect()
}

/// Splits an edge's stored properties into its kind and the rest.
pub fn split_edge_props(mut props: PropMap) -> (Option<String>, PropMap) {
    let prov = props.remove(PROV_BASE_TYPE);
    let a2a = props.remove(A2A_RELATION);
    // An edge has one kind property; if a foreign edge had both, keep the other as a property.
    let kind = match (prov, a2a) {
        (Some(Value::String(p)), other) => {
            if let Some(o) = other {
                props.insert(A2A_RELATION.to_owned(), o);
            }
            Some(p)
        }
        (prov, Some(Value::String(a))) => {
            if let Some(p) = prov {
                props.insert(PROV_BASE_TYPE.to_owned(), p);
            }
            Some(a)
        }
        (prov, a2a) => {
            for (k, v) in [(PROV_BASE_TYPE, prov), (A2A_RELATION, a2a)] {
                if let Some(v) = v {
                    props.insert(k.to_owned(), v);
                }
            }
            None
        }
    };
    (kind, props)
}

impl Snapshot {
    /// The graph a delta writes into an empty graph: every node and edge with the
    /// properties the store's upsert gives them (`prov:type`, `prov:base_type`, the kind).
    pub fn from_delta(delta: &GraphDelta) -> Snapshot {
        let mut snap = Snapshot {
            nodes: Table::with_capacity_and_hasher(delta.node_count(), Default::default()),
            edges: Table::with_capacity_and_hasher(delta.edge_count(), Default::default()),
        };
        for n in delta.nodes() {
            let props = props_json(&node_props(n.label, &n.name, &n.props), &[NAME]);
            snap.nodes.insert(NodeKey { label: n.label.as_str().to_owned(), name: n.name.clone() }, props);
        }
        for e in delta.edges() {
            let (kind, props) = split_edge_props(props_json(&edge_props(e.kind, &e.props), &[]));
            let key = EdgeKey {
                source: e.source.name.clone(),
                rel: e.rel.as_str().to_owned(),
                kind,
                target: e.target.name.clone(),
            };
            snap.edges.entry(key).or_default().extend(props);
        }
        snap
    }
}

/// A node added or removed, with all its properties.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct NodeItem {
    pub label: String,
    pub name: String,
    /// How much it matters: 0 first ([`node_rank`]).
    #[serde(default)]
    pub rank: u8,
    pub props: PropMap,
}

/// A node present in both graphs whose properties differ: only the differing properties,
/// with their values before and after (a property missing on one side was absent there).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct NodeChange {
    pub label: String,
    pub name: String,
    /// How much it matters: 0 first ([`node_rank`]).
    #[serde(default)]
    pub rank: u8,
    pub before: PropMap,
    pub after: PropMap,
}

/// An edge added or removed, with all its properties.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EdgeItem {
    pub source: String,
    #[serde(rename = "type")]
    pub rel: String,
    pub kind: Option<String>,
    pub target: String,
    /// How much it matters: 0 first ([`edge_rank`]).
    #[serde(default)]
    pub rank: u8,
    pub props: PropMap,
}

/// An edge present in both graphs whose properties differ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EdgeChange {
    pub source: String,
    #[serde(rename = "type")]
    pub rel: String,
    pub kind: Option<String>,
    pub target: String,
    /// How much it matters: 0 first ([`edge_rank`]).
    #[serde(default)]
    pub rank: u8,
    pub before: PropMap,
    pub after: PropMap,
}

/// Node differences, each list sorted by rank, label and name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct NodeDiff {
    pub added: Vec<NodeItem>,
    pub removed: Vec<NodeItem>,
    pub changed: Vec<NodeChange>,
}

/// Edge differences, each list sorted by rank, source, type, kind and target.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EdgeDiff {
    pub added: Vec<EdgeItem>,
    pub removed: Vec<EdgeItem>,
    pub changed: Vec<EdgeChange>,
}

/// What graph B adds, removes and changes with respect to graph A.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GraphDiff {
    /// What the differences mean for claims.
    #[serde(default)]
    pub summary: DiffSummary,
    /// What the differences mean for the runs the graphs' OpenTelemetry spans record: none
    /// when neither graph holds a span.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub traces: Option<TraceDiff>,
    pub nodes: NodeDiff,
    pub edges: EdgeDiff,
}

impl GraphDiff {
    pub fn is_empty(&self) -> bool {
        let (n, e) = (&self.nodes, &self.edges);
        n.added.is_empty()
            && n.removed.is_empty()
            && n.changed.is_empty()
            && e.added.is_empty()
            && e.removed.is_empty()
            && e.changed.is_empty()
    }
}

/// Whether two property values are the same. Numbers are compared as floats to within a
/// relative 1e-9: FalkorDB replies with a float's 15 most significant digits, so a score
/// computed in memory (0.9199999999999999) reads back from the store as 0.92, and that is
/// not a change.
pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if x == y {
                return true;
            }
            match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0),
                _ => false,
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_value(x, y))
        }
        _ => a == b,
    }
}

/// The properties that differ, as (before, after).
fn prop_changes(a: &PropMap, b: &PropMap) -> Option<(PropMap, PropMap)> {
    if a.len() == b.len() && a.iter().zip(b).all(|((ka, va), (kb, vb))| ka == kb && same_value(va, vb)) {
        return None;
    }
    let mut before = PropMap::new();
    let mut after = PropMap::new();
    for (k, va) in a {
        match b.get(k) {
            Some(vb) if same_value(va, vb) => {}
            Some(vb) => {
                before.insert(k.clone(), va.clone());
                after.insert(k.clone(), vb.clone());
            }
            None => {
                before.insert(k.clone(), va.clone());
            }
        }
    }
    for (k, vb) in b {
        if !a.contains_key(k) {
            after.insert(k.clone(), vb.clone());
        }
    }
    Some((before, after))
}

/// Keys with their properties, sorted.
type Listed<'a, K> = Vec<(&'a K, &'a PropMap)>;

/// Keys with their differing properties before and after, sorted.
type ChangedList<'a, K> = Vec<(&'a K, PropMap, PropMap)>;

/// Keys of `b` missing from `a`, keys of `a` missing from `b`, and keys of both whose
/// values differ, each sorted by rank, then key.
fn compare<'a, K: Ord + std::hash::Hash + Eq>(
    a: &'a Table<K>,
    b: &'a Table<K>,
    rank: impl Fn(&K) -> u8,
) -> (Listed<'a, K>, Listed<'a, K>, ChangedList<'a, K>) {
    let mut removed = Vec::new();
    let mut changed = Vec::new();
    for (k, pa) in a {
        match b.get(k) {
            None => removed.push((k, pa)),
            Some(pb) => {
                if let Some((before, after)) = prop_changes(pa, pb) {
                    changed.push((k, before, after));
                }
            }
        }
    }
    let mut added: Vec<_> = b.iter().filter(|(k, _)| !a.contains_key(*k)).collect();
    added.sort_unstable_by(|x, y| (rank(x.0), x.0).cmp(&(rank(y.0), y.0)));
    removed.sort_unstable_by(|x, y| (rank(x.0), x.0).cmp(&(rank(y.0), y.0)));
    changed.sort_unstable_by(|x, y| (rank(x.0), x.0).cmp(&(rank(y.0), y.0)));
    (added, removed, changed)
}

/// What `b` adds, removes and changes with respect to `a`.
pub fn diff(a: &Snapshot, b: &Snapshot) -> GraphDiff {
    let node = |(k, p): (&NodeKey, &PropMap)| NodeItem {
        label: k.label.clone(),
        name: k.name.clone(),
        rank: node_rank(&k.label),
        props: p.clone(),
    };
    let edge = |(k, p): (&EdgeKey, &PropMap)| EdgeItem {
        source: k.source.clone(),
        rel: k.rel.clone(),
        kind: k.kind.clone(),
        target: k.target.clone(),
        rank: edge_rank(&k.rel),
        props: p.clone(),
    };
    let (added, removed, changed) = compare(&a.nodes, &b.nodes, |k| node_rank(&k.label));
    let (e_added, e_removed, e_changed) = compare(&a.edges, &b.edges, |k| edge_rank(&k.rel));
    let summary = summary::summarise(a, b, (&added, &removed), &changed, &e_changed);
    let nodes = NodeDiff {
        added: added.into_iter().map(node).collect(),
        removed: removed.into_iter().map(node).collect(),
        changed: changed
            .into_iter()
            .map(|(k, before, after)| NodeChange {
                label: k.label.clone(),
                name: k.name.clone(),
                rank: node_rank(&k.label),
                before,
                after,
            })
            .collect(),
    };
    let edges = EdgeDiff {
        added: e_added.into_iter().map(edge).collect(),
        removed: e_removed.into_iter().map(edge).collect(),
        changed: e_changed
            .into_iter()
            .map(|(k, before, after)| EdgeChange {
                source: k.source.clone(),
                rel: k.rel.clone(),
                kind: k.kind.clone(),
                target: k.target.clone(),
                rank: edge_rank(&k.rel),
                before,
                after,
            })
            .collect(),
    };
    let traces = (traces::has_spans(a) || traces::has_spans(b)).then(|| traces::compare(a, b, None, None));
    GraphDiff { summary, traces, nodes, edges }
}

/// The part of a snapshot one trace makes: its spans, the nodes they touch (messages, tool
/// arguments and results, agents, models, services, tasks, linked spans) and every edge of a
/// span of it or between two of those nodes. Empty when the trace has no span.
pub fn trace_part(s: &Snapshot, trace: &str) -> Snapshot {
    let is_span = |p: &PropMap| p.get("otel:trace_id").and_then(Value::as_str) == Some(trace);
    let spans: std::collections::HashSet<&str> =
        s.nodes.iter().filter(|(_, p)| is_span(p)).map(|(k, _)| k.name.as_str()).collect();
    let mut names = spans.clone();
    for k in s.edges.keys() {
        if spans.contains(k.source.as_str()) || spans.contains(k.target.as_str()) {
            names.insert(&k.source);
            names.insert(&k.target);
        }
    }
    let mut part = Snapshot::default();
    for (k, p) in &s.nodes {
        if names.contains(k.name.as_str()) {
            part.nodes.insert(k.clone(), p.clone());
        }
    }
    for (k, p) in &s.edges {
        if names.contains(k.source.as_str()) && names.contains(k.target.as_str()) {
            part.edges.insert(k.clone(), p.clone());
        }
    }
    part
}

/// What trace `tb` of `b` adds, removes and changes with respect to trace `ta` of `a`: the
/// node and edge differences of the two traces' parts ([`trace_part`]), with the trace
/// summary comparing exactly those two traces.
pub fn diff_traces(a: &Snapshot, b: &Snapshot, ta: &str, tb: &str) -> GraphDiff {
    let (pa, pb) = (trace_part(a, ta), trace_part(b, tb));
    let mut d = diff(&pa, &pb);
    d.traces = Some(traces::compare(&pa, &pb, Some(ta), Some(tb)));
    d
}

fn apply_change(props: &mut PropMap, before: &PropMap, after: &PropMap) {
    for k in before.keys() {
        props.remove(k);
    }
    props.extend(after.iter().map(|(k, v)| (k.clone(), v.clone())));
}

/// Applies a diff to the snapshot it was computed from: `apply(a, diff(a, b)) == b`.
pub fn apply(a: &Snapshot, d: &GraphDiff) -> Snapshot {
    let mut s = a.clone();
    for n in &d.nodes.removed {
        s.nodes.remove(&NodeKey { label: n.label.clone(), name: n.name.clone() });
    }
    for n in &d.nodes.added {
        s.nodes.insert(NodeKey { label: n.label.clone(), name: n.name.clone() }, n.props.clone());
    }
    for n in &d.nodes.changed {
        let key = NodeKey { label: n.label.clone(), name: n.name.clone() };
        apply_change(s.nodes.entry(key).or_default(), &n.before, &n.after);
    }
    let key = |source: &str, rel: &str, kind: &Option<String>, target: &str| EdgeKey {
        source: source.to_owned(),
        rel: rel.to_owned(),
        kind: kind.clone(),
        target: target.to_owned(),
    };
    for e in &d.edges.removed {
        s.edges.remove(&key(&e.source, &e.rel, &e.kind, &e.target));
    }
    for e in &d.edges.added {
        s.edges.insert(key(&e.source, &e.rel, &e.kind, &e.target), e.props.clone());
    }
    for e in &d.edges.changed {
        apply_change(
            s.edges.entry(key(&e.source, &e.rel, &e.kind, &e.target)).or_default(),
            &e.before,
            &e.after,
        );
    }
    s
}
