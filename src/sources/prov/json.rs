//! PROV-JSON (W3C member submission): `prefix`, one section per record kind and per relation,
//! records keyed by id (a list of bodies when one id has several), typed values as
//! `{"$": …, "type": …}`, bundles in `bundle`. Imported records and relations are written
//! back with the bodies they were read with.

use serde_json::{json, Map, Value as Json};

use super::doc::{Document, Record, Relation, Value};

fn value(v: &Value) -> Json {
    match v {
        Value::Str(s) => Json::String(s.clone()),
        Value::Int(i) => json!(i),
        Value::Float(f) => json!({"$": f.to_string(), "type": "xsd:double"}),
        Value::Bool(b) => json!(b),
        Value::QName(q) => json!({"$": q, "type": "prov:QUALIFIED_NAME"}),
        Value::Typed { value, datatype } => json!({"$": value, "type": datatype}),
        Value::Lang { value, lang } => {
            json!({"$": value, "type": "prov:InternationalizedString", "lang": lang})
        }
    }
}

/// Attributes as a body: one value, or a list when an attribute has several.
fn attrs(into: &mut Map<String, Json>, attrs: &[(String, Value)]) {
    for (k, v) in attrs {
        let v = value(v);
        match into.get_mut(k) {
            None => {
                into.insert(k.clone(), v);
            }
            Some(Json::Array(items)) => items.push(v),
            Some(old) => {
                let first = old.take();
                *old = Json::Array(vec![first, v]);
            }
        }
    }
}

/// Adds bodies under `key` in `section`: a second body for one key makes a list.
fn put(scope: &mut Map<String, Json>, section: &str, key: &str, bodies: Vec<Json>) {
    let section = scope.entry(section).or_insert_with(|| Json::Object(Map::new()));
    let Json::Object(section) = section else { return };
    let mut all = match section.remove(key) {
        Some(Json::Array(items)) => items,
        Some(one) => vec![one],
        None => Vec::new(),
    };
    all.extend(bodies);
    let v = if all.len() == 1 { all.pop().expect("one") } else { Json::Array(all) };
    section.insert(key.to_owned(), v);
}

fn record_bodies(r: &Record) -> Vec<Json> {
    match &r.raw {
        Some(Json::Array(bodies)) => bodies.clone(),
        Some(body) => vec![body.clone()],
        None => {
            let mut body = Map::new();
            attrs(&mut body, &r.attrs);
            vec![Json::Object(body)]
        }
    }
}

fn relation_body(r: &Relation) -> Json {
    if let Some(raw) = &r.raw {
        return raw.clone();
    }
    let mut body = Map::new();
    for (role, arg) in r.spec.roles.iter().zip(&r.args) {
        if let Some(a) = arg {
            body.insert((*role).to_owned(), Json::String(a.clone()));
        }
    }
    attrs(&mut body, &r.attrs);
    Json::Object(body)
}

/// The sections of one scope (the document, or one bundle), from its records and relations.
fn scope(scoped: Option<&(Vec<&Record>, Vec<&Relation>)>) -> Map<String, Json> {
    let mut out = Map::new();
    let Some((records, relations)) = scoped else { return out };
    for r in records {
        put(&mut out, r.kind.name(), &r.id, record_bodies(r));
    }
    for r in relations {
        put(&mut out, r.spec.name, &r.key, vec![relation_body(r)]);
    }
    out
}

pub fn write(doc: &Document) -> String {
    let scoped = doc.by_scope();
    let mut root = scope(scoped.get(&None));
    root.insert("prefix".into(), json!(doc.prefixes));
    if !doc.bundles.is_empty() {
        let mut bundles = Map::new();
        for b in &doc.bundles {
            let mut body = scope(scoped.get(&Some(b.id.as_str())));
            if !b.prefixes.is_empty() {
                body.insert("prefix".into(), json!(b.prefixes));
            }
            bundles.insert(b.id.clone(), Json::Object(body));
        }
        root.insert("bundle".into(), Json::Object(bundles));
    }
    let mut out = serde_json::to_string_pretty(&Json::Object(root)).expect("JSON values serialise");
    out.push('\n');
    out
}
