//! Provex's own nodes and edges in a PROV document, and back (docs/FORMATS.md, "PROV
//! export"): each property is the attribute `provex:<percent-encoded name>` and its value
//! keeps its type, a node's label is its `prov:type` and its name `provex:name`, an edge's
//! type is its `prov:type` and its kind its `prov:base_type` or `a2a:relation` attribute, so
//! that importing an export restores every node and edge exactly (same labels, names and
//! properties), while a foreign document is read as any PROV document is.

use serde_json::{Map, Value as Json};

use super::relations::RelSpec;
pub use super::terms::{attr_value, LIST_TYPE};
use super::terms::{key, local};
use crate::model::vocab::{A2A_RELATION, NAME, PROV_BASE_TYPE};
use crate::model::{A2aRelation, Edge, EdgeKind, Label, Node, NodeRef, PropValue, ProvRelation, RelType};

/// On a relation: the edge goes from the relation's second argument to its first (PROV's
/// order of arguments is the reverse of the edge's). A hyphen never occurs in an encoded
/// property name, so this cannot be taken for a property.
pub const REVERSED: &str = "provex:edge-reversed";

const PREFIX: &str = "provex:";

/// The properties of what was imported from a PROV document (`prov::doc::key`), which export
/// writes back as read: a node or edge with one is not one of Provex's own.
const IMPORTED: [&str; 5] = [key::QNAME, key::ATTRIBUTES, key::BUNDLE, key::PREFIXES, key::RELATIONS];

/// A property name as a `provex:` attribute name: letters, digits and `_` as they are, every
/// other byte `%XX` (`prov:startTime` is `provex:prov%3AstartTime`).
pub fn attr_name(key: &str) -> String {
    format!("{PREFIX}{}", local(key))
}

/// The property an attribute name encodes (none for one [`attr_name`] does not make).
pub fn prop_name(attr: &str) -> Option<String> {
    let l = attr.strip_prefix(PREFIX)?;
    let b = l.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            c if c.is_ascii_alphanumeric() || c == b'_' => {
                out.push(c);
                i += 1;
            }
            b'%' => {
                let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
                let byte = u8::from_str_radix(hex, 16).ok()?;
                // Only what `local` writes: an escaped letter, digit or `_` is not.
                if byte.is_ascii_alphanumeric() || byte == b'_' || hex.bytes().any(|h| h.is_ascii_lowercase())
                {
                    return None;
                }
                out.push(byte);
                i += 3;
            }
            _ => return None,
        }
    }
    String::from_utf8(out).ok()
}

