//! PROV-O (W3C Recommendation) as Turtle and as JSON-LD: each record typed with its class,
//! its attributes as properties, and each relation as the unqualified PROV-O property from
//! its first argument to its second (`<a> prov:used <e>`). Names are written as full IRIs
//! (imported local parts may hold characters no Turtle prefixed name can); the records of
//! bundles go into the one graph (Turtle has no named graphs). In Turtle, a relation with
//! attributes is also written in its qualified form carrying them, so that the Turtle
//! imports as the same graph (`turtle.rs`).

use std::fmt::Write;

use serde_json::{json, Map, Value as Json};

use super::doc::{expand, Document, Prefixes, Value, PROVEX_NS, PROV_NS, XSD_NS};
use super::turtle::{qualified_form, QUALIFIED, RELATION_ATTR};

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
        // A name no prefix in scope expands is no IRI: written as the qualified name it is.
        Value::QName(q) => match expand(q, scope) {
            Some(i) => t_iri(&i),
            None => format!("{}^^xsd:QName", string(q)),
        },
        Value::Typed { value, datatype } => match expand(datatype, scope) {
            Some(i) => format!("{}^^{}", string(value), t_iri(&i)),
            None => string(value),
        },
        Value::Lang { value, lang } => format!("{}@{lang}", string(value)),
    }
}

/// Whether a PROV-JSON prefix can be a Turtle prefix name (ASCII letters, digits, `_`, `-`,
/// starting with a letter; PROV and XSD are written anyway).
fn turtle_prefix(p: &str) -> bool {
    p.starts_with(|c: char| c.is_ascii_alphabetic())
        && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && p != "prov"
        && p != "xsd"
}

pub fn turtle(doc: &Document) -> String {
    let scopes = doc.scopes();
    let mut out = String::new();
    for (p, ns) in [("prov", PROV_NS), ("xsd", XSD_NS)] {
        let _ = writeln!(out, "@prefix {p}: <{ns}> .");
    }
    // The document's own prefixes: names are written as full IRIs, but a reader gets the
    // qualified names back with them (`turtle.rs`).
    for (p, ns) in doc.prefixes.iter().filter(|(p, _)| turtle_prefix(p)) {
        let _ = writeln!(out, "@prefix {p}: {} .", t_iri(ns));
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
        let (a, b) = (t_iri(&iri(a, scope)), t_iri(&iri(b, scope)));
        let _ = writeln!(out, "{a} prov:{} {b} .", r.spec.name);
        // A relation's attributes (a Provex edge's type and properties) on its qualified
        // form (docs/FORMATS.md "PROV-O (Turtle) in").
        if !r.attrs.is_empty() {
            let (property, class, object) = qualified_form(r.spec.name);
            let _ = write!(out, "{a} prov:{property} [ a prov:{class} ;\n    prov:{object} {b}");
            if !QUALIFIED.iter().any(|q| q.0 == r.spec.name) {
                let name = t_iri(&format!("{PROVEX_NS}{}", &RELATION_ATTR["provex:".len()..]));
                let _ = write!(out, " ;\n    {name} {}", string(r.spec.name));
            }
            for (k, v) in &r.attrs {
                let _ = write!(out, " ;\n    {} {}", t_iri(&iri(k, scope)), term(v, scope));
            }
            out.push_str(" ] .\n");
        }
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
