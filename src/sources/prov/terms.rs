//! The vocabulary of a PROV document that the document itself, the PROV relations and
//! Provex's own mapping (`native`) all name: the kinds of record, attribute values, the
//! escaping of names into qualified names and the properties of imported records
//! (docs/FORMATS.md, "PROV export"). It sits below them so that none of them leans on
//! another for it.

use serde_json::Value as Json;

/// The three kinds of PROV record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Entity,
    Activity,
    Agent,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Entity => "entity",
            Kind::Activity => "activity",
            Kind::Agent => "agent",
        }
    }

    /// The PROV-O class.
    pub fn class(self) -> &'static str {
        match self {
            Kind::Entity => "prov:Entity",
            Kind::Activity => "prov:Activity",
            Kind::Agent => "prov:Agent",
        }
    }

    pub(super) fn from_base_type(t: Option<&str>) -> Kind {
        match t {
            Some("ProvActivity") => Kind::Activity,
            Some("ProvAgent") => Kind::Agent,
            _ => Kind::Entity,
        }
    }
}

/// An attribute value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// A qualified name (`provex:Statement`).
    QName(String),
    /// A literal of another datatype (`"1" %% xsd:int`).
    Typed {
        value: String,
        datatype: String,
    },
    /// A string in a language (`"un lieu"@fr`).
    Lang {
        value: String,
        lang: String,
    },
}

impl Value {
    /// The values of a PROV-JSON attribute: a list is each of its items, `{"$": …}` a typed
    /// literal, a language-tagged string or a qualified name.
    pub fn from_json(v: &Json) -> Vec<Value> {
        match v {
            Json::Array(items) => items.iter().flat_map(Value::from_json).collect(),
            Json::Object(o) => {
                let text = match o.get("$") {
                    Some(Json::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => return vec![Value::Str(v.to_string())],
                };
                if let Some(Json::String(lang)) = o.get("lang") {
                    return vec![Value::Lang { value: text, lang: lang.clone() }];
                }
                match o.get("type").and_then(Json::as_str) {
                    Some("prov:QUALIFIED_NAME") | Some("xsd:QName") => vec![Value::QName(text)],
                    Some(t) => vec![Value::Typed { value: text, datatype: t.to_owned() }],
                    None => vec![Value::Str(text)],
                }
            }
            other => value(other).into_iter().collect(),
        }
    }
}

/// Properties of imported PROV records (see `prov::import`).
pub mod key {
    /// The record's (or bundle's) qualified name as the document wrote it.
    pub const QNAME: &str = "prov:qname";
    /// Its PROV-JSON bodies (a JSON list), as read.
    pub const ATTRIBUTES: &str = "prov:attributes";
    /// The qualified name of the bundle a record (or a `Namespaces` node) is in.
    pub const BUNDLE: &str = "prov:bundle";
    /// On a `Namespaces` node: the prefixes (a JSON object).
    pub const PREFIXES: &str = "prov:prefixes";
    /// On an edge: the PROV relations it stands for (a JSON list of
    /// `{"section", "key", "body", "bundle"}`); on a node, those with no second end.
    pub const RELATIONS: &str = "prov:relations";
}

/// A node name as the local part of a qualified name: letters, digits and `_` as they are,
/// every other byte `%XX` (valid in PROV-N, Turtle and JSON-LD alike).
pub fn local(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// As [`attr_value`], but a list or object is its JSON text, untyped.
fn value(v: &Json) -> Option<Value> {
    match v {
        Json::Array(_) | Json::Object(_) => Some(Value::Str(v.to_string())),
        _ => attr_value(v),
    }
}

/// The datatype of a list property: its value is the list's JSON text.
pub const LIST_TYPE: &str = "provex:list";
/// A stored property value (as the store reads it back, JSON) as an attribute value: a list
/// as its JSON text typed [`LIST_TYPE`], a float as `xsd:double`.
pub fn attr_value(v: &Json) -> Option<Value> {
    Some(match v {
        Json::Null => return None,
        Json::String(s) => Value::Str(s.clone()),
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64().filter(|f| f.is_finite())?),
        },
        other => Value::Typed { value: other.to_string(), datatype: LIST_TYPE.to_owned() },
    })
}
