//! The content that flowed through a span (docs/FORMATS.md "OpenTelemetry traces"), in the
//! GenAI message schema (`{"role", "parts"}`), from every spelling the conventions use: the
//! GenAI `gen_ai.input.messages` / `gen_ai.output.messages` / `gen_ai.system_instructions`,
//! the older indexed `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` attributes and
//! `gen_ai.*.message` / `gen_ai.choice` events, OpenInference's `llm.input_messages.N.*` /
//! `llm.output_messages.N.*`, and `input.value` / `output.value`. Messages, tool arguments
//! and tool results are named by the SHA-256 of their RFC 8785 form, so the same content
//! seen twice is one node.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use crate::sources::statements::canonical::canonicalize_into;

/// The most indexed messages (`…prompt.N…`) read from one span.
const MAX_INDEX: usize = 10_000;

/// The messages a span consumed and produced, in order.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Flow {
    pub inputs: Vec<Value>,
    pub outputs: Vec<Value>,
}

/// One span event as this module reads it: its name and attributes.
pub struct Event<'a> {
    pub name: &'a str,
    pub attributes: Map<String, Value>,
}

/// `<prefix><sha256 hex of the RFC 8785 form of value>`.
pub fn content_name(prefix: &str, value: &Value) -> String {
    let mut s = String::with_capacity(prefix.len() + 64);
    push_content_name(&mut s, &mut String::new(), prefix, value);
    s
}

/// Appends [`content_name`] to `out`, the RFC 8785 form written in `canon` (buffers a
/// caller reuses across values, so naming content allocates nothing once they have grown).
pub fn push_content_name(out: &mut String, canon: &mut String, prefix: &str, value: &Value) {
    canon.clear();
    canonicalize_into(canon, value);
    let digest = Sha256::digest(canon.as_bytes());
    out.reserve(prefix.len() + 64);
    out.push_str(prefix);
    super::wire::push_hex(out, &digest);
}

/// A message's node name: `otel-msg:<sha256 of {"role", "parts"}>`.
pub fn message_name(message: &Value) -> String {
    content_name("otel-msg:", message)
}

/// A message's role.
pub fn role(message: &Value) -> &str {
    message.get("role").and_then(Value::as_str).unwrap_or("")
}

/// Text that may hold JSON: the JSON it holds, else the text itself.
pub fn parse_lenient(v: &Value) -> Value {
    match v {
        Value::String(s) if s.starts_with(['{', '[']) => {
            serde_json::from_str(s).unwrap_or_else(|_| v.clone())
        }
        other => other.clone(),
    }
}

/// Whether [`extract`] (or the tool content beside it: arguments and results) reads the
/// attribute `key`: only these of a span's attributes are turned into JSON for it.
pub fn is_content_key(key: &str) -> bool {
    use super::conventions::key::{OI_TOOL_PARAMS, TOOL_ARGS, TOOL_RESULT};
    matches!(
        key,
        "gen_ai.system_instructions"
            | "gen_ai.input.messages"
            | "gen_ai.output.messages"
            | "input.value"
            | "output.value"
            | TOOL_ARGS
            | TOOL_RESULT
            | OI_TOOL_PARAMS
    ) || INDEXED.iter().any(|p| key.starts_with(p))
}

/// The prefixes of the indexed message spellings.
const INDEXED: [&str; 4] =
    ["gen_ai.prompt.", "gen_ai.completion.", "llm.input_messages.", "llm.output_messages."];

