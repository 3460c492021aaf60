//! PROV-N (W3C Recommendation): `document … endDocument`, one statement a line, literals in
//! the convenience notation where it has one (`"text"`, `12`, `'prefix:name'`) and typed
//! (`"0.5" %% xsd:double`) where it has not.

use std::fmt::Write;

use super::doc::{Document, Kind, Value};

/// A PROV-N string literal.
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
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn value(v: &Value) -> String {
    match v {
        Value::Str(s) => string(s),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => format!("{} %% xsd:double", string(&f.to_string())),
        Value::Bool(b) => format!("{} %% xsd:boolean", string(&b.to_string())),
        Value::QName(q) => format!("'{q}'"),
    }
}

fn attrs(attrs: &[(String, Value)]) -> String {
    let items: Vec<String> = attrs.iter().map(|(k, v)| format!("{k}={}", value(v))).collect();
    format!("[{}]", items.join(", "))
}

pub fn write(doc: &Document) -> String {
    let mut out = String::from("document\n");
    for (p, ns) in &doc.prefixes {
        let _ = writeln!(out, "  prefix {p} <{ns}>");
    }
    for r in &doc.records {
        // An activity's start and end times, absent (`-`), as `prov` writes them.
        let times = if r.kind == Kind::Activity { ", -, -" } else { "" };
        let _ = writeln!(out, "  {}({}{times}, {})", r.kind.name(), r.id, attrs(&r.attrs));
    }
    for r in &doc.relations {
        let blanks = ", -".repeat(r.rel.provn_blanks());
        let _ =
            writeln!(out, "  {}({}, {}{blanks}, {})", r.rel.name(), r.args[0], r.args[1], attrs(&r.attrs));
    }
    out.push_str("endDocument\n");
    out
}
