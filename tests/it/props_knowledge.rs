//! Property tests of seed 004's parsing: the statement id names the triple (subject,
//! predicate, object, graph) and nothing else, whatever the member order of its JSON; and
//! JSON-RPC framing keeps every well-formed request's id, method and params.

use proptest::prelude::*;
use provex::sources::knowledge::rpc;
use provex::sources::knowledge::KgStatement;
use serde_json::{json, Value};

fn object() -> impl Strategy<Value = Value> {
    prop_oneof![
        "[a-z:]{1,8}".prop_map(|id| json!({"id": id})),
        any::<i32>().prop_map(|v| json!({"value": v})),
        "[ -~]{0,8}".prop_map(|v| json!({"value": v, "type": "xsd:string"})),
        any::<bool>().prop_map(|v| json!({"value": v})),
    ]
}

fn statement() -> impl Strategy<Value = Value> {
    ("[a-z:]{1,8}", "[a-z:]{1,8}", object(), proptest::option::of("[a-z:]{1,6}"), 0.0f64..=1.0)
        .prop_map(|(s, p, o, g, c)| json!({"subject": {"id": s}, "predicate": {"id": p}, "object": o, "graph": g, "certainty": c}))
}

/// The same JSON text with its members in reverse order (serde_json keeps insertion order).
fn reversed(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(m.iter().rev().map(|(k, v)| (k.clone(), reversed(v))).collect()),
        other => other.clone(),
    }
}

fn read(v: &Value) -> KgStatement {
    serde_json::from_value(v.clone()).unwrap()
}

proptest! {
    #[test]
    fn the_id_names_the_triple_only(s in statement(), c in 0.0f64..=1.0, who in "[a-z]{1,5}") {
        let a = read(&s);
        prop_assert!(a.check().is_ok());
        let id = a.id();
        prop_assert!(id.starts_with("kg:") && id.len() == 67 && id[3..].bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
        prop_assert_eq!(read(&reversed(&s)).id(), id.clone(), "member order");
        let mut other = s.clone();
        other["certainty"] = json!(c);
        other["provenance"] = json!({"sourceAgentId": who});
        prop_assert_eq!(read(&other).id(), id.clone(), "certainty and provenance are not the triple");
        let mut moved = s.clone();
        moved["graph"] = json!(format!("{}-elsewhere", s["graph"].as_str().unwrap_or("")));
        prop_assert_ne!(read(&moved).id(), id.clone(), "another graph, another statement");
        let mut pred = s.clone();
        pred["predicate"]["id"] = json!(format!("{}x", s["predicate"]["id"].as_str().unwrap()));
        prop_assert_ne!(read(&pred).id(), id);
    }

    #[test]
    fn well_formed_requests_keep_id_method_and_params(
        id in prop_oneof![Just(None), any::<i64>().prop_map(|i| Some(json!(i))), "[ -~]{0,10}".prop_map(|s| Some(json!(s)))],
        method in "[a-z/]{1,20}",
        params in prop_oneof![Just(None), statement().prop_map(Some)],
    ) {
        let mut req = json!({"jsonrpc": "2.0", "method": method});
        if let Some(i) = &id { req["id"] = i.clone(); }
        if let Some(p) = &params { req["params"] = p.clone(); }
        let body = req.to_string();
        match rpc::parse(body.as_bytes()) {
            rpc::Body::One(Ok(r)) => {
                prop_assert_eq!(r.id, id);
                prop_assert_eq!(r.method, method);
                prop_assert_eq!(r.params, params.unwrap_or(Value::Null));
            }
            other => prop_assert!(false, "{:?}", other),
        }
        let batch = format!("[{body},{body}]");
        match rpc::parse(batch.as_bytes()) {
            rpc::Body::Batch(rs) => prop_assert!(rs.len() == 2 && rs.iter().all(|r| r.is_ok())),
            other => prop_assert!(false, "{:?}", other),
        }
    }
}

proptest! {
    /// Text inside a string literal or a comment is never read as a clause; a write clause
    /// outside one always is.
    #[test]
    fn ask_refuses_writes_not_words(
        text in "[A-Za-z ]{0,30}",
        write in prop::sample::select(vec!["CREATE (:X)", "SET n.a = 1", "DELETE n", "DETACH DELETE n", "MERGE (:X)", "REMOVE n.a", "DROP INDEX x"]),
    ) {
        use provex::ask::check::refusal;
        let read = format!("MATCH (n) WHERE n.claim = '{text}' RETURN n // {text}");
        prop_assert_eq!(refusal(&read), None, "{}", read);
        let commented = format!("MATCH (n) /* {write} */ RETURN n");
        prop_assert_eq!(refusal(&commented), None);
        let written = format!("MATCH (n) WHERE n.claim = '{text}' {write}");
        prop_assert!(refusal(&written).is_some(), "{}", written);
    }

    /// Every read gets a row limit no higher than 1,001 in its last clause, once, whatever
    /// the strings and comments in it say.
    #[test]
    fn ask_limits_every_read(
        text in "[A-Za-z ]{0,20}",
        limit in prop::option::of(1u32..100_000),
        union in any::<bool>(),
    ) {
        use provex::ask::cypher::limited;
        let tail = limit.map(|l| format!(" LIMIT {l}")).unwrap_or_default();
        let branch = format!("MATCH (n) WHERE n.claim = 'RETURN {text}' RETURN n.name AS x /* LIMIT {text} */{tail}");
        let q = if union { format!("{branch} UNION {branch}") } else { branch };
        let out = limited(&q);
        prop_assert_eq!(limited(&out), out.clone());
        let want = limit.map_or(1001, |l| l.min(1001));
        let branches = if union { 2 } else { 1 };
        prop_assert_eq!(out.matches(&format!("LIMIT {want}")).count(), branches, "{}", out);
    }
}

/// `ofType` chains of any length, under `n` nested list fields (`fields`/`type` pairs).
fn introspection(type_refs: usize, lists: usize) -> String {
    let mut inner = String::from("kind name");
    for _ in 0..type_refs {
        inner = format!("kind name ofType {{ {inner} }}");
    }
    for _ in 0..lists {
        inner = format!("name fields {{ name type {{ {inner} }} }}");
    }
    format!("{{ __schema {{ types {{ {inner} }} }} }}")
}

proptest! {
    /// The query page's schema query may nest `ofType` as deep as it likes, and lists of type
    /// members (`fields`, `interfaces`, …) at most three deep; a data field at the root is never an
    /// introspection.
    #[test]
    fn introspection_is_deep_but_not_wide(refs in 0usize..20, lists in 0usize..6, field in "[a-z]{1,8}") {
        use provex::graphql::introspection::{is_bounded_introspection, MAX_LIST_NESTING};
        let q = introspection(refs, lists);
        prop_assert_eq!(is_bounded_introspection(&q, None), lists <= MAX_LIST_NESTING, "{}", q);
        let mixed = format!("{{ {field} {} }}", &q[1..q.len() - 1]);
        prop_assert!(!is_bounded_introspection(&mixed, None));
    }
}
