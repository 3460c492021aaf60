//! PROV-O (W3C Recommendation) as Turtle and as JSON-LD: each record typed with its class,
//! its attributes as properties, and each relation as the unqualified PROV-O property from
//! its first argument to its second (`g:a prov:used g:e`).

use std::fmt::Write;

use serde_json::{json, Map, Value as Json};

use super::doc::{Document, Value, PROV_NS, XSD_NS};

/// A Turtle string literal.
fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn term(v: &Value) -> String {
    match v {
        Value::Str(s) => string(s),
        Value::Int(i) => format!("\"{i}\"^^xsd:long"),
        Value::Float(f) => format!("\"{f}\"^^xsd:double"),
        Value::Bool(b) => format!("\"{b}\"^^xsd:boolean"),
        Value::QName(q) => q.clone(),
    }
}

/// Every prefix the document uses, `prov` and `xsd` included.
fn prefixes(doc: &Document) -> Vec<(String, String)> {
    let mut p: Vec<(String, String)> = vec![("prov".into(), PROV_NS.into()), ("xsd".into(), XSD_NS.into())];
    p.extend(doc.prefixes.iter().map(|(k, v)| (k.clone(), v.clone())));
    p
}

pub fn turtle(doc: &Document) -> String {
    let mut out = String::new();
    for (p, ns) in prefixes(doc) {
        let _ = writeln!(out, "@prefix {p}: <{ns}> .");
    }
    for r in &doc.records {
        let _ = write!(out, "\n{} a {}", r.id, r.kind.class());
        for (k, v) in &r.attrs {
            let _ = write!(out, " ;\n    {k} {}", term(v));
        }
        out.push_str(" .\n");
    }
    if !doc.relations.is_empty() {
        out.push('\n');
    }
    for r in &doc.relations {
        let _ = writeln!(out, "{} prov:{} {} .", r.args[0], r.rel.name(), r.args[1]);
    }
    out
}

fn ld_value(v: &Value) -> Json {
    match v {
        Value::Str(s) => Json::String(s.clone()),
        Value::Int(i) => json!({"@value": i.to_string(), "@type": "xsd:long"}),
        Value::Float(f) => json!({"@value": f.to_string(), "@type": "xsd:double"}),
        Value::Bool(b) => json!({"@value": b.to_string(), "@type": "xsd:boolean"}),
        Value::QName(q) => json!({"@id": q}),
    }
}

pub fn jsonld(doc: &Document) -> String {
    let context: Map<String, Json> = prefixes(doc).into_iter().map(|(k, v)| (k, Json::String(v))).collect();
    let mut nodes: Vec<Map<String, Json>> = Vec::with_capacity(doc.records.len());
    let mut at = std::collections::HashMap::with_capacity(doc.records.len());
    for r in &doc.records {
        let mut n = Map::new();
        n.insert("@id".into(), Json::String(r.id.clone()));
        n.insert("@type".into(), Json::String(r.kind.class().into()));
        for (k, v) in &r.attrs {
            push(&mut n, k, ld_value(v));
        }
        at.insert(r.id.as_str(), nodes.len());
        nodes.push(n);
    }
    for r in &doc.relations {
        let Some(&i) = at.get(r.args[0].as_str()) else { continue };
        push(&mut nodes[i], &format!("prov:{}", r.rel.name()), json!({"@id": r.args[1]}));
    }
    let graph: Vec<Json> = nodes.into_iter().map(Json::Object).collect();
    let mut out = serde_json::to_string_pretty(&json!({"@context": context, "@graph": graph}))
        .expect("JSON values serialise");
    out.push('\n');
    out
}

/// Adds a value to a property, making a list when it has one already.
fn push(n: &mut Map<String, Json>, k: &str, v: Json) {
    match n.get_mut(k) {
        None => {
            n.insert(k.to_owned(), v);
        }
        Some(Json::Array(items)) => items.push(v),
        Some(old) => {
            let first = old.take();
            *old = Json::Array(vec![first, v]);
        }
    }
}
