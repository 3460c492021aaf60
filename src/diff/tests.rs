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
        "summary": {
            "claims_added": [], "claims_removed": [], "verifications_added": [],
            "verifications_removed": [{"name": "v2", "text": "VALIDATED", "agent": null, "claim": "s1", "claim_text": null}],
            "changes": [],
        },
        "nodes": {
            "added": [{"label": "Agent", "name": "x", "rank": 2, "props": {"k": [1, 2]}}],
            "removed": [{"label": "Verification", "name": "v2", "rank": 1, "props": {"verdict": "VALIDATED"}}],
            "changed": [{
                "label": "Statement", "name": "s1", "rank": 0,
                "before": {"quote": "old", "score": 1},
                "after": {"added": true, "quote": "new"}
            }]
        },
        "edges": {
            "added": [{"source": "x", "type": "GENERATED", "kind": "USED", "target": "s1", "rank": 0, "props": {}}],
            "removed": [{"source": "v2", "type": "VALIDATES", "kind": null, "target": "s1", "rank": 1, "props": {"w": 0.5}}],
            "changed": [{
                "source": "v1", "type": "VALIDATES", "kind": null, "target": "s1", "rank": 1,
                "before": {}, "after": {"w": 1.5}
            }]
        }
    });
    assert_eq!(serde_json::to_value(&d).unwrap(), expected);
    assert_eq!(apply(&a, &d), b);
    assert!(diff(&b, &b).is_empty());
    assert_eq!(
        render_text(&d),
        "claims: 0 added, 0 removed; verifications: 0 added, 1 removed; 0 status changes\n\
         - verification v2: \"VALIDATED\" of claim s1\n\
         nodes: 1 added, 1 removed, 1 changed; edges: 1 added, 1 removed, 1 changed\n\
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
        let names: Vec<_> = d.nodes.added.iter().map(|n| (n.rank, &n.label, &n.name)).collect();
        let mut sorted = names.clone();
        sorted.sort();
        prop_assert_eq!(names, sorted);
    }
}