/// Every message recorded on a span. `input.value` / `output.value` are messages only when
/// nothing else recorded them and `values` says so (a tool's are its arguments and result).
pub fn extract(attrs: &Map<String, Value>, events: &[Event<'_>], values: bool) -> Flow {
    let mut flow = Flow::default();
    if attrs.is_empty() && events.is_empty() {
        return flow;
    }
    if let Some(v) = attrs.get("gen_ai.system_instructions") {
        system_instructions(v, &mut flow.inputs);
    }
    genai_list(attrs.get("gen_ai.input.messages"), &mut flow.inputs);
    genai_list(attrs.get("gen_ai.output.messages"), &mut flow.outputs);
    extract_rest(attrs, events, &mut flow);
    if !values {
        return flow;
    }
    if flow.inputs.is_empty() {
        if let Some(Value::String(s)) = attrs.get("input.value") {
            flow.inputs.push(json!({"role": "user", "parts": [text_part(s)]}));
        }
    }
    if flow.outputs.is_empty() {
        if let Some(Value::String(s)) = attrs.get("output.value") {
            flow.outputs.push(json!({"role": "assistant", "parts": [text_part(s)]}));
        }
    }
    flow
}

/// `gen_ai.system_instructions`: parts (or their text), as a system message.
pub(super) fn system_instructions(v: &Value, out: &mut Vec<Value>) {
    let parts = match parse_lenient(v) {
        Value::Array(parts) => parts,
        Value::String(s) => vec![text_part(&s)],
        _ => Vec::new(),
    };
    if !parts.is_empty() {
        out.push(json!({"role": "system", "parts": parts}));
    }
}

/// The messages of the indexed spellings and of the events, after the GenAI lists'.
pub(super) fn extract_rest(attrs: &Map<String, Value>, events: &[Event<'_>], flow: &mut Flow) {
    // One look for the indexed spellings, which most spans do not use.
    if attrs.keys().any(|k| INDEXED.iter().any(|p| k.starts_with(p))) {
        indexed(attrs, "gen_ai.prompt.", legacy_message, &mut flow.inputs);
        indexed(attrs, "gen_ai.completion.", legacy_message, &mut flow.outputs);
        indexed(attrs, "llm.input_messages.", openinference_message, &mut flow.inputs);
        indexed(attrs, "llm.output_messages.", openinference_message, &mut flow.outputs);
    }
    for e in events {
        let role = match e.name {
            "gen_ai.system.message" => "system",
            "gen_ai.user.message" => "user",
            "gen_ai.assistant.message" => "assistant",
            "gen_ai.tool.message" => "tool",
            "gen_ai.choice" => {
                let m = e.attributes.get("message").map(parse_lenient).unwrap_or(Value::Null);
                let m = m.as_object().cloned().unwrap_or_default();
                flow.outputs.push(legacy(&m, "assistant"));
                continue;
            }
            _ => continue,
        };
        flow.inputs.push(legacy(&e.attributes, role));
    }
}

pub(super) fn text_part(s: &str) -> Value {
    json!({"type": "text", "content": s})
}

/// `gen_ai.input.messages` / `gen_ai.output.messages`: a JSON array (or its text) of
/// `{"role", "parts"}`; anything else on a message is left out of its identity.
pub(super) fn genai_list(v: Option<&Value>, out: &mut Vec<Value>) {
    let Some(Value::Array(items)) = v.map(parse_lenient) else { return };
    for m in items {
        let Value::Object(mut m) = m else { continue };
        if m.len() == 2 && m.contains_key("role") && m.contains_key("parts") {
            // Already `{"role", "parts"}` (in either order): the parsed object itself.
            out.push(Value::Object(m));
            continue;
        }
        // The parsed message's own role and parts, taken rather than copied.
        match m.remove("parts") {
            Some(parts) => {
                let role = m.remove("role").unwrap_or(Value::Null);
                out.push(json!({"role": role, "parts": parts}));
            }
            None => {
                let role = m.get("role").and_then(Value::as_str).unwrap_or("").to_owned();
                out.push(legacy(&m, &role));
            }
        }
    }
}

/// Groups `prefix N.rest` attributes by `N` (in index order) and makes a message of each.
fn indexed(
    attrs: &Map<String, Value>,
    prefix: &str,
    make: fn(&Map<String, Value>) -> Option<Value>,
    out: &mut Vec<Value>,
) {
    let mut groups: BTreeMap<usize, Map<String, Value>> = BTreeMap::new();
    for (k, v) in attrs.range_prefix(prefix) {
        let rest = &k[prefix.len()..];
        let Some((n, field)) = rest.split_once('.') else { continue };
        let Ok(n) = n.parse::<usize>() else { continue };
        if n < MAX_INDEX {
            groups.entry(n).or_default().insert(field.to_owned(), v.clone());
        }
    }
    out.extend(groups.values().filter_map(make));
}

/// Keys of a map that start with a prefix.
trait RangePrefix {
    fn range_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (&'a String, &'a Value)>;
}

impl RangePrefix for Map<String, Value> {
    fn range_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (&'a String, &'a Value)> {
        self.iter().filter(move |(k, _)| k.starts_with(prefix))
    }
}

/// The older GenAI spelling: `role`, `content`, `tool_call_id`, `tool_calls.M.*`.
fn legacy_message(fields: &Map<String, Value>) -> Option<Value> {
    let mut m = fields.clone();
    let mut calls: BTreeMap<usize, Map<String, Value>> = BTreeMap::new();
    for (k, v) in fields.range_prefix("tool_calls.") {
        if let Some((n, f)) = k["tool_calls.".len()..].split_once('.') {
            if let Ok(n) = n.parse::<usize>() {
                calls.entry(n).or_default().insert(f.to_owned(), v.clone());
            }
        }
    }
    if !calls.is_empty() {
        let list = calls
            .into_values()
            .map(|c| {
                json!({"id": c.get("id"), "function": {"name": c.get("name"), "arguments": c.get("arguments")}})
            })
            .collect();
        m.insert("tool_calls".into(), Value::Array(list));
    }
    if !m.contains_key("role") && !m.contains_key("content") && !m.contains_key("tool_calls") {
        return None;
    }
    Some(legacy(&m, ""))
}

/// A message in the older shape (`role`, `content`, `tool_calls`, `id`/`tool_call_id`) in
/// the GenAI message schema.
pub fn legacy(m: &Map<String, Value>, default_role: &str) -> Value {
    let role = m.get("role").and_then(Value::as_str).unwrap_or(default_role).to_owned();
    let mut parts = Vec::new();
    let tool_id = m.get("tool_call_id").or_else(|| m.get("id")).and_then(Value::as_str);
    let content = m.get("content").map(parse_lenient);
    if role == "tool" {
        if let Some(c) = content {
            parts.push(json!({"type": "tool_call_response", "id": tool_id, "response": c}));
        }
    } else {
        match content {
            Some(Value::String(s)) => parts.push(text_part(&s)),
            Some(Value::Array(items)) => parts.extend(items.iter().map(|p| match p {
                Value::String(s) => text_part(s),
                Value::Object(o)
                    if o.get("type").and_then(Value::as_str) == Some("text") && o.contains_key("text") =>
                {
                    text_part(o["text"].as_str().unwrap_or_default())
                }
                other => other.clone(),
            })),
            Some(Value::Null) | None => {}
            Some(other) => parts.push(json!({"type": "text", "content": other})),
        }
    }
    if let Some(Value::Array(calls)) = m.get("tool_calls").map(parse_lenient) {
        for c in calls {
            let f = c.get("function").cloned().unwrap_or(Value::Null);
            let args = f.get("arguments").map(parse_lenient).unwrap_or(Value::Null);
            parts.push(
                json!({"type": "tool_call", "id": c.get("id"), "name": f.get("name"), "arguments": args}),
            );
        }
    }
    json!({"role": role, "parts": parts})
}

/// OpenInference's spelling: `message.role`, `message.content`,
/// `message.contents.M.message_content.text`, `message.tool_calls.M.tool_call.*`,
/// `message.tool_call_id`.
fn openinference_message(fields: &Map<String, Value>) -> Option<Value> {
    let mut m = Map::new();
    let mut contents: BTreeMap<usize, String> = BTreeMap::new();
    let mut calls: BTreeMap<usize, Map<String, Value>> = BTreeMap::new();
    for (k, v) in fields {
        let Some(k) = k.strip_prefix("message.") else { continue };
        match k {
            "role" | "content" | "tool_call_id" => {
                m.insert(k.to_owned(), v.clone());
            }
            _ => {
                if let Some((n, f)) = k.strip_prefix("contents.").and_then(|r| r.split_once('.')) {
                    if let (Ok(n), "message_content.text", Some(t)) = (n.parse::<usize>(), f, v.as_str()) {
                        contents.insert(n, t.to_owned());
                    }
                } else if let Some((n, f)) = k.strip_prefix("tool_calls.").and_then(|r| r.split_once('.')) {
                    if let Ok(n) = n.parse::<usize>() {
                        let f = match f {
                            "tool_call.id" => "id",
                            "tool_call.function.name" => "name",
                            "tool_call.function.arguments" => "arguments",
                            _ => continue,
                        };
                        calls.entry(n).or_default().insert(f.to_owned(), v.clone());
                    }
                }
            }
        }
    }
    if !contents.is_empty() && !m.contains_key("content") {
        m.insert("content".into(), Value::Array(contents.into_values().map(Value::String).collect()));
    }
    if !calls.is_empty() {
        let list = calls
            .into_values()
            .map(|c| json!({"id": c.get("id"), "function": {"name": c.get("name"), "arguments": c.get("arguments")}}))
            .collect();
        m.insert("tool_calls".into(), Value::Array(list));
    }
    if m.is_empty() {
        return None;
    }
    Some(legacy(&m, ""))
}

/// The tool call ids a message answers (its `tool_call_response` parts).
pub fn tool_responses(message: &Value) -> impl Iterator<Item = &str> {
    message.get("parts").and_then(Value::as_array).into_iter().flatten().filter_map(|p| {
        (p.get("type").and_then(Value::as_str) == Some("tool_call_response"))
            .then(|| p.get("id").and_then(Value::as_str))
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn every_spelling_of_the_same_message_is_one_node() {
        let user = json!({"role": "user", "parts": [{"type": "text", "content": "hi"}]});
        let genai = extract(
            &attrs(
                json!({"gen_ai.input.messages": r#"[{"role":"user","parts":[{"type":"text","content":"hi"}]}]"#}),
            ),
            &[],
            true,
        );
        let old = extract(
            &attrs(json!({"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "hi"})),
            &[],
            true,
        );
        let oi = extract(
            &attrs(
                json!({"llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": "hi"}),
            ),
            &[],
            true,
        );
        let ev = extract(
            &Map::new(),
            &[Event { name: "gen_ai.user.message", attributes: attrs(json!({"content": "hi"})) }],
            true,
        );
        let value = extract(&attrs(json!({"input.value": "hi"})), &[], true);
        for f in [genai, old, oi, ev, value] {
            assert_eq!(f.inputs, vec![user.clone()]);
            assert_eq!(message_name(&f.inputs[0]), message_name(&user));
        }
        assert!(message_name(&user).starts_with("otel-msg:"));
        assert_eq!(message_name(&user).len(), "otel-msg:".len() + 64);
    }

    #[test]
    fn indexed_messages_keep_their_order_and_tool_calls() {
        let f = extract(
            &attrs(json!({
                "gen_ai.completion.1.role": "assistant", "gen_ai.completion.1.content": "second",
                "gen_ai.completion.0.role": "assistant",
                "gen_ai.completion.0.tool_calls.0.id": "c1", "gen_ai.completion.0.tool_calls.0.name": "add",
                "gen_ai.completion.0.tool_calls.0.arguments": "{\"a\":1}",
                "gen_ai.prompt.10.role": "user", "gen_ai.prompt.10.content": "ten",
                "gen_ai.prompt.2.role": "tool", "gen_ai.prompt.2.content": "3", "gen_ai.prompt.2.tool_call_id": "c1"
            })),
            &[],
            true,
        );
        assert_eq!(
            f.outputs[0]["parts"][0],
            json!({"type": "tool_call", "id": "c1", "name": "add", "arguments": {"a": 1}})
        );
        assert_eq!(f.outputs[1]["parts"][0]["content"], "second");
        assert_eq!(
            f.inputs[0]["parts"][0],
            json!({"type": "tool_call_response", "id": "c1", "response": "3"})
        );
        assert_eq!(f.inputs[1]["parts"][0]["content"], "ten");
        assert_eq!(tool_responses(&f.inputs[0]).collect::<Vec<_>>(), ["c1"]);
    }

    /// Finding: a GenAI message list in the older shape (`role`, `content`, no `parts`) kept
    /// its first message only.
    #[test]
    fn a_list_of_older_shaped_messages_keeps_every_message() {
        let f = extract(
            &attrs(
                json!({"gen_ai.input.messages": r#"[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","parts":[{"type":"text","content":"c"}]}]"#}),
            ),
            &[],
            true,
        );
        let texts: Vec<&Value> = f.inputs.iter().map(|m| &m["parts"][0]["content"]).collect();
        assert_eq!(texts, [&json!("a"), &json!("b"), &json!("c")]);
        assert_eq!(f.inputs[1]["role"], "assistant");
    }

    #[test]
    fn choice_events_and_system_instructions() {
        let f = extract(
            &attrs(json!({"gen_ai.system_instructions": r#"[{"type":"text","content":"be brief"}]"#})),
            &[Event {
                name: "gen_ai.choice",
                attributes: attrs(json!({"index": 0, "message": r#"{"role":"assistant","content":"ok"}"#})),
            }],
            true,
        );
        assert_eq!(
            f.inputs,
            vec![json!({"role": "system", "parts": [{"type": "text", "content": "be brief"}]})]
        );
        assert_eq!(
            f.outputs,
            vec![json!({"role": "assistant", "parts": [{"type": "text", "content": "ok"}]})]
        );
    }
}
