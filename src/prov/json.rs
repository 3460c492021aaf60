//! PROV-JSON (W3C member submission): `prefix`, one section per record kind and per relation,
//! records keyed by id; typed values as `{"$": …, "type": …}` where JSON has no type of its own.

use serde_json::{json, Map, Value as Json};

use super::doc::{Document, Value};

fn value(v: &Value) -> Json {
    match v {
        Value::Str(s) => Json::String(s.clone()),
        Value::Int(i) => json!(i),
        Value::Float(f) => json!({"$": f.to_string(), "type": "xsd:double"}),
        Value::Bool(b) => json!(b),
        Value::QName(q) => json!({"$": q, "type": "prov:QUALIFIED_NAME"}),
    }
}

fn attrs(into: &mut Map<String, Json>, attrs: &[(String, Value)]) {
    for (k, v) in attrs {
        into.insert(k.clone(), value(v));
    }
}

pub fn write(doc: &Document) -> String {
    let mut root = Map::new();
    root.insert("prefix".into(), json!(doc.prefixes));
    for r in &doc.records {
        let section = root.entry(r.kind.name()).or_insert_with(|| Json::Object(Map::new()));
        let mut body = Map::new();
        attrs(&mut body, &r.attrs);
        section.as_object_mut().expect("sections are objects").insert(r.id.clone(), Json::Object(body));
    }
    for r in &doc.relations {
        let section = root.entry(r.rel.name()).or_insert_with(|| Json::Object(Map::new()));
        let mut body = Map::new();
        for (role, arg) in r.rel.roles().iter().zip(&r.args) {
            body.insert((*role).to_owned(), Json::String(arg.clone()));
        }
        attrs(&mut body, &r.attrs);
        section.as_object_mut().expect("sections are objects").insert(r.key.clone(), Json::Object(body));
    }
    let mut out = serde_json::to_string_pretty(&Json::Object(root)).expect("JSON values serialise");
    out.push('\n');
    out
}
