//! Unit and property tests of the diff core.

use proptest::prelude::*;
use serde_json::json;

use super::*;
use crate::model::vocab::{EdgeKind, Label, ProvRelation, RelType};
use crate::model::{Edge, Node, NodeRef};

fn props(pairs: &[(&str, Value)]) -> PropMap {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect()
}

fn nk(label: &str, name: &str) -> NodeKey {
    NodeKey { label: label.into(), name: name.into() }
}

fn ek(s: &str, rel: &str, kind: Option<&str>, t: &str) -> EdgeKey {
    EdgeKey { source: s.into(), rel: rel.into(), kind: kind.map(Into::into), target: t.into() }
}

#[test]
fn added_removed_and_changed_nodes_and_edges_are_listed_sorted_with_only_the_differing_properties() {
    let mut a = Snapshot::default();
    a.nodes.insert(nk("Statement", "s1"), props(&[("quote", json!("old")), ("score", json!(1))]));
    a.nodes.insert(nk("Verification", "v2"), props(&[("verdict", json!("VALIDATED"))]));
    a.nodes.insert(nk("Verification", "v1"), props(&[]));
    a.edges.insert(ek("v1", "VALIDATES", None, "s1"), props(&[]));
    a.edges.insert(ek("v2", "VALIDATES", None, "s1"), props(&[("w", json!(0.5))]));
    let mut b = Snapshot::default();
    b.nodes.insert(nk("Statement", "s1"), props(&[("quote", json!("new")), ("added", json!(true))]));
    b.nodes.insert(nk("Verification", "v1"), props(&[]));
    b.nodes.insert(nk("Agent", "x"), props(&[("k", json!([1, 2]))]));
    b.edges.insert(ek("v1", "VALIDATES", None, "s1"), props(&[("w", json!(1.5))]));
    b.edges.insert(ek("x", "GENERATED", Some("USED"), "s1"), props(&[]));
    let d = diff(&a, &b);
    let expected = json!({
        "nodes": {
            "added": [{"label": "Agent", "name": "x", "props": {"k": [1, 2]}}],
            "removed": [{"label": "Verification", "name": "v2", "props": {"verdict": "VALIDATED"}}],
            "changed": [{
                "label": "Statement", "name": "s1",
                "before": {"quote": "old", "score": 1},
                "after": {"added": true, "quote": "new"}
            }]
        },
        "edges": {
            "added": [{"source": "x", "type": "GENERATED", "kind": "USED", "target": "s1", "props": {}}],
            "removed": [{"source": "v2", "type": "VALIDATES", "kind": null, "target": "s1", "props": {"w": 0.5}}],
            "changed": [{
                "source": "v1", "type": "VALIDATES", "kind": null, "target": "s1",
                "before": {}, "after": {"w": 1.5}
            }]
        }
    });
    assert_eq!(serde_json::to_value(&d).unwrap(), expected);
    assert_eq!(apply(&a, &d), b);
    assert!(diff(&b, &b).is_empty());
    assert_eq!(
        render_text(&d),
        "nodes: 1 added, 1 removed, 1 changed; edges: 1 added, 1 removed, 1 changed\n\
         + node Agent x\n\
         - node Verification v2\n\
         ~ node Statement s1\n    \
             added: (absent) -> true\n    \
             quote: \"old\" -> \"new\"\n    \
             score: 1 -> (absent)\n\
         + edge x -[GENERATED USED]-> s1\n\
         - edge v2 -[VALIDATES]-> s1\n\
         ~ edge v1 -[VALIDATES]-> s1\n    \
             w: (absent) -> 1.5\n"
    );
}

