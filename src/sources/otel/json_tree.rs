//! JSON read in place from an attribute's text: strings borrowed where they hold no escape,
//! objects as lists of members. It reads what `serde_json::Value` reads (the same parser,
//! the same recursion limit; of a member given twice, the first's place and the last's
//! value, as `Value`'s ordered map keeps them), and writes the same compact text and the
//! same RFC 8785 form, without the ordered map's hashing or a copy of every string. The
//! GenAI messages of a span are read this way (`msg`).

use std::borrow::Cow;
use std::collections::HashMap;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Map, Number, Value};

use crate::sources::statements::canonical::{utf16_cmp, write_json_number, write_string};

/// The key `serde_json` gives a meaning of its own as an object's first member (its raw
/// values): text holding it is read as `Value` reads it, not here.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// Objects with more members than this find a repeated member by a table, not a pass.
const LONG_OBJECT: usize = 16;

/// A parsed JSON value, borrowing from the text it was read from.
#[derive(Debug, Clone, PartialEq)]
pub enum Json<'a> {
    Null,
    Bool(bool),
    Number(Number),
    Str(Cow<'a, str>),
    Array(Vec<Json<'a>>),
    /// Members in the order first given, each name once.
    Object(Vec<(Cow<'a, str>, Json<'a>)>),
}

impl<'a> Json<'a> {
    /// Parses `text` as `serde_json::from_str::<Value>` would, or `None` where it fails.
    pub fn parse(text: &'a str) -> Option<Json<'a>> {
        match serde_json::from_str(text) {
            Ok(v) => Some(v),
            // What this reader refuses and `Value` may take (the raw value key): as `Value`.
            Err(_) => serde_json::from_str::<Value>(text).ok().map(Json::from_value),
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A member of an object.
    pub fn get(&self, key: &str) -> Option<&Json<'a>> {
        match self {
            Json::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The same value as a `serde_json::Value`.
    pub fn to_value(&self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => Value::Number(n.clone()),
            Json::Str(s) => Value::String(s.clone().into_owned()),
            Json::Array(items) => Value::Array(items.iter().map(Json::to_value).collect()),
            Json::Object(members) => {
                Value::Object(members.iter().map(|(k, v)| (k.clone().into_owned(), v.to_value())).collect())
            }
        }
    }

    /// A `serde_json::Value` as this tree (owning its strings).
    pub fn from_value(value: Value) -> Json<'static> {
        match value {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(b),
            Value::Number(n) => Json::Number(n),
            Value::String(s) => Json::Str(Cow::Owned(s)),
            Value::Array(items) => Json::Array(items.into_iter().map(Json::from_value).collect()),
            Value::Object(map) => {
                Json::Object(map.into_iter().map(|(k, v)| (Cow::Owned(k), Json::from_value(v))).collect())
            }
        }
    }

    /// Appends the RFC 8785 form (as `canonical::canonicalize_into` writes a `Value`).
    pub fn canonical_into(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(true) => out.push_str("true"),
            Json::Bool(false) => out.push_str("false"),
            Json::Number(n) => write_json_number(out, n),
            Json::Str(s) => write_string(out, s),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.canonical_into(out);
                }
                out.push(']');
            }
            Json::Object(members) => {
                let mut sorted: Vec<&(Cow<'a, str>, Json<'a>)> = members.iter().collect();
                sorted.sort_unstable_by(|a, b| utf16_cmp(&a.0, &b.0));
                out.push('{');
                for (i, (k, v)) in sorted.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(out, k);
                    out.push(':');
                    v.canonical_into(out);
                }
                out.push('}');
            }
        }
    }
}

