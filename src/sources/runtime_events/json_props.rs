//! An event's raw JSON fields (kept unparsed by `events`) as property values: how the
//! normaliser stores a field's JSON, and the one member of a call's metadata it reads.

use std::borrow::Cow;

use super::events::{Json, Text};
use crate::model::{PropValue, Props, PropsExt};

/// A JSON field as a property: objects keep their text as it came; `null` is left out;
/// scalars and arrays of scalars are stored as such (see [`PropValue::from_json`]).
pub(super) fn json_prop(raw: &Json) -> Option<PropValue> {
    let text = raw.as_deref()?.get();
    if text.starts_with('{') {
        return Some(PropValue::Str(text.to_owned()));
    }
    PropValue::from_json(&serde_json::from_str(text).ok()?)
}

/// Sets a JSON field as a property (see [`json_prop`]); objects, the common case, are set
/// from their text in place.
pub(super) fn set_json(props: &mut Props, key: &'static str, raw: &Json) {
    match raw.map(|r| r.get()) {
        Some(text) if text.starts_with('{') => props.set_str(key, text),
        _ => {
            if let Some(v) = json_prop(raw) {
                props.set(key, v);
            }
        }
    }
}

/// The `agent_id` member of a call's metadata, when it is an object with one that is a string.
pub(super) fn metadata_agent<'a>(raw: &Json<'a>) -> Option<Cow<'a, str>> {
    #[derive(serde::Deserialize)]
    struct AgentOnly<'a> {
        #[serde(borrow)]
        agent_id: Option<&'a serde_json::value::RawValue>,
    }
    let text = raw.as_ref()?.get();
    if !text.starts_with('{') {
        return None;
    }
    let id = serde_json::from_str::<AgentOnly<'a>>(text).ok()?.agent_id?.get();
    if !id.starts_with('"') {
        return None;
    }
    serde_json::from_str::<Text<'a>>(id).ok().map(|t| t.0)
}
