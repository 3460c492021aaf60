//! Property tests of the PROV-JSON importer (`prov::import`) over random valid documents:
//! nothing valid is rejected, every record keeps exactly the bodies the document gave it,
//! every relation is kept once, and export → import is a fixed point. Arbitrary text is the
//! fuzz target's (`prov_json`), whose check this reuses. And the other way: any graph of
//! Provex's own exported as PROV-JSON imports as the same graph (names, labels, properties
//! with their types, edge types, kinds and directions).

use std::collections::BTreeMap;

use proptest::prelude::*;
use provex::diff::{diff, render_text, Snapshot};
use provex::model::{A2aRelation, Edge, EdgeKind, GraphDelta, Label, Node, PropValue, ProvRelation, RelType};
use provex::sources::prov::doc::key;
use provex::sources::prov::import::import;
use provex::sources::prov::relations::RELATIONS;
use provex::sources::prov::{Document, ProvFormat};
use serde_json::{json, Map, Value};

use crate::fuzz_regressions::checks;

fn local() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_]{0,6}"
}

fn attr_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        "[ -~]{0,12}".prop_map(Value::String),
        any::<i32>().prop_map(|i| json!(i)),
        any::<bool>().prop_map(|b| json!(b)),
        "[a-z ]{1,8}".prop_map(|s| json!({"$": s, "lang": "fr", "type": "prov:InternationalizedString"})),
        (0u32..1000).prop_map(|n| json!({"$": n.to_string(), "type": "xsd:int"})),
        local().prop_map(|l| json!({"$": format!("ex:{l}"), "type": "prov:QUALIFIED_NAME"})),
    ]
}

fn body() -> impl Strategy<Value = Value> {
    prop::collection::btree_map(local(), prop::collection::vec(attr_value(), 1..3), 0..3).prop_map(|m| {
        let o: Map<String, Value> = m
            .into_iter()
            .map(|(k, mut vs)| {
                (format!("ex:{k}"), if vs.len() == 1 { vs.pop().unwrap() } else { Value::Array(vs) })
            })
            .collect();
        Value::Object(o)
    })
}

/// A document: records of the three kinds over a few ids, and relations between ids (some
/// of them declared by no record).
fn document() -> impl Strategy<Value = Value> {
    let ids = prop::collection::vec(local(), 1..8);
    (
        ids,
        prop::collection::vec((0usize..3, 0usize..8, body()), 0..10),
        prop::collection::vec((0usize..15, 0usize..8, 0usize..8, body()), 0..10),
    )
        .prop_map(|(ids, records, rels)| {
            let mut doc = Map::new();
            doc.insert(
                "prefix".into(),
                json!({"ex": "http://example.org/", "other": "http://example.com/ns#"}),
            );
            let id = |i: usize| format!("ex:{}", ids[i % ids.len()]);
            for (kind, i, b) in records {
                let section = ["entity", "activity", "agent"][kind];
                let s = doc.entry(section).or_insert_with(|| json!({}));
                s.as_object_mut().unwrap().insert(id(i), b);
            }
            for (n, (r, a, b, mut extra)) in rels.into_iter().enumerate() {
                let spec = &RELATIONS[r];
                let o = extra.as_object_mut().unwrap();
                o.insert(spec.roles[0].into(), json!(id(a)));
                o.insert(spec.roles[1].into(), json!(id(b)));
                let s = doc.entry(spec.name).or_insert_with(|| json!({}));
                s.as_object_mut().unwrap().insert(format!("_:r{n}"), extra);
            }
            Value::Object(doc)
        })
}

fn prop_value() -> impl Strategy<Value = PropValue> {
    let scalar = prop_oneof![
        "\\PC{0,10}".prop_map(PropValue::Str),
        any::<i64>().prop_map(PropValue::Int),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(PropValue::Float),
        any::<bool>().prop_map(PropValue::Bool),
    ];
    prop_oneof![4 => scalar.clone(), 1 => prop::collection::vec(scalar, 0..4).prop_map(PropValue::List)]
}

