//! The compact view round-trips every node and edge field, keeps empty strings apart from
//! none, and says what is wrong with columns that do not fit together.

use proptest::prelude::*;

use super::*;
use crate::api::ViewMode;

fn node(id: &str, arrival: u32) -> ViewNode {
    ViewNode {
        id: id.to_owned(),
        label: "LlmCall".to_owned(),
        base_type: Some("ProvActivity".to_owned()),
        x: 560.0 + f64::from(arrival),
        y: -276.5,
        w: 40.0,
        h: 36.0,
        layer: 3,
        arrival,
        agent: None,
        context: Some("ctx-bench".to_owned()),
        status: None,
        text: Some("claude-sonnet-4".to_owned()),
        standing: None,
        cluster: None,
    }
}

fn edge(source: &str, target: &str, prov: Option<&str>) -> ViewEdge {
    ViewEdge {
        source: source.to_owned(),
        target: target.to_owned(),
        rel: "USED".to_owned(),
        prov: prov.map(str::to_owned),
        a2a: None,
    }
}

fn view(nodes: Vec<ViewNode>, edges: Vec<ViewEdge>) -> View {
    View {
        graph: "g".into(),
        seq: 7,
        mode: ViewMode::Whole,
        root: None,
        total_nodes: nodes.len() as u64,
        total_edges: edges.len() as u64,
        limit: 50_000,
        nodes,
        edges,
        columns: None,
    }
}

#[test]
fn a_view_in_columns_decodes_to_the_same_records_and_shares_its_strings() {
    let nodes = vec![node("a", 0), node("b", 1), node("c", 2)];
    let edges = vec![edge("a", "b", Some("used")), edge("b", "c", None), edge("c", "a", Some("used"))];
    let v = view(nodes.clone(), edges.clone()).into_columns();
    assert!(v.nodes.is_empty() && v.edges.is_empty());
    let c = v.columns.as_ref().unwrap().built().unwrap();
    // The placeholder, then each string once: three nodes share their label, base type,
    // context and text; three edges their type and relation.
    assert_eq!(c.strings, ["", "LlmCall", "ProvActivity", "ctx-bench", "claude-sonnet-4", "USED", "used"]);
    assert_eq!(c.edges.source, [0, 1, 2]);
    assert_eq!(c.edges.target, [1, 2, 0]);
    assert_eq!(c.edges.prov, [6, 0, 6]);
    assert_eq!(v.records().unwrap(), (nodes, edges));
    // Through JSON too, the way it crosses HTTP and IPC.
    let back: View = serde_json::from_str(&serde_json::to_string(&v).unwrap()).unwrap();
    assert_eq!(back, v);
}

#[test]
fn an_empty_string_is_not_none() {
    let mut n = node("a", 0);
    n.agent = Some(String::new());
    n.status = Some(String::new());
    let (nodes, _) = ViewColumns::encode([&n], []).decode().unwrap();
    assert_eq!(nodes[0].agent.as_deref(), Some(""));
    assert_eq!(nodes[0].status.as_deref(), Some(""));
    assert_eq!(nodes[0].standing, None);
}

#[test]
fn cluster_boxes_keep_what_they_hold_and_a_view_without_them_sends_no_column() {
    let info = ClusterInfo {
        title: "agent 1".into(),
        members: 12,
        labels: vec![("LlmCall".into(), 12)],
        statuses: vec![],
        opens: ViewMode::Members,
    };
    let mut boxed = node("k", 1);
    boxed.cluster = Some(info);
    let nodes = vec![node("a", 0), boxed];
    let c = ViewColumns::encode(&nodes, []);
    assert_eq!(c.nodes.cluster.as_ref().map(Vec::len), Some(2));
    assert_eq!(c.decode().unwrap().0, nodes);
    let plain = ViewColumns::encode(&nodes[..1], []);
    assert!(!serde_json::to_string(&plain).unwrap().contains("cluster"));
}

#[test]
fn an_edge_with_an_end_not_in_the_view_is_left_out() {
    let nodes = vec![node("a", 0), node("b", 1)];
    let c = ViewColumns::encode(&nodes, &[edge("a", "b", None), edge("a", "elsewhere", None)]);
    assert_eq!(c.decode().unwrap().1, [edge("a", "b", None)]);
}

#[test]
fn columns_that_do_not_fit_together_are_named() {
    let nodes = vec![node("a", 0), node("b", 1)];
    let good = ViewColumns::encode(&nodes, &[edge("a", "b", None)]);
    let mut c = good.clone();
    c.nodes.y.pop();
    assert_eq!(c.decode().unwrap_err(), "nodes.y has 1 entries, not 2");
    let mut c = good.clone();
    c.edges.target[0] = 2;
    assert_eq!(c.decode().unwrap_err(), "target: 2 is not a node (2 nodes)");
    let mut c = good.clone();
    c.nodes.label[1] = 0;
    assert!(c.decode().unwrap_err().starts_with("label: 0 is not an entry"), "a label is never none");
    let mut c = good;
    c.edges.a2a[0] = 99;
    assert!(c.decode().unwrap_err().starts_with("a2a: 99 is not an entry"));
}

fn opt_word() -> impl Strategy<Value = Option<String>> {
    proptest::option::of("[a-c]{0,2}")
}

/// Layout pixels in halves, as the layout places them (and as JSON gives back exactly).
fn half() -> impl Strategy<Value = f64> {
    (-2_000_000i32..2_000_000).prop_map(|v| f64::from(v) / 2.0)
}

fn any_node() -> impl Strategy<Value = ViewNode> {
    (
        ("[a-z]{0,3}", "[A-C]{0,2}", opt_word(), half(), half(), half()),
        (any::<u32>(), any::<u32>(), opt_word(), opt_word(), opt_word(), opt_word(), opt_word()),
    )
        .prop_map(
            |((id, label, base_type, x, y, w), (layer, arrival, agent, context, status, text, standing))| {
                ViewNode {
                    id,
                    label,
                    base_type,
                    x,
                    y,
                    w,
                    h: 36.0,
                    layer,
                    arrival,
                    agent,
                    context,
                    status,
                    text,
                    standing,
                    cluster: None,
                }
            },
        )
}

proptest! {
    /// Any nodes (ids unique) and any edges between them come back as they went in.
    #[test]
    fn columns_round_trip(
        nodes in proptest::collection::vec(any_node(), 0..20),
        ends in proptest::collection::vec((any::<usize>(), any::<usize>(), "[A-C]{1,2}", opt_word(), opt_word()), 0..30),
    ) {
        let mut seen = std::collections::HashSet::new();
        let nodes: Vec<ViewNode> = nodes.into_iter().filter(|n| seen.insert(n.id.clone())).collect();
        let edges: Vec<ViewEdge> = if nodes.is_empty() { Vec::new() } else {
            ends.into_iter().map(|(s, t, rel, prov, a2a)| ViewEdge {
                source: nodes[s % nodes.len()].id.clone(),
                target: nodes[t % nodes.len()].id.clone(),
                rel, prov, a2a,
            }).collect()
        };
        let v = view(nodes.clone(), edges.clone()).into_columns();
        let json: View = serde_json::from_str(&serde_json::to_string(&v).unwrap()).unwrap();
        prop_assert_eq!(json.records().unwrap(), (nodes, edges));
    }
}
