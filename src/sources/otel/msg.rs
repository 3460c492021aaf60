//! The messages of a span as the normaliser names them (docs/FORMATS.md "OpenTelemetry
//! traces"): each `{"role", "parts"}`, read in place ([`Json`]) from the GenAI message lists
//! given as text (`gen_ai.input.messages`, `gen_ai.output.messages`), the spellings most
//! producers write, and made through `messages` (as `serde_json::Value`) from every other
//! spelling. [`extract`] gives the messages `messages::extract` gives, in the same order.

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use super::json_tree::Json;
use super::messages::{self, Event};

/// The attributes holding a span's GenAI message lists: input, output.
pub const MESSAGE_LISTS: [&str; 2] = ["gen_ai.input.messages", "gen_ai.output.messages"];

/// The message lists of a span given as text (input, output), by the last attribute of
/// each name when it is a string.
pub type Lists<'a> = [Option<&'a str>; 2];

/// A message: `{"role": role, "parts": parts}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Msg<'a> {
    pub role: Json<'a>,
    pub parts: Json<'a>,
}

impl<'a> Msg<'a> {
    /// A message made as a `Value` (`{"role", "parts"}`, as `messages` makes them).
    pub fn from_value(message: Value) -> Msg<'static> {
        let Value::Object(mut m) = message else { return Msg { role: Json::Null, parts: Json::Null } };
        let role = m.remove("role").map_or(Json::Null, Json::from_value);
        let parts = m.remove("parts").map_or(Json::Null, Json::from_value);
        Msg { role, parts }
    }

    /// The message as a `Value`.
    pub fn to_value(&self) -> Value {
        json!({"role": self.role.to_value(), "parts": self.parts.to_value()})
    }

    /// Its role, `""` when that is not a string (as `messages::role`).
    pub fn role(&self) -> &str {
        self.role.as_str().unwrap_or("")
    }

    /// Whether its role is a string.
    pub fn has_text_role(&self) -> bool {
        matches!(self.role, Json::Str(_))
    }

    /// Appends the RFC 8785 form of `{"role", "parts"}` to `out`.
    pub fn canonical_into(&self, out: &mut String) {
        out.push_str(r#"{"parts":"#);
        self.parts.canonical_into(out);
        out.push_str(r#","role":"#);
        self.role.canonical_into(out);
        out.push('}');
    }

    /// Appends its node name (`messages::push_content_name` of its `Value`) to `out`, the
    /// RFC 8785 form written in `canon`.
    pub fn push_name(&self, out: &mut String, canon: &mut String, prefix: &str) {
        canon.clear();
        self.canonical_into(canon);
        let digest = Sha256::digest(canon.as_bytes());
        out.reserve(prefix.len() + 64);
        out.push_str(prefix);
        super::wire::push_hex(out, &digest);
    }
}

/// The messages a span consumed and produced, in order.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Flow<'a> {
    pub inputs: Vec<Msg<'a>>,
    pub outputs: Vec<Msg<'a>>,
}

/// Every message recorded on a span, as `messages::extract` finds them in `attrs` with the
/// lists of `lists` added back: `attrs` holds the content attributes but the lists given as
/// text.
pub fn extract<'a>(
    attrs: &Map<String, Value>,
    lists: Lists<'a>,
    events: &[Event<'_>],
    values: bool,
) -> Flow<'a> {
    let mut flow = Flow::default();
    if attrs.is_empty() && lists == [None, None] && events.is_empty() {
        return flow;
    }
    let owned = |v: Vec<Value>| v.into_iter().map(|m| -> Msg<'a> { Msg::from_value(m) });
    if let Some(v) = attrs.get("gen_ai.system_instructions") {
        let mut system = Vec::new();
        messages::system_instructions(v, &mut system);
        flow.inputs.extend(owned(system));
    }
    for (i, out) in [&mut flow.inputs, &mut flow.outputs].into_iter().enumerate() {
        match lists[i] {
            Some(text) => genai_text(text, out),
            None => {
                let mut list = Vec::new();
                messages::genai_list(attrs.get(MESSAGE_LISTS[i]), &mut list);
                out.extend(owned(list));
            }
        }
    }
    let mut rest = messages::Flow::default();
    messages::extract_rest(attrs, events, &mut rest);
    flow.inputs.extend(owned(rest.inputs));
    flow.outputs.extend(owned(rest.outputs));
    if !values {
        return flow;
    }
    for (out, key, role) in
        [(&mut flow.inputs, "input.value", "user"), (&mut flow.outputs, "output.value", "assistant")]
    {
        if let (true, Some(Value::String(s))) = (out.is_empty(), attrs.get(key)) {
            out.push(Msg::from_value(json!({"role": role, "parts": [messages::text_part(s)]})));
        }
    }
    flow
}

/// `messages::genai_list` of a list given as text, read in place.
fn genai_text<'a>(text: &'a str, out: &mut Vec<Msg<'a>>) {
    // Text not starting with `[` is no list, whether it parses or not.
    if !text.starts_with('[') {
        return;
    }
    let Some(Json::Array(items)) = Json::parse(text) else { return };
    for m in items {
        let Json::Object(mut members) = m else { continue };
        match take(&mut members, "parts") {
            Some(parts) => {
                let role = take(&mut members, "role").unwrap_or(Json::Null);
                out.push(Msg { role, parts });
            }
            None => {
                // The older shape (no parts): made as `messages` makes it.
                let Value::Object(map) = Json::Object(members).to_value() else { continue };
                let role = map.get("role").and_then(Value::as_str).unwrap_or("").to_owned();
                out.push(Msg::from_value(messages::legacy(&map, &role)));
            }
        }
    }
}

/// Takes the member `key` out of an object's members.
fn take<'a>(members: &mut Vec<(std::borrow::Cow<'a, str>, Json<'a>)>, key: &str) -> Option<Json<'a>> {
    let i = members.iter().position(|(k, _)| k == key)?;
    Some(members.remove(i).1)
}

#[cfg(test)]
#[path = "msg_tests.rs"]
mod tests;
