//! The encoder byte by byte on small graphs, its cuts at the size limits, and the `MERGE`
//! rules it reproduces (duplicates, edges without endpoints, kinds of one type).

use super::*;
use crate::model::vocab::ProvRelation;
use crate::model::{Edge, Node, NodeRef};

fn cstr(s: &str) -> Vec<u8> {
    let mut v = s.as_bytes().to_vec();
    v.push(0);
    v
}

fn expected_header(name: &str, columns: &[&str]) -> Vec<u8> {
    let mut v = cstr(name);
    v.extend_from_slice(&(columns.len() as u32).to_le_bytes());
    for c in columns {
        v.extend(cstr(c));
    }
    v
}

#[test]
fn one_node_and_one_edge_encode_as_the_specification_lays_them_out() {
    let mut d = GraphDelta::new();
    d.add_node(Node::new(Label::Artifact, "a").with("n", 7i64));
    d.add_node(Node::new(Label::Artifact, "b").with("ok", true));
    let mut e = Edge::new(
        RelType::Cites,
        EdgeKind::Plain,
        NodeRef::new(Label::Artifact, "b"),
        NodeRef::new(Label::Artifact, "a"),
    );
    e.props.insert("w".into(), 0.5f64.into());
    d.add_edge(e);
    let enc = encode(&d, Limits::default()).unwrap();
    assert_eq!((enc.nodes, enc.edges, enc.commands.len()), (2, 1, 1));
    let c = &enc.commands[0];
    assert!(c.begin);
    assert_eq!((c.nodes, c.edges, c.label_blobs.len(), c.type_blobs.len()), (2, 1, 1, 1));

    let columns = ["n", "name", "ok", "prov:base_type", "prov:type"];
    let mut nodes = expected_header("Artifact", &columns);
    let prov_type = &Label::Artifact.prov_type();
    let base = Label::Artifact.base_type().as_str();
    // a: n = 7, name = "a", ok unset.
    nodes.push(LONG);
    nodes.extend_from_slice(&7i64.to_le_bytes());
    nodes.push(STRING);
    nodes.extend(cstr("a"));
    nodes.push(NULL);
    for s in [base, prov_type] {
        nodes.push(STRING);
        nodes.extend(cstr(s));
    }
    // b: n unset, name = "b", ok = true.
    nodes.push(NULL);
    nodes.push(STRING);
    nodes.extend(cstr("b"));
    nodes.extend_from_slice(&[BOOL, 1]);
    for s in [base, prov_type] {
        nodes.push(STRING);
        nodes.extend(cstr(s));
    }
    assert_eq!(c.label_blobs[0], nodes);

    let mut edges = expected_header("CITES", &["w"]);
    edges.extend_from_slice(&1u64.to_le_bytes());
    edges.extend_from_slice(&0u64.to_le_bytes());
    edges.push(DOUBLE);
    edges.extend_from_slice(&0.5f64.to_le_bytes());
    assert_eq!(c.type_blobs[0], edges);
}

#[test]
fn values_of_every_type() {
    let mut out = Vec::new();
    let list = PropValue::List(vec![PropValue::Int(-1), PropValue::Str("x".into()), PropValue::List(vec![])]);
    value(&mut out, &list).unwrap();
    let mut want = vec![ARRAY];
    want.extend_from_slice(&3i64.to_le_bytes());
    want.push(LONG);
    want.extend_from_slice(&(-1i64).to_le_bytes());
    want.extend_from_slice(&[STRING, b'x', 0, ARRAY]);
    want.extend_from_slice(&0i64.to_le_bytes());
    assert_eq!(out, want);

    let mut out = Vec::new();
    value(&mut out, &PropValue::Float(f64::INFINITY)).unwrap();
    assert_eq!(out, [&[STRING][..], b"inf\0"].concat(), "as the MERGE path's parameter writes it");
    assert_eq!(
        value(&mut Vec::new(), &PropValue::Str("a\0b".into())),
        Err(Unsupported::NulInString("a\0b".into()))
    );
}

#[test]
fn pieces_respect_the_limits_and_number_nodes_across_commands() {
    let mut d = GraphDelta::new();
    for i in 0..300 {
        d.add_node(Node::new(Label::Artifact, format!("n{i:03}")));
        if i > 0 {
            d.add_edge(Edge::new(
                RelType::Cites,
                EdgeKind::Plain,
                NodeRef::new(Label::Artifact, format!("n{i:03}")),
                NodeRef::new(Label::Artifact, format!("n{:03}", i - 1)),
            ));
        }
    }
    let limits = Limits { max_blob: 2_000, max_command: 5_000 };
    let enc = encode(&d, limits).unwrap();
    assert!(enc.commands.len() > 3);
    assert_eq!(enc.commands.iter().filter(|c| c.begin).count(), 1);
    assert!(enc.commands[0].begin);
    assert_eq!(enc.commands.iter().map(|c| c.nodes).sum::<u64>(), 300);
    assert_eq!(enc.commands.iter().map(|c| c.edges).sum::<u64>(), 299);
    let mut seen_edges = false;
    for c in &enc.commands {
        assert!(c.label_blobs.iter().chain(&c.type_blobs).all(|b| b.len() <= limits.max_blob));
        assert!(c.bytes() <= limits.max_command);
        assert!(!(seen_edges && c.nodes > 0), "every node goes out before any edge");
        seen_edges |= c.edges > 0;
    }
    // Each continued blob starts with the full header again.
    let header = expected_header("Artifact", &["name", "prov:base_type", "prov:type"]);
    for c in &enc.commands {
        for b in &c.label_blobs {
            assert!(b.starts_with(&header));
        }
    }
}

#[test]
fn edges_are_the_deltas_edges_with_both_endpoints() {
    let a = NodeRef::new(Label::Artifact, "a");
    let b = NodeRef::new(Label::Artifact, "b");
    let mut d = GraphDelta::new();
    d.add_node(Node::new(Label::Artifact, "a"));
    d.add_node(Node::new(Label::Artifact, "b"));
    let used = EdgeKind::Prov(ProvRelation::Used);
    let derived = EdgeKind::Prov(ProvRelation::WasDerivedFrom);
    // Two kinds of one type between the same nodes stay two edges…
    d.add_edge(Edge::new(RelType::Cites, used, a.clone(), b.clone()));
    d.add_edge(Edge::new(RelType::Cites, derived, a.clone(), b.clone()));
    // …and so does an edge with no kind (one MERGE write keeps it apart too)…
    let mut plain = Edge::new(RelType::Cites, EdgeKind::Plain, a.clone(), b.clone());
    plain.props.insert("w".into(), 1i64.into());
    d.add_edge(plain);
    // …and an edge to a node that is not there is left out, as MATCH leaves it.
    d.add_edge(Edge::new(RelType::Cites, used, a.clone(), NodeRef::new(Label::Artifact, "zz")));
    let enc = encode(&d, Limits::default()).unwrap();
    assert_eq!(enc.edges, 3);
    let blob = &enc.commands[0].type_blobs[0];
    assert_eq!(blob.windows(2).filter(|w| w == b"w\0").count(), 1, "one column w");
    let one = [&[LONG][..], &1i64.to_le_bytes()].concat();
    assert_eq!(
        blob.windows(one.len()).filter(|w| *w == one.as_slice()).count(),
        1,
        "only the plain one has w"
    );
}