/// Property names: any text but the node's identity and the kinds the store derives.
fn props() -> impl Strategy<Value = Vec<(String, PropValue)>> {
    let key = "[a-z:%_ é/-]{1,8}"
        .prop_filter("not derived", |k| !k.starts_with("prov:") && k != "name" && k != "a2a:relation");
    prop::collection::vec((key, prop_value()), 0..4)
}

/// A graph of Provex's own nodes and edges: labels but the PROV import's own, any names
/// (two nodes may share one), any edge type, kind and properties.
pub(crate) fn native_graph() -> impl Strategy<Value = GraphDelta> {
    let labels: Vec<Label> =
        Label::ALL.iter().copied().filter(|l| !matches!(l, Label::Namespaces | Label::Bundle)).collect();
    let node = (prop::sample::select(labels), "\\PC{0,8}", props());
    let kind = prop_oneof![
        Just(EdgeKind::Plain),
        prop::sample::select(ProvRelation::ALL).prop_map(EdgeKind::Prov),
        prop::sample::select(A2aRelation::ALL).prop_map(EdgeKind::A2a),
    ];
    let edge = (0usize..16, prop::sample::select(RelType::ALL), kind, 0usize..16, props());
    (prop::collection::vec(node, 1..8), prop::collection::vec(edge, 0..12)).prop_map(|(nodes, edges)| {
        let mut d = GraphDelta::new();
        let mut refs = Vec::new();
        for (label, name, props) in nodes {
            let mut n = Node::new(label, name);
            n.props.extend(props.into_iter().map(|(k, v)| (k.into(), v)));
            refs.push(n.node_ref());
            d.add_node(n);
        }
        for (a, rel, kind, b, props) in edges {
            let mut e = Edge::new(rel, kind, refs[a % refs.len()].clone(), refs[b % refs.len()].clone());
            e.props.extend(props.into_iter().map(|(k, v)| (k.into(), v)));
            d.add_edge(e);
        }
        d
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn a_graph_of_provex_own_imports_back_as_the_same_graph(delta in native_graph()) {
        let text = ProvFormat::ProvJson.write(&Document::from_delta("g", &delta));
        let imported = import(&text).unwrap();
        prop_assert_eq!(&imported.rejected, &vec![]);
        let d = diff(&Snapshot::from_delta(&delta), &Snapshot::from_delta(&imported.delta));
        prop_assert!(d.is_empty(), "{}\n{}", render_text(&d), text);
    }

    #[test]
    fn valid_documents_import_whole_and_export_to_a_fixed_point(doc in document()) {
        let text = serde_json::to_string_pretty(&doc).unwrap();
        let imported = import(&text).unwrap();
        prop_assert_eq!(&imported.rejected, &vec![]);
        // Every record keeps the bodies it was given.
        let snap = Snapshot::from_delta(&imported.delta);
        let mut kept: BTreeMap<String, Value> = BTreeMap::new();
        for (k, props) in &snap.nodes {
            if let (Some(Value::String(q)), Some(Value::String(bodies))) = (props.get(key::QNAME), props.get(key::ATTRIBUTES)) {
                kept.insert(format!("{}|{q}", k.label), serde_json::from_str(bodies).unwrap());
            }
        }
        let mut given: BTreeMap<String, Value> = BTreeMap::new();
        for (section, label) in [("entity", "Entity"), ("activity", "Activity"), ("agent", "Agent")] {
            for (q, b) in doc.get(section).and_then(Value::as_object).into_iter().flatten() {
                given.insert(format!("{label}|{q}"), json!([b]));
            }
        }
        prop_assert_eq!(kept, given);
        // Every relation is kept once, on an edge or a node.
        let mut relations = 0;
        for props in snap.nodes.values().chain(snap.edges.values()) {
            if let Some(Value::String(list)) = props.get(key::RELATIONS) {
                relations += serde_json::from_str::<Vec<Value>>(list).unwrap().len();
            }
        }
        let declared: usize = RELATIONS.iter().map(|r| doc.get(r.name).and_then(Value::as_object).map_or(0, |o| o.len())).sum();
        prop_assert_eq!(relations, declared);
        checks::prov_json(text.as_bytes());
    }

    #[test]
    fn any_text_is_read_without_panicking(text in "\\PC{0,200}") {
        checks::prov_json(text.as_bytes());
    }
}
