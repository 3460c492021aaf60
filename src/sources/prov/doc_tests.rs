//! The PROV document's tests: records and relations from stored nodes and edges, prefixes.

use super::*;
use serde_json::json;

fn node(label: &str, name: &str, base: &str) -> StoredNode {
    let mut props = BTreeMap::new();
    props.insert(PROV_BASE_TYPE.to_owned(), json!(base));
    props.insert("claim_text".to_owned(), json!("It said \"yes\"."));
    StoredNode { label: label.into(), name: name.into(), props }
}

fn edge(s: &str, rel: &str, t: &str, base: Option<&str>) -> StoredEdge {
    let mut props = BTreeMap::new();
    if let Some(b) = base {
        props.insert(PROV_BASE_TYPE.to_owned(), json!(b));
    }
    StoredEdge { source: s.into(), rel: rel.into(), target: t.into(), props }
}

#[test]
fn records_by_base_type_and_relations_by_their_ends() {
    let nodes = [
        node("Statement", "st-1", "ProvEntity"),
        node("Verification", "v/1", "ProvActivity"),
        node("Agent", "urn:agent:x", "ProvAgent"),
    ];
    let edges = [
        // VALIDATES (Verification → Statement) stands for USED: activity first.
        edge("v/1", "VALIDATES", "st-1", Some("USED")),
        // GENERATED (Agent → Statement) for WAS_ATTRIBUTED_TO: the entity comes first.
        edge("urn:agent:x", "GENERATED", "st-1", Some("WAS_ATTRIBUTED_TO")),
        // No PROV relation, or one its ends do not fit: an influence.
        edge("st-1", "SUPPORTS", "st-1", None),
        edge("st-1", "WAS_USED_BY", "urn:agent:x", Some("USED")),
        edge("st-1", "CITES", "gone", Some("WAS_DERIVED_FROM")),
    ];
    let d = Document::from_graph("council", &nodes, &edges);
    let kinds: Vec<(Kind, &str)> = d.records.iter().map(|r| (r.kind, r.id.as_str())).collect();
    assert_eq!(
        kinds,
        [(Kind::Entity, "pxg:st%2D1"), (Kind::Activity, "pxg:v%2F1"), (Kind::Agent, "pxg:urn%3Aagent%3Ax")]
    );
    let rels: Vec<(&str, [&str; 2])> = d
        .relations
        .iter()
        .map(|r| (r.spec.name, [r.args[0].as_deref().unwrap(), r.args[1].as_deref().unwrap()]))
        .collect();
    assert_eq!(
        rels,
        [
            ("used", ["pxg:v%2F1", "pxg:st%2D1"]),
            ("wasAttributedTo", ["pxg:st%2D1", "pxg:urn%3Aagent%3Ax"]),
            ("wasInfluencedBy", ["pxg:st%2D1", "pxg:st%2D1"]),
            ("wasInfluencedBy", ["pxg:st%2D1", "pxg:urn%3Aagent%3Ax"]),
        ]
    );
    assert_eq!(d.records[0].attrs[0], ("prov:type".to_owned(), Value::QName("provex:Statement".into())));
    assert!(d.records[0]
        .attrs
        .contains(&("provex:claim_text".to_owned(), Value::Str("It said \"yes\".".into()))));
    assert_eq!(d.relations[0].attrs[0].1, Value::QName("provex:VALIDATES".into()));
    assert_eq!(d.prefixes["pxg"], "https://provex.dev/graph/council/");
}
