//! Property values and property maps: what a node or an edge of a graph delta carries, and
//! setting them in place without allocating.

use std::borrow::Cow;
use std::collections::{btree_map, BTreeMap};

use serde::{Deserialize, Serialize};

/// A property value FalkorDB can store: scalars and lists of scalars. JSON objects and
/// mixed arrays are stored as JSON text (see [`PropValue::from_json`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PropValue {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<PropValue>),
}

impl PropValue {
    /// Converts arbitrary JSON: `null` gives `None` (FalkorDB removes a property set to
    /// null), scalars stay scalars, arrays of scalars become lists, anything else is kept
    /// as its JSON text.
    pub fn from_json(value: &serde_json::Value) -> Option<PropValue> {
        use serde_json::Value;
        Some(match value {
            Value::Null => return None,
            Value::Bool(b) => PropValue::Bool(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => PropValue::Int(i),
                None => PropValue::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => PropValue::Str(s.clone()),
            Value::Array(items) if items.iter().all(is_scalar) => {
                PropValue::List(items.iter().filter_map(PropValue::from_json).collect())
            }
            other => PropValue::Str(other.to_string()),
        })
    }

    /// The value as JSON, for output.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            PropValue::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            PropValue::Int(i) => Some(*i),
            _ => None,
        }
    }
}

fn is_scalar(v: &serde_json::Value) -> bool {
    !matches!(v, serde_json::Value::Array(_) | serde_json::Value::Object(_)) && !v.is_null()
}

impl From<&str> for PropValue {
    fn from(s: &str) -> Self {
        PropValue::Str(s.to_owned())
    }
}
impl From<String> for PropValue {
    fn from(s: String) -> Self {
        PropValue::Str(s)
    }
}
impl From<i64> for PropValue {
    fn from(i: i64) -> Self {
        PropValue::Int(i)
    }
}
impl From<u64> for PropValue {
    fn from(i: u64) -> Self {
        i64::try_from(i).map(PropValue::Int).unwrap_or(PropValue::Float(i as f64))
    }
}
impl From<bool> for PropValue {
    fn from(b: bool) -> Self {
        PropValue::Bool(b)
    }
}
impl From<f64> for PropValue {
    fn from(f: f64) -> Self {
        PropValue::Float(f)
    }
}

/// Properties, ordered by name so that output and queries are deterministic. Names come
/// from the vocabulary (static), so building a node allocates none for them.
pub type Props = BTreeMap<Cow<'static, str>, PropValue>;

/// Setting properties in place, as [`Node::with`] does on a new node; a string replacing a
/// string reuses its buffer, so re-adding a node with the same values allocates nothing.
pub trait PropsExt {
    /// Sets a string property.
    fn set_str(&mut self, key: &'static str, value: &str);
    /// Sets a property.
    fn set(&mut self, key: &'static str, value: impl Into<PropValue>);
}

impl PropsExt for Props {
    fn set_str(&mut self, key: &'static str, value: &str) {
        match self.entry(Cow::Borrowed(key)) {
            btree_map::Entry::Occupied(mut e) => match e.get_mut() {
                PropValue::Str(s) => {
                    if s != value {
                        s.clear();
                        s.push_str(value);
                    }
                }
                other => *other = PropValue::Str(value.to_owned()),
            },
            btree_map::Entry::Vacant(e) => {
                e.insert(PropValue::Str(value.to_owned()));
            }
        }
    }

    fn set(&mut self, key: &'static str, value: impl Into<PropValue>) {
        self.insert(Cow::Borrowed(key), value.into());
    }
}
