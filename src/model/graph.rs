//! Nodes, edges and the deltas that carry them from a normaliser to the store and the UI.

use std::borrow::Cow;
use std::hash::BuildHasher;

use hashbrown::hash_table::{self, HashTable};
use serde::{Deserialize, Serialize};

pub use super::props::{PropValue, Props, PropsExt};
use super::vocab::{EdgeKind, Label, RelType, DIGEST_PROP, LEAVES_PROP};

/// A reference to a node by its identity: label and `name`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct NodeRef {
    pub label: Label,
    pub name: String,
}

impl NodeRef {
    pub fn new(label: Label, name: impl Into<String>) -> Self {
        NodeRef { label, name: name.into() }
    }
}

/// A node: its label, its identity `name`, and properties. `prov:type` and
/// `prov:base_type` are derived from the label when the node is written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub label: Label,
    pub name: String,
    pub props: Props,
}

impl Node {
    pub fn new(label: Label, name: impl Into<String>) -> Self {
        Node { label, name: name.into(), props: Props::new() }
    }

    pub fn node_ref(&self) -> NodeRef {
        NodeRef::new(self.label, self.name.clone())
    }

    /// Sets a property; returns `self` for chaining.
    pub fn with(mut self, key: &'static str, value: impl Into<PropValue>) -> Self {
        self.props.insert(Cow::Borrowed(key), value.into());
        self
    }

    /// Sets a property when there is a value.
    pub fn with_opt(mut self, key: &'static str, value: Option<PropValue>) -> Self {
        if let Some(v) = value {
            self.props.insert(Cow::Borrowed(key), v);
        }
        self
    }

    /// Sets a property from JSON (skipped when the value is null).
    pub fn with_json(mut self, key: &'static str, value: &serde_json::Value) -> Self {
        if let Some(v) = PropValue::from_json(value) {
            self.props.insert(Cow::Borrowed(key), v);
        }
        self
    }
}

/// An edge. It is unique per source, target, type and [`EdgeKind`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    pub rel: RelType,
    pub kind: EdgeKind,
    pub source: NodeRef,
    pub target: NodeRef,
    pub props: Props,
}

impl Edge {
    pub fn new(rel: RelType, kind: EdgeKind, source: NodeRef, target: NodeRef) -> Self {
        Edge { rel, kind, source, target, props: Props::new() }
    }

    pub fn with(mut self, key: &'static str, value: impl Into<PropValue>) -> Self {
        self.props.insert(Cow::Borrowed(key), value.into());
        self
    }

    /// The identity used for upserts.
    pub fn key(&self) -> EdgeKey {
        (self.source.clone(), self.rel, self.kind, self.target.clone())
    }
}

/// An edge's identity: source, type, kind, target.
pub type EdgeKey = (NodeRef, RelType, EdgeKind, NodeRef);

/// Hashing for the delta's tables: their keys are our own names, so a fast hasher is safe.
type Fast = foldhash::fast::RandomState;

/// A node of a [`GraphDelta`], by its position there (see [`GraphDelta::upsert_node`]); valid
/// for that delta until it is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeId(usize);

/// A set of node and edge upserts. Adding a node or edge that is already present merges
/// its properties into the earlier one (later values win), as the store's upsert does, so a
/// delta applied once equals its records applied one by one. Nodes and edges keep the order
/// in which they were first added.
///
/// The nodes and edges are kept in vectors, beside their hashes, with hash tables of their
/// positions: a name is stored once and looked up without being copied, and an edge's hash
/// is made from its end nodes' hashes.
#[derive(Clone, Default)]
pub struct GraphDelta {
    nodes: Vec<Node>,
    node_hashes: Vec<u64>,
    node_index: HashTable<usize>,
    edges: Vec<Edge>,
    edge_hashes: Vec<u64>,
    edge_index: HashTable<usize>,
    hasher: Fast,
    /// The log leaves (by position among this delta's records) each node came from,
    /// beside `nodes`; a node is marked while a record is begun ([`GraphDelta::begin_record`]).
    /// Boxed: most deltas (a UI's, a knowledge update's) carry none.
    leaves: Option<Box<LeafMarks>>,
}

/// The log leaves (by position among a delta's records) each node came from, by node
/// position (shorter than the nodes when the last ones came from none), and the record
/// being read.
#[derive(Clone, Default)]
struct LeafMarks {
    node_leaves: Vec<Vec<u32>>,
    record: Option<u32>,
}

impl LeafMarks {
    fn of(&mut self, i: usize) -> &mut Vec<u32> {
        if self.node_leaves.len() <= i {
            self.node_leaves.resize_with(i + 1, Vec::new);
        }
        &mut self.node_leaves[i]
    }
}

impl std::fmt::Debug for GraphDelta {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphDelta").field("nodes", &self.nodes).field("edges", &self.edges).finish()
    }
}

