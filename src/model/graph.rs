//! Nodes, edges and the deltas that carry them from a normaliser to the store and the UI.

use std::borrow::Cow;
use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::vocab::{EdgeKind, Label, RelType};

/// A property value FalkorDB can store: scalars and lists of scalars. JSON objects and
/// mixed arrays are stored as JSON text (see [`PropValue::from_json`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PropValue {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<PropValue>),
}

impl PropValue {
    /// Converts arbitrary JSON: `null` gives `None` (FalkorDB removes a property set to
    /// null), scalars stay scalars, arrays of scalars become lists, anything else is kept
    /// as its JSON text.
    pub fn from_json(value: &serde_json::Value) -> Option<PropValue> {
        use serde_json::Value;
        Some(match value {
            Value::Null => return None,
            Value::Bool(b) => PropValue::Bool(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => PropValue::Int(i),
                None => PropValue::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => PropValue::Str(s.clone()),
            Value::Array(items) if items.iter().all(is_scalar) => {
                PropValue::List(items.iter().filter_map(PropValue::from_json).collect())
            }
            other => PropValue::Str(other.to_string()),
        })
    }

    /// The value as JSON, for output.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            PropValue::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            PropValue::Int(i) => Some(*i),
            _ => None,
        }
    }
}

fn is_scalar(v: &serde_json::Value) -> bool {
    !matches!(v, serde_json::Value::Array(_) | serde_json::Value::Object(_)) && !v.is_null()
}

impl From<&str> for PropValue {
    fn from(s: &str) -> Self {
        PropValue::Str(s.to_owned())
    }
}
impl From<String> for PropValue {
    fn from(s: String) -> Self {
        PropValue::Str(s)
    }
}
impl From<i64> for PropValue {
    fn from(i: i64) -> Self {
        PropValue::Int(i)
    }
}
impl From<u64> for PropValue {
    fn from(i: u64) -> Self {
        i64::try_from(i).map(PropValue::Int).unwrap_or(PropValue::Float(i as f64))
    }
}
impl From<bool> for PropValue {
    fn from(b: bool) -> Self {
        PropValue::Bool(b)
    }
}
impl From<f64> for PropValue {
    fn from(f: f64) -> Self {
        PropValue::Float(f)
    }
}

/// Properties, ordered by name so that output and queries are deterministic. Names come
/// from the vocabulary (static), so building a node allocates none for them.
pub type Props = BTreeMap<Cow<'static, str>, PropValue>;

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

/// A borrowed [`NodeRef`], to look nodes up without cloning their names. It hashes and
/// compares exactly as a `NodeRef` does (a `String` hashes as its `str`).
#[derive(Hash)]
struct NodeKey<'a> {
    label: Label,
    name: &'a str,
}

impl indexmap::Equivalent<NodeRef> for NodeKey<'_> {
    fn equivalent(&self, key: &NodeRef) -> bool {
        self.label == key.label && self.name == key.name
    }
}

/// A borrowed [`EdgeKey`], hashing as the tuple does.
#[derive(Hash)]
struct EdgeLookup<'a> {
    source: NodeKey<'a>,
    rel: RelType,
    kind: EdgeKind,
    target: NodeKey<'a>,
}

impl indexmap::Equivalent<EdgeKey> for EdgeLookup<'_> {
    fn equivalent(&self, key: &EdgeKey) -> bool {
        self.source.equivalent(&key.0)
            && self.rel == key.1
            && self.kind == key.2
            && self.target.equivalent(&key.3)
    }
}

/// Hashing for the delta's maps: their keys are our own names, so a fast hasher is safe.
type Fast = foldhash::fast::RandomState;

/// A set of node and edge upserts. Adding a node or edge that is already present merges
/// its properties into the earlier one (later values win), as the store's upsert does, so a
/// delta applied once equals its records applied one by one.
#[derive(Debug, Clone, Default)]
pub struct GraphDelta {
    nodes: IndexMap<NodeRef, Node, Fast>,
    edges: IndexMap<EdgeKey, Edge, Fast>,
}

