//! The graph delta's tests: merging nodes and edges, leaves, and property values.

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

#[test]
fn upserts_in_place_equal_adding_whole_nodes_and_edges() {
    let used = EdgeKind::Prov(ProvRelation::Used);
    let mut added = GraphDelta::new();
    added.add_node(Node::new(Label::LlmCall, "c").with("a", "1").with("n", 1i64));
    added.add_node(Node::new(Label::LlmPrompt, "p"));
    added.add_edge(edge(RelType::WasUsedBy, used).with("r", "x"));
    added.add_node(Node::new(Label::LlmCall, "c").with("a", "2").with("b", true));
    added.add_edge(edge(RelType::WasUsedBy, used).with("r", "y"));

    let mut upserted = GraphDelta::new();
    let c = upserted.upsert_node(Label::LlmCall, "c");
    upserted.node_props(c).set_str("a", "1");
    upserted.node_props(c).set("n", 1i64);
    let p = upserted.upsert_node(Label::LlmPrompt, "p");
    upserted.upsert_edge(RelType::WasUsedBy, used, c, p).set_str("r", "x");
    assert_eq!(upserted.upsert_node(Label::LlmCall, "c"), c);
    upserted.node_props(c).set_str("a", "2");
    upserted.node_props(c).set("b", true);
    upserted.upsert_edge(RelType::WasUsedBy, used, c, p).set_str("r", "y");
    assert_eq!(upserted.node_name(c), "c");

    let (an, ae) = added.into_parts();
    let (un, ue) = upserted.clone().into_parts();
    assert_eq!((an, ae), (un, ue));
    assert_eq!(upserted.node(&NodeRef::new(Label::LlmCall, "c")).unwrap().props["a"].as_str(), Some("2"));
    assert!(upserted.node(&NodeRef::new(Label::LlmPrompt, "c")).is_none());
}

#[test]
fn set_str_replaces_values_of_any_type() {
    let mut p = Props::new();
    p.set("k", 5i64);
    p.set_str("k", "five");
    assert_eq!(p["k"], PropValue::Str("five".into()));
    p.set_str("k", "six");
    assert_eq!(p["k"], PropValue::Str("six".into()));
    assert_eq!(p.len(), 1);
}

#[test]
fn nodes_name_the_records_they_came_from_across_merged_batches() {
    let with = |d: &mut GraphDelta, name: &str| {
        let n = d.upsert_node(Label::A2ATask, name);
        d.node_props(n).insert("k".into(), PropValue::Str(name.into()));
    };
    let mut a = GraphDelta::new();
    a.begin_record(0);
    with(&mut a, "A");
    with(&mut a, "B");
    a.begin_record(1);
    with(&mut a, "B");
    with(&mut a, "C");
    // A bare end of an edge: named, no properties, nothing to stamp.
    a.upsert_node(Label::A2ATask, "bare");
    let mut b = GraphDelta::new();
    b.begin_record(0);
    with(&mut b, "C");
    b.add_node(Node::new(Label::A2ATask, "D").with("k", "D"));
    a.extend_shifted(b, 2);
    assert_eq!(a.node_leaves(), &[vec![0], vec![0, 1], vec![1, 2], vec![1], vec![2]]);
    a.stamp_log_leaves(10, crate::tlog::props_digest);
    let leaves =
        |name: &str| a.node(&NodeRef::new(Label::A2ATask, name)).unwrap().props.get("log_leaves").cloned();
    let list = |v: &[i64]| Some(PropValue::List(v.iter().map(|i| PropValue::Int(*i)).collect()));
    assert_eq!(leaves("A"), list(&[10]));
    assert_eq!(leaves("B"), list(&[10, 11]));
    assert_eq!(leaves("C"), list(&[11, 12]));
    assert_eq!(leaves("D"), list(&[12]));
    assert_eq!(leaves("bare"), None);
    let digest = a.node(&NodeRef::new(Label::A2ATask, "D")).unwrap().props.get("log_digest").cloned();
    assert!(matches!(digest, Some(PropValue::Str(d)) if d.starts_with("v1:") && d.ends_with("|k")));
}

#[test]
fn take_leaves_an_empty_delta_that_still_merges() {
    let mut d = GraphDelta::new();
    d.add_node(Node::new(Label::A2ATask, "task:1").with("a", 1i64));
    let taken = d.take();
    assert_eq!((taken.node_count(), d.node_count()), (1, 0));
    assert!(d.is_empty() && d.node(&NodeRef::new(Label::A2ATask, "task:1")).is_none());
    d.add_node(Node::new(Label::A2ATask, "task:1").with("b", 2i64));
    d.add_node(Node::new(Label::A2ATask, "task:1").with("c", 3i64));
    assert_eq!((d.node_count(), d.nodes().next().unwrap().props.len()), (1, 2));
}