fn node_hash(hasher: &Fast, label: Label, name: &str) -> u64 {
    hasher.hash_one((label, name))
}

/// An edge's hash, from its type and kind and the hashes of its end nodes.
fn edge_hash(hasher: &Fast, rel: RelType, kind: EdgeKind, source: u64, target: u64) -> u64 {
    hasher.hash_one((source, target, rel, kind))
}

fn is_edge(e: &Edge, rel: RelType, kind: EdgeKind, source: (Label, &str), target: (Label, &str)) -> bool {
    e.rel == rel
        && e.kind == kind
        && e.source.label == source.0
        && e.target.label == target.0
        && e.source.name == source.1
        && e.target.name == target.1
}

impl GraphDelta {
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty delta with room for this many nodes and edges.
    pub fn with_capacity(nodes: usize, edges: usize) -> Self {
        GraphDelta {
            nodes: Vec::with_capacity(nodes),
            node_hashes: Vec::with_capacity(nodes),
            node_index: HashTable::with_capacity(nodes),
            edges: Vec::with_capacity(edges),
            edge_hashes: Vec::with_capacity(edges),
            edge_index: HashTable::with_capacity(edges),
            hasher: Fast::default(),
            leaves: None,
        }
    }

    /// The position of the node `(label, name)`, if present.
    fn find_node(&self, label: Label, name: &str) -> Option<usize> {
        let nodes = &self.nodes;
        let hash = node_hash(&self.hasher, label, name);
        self.node_index.find(hash, |&i| nodes[i].label == label && nodes[i].name == name).copied()
    }

    /// The node `(label, name)`, added without properties when it is not there yet; set its
    /// properties with [`GraphDelta::node_props`]. The name is copied only for a new node.
    pub fn upsert_node(&mut self, label: Label, name: &str) -> NodeId {
        let hash = node_hash(&self.hasher, label, name);
        let (nodes, hashes) = (&mut self.nodes, &mut self.node_hashes);
        let entry = self.node_index.entry(
            hash,
            |&i| nodes[i].label == label && nodes[i].name == name,
            |&i| hashes[i],
        );
        let i = match entry {
            hash_table::Entry::Occupied(e) => *e.get(),
            hash_table::Entry::Vacant(e) => {
                let i = nodes.len();
                nodes.push(Node::new(label, name));
                hashes.push(hash);
                e.insert(i);
                i
            }
        };
        self.mark(i);
        NodeId(i)
    }

    /// From now on the nodes added or updated came from record `ordinal` of this delta's
    /// batch (a leaf of the graph's log, see src/tlog/).
    pub fn begin_record(&mut self, ordinal: u32) {
        self.leaves.get_or_insert_with(Default::default).record = Some(ordinal);
    }

    fn mark(&mut self, i: usize) {
        if let Some(m) = self.leaves.as_deref_mut() {
            let Some(r) = m.record else { return };
            let leaves = m.of(i);
            if leaves.last() != Some(&r) {
                leaves.push(r);
            }
        }
    }

    /// The records (by position in this delta's batch) each node came from, in node order.
    pub fn node_leaves(&self) -> &[Vec<u32>] {
        self.leaves.as_deref().map_or(&[], |m| &m.node_leaves)
    }

    /// Sets each node's `log_leaves` (the log indexes of the records it came from, its
    /// batch's first record being leaf `base`) and `log_digest` (`digest` of its
    /// properties: the log's `props_digest`) before the delta is written.
    pub fn stamp_log_leaves(&mut self, base: u64, digest: impl Fn(&Props) -> String) {
        let Some(marks) = self.leaves.as_deref() else { return };
        for (node, leaves) in self.nodes.iter_mut().zip(&marks.node_leaves) {
            // A node only named (an edge's end, a placeholder) holds nothing of its records.
            if leaves.is_empty() || node.props.is_empty() {
                continue;
            }
            node.props.remove(DIGEST_PROP);
            node.props.remove(LEAVES_PROP);
            let digest = digest(&node.props);
            let list = leaves.iter().map(|l| PropValue::Int((base + u64::from(*l)) as i64)).collect();
            node.props.insert(LEAVES_PROP.into(), PropValue::List(list));
            node.props.insert(DIGEST_PROP.into(), PropValue::Str(digest));
        }
    }

    /// The properties of a node of this delta, to set in place (later values win, as when
    /// the same node is added again).
    pub fn node_props(&mut self, node: NodeId) -> &mut Props {
        &mut self.nodes[node.0].props
    }

    /// The name of a node of this delta.
    pub fn node_name(&self, node: NodeId) -> &str {
        &self.nodes[node.0].name
    }

