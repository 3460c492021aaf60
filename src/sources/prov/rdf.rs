//! PROV-O (W3C Recommendation) as Turtle and as JSON-LD: each record typed with its class,
//! its attributes as properties, and each relation as the unqualified PROV-O property from
//! its first argument to its second (`<a> prov:used <e>`). Names are written as full IRIs
//! (imported local parts may hold characters no Turtle prefixed name can); the records of
//! bundles go into the one graph (Turtle has no named graphs).

use std::fmt::Write;

use serde_json::{json, Map, Value as Json};

use super::doc::{expand, Document, Prefixes, Value, PROV_NS, XSD_NS};

/// A name as an IRI in the scope of a record or relation (itself when it cannot be expanded).
fn iri(q: &str, scope: Prefixes<'_>) -> String {
    expand(q, scope).unwrap_or_else(|| q.to_owned())
}

/// An IRI in Turtle.
fn t_iri(iri: &str) -> String {
    let mut out = String::with_capacity(iri.len() + 2);
    out.push('<');
    for c in iri.chars() {
        match c {
            '<' | '>' | '"' | '{' | '}' | '|' | '^' | '`' | '\\' | ' ' => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c if (c as u32) <= 0x20 => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('>');
    out
}

/// A Turtle string literal (other control characters as `\uXXXX`).
fn string(s: &str) -> String {
    super::provn::quoted(s, |out, c| {
        let _ = write!(out, "\\u{:04X}", c as u32);
    })
}

fn term(v: &Value, scope: Prefixes<'_>) -> String {
    match v {
        Value::Str(s) => string(s),
        Value::Int(i) => format!("\"{i}\"^^xsd:long"),
        Value::Float(f) => format!("\"{f}\"^^xsd:double"),
        Value::Bool(b) => format!("\"{b}\"^^xsd:boolean"),
        Value::QName(q) => t_iri(&iri(q, scope)),
        Value::Typed { value, datatype } => format!("{}^^{}", string(value), t_iri(&iri(datatype, scope))),
        Value::Lang { value, lang } => format!("{}@{lang}", string(value)),
    }
}

pub fn turtle(doc: &Document) -> String {
    let scopes = doc.scopes();
    let mut out = String::new();
    for (p, ns) in [("prov", PROV_NS), ("xsd", XSD_NS)] {
        let _ = writeln!(out, "@prefix {p}: <{ns}> .");
    }
    for r in &doc.records {
        let scope = scopes.get(r.bundle.as_deref());
        let _ = write!(out, "\n{} a {}", t_iri(&iri(&r.id, scope)), r.kind.class());
        for (k, v) in &r.attrs {
            let _ = write!(out, " ;\n    {} {}", t_iri(&iri(k, scope)), term(v, scope));
        }
        out.push_str(" .\n");
    }
    if !doc.relations.is_empty() {
        out.push('\n');
    }
    for r in &doc.relations {
        let (Some(a), Some(b)) = (&r.args[0], &r.args[1]) else { continue };
        let scope = scopes.get(r.bundle.as_deref());
        let _ = writeln!(out, "{} prov:{} {} .", t_iri(&iri(a, scope)), r.spec.name, t_iri(&iri(b, scope)));
    }
    out
}

fn ld_value(v: &Value, scope: Prefixes<'_>) -> Json {
    match v {
        Value::Str(s) => Json::String(s.clone()),
        Value::Int(i) => json!({"@value": i.to_string(), "@type": "xsd:long"}),
        Value::Float(f) => json!({"@value": f.to_string(), "@type": "xsd:double"}),
        Value::Bool(b) => json!({"@value": b.to_string(), "@type": "xsd:boolean"}),
        Value::QName(q) => json!({"@id": iri(q, scope)}),
        Value::Typed { value, datatype } => json!({"@value": value, "@type": iri(datatype, scope)}),
        Value::Lang { value, lang } => json!({"@value": value, "@language": lang}),
    }
}

pub fn jsonld(doc: &Document) -> String {
    let scopes = doc.scopes();
    let context = json!({"prov": PROV_NS, "xsd": XSD_NS});
    let mut nodes: Vec<Map<String, Json>> = Vec::with_capacity(doc.records.len());
    let mut at = std::collections::HashMap::with_capacity(doc.records.len());
    for r in &doc.records {
        let scope = scopes.get(r.bundle.as_deref());
        let id = iri(&r.id, scope);
        let mut n = Map::new();
        n.insert("@id".into(), Json::String(id.clone()));
        n.insert("@type".into(), Json::String(r.kind.class().into()));
        for (k, v) in &r.attrs {
            push(&mut n, &iri(k, scope), ld_value(v, scope));
        }
        at.insert(id, nodes.len());
        nodes.push(n);
    }
    for r in &doc.relations {
        let (Some(a), Some(b)) = (&r.args[0], &r.args[1]) else { continue };
        let scope = scopes.get(r.bundle.as_deref());
        let (a, b) = (iri(a, scope), iri(b, scope));
        let i = match at.get(&a) {
            Some(&i) => i,
            None => {
                let mut n = Map::new();
                n.insert("@id".into(), Json::String(a.clone()));
                at.insert(a, nodes.len());
                nodes.push(n);
                nodes.len() - 1
            }
        };
        push(&mut nodes[i], &format!("prov:{}", r.spec.name), json!({"@id": b}));
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