/// An attribute value of a PROV-JSON body as the property it encodes (none for a value
/// [`attr_value`] does not write).
pub fn prop_value(v: &Json) -> Option<PropValue> {
    match v {
        Json::String(s) => Some(PropValue::Str(s.clone())),
        Json::Bool(b) => Some(PropValue::Bool(*b)),
        Json::Number(_) => PropValue::from_json(v),
        Json::Object(o) => {
            let text = o.get("$")?.as_str()?;
            match o.get("type")?.as_str()? {
                "xsd:double" => text.parse::<f64>().ok().filter(|f| f.is_finite()).map(PropValue::Float),
                LIST_TYPE => match serde_json::from_str::<Json>(text).ok()? {
                    list @ Json::Array(_) => PropValue::from_json(&list),
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    }
}

/// The name after `provex:` of a `prov:type` qualified name.
fn provex_type(body: &Map<String, Json>) -> Option<&str> {
    let t = body.get("prov:type")?.as_object()?;
    match t.get("type")?.as_str()? {
        "prov:QUALIFIED_NAME" | "xsd:QName" => t.get("$")?.as_str()?.strip_prefix(PREFIX),
        _ => None,
    }
}

/// The properties of a body's `provex:` attributes, every other key being in `skip`; none
/// when an attribute is not one Provex writes.
fn props(body: &Map<String, Json>, skip: &[&str]) -> Option<Vec<(String, PropValue)>> {
    let mut out = Vec::with_capacity(body.len());
    for (k, v) in body {
        if k == "prov:type" || skip.contains(&k.as_str()) {
            continue;
        }
        out.push((prop_name(k)?, prop_value(v)?));
    }
    Some(out)
}

/// A record body Provex wrote for one of its nodes, as that node.
pub fn node(body: &Json) -> Option<Node> {
    let body = body.as_object()?;
    let label = Label::parse(provex_type(body)?)?;
    // What export writes otherwise: prefixes, bundles, and imported PROV records.
    if matches!(label, Label::Namespaces | Label::Bundle) {
        return None;
    }
    let mut name = None;
    let mut node = Node::new(label, String::new());
    for (k, v) in props(body, &[])? {
        match (k.as_str(), v) {
            (NAME, PropValue::Str(s)) => name = Some(s),
            (NAME, _) => return None,
            (k, _) if IMPORTED.contains(&k) => return None,
            (_, v) => {
                node.props.insert(k.into(), v);
            }
        }
    }
    node.name = name?;
    Some(node)
}

/// A relation body Provex wrote for one of its edges, as that edge, its ends found by
/// `end` (none when either is no node of Provex's own).
pub fn edge(spec: &RelSpec, body: &Json, end: impl Fn(&str) -> Option<NodeRef>) -> Option<Edge> {
    let obj = body.as_object()?;
    let rel = RelType::parse(provex_type(obj)?)?;
    // Its two ends and no other argument.
    if spec.roles[2..].iter().any(|r| obj.contains_key(*r)) {
        return None;
    }
    let a = end(obj.get(spec.roles[0])?.as_str()?)?;
    let b = end(obj.get(spec.roles[1])?.as_str()?)?;
    let reversed = match obj.get(REVERSED) {
        None => false,
        Some(Json::Bool(r)) => *r,
        Some(_) => return None,
    };
    let mut kind = EdgeKind::Plain;
    let mut kept = crate::model::Props::new();
    for (k, v) in props(obj, &[spec.roles[0], spec.roles[1], REVERSED])? {
        match (k.as_str(), &v) {
            (PROV_BASE_TYPE, PropValue::Str(s)) if kind == EdgeKind::Plain => {
                kind = EdgeKind::Prov(ProvRelation::parse(s.as_str())?);
            }
            (A2A_RELATION, PropValue::Str(s)) if kind == EdgeKind::Plain => {
                kind = EdgeKind::A2a(A2aRelation::parse(s.as_str())?);
            }
            (PROV_BASE_TYPE | A2A_RELATION, _) => return None,
            (k, _) if IMPORTED.contains(&k) => return None,
            _ => {
                kept.insert(k.into(), v);
            }
        }
    }
    let (source, target) = if reversed { (b, a) } else { (a, b) };
    let mut e = Edge::new(rel, kind, source, target);
    e.props = kept;
    Some(e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::prov::terms::Value;
    use serde_json::json;

    #[test]
    fn property_names_decode_to_what_they_encode() {
        for k in ["name", "prov:startTime", "a2a:relation", "x%y", "ünï cödé", "", "_a-b.c"] {
            assert_eq!(prop_name(&attr_name(k)).as_deref(), Some(k), "{k}");
        }
        // Only what the encoding writes.
        for a in ["provex:a-b", "provex:%41", "provex:%3a", "provex:%3", "other:x", "provex:%FF"] {
            assert_eq!(prop_name(a), None, "{a}");
        }
    }

    #[test]
    fn values_keep_their_type() {
        for v in [json!("1"), json!(1), json!(1.5), json!(2.0), json!(true), json!(["a", 1, 2.5]), json!([])]
        {
            let a = attr_value(&v).unwrap();
            let written = match &a {
                Value::Str(s) => json!(s),
                Value::Int(i) => json!(i),
                Value::Bool(b) => json!(b),
                Value::Float(f) => json!({"$": f.to_string(), "type": "xsd:double"}),
                Value::Typed { value, datatype } => json!({"$": value, "type": datatype}),
                other => panic!("{other:?}"),
            };
            let back = prop_value(&written).unwrap();
            assert_eq!(crate::diff::prop_json(&back), v, "{v}");
        }
    }
}