    /// The edge `source -[rel, kind]-> target` between two nodes of this delta, added without
    /// properties when it is not there yet; returns its properties to set in place.
    pub fn upsert_edge(
        &mut self,
        rel: RelType,
        kind: EdgeKind,
        source: NodeId,
        target: NodeId,
    ) -> &mut Props {
        let hash = edge_hash(&self.hasher, rel, kind, self.node_hashes[source.0], self.node_hashes[target.0]);
        let (s, t) = (&self.nodes[source.0], &self.nodes[target.0]);
        let (sk, tk) = ((s.label, s.name.as_str()), (t.label, t.name.as_str()));
        let (edges, hashes) = (&mut self.edges, &mut self.edge_hashes);
        let entry = self.edge_index.entry(hash, |&i| is_edge(&edges[i], rel, kind, sk, tk), |&i| hashes[i]);
        let i = match entry {
            hash_table::Entry::Occupied(e) => *e.get(),
            hash_table::Entry::Vacant(e) => {
                let i = edges.len();
                edges.push(Edge::new(rel, kind, s.node_ref(), t.node_ref()));
                hashes.push(hash);
                e.insert(i);
                i
            }
        };
        &mut edges[i].props
    }

    pub fn add_node(&mut self, node: Node) {
        self.add_node_at(node);
    }

    fn add_node_at(&mut self, node: Node) -> usize {
        let hash = node_hash(&self.hasher, node.label, &node.name);
        let (nodes, hashes) = (&mut self.nodes, &mut self.node_hashes);
        let entry = self.node_index.entry(
            hash,
            |&i| nodes[i].label == node.label && nodes[i].name == node.name,
            |&i| hashes[i],
        );
        let i = match entry {
            hash_table::Entry::Occupied(e) => {
                nodes[*e.get()].props.extend(node.props);
                *e.get()
            }
            hash_table::Entry::Vacant(e) => {
                let i = nodes.len();
                e.insert(i);
                nodes.push(node);
                hashes.push(hash);
                i
            }
        };
        self.mark(i);
        i
    }

    pub fn add_edge(&mut self, edge: Edge) {
        let (sk, tk) =
            ((edge.source.label, edge.source.name.as_str()), (edge.target.label, edge.target.name.as_str()));
        let hash = edge_hash(
            &self.hasher,
            edge.rel,
            edge.kind,
            node_hash(&self.hasher, sk.0, sk.1),
            node_hash(&self.hasher, tk.0, tk.1),
        );
        let (edges, hashes) = (&mut self.edges, &mut self.edge_hashes);
        let entry =
            self.edge_index.entry(hash, |&i| is_edge(&edges[i], edge.rel, edge.kind, sk, tk), |&i| hashes[i]);
        match entry {
            hash_table::Entry::Occupied(e) => edges[*e.get()].props.extend(edge.props),
            hash_table::Entry::Vacant(e) => {
                e.insert(edges.len());
                edges.push(edge);
                hashes.push(hash);
            }
        }
    }

    /// Merges another delta into this one.
    pub fn extend(&mut self, other: GraphDelta) {
        self.extend_shifted(other, 0);
    }

    /// Merges the delta of the next records of a batch into this one: its records'
    /// positions come after `shift` records of this one.
    pub fn extend_shifted(&mut self, other: GraphDelta, shift: u32) {
        let mut leaves = other.leaves.map(|m| m.node_leaves).unwrap_or_default().into_iter();
        for node in other.nodes {
            let theirs = leaves.next().unwrap_or_default();
            // A node that names its own records is not marked with the one being read here
            // (a node of a delta built aside, with no marks, is).
            let current = match self.leaves.as_deref_mut() {
                Some(m) if !theirs.is_empty() => m.record.take(),
                _ => None,
            };
            let i = self.add_node_at(node);
            if let Some(r) = current {
                self.leaves.get_or_insert_with(Default::default).record = Some(r);
            }
            for l in theirs {
                let l = l + shift;
                let marks = self.leaves.get_or_insert_with(Default::default).of(i);
                if !marks.contains(&l) {
                    marks.push(l);
                }
            }
        }
        for edge in other.edges {
            self.add_edge(edge);
        }
    }

    pub fn node(&self, r: &NodeRef) -> Option<&Node> {
        self.find_node(r.label, &r.name).map(|i| &self.nodes[i])
    }

    pub fn nodes(&self) -> impl Iterator<Item = &Node> {
        self.nodes.iter()
    }

    pub fn edges(&self) -> impl Iterator<Item = &Edge> {
        self.edges.iter()
    }

    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty() && self.edges.is_empty()
    }

    /// Takes the contents out, leaving this delta empty, with room for as many nodes and
    /// edges as it had (the next batch is likely to be of the same size).
    pub fn take(&mut self) -> GraphDelta {
        let fresh = GraphDelta::with_capacity(self.nodes.len(), self.edges.len());
        std::mem::replace(self, fresh)
    }

    pub fn into_parts(self) -> (Vec<Node>, Vec<Edge>) {
        (self.nodes, self.edges)
    }
}

#[cfg(test)]
#[path = "graph_tests.rs"]
mod tests;
