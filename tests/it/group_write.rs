//! The store's group writes (every source's live and streamed writes) into a real FalkorDB:
//! rows of many property-name sets, sets too long for one query, names and values FalkorDB
//! cannot hold in a query text, written and written over, read back property by property
//! against the delta they came from.

use std::collections::BTreeMap;

use provex::model::vocab::{EdgeKind, Label, ProvRelation, RelType, PROV_BASE_TYPE, PROV_TYPE};
use provex::model::{Edge, GraphDelta, Node, NodeRef, PropValue, Props};
use provex::store::shapes::stored_key;
use provex::store::Store;
use serde_json::{json, Value};

use crate::common;

/// Property names from outside input: a backtick (which would end a quoted name), a NUL, an
/// empty name, a name ending with `%`, and Cypher in a name.
const ODD: [&str; 8] =
    ["a`b", "x` = 1 DETACH DELETE n //", "a\0b", "", "cpu%", "it's \"q\" \\ {}", "k with space", "ünï:cödé"];

fn value(i: usize) -> PropValue {
    match i % 6 {
        0 => PropValue::Int(i as i64 - 3),
        1 => PropValue::Str(format!("v{i} ' \\ \n \0 end")),
        2 => PropValue::Float(i as f64 + 0.25),
        3 => PropValue::Bool(i % 4 == 3),
        4 => PropValue::List(vec![PropValue::Int(i as i64), PropValue::Int(1)]),
        _ => PropValue::Str("'}) DETACH DELETE n //".into()),
    }
}

/// Node `i`'s properties: a key set of its own out of a pool of odd and plain names; every
/// 25th node has more names than one query sets one by one.
fn props(i: usize, round: usize) -> Props {
    let mut p = Props::new();
    let width = if i % 25 == 7 { 90 } else { 1 + i % 11 };
    for j in 0..width {
        let key = match j {
            j if j >= 11 => format!("wide:{j}"),
            j if (i + j) % 5 == 0 => ODD[(i + j) % ODD.len()].to_owned(),
            j => format!("p:{}", (i * 7 + j) % 40),
        };
        p.insert(key.into(), value(i + j + round));
    }
    p
}

fn delta(round: usize, n: usize) -> GraphDelta {
    let mut d = GraphDelta::new();
    for i in 0..n {
        let label = [Label::Artifact, Label::LlmCall, Label::Explain][i % 3];
        let mut node = Node::new(label, format!("n{i}"));
        node.props = props(i, round);
        // An `Explain` node's own kind stands; another node's is its label's.
        if i % 9 == 1 || i % 9 == 2 {
            node.props.insert(PROV_TYPE.into(), PropValue::Str("tg:Question".into()));
        }
        d.add_node(node);
    }
    for i in 1..n {
        let (s, t) = (i - 1, (i * 13) % n);
        let label = |k: usize| [Label::Artifact, Label::LlmCall, Label::Explain][k % 3];
        let kind = if i % 2 == 0 { EdgeKind::Prov(ProvRelation::Used) } else { EdgeKind::Plain };
        let mut e = Edge::new(
            RelType::WasUsedBy,
            kind,
            NodeRef::new(label(s), format!("n{s}")),
            NodeRef::new(label(t), format!("n{t}")),
        );
        e.props = props(i + 3, round);
        d.add_edge(e);
    }
    d
}

/// Nodes or edges by key, with their properties.
type Elements = BTreeMap<String, BTreeMap<String, Value>>;

fn json_of(v: &PropValue) -> Value {
    match v {
        PropValue::Str(s) => json!(s.replace('\0', "\u{FFFD}")),
        PropValue::List(items) => Value::Array(items.iter().map(json_of).collect()),
        other => other.to_json(),
    }
}

fn stored(props: &Props) -> BTreeMap<String, Value> {
    props.iter().map(|(k, v)| (stored_key(k).into_owned(), json_of(v))).collect()
}