/// Written as `Value` writes itself (so `serde_json::to_writer` gives the same text).
impl Serialize for Json<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Number(n) => n.serialize(s),
            Json::Str(v) => s.serialize_str(v),
            Json::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(members) => {
                let mut map = s.serialize_map(Some(members.len()))?;
                for (k, v) in members {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Json<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

/// An object's member name, borrowed where the text allows.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Json<'de>, E> {
        Ok(Json::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Json<'de>, E> {
        Ok(Json::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Json<'de>, E> {
        Ok(Json::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Json<'de>, E> {
        Ok(Number::from_f64(v).map_or(Json::Null, Json::Number))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Json<'de>, E> {
        Ok(Json::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Json<'de>, E> {
        Ok(Json::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Json<'de>, E> {
        Ok(Json::Str(Cow::Owned(v)))
    }
    fn visit_none<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }
    fn visit_unit<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Json<'de>, D::Error> {
        Deserialize::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        let mut members: Vec<(Cow<'de, str>, Json<'de>)> = Vec::new();
        // Positions by name, once the object is long.
        let mut index: Option<HashMap<Cow<'de, str>, usize, foldhash::fast::RandomState>> = None;
        while let Some(Key(k)) = map.next_key()? {
            if k == RAW_VALUE_TOKEN {
                return Err(serde::de::Error::custom("a raw value key"));
            }
            let v: Json<'de> = map.next_value()?;
            if index.is_none() && members.len() >= LONG_OBJECT {
                index = Some(members.iter().enumerate().map(|(i, (k, _))| (k.clone(), i)).collect());
            }
            let at = match &mut index {
                Some(index) => match index.get(&k) {
                    Some(&i) => Some(i),
                    None => {
                        index.insert(k.clone(), members.len());
                        None
                    }
                },
                None => members.iter().position(|(m, _)| *m == k),
            };
            match at {
                Some(i) => members[i].1 = v,
                None => members.push((k, v)),
            }
        }
        Ok(Json::Object(members))
    }
}

/// A `Value` object's members as this tree's (for the messages made through `Value`).
pub fn object_of(map: Map<String, Value>) -> Json<'static> {
    Json::from_value(Value::Object(map))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::statements::canonical::canonical_string;

    /// Texts of odd shapes: escapes (some not UTF-8-safe), repeated members, numbers of
    /// every kind, deep and long values, and texts `Value` refuses.
    pub(crate) fn odd_texts() -> Vec<String> {
        let mut v: Vec<String> = [
            r#"[{"role":"user","parts":[{"type":"text","content":"hi"}]}]"#,
            r#"{"a":1,"b":2,"a":3}"#,
            r#"{"b":{"x":1},"a":[1,2.5,-3,1e400]}"#,
            r#"{"b":{"x":1},"a":[1,2.5,-3,1e30,18446744073709551615,-9223372036854775808,0.1,1.0]}"#,
            r#""esc\"aped\\ \u00e9 \ud83d\ude00 \n\t\u0001""#,
            r#""lone \ud800""#,
            r#""\udc00 low""#,
            r#"{"\u00e9":1,"e":2,"\ud83d\ude00":3,"\uffff":4}"#,
            r#"{"$serde_json::private::RawValue":"[1,2]"}"#,
            r#"{"$serde_json::private::RawValue":5}"#,
            r#"{"x":1,"$serde_json::private::RawValue":"[1]"}"#,
            "[1,2,]",
            "[1 2]",
            "  [ 1 , { \"a\" : null } ]  ",
            "[1] x",
            "",
            "null",
            "true",
            "\"\"",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.push(format!("{}1{}", "[".repeat(127), "]".repeat(127)));
        v.push(format!("{}1{}", "[".repeat(128), "]".repeat(128)));
        v.push(format!("{}1{}", "[".repeat(200), "]".repeat(200)));
        let long: Vec<String> = (0..100).map(|i| format!("\"k{}\":{i}", i % 40)).collect();
        v.push(format!("{{{}}}", long.join(",")));
        v
    }

    #[test]
    fn reads_and_writes_exactly_what_a_value_reads_and_writes() {
        for text in odd_texts() {
            let want = serde_json::from_str::<Value>(&text).ok();
            let got = Json::parse(&text);
            assert_eq!(got.as_ref().map(Json::to_value), want, "{text}");
            let (Some(got), Some(want)) = (got, want) else { continue };
            assert_eq!(serde_json::to_string(&got).unwrap(), serde_json::to_string(&want).unwrap(), "{text}");
            let mut canon = String::new();
            got.canonical_into(&mut canon);
            assert_eq!(canon, canonical_string(&want), "{text}");
            assert_eq!(Json::from_value(want.clone()).to_value(), want);
        }
    }
}
