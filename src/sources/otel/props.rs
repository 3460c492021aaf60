//! How a span's attributes become properties of its node (docs/FORMATS.md "OpenTelemetry
//! traces": each as `otel:<key>`): straight from the request's values, as their JSON would
//! give them, gathered with the span's own properties and set on the node in one pass; and
//! the few attributes that carry messages and tool content, as JSON for `messages`.

use std::borrow::Cow;

use opentelemetry_proto::tonic::common::v1::{any_value::Value as Any, AnyValue, KeyValue};
use serde_json::{Map, Value};

use super::messages;
use super::wire::{hex, to_json};
use crate::model::{PropValue, Props};

/// The attributes [`messages::extract`] and the tool content read, as JSON (a later
/// duplicate key wins, as in [`super::wire::attributes_json`]).
pub(super) fn content_json(attributes: &[KeyValue]) -> Map<String, Value> {
    attributes
        .iter()
        .filter(|kv| messages::is_content_key(&kv.key))
        .map(|kv| (kv.key.clone(), to_json(kv.value.as_ref())))
        .collect()
}

/// `otel:<key>`, the property an attribute is stored as.
pub(super) fn attr_key(k: &str) -> Cow<'static, str> {
    let mut key = String::with_capacity(5 + k.len());
    key.push_str("otel:");
    key.push_str(k);
    Cow::Owned(key)
}

/// An attribute's value as the property it is stored as: what [`owned_prop`] makes of its
/// JSON ([`to_json`]), without building the JSON of a scalar first. `None` for no value.
pub(super) fn attr_prop(value: Option<&AnyValue>) -> Option<PropValue> {
    Some(match value?.value.as_ref()? {
        Any::StringValue(s) => PropValue::Str(s.clone()),
        Any::BoolValue(b) => PropValue::Bool(*b),
        Any::IntValue(i) => PropValue::Int(*i),
        // A JSON number is finite: the others are JSON's null, which is no property.
        Any::DoubleValue(d) if d.is_finite() => PropValue::Float(*d),
        Any::DoubleValue(_) => return None,
        Any::BytesValue(b) => PropValue::Str(hex(b)),
        Any::StringValueStrindex(i) => PropValue::Int(i64::from(*i)),
        Any::ArrayValue(_) | Any::KvlistValue(_) => return owned_prop(to_json(value)),
    })
}

/// Properties being gathered for one node, later entries over earlier ones of the same name;
/// `None` stands for an attribute without a value (no property, and earlier values of its
/// name gone, as a later duplicate key replaces an earlier one).
pub(super) type Gathered = Vec<(Cow<'static, str>, Option<PropValue>)>;

pub(super) fn gather_str(list: &mut Gathered, key: &'static str, value: &str) {
    list.push((Cow::Borrowed(key), Some(PropValue::Str(value.to_owned()))));
}

pub(super) fn gather(list: &mut Gathered, key: &'static str, value: impl Into<PropValue>) {
    list.push((Cow::Borrowed(key), Some(value.into())));
}

/// Sets gathered properties over `props`: of each name the last entry, sorted first so that
/// a node without properties yet is built in one pass.
pub(super) fn set_gathered(props: &mut Props, mut list: Gathered) {
    // Stable: of one name, the entries stay in the order they were gathered.
    list.sort_by(|a, b| a.0.cmp(&b.0));
    let mut last = Vec::with_capacity(list.len());
    let mut it = list.into_iter().peekable();
    while let Some((k, v)) = it.next() {
        if it.peek().is_some_and(|(next, _)| *next == k) {
            continue;
        }
        if let Some(v) = v {
            last.push((k, v));
        }
    }
    if props.is_empty() {
        *props = last.into_iter().collect();
    } else {
        props.extend(last);
    }
}

/// Sets an attribute-derived property `otel:<key>` (nulls left out).
pub(super) fn set_attr(props: &mut Props, k: &str, v: &Value) {
    if let Some(v) = PropValue::from_json(v) {
        props.insert(attr_key(k), v);
    }
}

/// An attribute's value as a property, taking its text rather than copying it.
pub(super) fn owned_prop(v: Value) -> Option<PropValue> {
    match v {
        Value::String(s) => Some(PropValue::Str(s)),
        other => PropValue::from_json(&other),
    }
}
