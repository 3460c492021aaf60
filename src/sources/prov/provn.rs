//! PROV-N (W3C Recommendation): `document … endDocument`, one statement a line, arguments
//! in PROV-N order (`-` for an absent one), literals in the convenience notation where it has
//! one (`"text"`, `12`, `'prefix:name'`, `"text"@fr`) and typed (`"0.5" %% xsd:double`)
//! where it has not; bundles as `bundle … endBundle`.

use std::fmt::Write;

use super::doc::{Document, Kind, Record, Relation, Value};

/// A PROV-N string literal (other control characters are kept as they are).
fn string(s: &str) -> String {
    quoted(s, |out, c| out.push(c))
}

/// A double-quoted literal with the escapes PROV-N and Turtle share (`\"`, `\\`, `\n`, `\r`,
/// `\t`); `control` writes any other character below U+0020.
pub(super) fn quoted(s: &str, control: fn(&mut String, char)) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => control(&mut out, c),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A qualified name with the PROV-N metacharacters of its local part escaped.
pub fn qname(q: &str) -> String {
    let (prefix, local) = match q.split_once(':') {
        Some((p, l)) => (Some(p), l),
        None => (None, q),
    };
    let mut out = String::with_capacity(q.len() + 4);
    if let Some(p) = prefix {
        out.push_str(p);
        out.push(':');
    }
    for c in local.chars() {
        if "=()',:;[]\\".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn value(v: &Value) -> String {
    match v {
        Value::Str(s) => string(s),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => format!("{} %% xsd:double", string(&f.to_string())),
        Value::Bool(b) => format!("{} %% xsd:boolean", string(&b.to_string())),
        Value::QName(q) => format!("'{q}'"),
        Value::Typed { value, datatype } => format!("{} %% {datatype}", string(value)),
        Value::Lang { value, lang } => format!("{}@{lang}", string(value)),
    }
}

fn attrs(attrs: &[(String, Value)]) -> String {
    let items: Vec<String> = attrs.iter().map(|(k, v)| format!("{}={}", qname(k), value(v))).collect();
    format!("[{}]", items.join(", "))
}

fn record(out: &mut String, indent: &str, r: &Record) {
    let mut a: Vec<(String, Value)> = r.attrs.clone();
    // An activity's start and end times are arguments, not attributes.
    let mut times = String::new();
    if r.kind == Kind::Activity {
        for k in ["prov:startTime", "prov:endTime"] {
            let t = a.iter().position(|(n, _)| n == k).map(|i| a.remove(i).1);
            let t = match t {
                Some(Value::Str(s)) | Some(Value::Typed { value: s, .. }) => s,
                _ => "-".to_owned(),
            };
            times.push_str(", ");
            times.push_str(&t);
        }
    }
    let _ = writeln!(out, "{indent}{}({}{times}, {})", r.kind.name(), qname(&r.id), attrs(&a));
}

fn relation(out: &mut String, indent: &str, r: &Relation) {
    let args: Vec<String> = r
        .args
        .iter()
        .enumerate()
        .map(|(i, a)| match a {
            None => "-".to_owned(),
            Some(t) if r.spec.time == Some(i) => t.clone(),
            Some(q) => qname(q),
        })
        .collect();
    if !r.spec.identified {
        let _ = writeln!(out, "{indent}{}({})", r.spec.name, args.join(", "));
        return;
    }
    let id = if r.key.starts_with("_:") { String::new() } else { format!("{}; ", qname(&r.key)) };
    let _ = writeln!(out, "{indent}{}({id}{}, {})", r.spec.name, args.join(", "), attrs(&r.attrs));
}

pub fn write(doc: &Document) -> String {
    let mut out = String::from("document\n");
    for (p, ns) in &doc.prefixes {
        if p == "default" {
            let _ = writeln!(out, "  default <{ns}>");
        } else {
            let _ = writeln!(out, "  prefix {p} <{ns}>");
        }
    }
    let scoped = doc.by_scope();
    let none = (Vec::new(), Vec::new());
    let (records, relations) = scoped.get(&None).unwrap_or(&none);
    for r in records {
        record(&mut out, "  ", r);
    }
    for r in relations {
        relation(&mut out, "  ", r);
    }
    for b in &doc.bundles {
        let _ = writeln!(out, "  bundle {}", qname(&b.id));
        for (p, ns) in &b.prefixes {
            let _ = writeln!(out, "    prefix {p} <{ns}>");
        }
        let (records, relations) = scoped.get(&Some(b.id.as_str())).unwrap_or(&none);
        for r in records {
            record(&mut out, "    ", r);
        }
        for r in relations {
            relation(&mut out, "    ", r);
        }
        out.push_str("  endBundle\n");
    }
    out.push_str("endDocument\n");
    out
}
