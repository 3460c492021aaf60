//! Property tests of the TrustGraph reader: random explain messages (IRI, literal, blank and
//! quoted-triple terms, TrustGraph and foreign types, several values per predicate) in every
//! spelling of the kind field, bare or enveloped, give one `Explain` node per subject, one
//! edge per IRI-valued predicate, a property per literal one (a list when it has several
//! values), labels only from the vocabulary, and the same graph read twice or in any order.

use proptest::prelude::*;
use provex::diff::Snapshot;
use provex::model::vocab::{TgType, EXTRA_LABELS};
use provex::model::{GraphDelta, Label, PropValue};
use provex::sources::reasoning::StreamState;
use serde_json::{json, Value};

const TG: &str = "https://trustgraph.ai/ns/";
const PREDS: &[&str] = &[
    "http://www.w3.org/ns/prov#wasDerivedFrom",
    "https://trustgraph.ai/ns/thought",
    "https://trustgraph.ai/ns/selectedEdge",
    "https://trustgraph.ai/ns/query",
    "https://trustgraph.ai/ns/concept",
    "http://example.org/p",
];

#[derive(Debug, Clone)]
enum Obj {
    Iri(u8),
    Lit(String),
    Type(&'static str),
    Quoted(u8, u8),
    Blank(u8),
}

fn obj() -> impl Strategy<Value = Obj> {
    prop_oneof![
        (0u8..6).prop_map(Obj::Iri),
        "[a-z ]{0,12}".prop_map(Obj::Lit),
        prop_oneof![Just("Analysis"), Just("ToolUse"), Just("Focus"), Just("Unheard"), Just("Answer")]
            .prop_map(Obj::Type),
        (0u8..6, 0u8..6).prop_map(|(a, b)| Obj::Quoted(a, b)),
        (0u8..3).prop_map(Obj::Blank),
    ]
}

fn iri(n: u8) -> String {
    format!("urn:trustgraph:agent:s{}/i{n}", n % 2)
}

fn term(o: &Obj) -> Value {
    match o {
        Obj::Iri(n) => json!({"t": "i", "i": iri(*n)}),
        Obj::Lit(v) => json!({"t": "l", "v": v}),
        Obj::Type(t) => json!({"t": "i", "i": format!("{TG}{t}")}),
        Obj::Quoted(a, b) => {
            json!({"t": "t", "tr": {"s": {"t": "i", "i": iri(*a)}, "p": {"t": "i", "i": "http://example.org/q"}, "o": {"t": "i", "i": iri(*b)}}})
        }
        Obj::Blank(n) => json!({"t": "b", "d": format!("b{n}")}),
    }
}

/// One explain message of triples (subject, predicate index, object), in a spelling.
fn message(triples: &[(u8, usize, Obj)], spelling: usize, envelope: bool) -> Value {
    let ts: Vec<Value> = triples
        .iter()
        .map(|(s, p, o)| {
            let p = match o {
                Obj::Type(_) => "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
                _ => PREDS[*p % PREDS.len()],
            };
            json!({"s": {"t": "i", "i": iri(*s)}, "p": {"t": "i", "i": p}, "o": term(o)})
        })
        .collect();
    let key = ["message_type", "chunk_type", "chunk-type"][spelling % 3];
    let mut m = json!({"explain_id": iri(triples.first().map_or(0, |t| t.0)), "explain_graph": "urn:graph:retrieval", "explain_triples": ts, "end_of_message": false});
    m[key] = json!("explain");
    if envelope {
        json!({"id": "req-1", "response": m, "complete": false})
    } else {
        m
    }
}

fn read(messages: &[Value]) -> GraphDelta {
    let mut state = StreamState::default();
    let mut delta = GraphDelta::default();
    for m in messages {
        state.line(m, &mut delta).expect("a well-formed message is read");
    }
    delta
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn explain_messages_become_nodes_edges_and_properties(
        msgs in proptest::collection::vec((proptest::collection::vec((0u8..6, 0usize..6, obj()), 1..12), 0usize..3, any::<bool>()), 1..6)
    ) {
        let messages: Vec<Value> = msgs.iter().map(|(t, s, e)| message(t, *s, *e)).collect();
        let delta = read(&messages);
        // Every subject is an Explain node; every edge joins nodes the delta holds.
        for (triples, _, _) in &msgs {
            for (s, p, o) in triples {
                let node = delta.nodes().find(|n| n.name == iri(*s));
                prop_assert!(node.is_some_and(|n| n.label == Label::Explain), "subject {}", iri(*s));
                if let Obj::Iri(t) = o {
                    let pred = PREDS[*p % PREDS.len()];
                    prop_assert!(delta.edges().any(|e| e.source.name == iri(*s) && e.target.name == iri(*t)), "{} -{}-> {}", iri(*s), pred, iri(*t));
                }
            }
        }
        for e in delta.edges() {
            prop_assert!(delta.node(&e.source).is_some() && delta.node(&e.target).is_some());
        }
        for n in delta.nodes() {
            if let Some(PropValue::List(ls)) = n.props.get(EXTRA_LABELS) {
                for l in ls {
                    prop_assert!(l.as_str().and_then(TgType::parse).is_some(), "{:?}", l);
                    prop_assert!(l.as_str() != Some("Unheard"));
                }
            }
        }
        // Read again, or in reverse: the same graph (each message stands alone).
        prop_assert_eq!(Snapshot::from_delta(&read(&messages)), Snapshot::from_delta(&delta));
        let single: Vec<Value> = messages.iter().rev().cloned().collect();
        if msgs.iter().all(|(t, _, _)| t.iter().all(|(s, _, _)| *s == t[0].0)) {
            // Messages with one subject each: later values win, so only the node set is
            // order-free.
            let mut a: Vec<String> = read(&single).nodes().map(|n| n.name.clone()).collect();
            let mut b: Vec<String> = delta.nodes().map(|n| n.name.clone()).collect();
            a.sort();
            b.sort();
            prop_assert_eq!(a, b);
        }
    }
}