#[test]
fn the_summary_names_the_claims_and_the_values_that_decide_them_and_lists_go_by_importance() {
    let mut a = Snapshot::default();
    a.nodes.insert(
        nk("Statement", "s1"),
        props(&[
            ("claim_text", json!("It passed.")),
            ("signature_status", json!("valid")),
            ("consensus_score", json!(0.9)),
        ]),
    );
    a.nodes.insert(
        nk("Statement", "gone"),
        props(&[("claim_text", json!("Old claim")), ("author_id", json!("urn:agent:a"))]),
    );
    a.nodes.insert(
        nk("Verification", "v1"),
        props(&[("verdict", json!("VALIDATED")), ("author_id", json!("urn:agent:b"))]),
    );
    a.nodes.insert(nk("Message", "m-1"), props(&[("text", json!("hi"))]));
    a.nodes.insert(nk("A2AMessageProcessing", "p-1"), props(&[]));
    a.edges.insert(ek("v1", "VALIDATES", Some("USED"), "s1"), props(&[]));
    a.edges.insert(
        ek("s1", "CITES", Some("WAS_DERIVED_FROM"), "c1"),
        props(&[("quote_text", json!("two million"))]),
    );
    let mut b = Snapshot::default();
    b.nodes.insert(
        nk("Statement", "s1"),
        props(&[
            ("claim_text", json!("It passed.")),
            ("signature_status", json!("invalid")),
            ("consensus_score", json!(0.5)),
        ]),
    );
    b.nodes.insert(nk("Statement", "new"), props(&[("claim_text", json!("New claim"))]));
    b.nodes.insert(
        nk("Verification", "v1"),
        props(&[("verdict", json!("CHALLENGED")), ("author_id", json!("urn:agent:b"))]),
    );
    b.nodes.insert(nk("Message", "m-1"), props(&[("text", json!("hello"))]));
    b.edges.insert(ek("v1", "VALIDATES", Some("USED"), "s1"), props(&[]));
    b.edges.insert(
        ek("s1", "CITES", Some("WAS_DERIVED_FROM"), "c1"),
        props(&[("quote_text", json!("five million"))]),
    );
    let d = diff(&a, &b);
    let s = &d.summary;
    assert_eq!(
        s.claims_added.iter().map(|c| (&c.name[..], c.text.as_deref())).collect::<Vec<_>>(),
        [("new", Some("New claim"))]
    );
    assert_eq!(
        (s.claims_removed[0].name.as_str(), s.claims_removed[0].agent.as_deref()),
        ("gone", Some("urn:agent:a"))
    );
    assert!(s.changes.iter().all(|c| c.claim_text.as_deref() == Some("It passed.")));
    let changes: Vec<(&str, &str, Value, Value)> = s
        .changes
        .iter()
        .map(|c| {
            (
                c.what.as_str(),
                c.claim.as_deref().unwrap(),
                c.before.clone().unwrap(),
                c.after.clone().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        changes,
        [
            ("consensus", "s1", json!(0.9), json!(0.5)),
            ("signature", "s1", json!("valid"), json!("invalid")),
            ("quote", "s1", json!("two million"), json!("five million")),
            ("verdict", "s1", json!("VALIDATED"), json!("CHALLENGED")),
        ]
    );
    // Claims, then verifications, then runtime rows: not alphabetical.
    let changed: Vec<&str> = d.nodes.changed.iter().map(|n| n.label.as_str()).collect();
    assert_eq!(changed, ["Statement", "Verification", "Message"]);
    let removed: Vec<&str> = d.nodes.removed.iter().map(|n| n.label.as_str()).collect();
    assert_eq!(removed, ["Statement", "A2AMessageProcessing"]);
    let text = render_text(&d);
    assert!(
        text.starts_with("claims: 1 added, 1 removed; verifications: 0 added, 0 removed; 4 status changes\n"),
        "{text}"
    );
    assert!(text.contains("~ quote of claim s1 (CITES c1): \"two million\" -> \"five million\"\n"), "{text}");
    assert!(diff(&a, &a).summary.is_empty());
}

/// A chain of `n` spans, each the parent of the next, span `error_at` failing.
fn span_chain(n: usize, error_at: Option<usize>) -> Snapshot {
    let mut s = Snapshot::default();
    for i in 0..n {
        let mut p = props(&[
            ("otel:trace_id", json!("t1")),
            ("otel:span_id", json!(format!("{i:016x}"))),
            ("otel:start_ns", json!(i)),
            ("otel:status", json!(if Some(i) == error_at { "error" } else { "unset" })),
        ]);
        if i > 0 {
            p.insert("otel:parent_span_id".into(), json!(format!("{:016x}", i - 1)));
        }
        s.nodes.insert(nk("Span", &format!("otel:t1:{i}")), p);
    }
    s
}

#[test]
fn a_deep_chain_of_spans_is_walked_to_a_bounded_depth_and_a_failing_call_is_found() {
    let (a, b) = (span_chain(5_000, None), span_chain(5_000, Some(10)));
    let d = diff(&a, &b);
    let t = d.traces.expect("spans are compared");
    assert_eq!((t.a.spans, t.b.spans), (5_000, 5_000));
    // Walked without recursion, and no deeper than the bound.
    assert!(t.calls.len() > 200 && t.calls.len() < 300, "{}", t.calls.len());
    let changed: Vec<_> = t.calls.iter().filter(|c| !c.changes.is_empty()).collect();
    assert_eq!(changed.len(), 1);
    assert_eq!(
        (changed[0].status_a.as_deref(), changed[0].status_b.as_deref()),
        (Some("unset"), Some("error"))
    );
    assert_eq!(changed[0].path.matches(" / ").count(), 10);
    assert!(t.differs());
    assert!(!diff(&a, &a).traces.unwrap().differs());
    // A graph without spans has no trace summary.
    assert!(diff(&Snapshot::default(), &Snapshot::default()).traces.is_none());
}