#[test]
fn a_delta_gives_the_properties_the_store_writes() {
    let mut delta = GraphDelta::new();
    delta.add_node(Node::new(Label::LlmCall, "c").with("tokens", 5i64).with("t", f64::INFINITY));
    delta.add_node(Node::new(Label::LlmPrompt, "p"));
    delta.add_edge(
        Edge::new(
            RelType::WasUsedBy,
            EdgeKind::Prov(ProvRelation::Used),
            NodeRef::new(Label::LlmCall, "c"),
            NodeRef::new(Label::LlmPrompt, "p"),
        )
        .with("w", 2i64),
    );
    let s = Snapshot::from_delta(&delta);
    let c = &s.nodes[&nk("LlmCall", "c")];
    assert_eq!(c.get("tokens"), Some(&json!(5)));
    assert_eq!(c.get("t"), Some(&json!("inf")));
    assert_eq!(c.get(crate::model::vocab::PROV_TYPE), Some(&json!(Label::LlmCall.prov_type())));
    assert!(!c.contains_key("name"));
    let key = ek("c", RelType::WasUsedBy.as_str(), Some(ProvRelation::Used.as_str()), "p");
    assert_eq!(s.edges[&key], props(&[("w", json!(2))]));
}

#[test]
fn numbers_equal_to_within_rounding_are_not_a_change() {
    let mut a = Snapshot::default();
    a.nodes.insert(nk("Statement", "s"), props(&[("c", json!(0.9199999999999999)), ("l", json!([0.1, 2]))]));
    let mut b = a.clone();
    b.nodes.insert(nk("Statement", "s"), props(&[("c", json!(0.92)), ("l", json!([0.1, 2]))]));
    assert!(diff(&a, &b).is_empty());
    b.nodes.insert(nk("Statement", "s"), props(&[("c", json!(0.9201)), ("l", json!([0.1, 2]))]));
    assert_eq!(diff(&a, &b).nodes.changed[0].after, props(&[("c", json!(0.9201))]));
    assert!(!same_value(&json!("1"), &json!(1)));
    assert!(!same_value(&json!([1]), &json!([1, 1])));
}

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        (-3i64..3).prop_map(|i| json!(i)),
        "[ab]{0,2}".prop_map(Value::String),
        prop::collection::vec(0i64..2, 0..2).prop_map(|v| json!(v)),
    ]
}

fn prop_map() -> impl Strategy<Value = PropMap> {
    prop::collection::btree_map("[pq]", value(), 0..3)
}

/// Small snapshots over few names, so that two drawn snapshots overlap a lot.
fn snapshot() -> impl Strategy<Value = Snapshot> {
    let nodes = prop::collection::hash_map(("[AB]", "[xyz]").prop_map(|(l, n)| nk(&l, &n)), prop_map(), 0..6);
    let edges = prop::collection::hash_map(
        ("[xyz]", "[RS]", prop::option::of("[k]"), "[xyz]")
            .prop_map(|(s, r, k, t)| ek(&s, &r, k.as_deref(), &t)),
        prop_map(),
        0..6,
    );
    (nodes, edges).prop_map(|(nodes, edges)| Snapshot {
        nodes: nodes.into_iter().collect(),
        edges: edges.into_iter().collect(),
    })
}

proptest! {
    #[test]
    fn a_graph_has_no_diff_with_itself(a in snapshot()) {
        prop_assert!(diff(&a, &a).is_empty());
    }

    #[test]
    fn applying_the_diff_of_a_and_b_to_a_gives_b(a in snapshot(), b in snapshot()) {
        let d = diff(&a, &b);
        prop_assert_eq!(apply(&a, &d), b.clone());
        // Changes list only differing properties, and each side's lists are sorted.
        for c in &d.nodes.changed {
            prop_assert!(c.before.iter().all(|(k, v)| c.after.get(k) != Some(v)));
            prop_assert!(!c.before.is_empty() || !c.after.is_empty());
        }
        let names: Vec<_> = d.nodes.added.iter().map(|n| (&n.label, &n.name)).collect();
        let mut sorted = names.clone();
        sorted.sort();
        prop_assert_eq!(names, sorted);
    }
}