impl GraphDelta {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add_node(&mut self, node: Node) {
        let key = NodeKey { label: node.label, name: &node.name };
        if let Some(existing) = self.nodes.get_mut(&key) {
            existing.props.extend(node.props);
            return;
        }
        self.nodes.insert(node.node_ref(), node);
    }

    pub fn add_edge(&mut self, edge: Edge) {
        let key = EdgeLookup {
            source: NodeKey { label: edge.source.label, name: &edge.source.name },
            rel: edge.rel,
            kind: edge.kind,
            target: NodeKey { label: edge.target.label, name: &edge.target.name },
        };
        if let Some(existing) = self.edges.get_mut(&key) {
            existing.props.extend(edge.props);
            return;
        }
        self.edges.insert(edge.key(), edge);
    }

    /// Merges another delta into this one.
    pub fn extend(&mut self, other: GraphDelta) {
        for (key, node) in other.nodes {
            match self.nodes.entry(key) {
                indexmap::map::Entry::Occupied(mut e) => e.get_mut().props.extend(node.props),
                indexmap::map::Entry::Vacant(e) => {
                    e.insert(node);
                }
            }
        }
        for (key, edge) in other.edges {
            match self.edges.entry(key) {
                indexmap::map::Entry::Occupied(mut e) => e.get_mut().props.extend(edge.props),
                indexmap::map::Entry::Vacant(e) => {
                    e.insert(edge);
                }
            }
        }
    }

    pub fn node(&self, r: &NodeRef) -> Option<&Node> {
        self.nodes.get(r)
    }

    pub fn nodes(&self) -> impl Iterator<Item = &Node> {
        self.nodes.values()
    }

    pub fn edges(&self) -> impl Iterator<Item = &Edge> {
        self.edges.values()
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

    /// Takes the contents out, leaving this delta empty.
    pub fn take(&mut self) -> GraphDelta {
        std::mem::take(self)
    }

    pub fn into_parts(self) -> (Vec<Node>, Vec<Edge>) {
        (self.nodes.into_values().collect(), self.edges.into_values().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::vocab::ProvRelation;

    fn edge(rel: RelType, kind: EdgeKind) -> Edge {
        Edge::new(rel, kind, NodeRef::new(Label::LlmCall, "c"), NodeRef::new(Label::LlmPrompt, "p"))
    }

    #[test]
    fn repeated_nodes_and_edges_merge_their_properties() {
        let mut d = GraphDelta::new();
        d.add_node(Node::new(Label::A2ATask, "task:1").with("a", 1i64).with("b", 1i64));
        d.add_node(Node::new(Label::A2ATask, "task:1").with("b", 2i64));
        d.add_node(Node::new(Label::A2ATaskExecution, "task:1"));
        assert_eq!(d.node_count(), 2, "same name, other label: another node");
        let t = d.node(&NodeRef::new(Label::A2ATask, "task:1")).unwrap();
        assert_eq!((t.props["a"].as_i64(), t.props["b"].as_i64()), (Some(1), Some(2)));

        let used = EdgeKind::Prov(ProvRelation::Used);
        d.add_edge(edge(RelType::WasUsedBy, used).with("x", "1"));
        d.add_edge(edge(RelType::WasUsedBy, used).with("x", "2"));
        d.add_edge(edge(RelType::WasUsedBy, EdgeKind::Plain));
        d.add_edge(edge(RelType::WasConsumedBy, used));
        assert_eq!(d.edge_count(), 3);
        assert_eq!(d.edges().next().unwrap().props["x"].as_str(), Some("2"));

        let mut other = GraphDelta::new();
        other.add_node(Node::new(Label::A2ATask, "task:1").with("c", 3i64));
        other.add_edge(edge(RelType::WasUsedBy, used).with("y", "3"));
        other.add_node(Node::new(Label::Artifact, "artifact:1"));
        d.extend(other);
        assert_eq!((d.node_count(), d.edge_count()), (3, 3));
        assert_eq!(d.node(&NodeRef::new(Label::A2ATask, "task:1")).unwrap().props.len(), 3);
        assert_eq!(d.edges().next().unwrap().props.len(), 2);
    }
}
