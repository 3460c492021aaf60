//! Property tests of the PROV-JSON importer (`prov::import`) over random valid documents:
//! nothing valid is rejected, every record keeps exactly the bodies the document gave it,
//! every relation is kept once, and export → import is a fixed point. Arbitrary text is the
//! fuzz target's (`prov_json`), whose check this reuses.

use std::collections::BTreeMap;

use proptest::prelude::*;
use provex::diff::Snapshot;
use provex::prov::doc::key;
use provex::prov::import::import;
use provex::prov::relations::RELATIONS;
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

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
