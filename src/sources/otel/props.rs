//! How a span's attributes become properties of its node (docs/FORMATS.md "OpenTelemetry
//! traces": each as `otel:<key>`): straight from the request's values, as their JSON would
//! give them, gathered with the span's own properties and set on the node in one pass; and
//! the few attributes that carry messages and tool content, as JSON for `messages`.

use std::borrow::Cow;

use opentelemetry_proto::tonic::common::v1::{any_value::Value as Any, AnyValue, KeyValue};
use serde_json::{Map, Value};

use super::messages;
use super::msg::{Lists, MESSAGE_LISTS};
use super::wire::{hex, to_json};
use crate::model::{PropValue, Props};

/// The attributes [`messages::extract`] and the tool content read, as JSON (a later
/// duplicate key wins, as in [`super::wire::attributes_json`]), but the GenAI message lists
/// given as text: those are read in place ([`super::msg::extract`]).
pub(super) fn content_json(attributes: &[KeyValue]) -> (Map<String, Value>, Lists<'_>) {
    let mut lists: Lists<'_> = [None, None];
    for (list, key) in lists.iter_mut().zip(MESSAGE_LISTS) {
        if let Some(kv) = attributes.iter().rev().find(|kv| kv.key == key) {
            if let Some(Any::StringValue(s)) = kv.value.as_ref().and_then(|v| v.value.as_ref()) {
                *list = Some(s.as_str());
            }
        }
    }
    let as_text = |k: &str| MESSAGE_LISTS.iter().zip(&lists).any(|(key, l)| l.is_some() && k == *key);
    let map = attributes
        .iter()
        .filter(|kv| messages::is_content_key(&kv.key) && !as_text(&kv.key))
        .map(|kv| (kv.key.clone(), to_json(kv.value.as_ref())))
        .collect();
    (map, lists)
}

/// The attribute keys the conventions name most often, each with its property name written
/// out, so that the property of a common attribute is named without allocating.
macro_rules! known_keys {
    ($($k:literal),* $(,)?) => {
        fn known_key(k: &str) -> Option<&'static str> {
            match k {
                $($k => Some(concat!("otel:", $k)),)*
                _ => None,
            }
        }
    };
}

known_keys!(
    "gen_ai.operation.name",
    "gen_ai.provider.name",
    "gen_ai.system",
    "gen_ai.request.model",
    "gen_ai.request.temperature",
    "gen_ai.request.max_tokens",
    "gen_ai.request.top_p",
    "gen_ai.response.model",
    "gen_ai.response.id",
    "gen_ai.response.finish_reasons",
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.output_tokens",
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.system_instructions",
    "gen_ai.conversation.id",
    "gen_ai.agent.id",
    "gen_ai.agent.name",
    "gen_ai.agent.description",
    "gen_ai.tool.name",
    "gen_ai.tool.type",
    "gen_ai.tool.description",
    "gen_ai.tool.call.id",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
    "gen_ai.output.type",
    "server.address",
    "server.port",
    "error.type",
    "a2a.task.id",
    "a2a.context.id",
    "openinference.span.kind",
    "input.value",
    "input.mime_type",
    "output.value",
    "output.mime_type",
    "session.id",
    "llm.model_name",
    "llm.provider",
    "llm.system",
    "llm.invocation_parameters",
    "llm.finish_reason",
    "llm.token_count.prompt",
    "llm.token_count.completion",
    "llm.token_count.total",
    "tool.name",
    "tool.description",
    "tool.parameters",
    "tool_call.id",
    "graph.node.id",
    "graph.node.name",
    "graph.node.parent_id",
    "agent.name",
    "service.name",
    "service.namespace",
    "service.version",
    "service.instance.id",
    "telemetry.sdk.name",
    "telemetry.sdk.language",
    "telemetry.sdk.version",
);

/// `otel:<key>`, the property an attribute is stored as.
pub(super) fn attr_key(k: &str) -> Cow<'static, str> {
    if let Some(known) = known_key(k) {
        return Cow::Borrowed(known);
    }
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
    // Of each name the last entry, moved to the front in place (no second list).
    let mut kept = 0;
    for i in 0..list.len() {
        if list.get(i + 1).is_some_and(|next| next.0 == list[i].0) {
            continue;
        }
        list.swap(kept, i);
        kept += 1;
    }
    list.truncate(kept);
    let last = list.into_iter().filter_map(|(k, v)| Some((k, v?)));
    if props.is_empty() {
        *props = last.collect();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_key_is_named_as_any_other_without_allocating() {
        for k in ["gen_ai.operation.name", "telemetry.sdk.version", "x.unknown", "", "otel:"] {
            assert_eq!(attr_key(k), format!("otel:{k}"));
        }
        assert!(matches!(attr_key("gen_ai.request.model"), Cow::Borrowed("otel:gen_ai.request.model")));
        assert!(matches!(attr_key("gen_ai.request.modelx"), Cow::Owned(_)));
    }
}
