//! Ties from spans to the nodes other sources hold (docs/FORMATS.md "OpenTelemetry
//! traces", as TrustGraph steps do): an attribute value or a message's text naming an A2AP
//! statement (`urn:uuid:…`), a TrustGraph node (`urn:trustgraph:…`) or a tracked prompt
//! (`prompt:<id>`). Statements and TrustGraph nodes are named through a bare `Explain`
//! placeholder, which the ingest pipeline replaces by the node of that name another source
//! holds, now or when it arrives (`sources/reasoning/relink.rs`).

use opentelemetry_proto::tonic::common::v1::{any_value::Value as Any, AnyValue};
use serde_json::Value;

use super::json_tree::Json;
use crate::model::Label;

/// The most references taken from one span.
pub const MAX_REFERENCES: usize = 64;

/// The node a text names, if it is a whole name of another source's node.
pub fn reference(text: &str) -> Option<(Label, &str)> {
    let t = text.trim_matches(|c: char| c.is_whitespace() || "\"'`()[]{}<>,;.".contains(c));
    if let Some(uuid) = t.strip_prefix("urn:uuid:") {
        return (uuid.len() == 36 && uuid.chars().all(|c| c.is_ascii_hexdigit() || c == '-'))
            .then_some((Label::Explain, t));
    }
    if t.starts_with("urn:trustgraph:") && t.len() > "urn:trustgraph:".len() {
        return Some((Label::Explain, t));
    }
    if let Some(id) = t.strip_prefix("prompt:") {
        return (!id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || "-_.:".contains(c)))
            .then_some((Label::Prompt, t));
    }
    None
}

/// The references in a JSON value: a string naming a node whole, or the words of a longer
/// text that do; in arrays and objects too (no deeper than the value already is bounded).
pub fn references(value: &Value, out: &mut Vec<(Label, String)>) {
    if out.len() >= MAX_REFERENCES {
        return;
    }
    match value {
        Value::String(s) => string_references(s, out),
        Value::Array(items) => items.iter().for_each(|v| references(v, out)),
        Value::Object(o) => o.values().for_each(|v| references(v, out)),
        _ => {}
    }
}

/// [`references`] of a message's parts read in place.
pub fn json_references(value: &Json<'_>, out: &mut Vec<(Label, String)>) {
    if out.len() >= MAX_REFERENCES {
        return;
    }
    match value {
        Json::Str(s) => string_references(s, out),
        Json::Array(items) => items.iter().for_each(|v| json_references(v, out)),
        Json::Object(o) => o.iter().for_each(|(_, v)| json_references(v, out)),
        _ => {}
    }
}

/// The references in a text: the whole of it, or its words.
fn string_references(s: &str, out: &mut Vec<(Label, String)>) {
    if out.len() >= MAX_REFERENCES {
        return;
    }
    if let Some((l, n)) = reference(s) {
        push(out, l, n);
    } else if may_name(s) {
        for word in s.split_whitespace() {
            if let Some((l, n)) = reference(word) {
                push(out, l, n);
            }
        }
    }
}

/// The references in an attribute value, as [`references`] finds them in its JSON: strings
/// read in place; arrays, maps and the rest through their JSON.
pub fn attribute_references(value: Option<&AnyValue>, out: &mut Vec<(Label, String)>) {
    let Some(v) = value.and_then(|v| v.value.as_ref()) else { return };
    match v {
        Any::StringValue(s) => string_references(s, out),
        Any::ArrayValue(_) | Any::KvlistValue(_) => references(&super::wire::to_json(value), out),
        // Numbers, booleans and bytes (as hex) name no node.
        _ => {}
    }
}

/// Whether an attribute value may name a node (else [`attribute_references`] finds none).
pub fn may_reference(value: Option<&AnyValue>) -> bool {
    match value.and_then(|v| v.value.as_ref()) {
        Some(Any::StringValue(s)) => may_name(s),
        Some(Any::ArrayValue(_) | Any::KvlistValue(_)) => true,
        _ => false,
    }
}

/// Whether a text holds `urn:` or `prompt:`, where a name of another source's node starts:
/// two vectorised substring searches, which skip a message's text faster than a pass that
/// stops at each of its colons.
fn may_name(s: &str) -> bool {
    use memchr::memmem::Finder;
    use std::sync::LazyLock;
    // Built once: a search's set-up costs more than a short attribute's whole scan.
    static URN: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"urn:"));
    static PROMPT: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"prompt:"));
    let b = s.as_bytes();
    URN.find(b).is_some() || PROMPT.find(b).is_some()
}

fn push(out: &mut Vec<(Label, String)>, label: Label, name: &str) {
    if out.len() < MAX_REFERENCES && !out.iter().any(|(l, n)| *l == label && n == name) {
        out.push((label, name.to_owned()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_text_may_name_a_node_exactly_when_it_holds_urn_or_prompt_and_a_colon() {
        for s in [
            "",
            ":",
            "urn",
            "urn:",
            "xurn:y",
            "prompt:",
            "a prompt: b",
            "promp:",
            "ur:n",
            "u:rn:",
            "pr:ompt:",
        ] {
            assert_eq!(may_name(s), s.contains("urn:") || s.contains("prompt:"), "{s}");
        }
    }

    #[test]
    fn names_of_other_sources_are_found_whole_or_in_text() {
        let mut out = Vec::new();
        references(
            &json!({"a": "urn:uuid:123e4567-e89b-12d3-a456-426614174000", "b": ["see prompt:p-1.", "nothing"],
                    "c": "from urn:trustgraph:question:abc here", "d": "urn:uuid:nope"}),
            &mut out,
        );
        assert_eq!(
            out,
            vec![
                (Label::Explain, "urn:uuid:123e4567-e89b-12d3-a456-426614174000".to_owned()),
                (Label::Prompt, "prompt:p-1".to_owned()),
                (Label::Explain, "urn:trustgraph:question:abc".to_owned()),
            ]
        );
    }
}