/// What the graph must hold after `deltas`, written in order: each node's and edge's
/// properties, the later writes' values over the earlier ones.
fn expected(deltas: &[GraphDelta]) -> (Elements, Elements) {
    let (mut nodes, mut edges) = (BTreeMap::new(), BTreeMap::new());
    for d in deltas {
        for n in d.nodes() {
            let entry: &mut BTreeMap<String, Value> =
                nodes.entry(format!("{}|{}", n.label, n.name)).or_default();
            if n.label == Label::Explain {
                entry.entry(PROV_TYPE.into()).or_insert(json!("tg:Explain"));
                entry.entry(PROV_BASE_TYPE.into()).or_insert(json!(n.label.base_type().as_str()));
            }
            entry.extend(stored(&n.props));
            if n.label != Label::Explain {
                entry.insert(PROV_TYPE.into(), json!(n.label.prov_type()));
                entry.insert(PROV_BASE_TYPE.into(), json!(n.label.base_type().as_str()));
            }
            entry.insert("name".into(), json!(n.name));
        }
        for e in d.edges() {
            let key = format!("{}|{}|{:?}", e.source.name, e.target.name, e.kind.key());
            let entry: &mut BTreeMap<String, Value> = edges.entry(key).or_default();
            entry.extend(stored(&e.props));
            if let Some((k, v)) = e.kind.key() {
                entry.insert(k.into(), json!(v));
            }
        }
    }
    (nodes, edges)
}

async fn read_back(provex: &provex::facade::Provex, graph: &str) -> (Elements, Elements) {
    let as_map = |v: &Value| -> BTreeMap<String, Value> {
        serde_json::from_value(common::without_log(v.clone())).unwrap()
    };
    let rows = provex.query(graph, "MATCH (n) RETURN labels(n)[0], n.name, properties(n)").await.unwrap();
    let nodes = rows
        .rows
        .iter()
        .map(|r| (format!("{}|{}", r[0].as_str().unwrap(), r[1].as_str().unwrap()), as_map(&r[2])))
        .collect();
    let rows = provex
        .query(graph, "MATCH (a)-[e]->(b) RETURN a.name, b.name, e.`prov:base_type`, properties(e)")
        .await
        .unwrap();
    let edges = rows
        .rows
        .iter()
        .map(|r| {
            let kind = r[2].as_str().map(|v| ("prov:base_type", v.to_owned()));
            let kind = format!("{:?}", kind.as_ref().map(|(k, v)| (*k, v.as_str())));
            (format!("{}|{}|{kind}", r[0].as_str().unwrap(), r[1].as_str().unwrap()), as_map(&r[3]))
        })
        .collect();
    (nodes, edges)
}

/// Finding: a property name with a backtick (or a NUL, or an empty name), or a NUL in a
/// value, failed the whole write: the parameter encoder refuses them. Now every row is
/// stored, such names escaped, and rows of many name sets are written property by property.
#[tokio::test]
async fn a_group_write_of_many_key_sets_stores_every_property_as_given() {
    let (provex, graph) = common::open("group_write_shapes").await;
    let store = Store::connect(common::url()).await.unwrap();
    let first = delta(0, 150);
    let stats = store.write(&graph, &first).await.unwrap();
    assert_eq!((stats.nodes, stats.edges), (150, 149));
    // Written again, then over with other values and key sets on two thirds of the nodes:
    // the names a later write does not give keep their values.
    store.write(&graph, &first).await.unwrap();
    let mut second = delta(1, 100);
    second.extend(delta(2, 40));
    store.write(&graph, &second).await.unwrap();
    let (nodes, edges) = read_back(&provex, &graph).await;
    let (want_nodes, want_edges) = expected(&[first, second]);
    assert_eq!(nodes.len(), 150);
    for (k, want) in &want_nodes {
        assert_eq!(nodes.get(k), Some(want), "node {k}");
    }
    assert_eq!(edges.len(), want_edges.len());
    for (k, want) in &want_edges {
        assert_eq!(edges.get(k), Some(want), "edge {k}");
    }
    let _ = provex.delete_graph(&graph).await;
}
