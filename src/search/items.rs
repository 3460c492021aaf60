//! What the cross-graph search index holds of a written node: one item per node (its
//! graph, name, label, what kind of thing it is, its ids for exact matching, and its words
//! for full-text matching). A span's item also carries its trace id and whether it is its
//! trace's root, so that a trace id finds the trace (its root span, or its first span
//! written until the root is) without an item of its own. Built from the deltas the write
//! path publishes, and from stored nodes when the index is rebuilt.

use crate::model::indexes::{OTEL_TRACE_ID, TRACE_LABELS};
use crate::model::{GraphDelta, Label, PropValue};
use crate::store::canvas_reads::VIEW_TEXT_KEYS;

/// The most characters of a node's text the index keeps: enough for a claim, a quote or a
/// prompt; a whole transcript is found through its quotes.
pub const MAX_TEXT_CHARS: usize = 4_000;

/// The property of a span's own id (docs/FORMATS.md "OpenTelemetry traces").
pub const OTEL_SPAN_ID: &str = "otel:span_id";
/// The property of a span's parent's id; a span without it is its trace's root.
pub const OTEL_PARENT_SPAN_ID: &str = "otel:parent_span_id";

/// Separates the parts of an item's unique key (graph names hold no control characters).
const SEP: char = '\u{1f}';

/// The shortest run of hex digits taken for an id rather than a word.
const MIN_ID_CHARS: usize = 8;

/// One entry of the index.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// Unique over the index: the graph and the node's name.
    pub uid: String,
    pub graph: String,
    /// The node a hit opens.
    pub node: String,
    /// What it is, in a word (`claim`, `quote`, `agent`, `span`, …: [`kind`]).
    pub kind: &'static str,
    pub label: String,
    /// Matched exactly, lowercased: the node's name.
    pub key: String,
    /// Also matched exactly, lowercased: a span's own id, or the id a name ends with
    /// ([`name_id`]), so that an id pasted alone finds its node.
    pub alt: Option<String>,
    /// Words matched by full text: the node's text ([`VIEW_TEXT_KEYS`]), at most
    /// [`MAX_TEXT_CHARS`].
    pub text: Option<String>,
    /// Also matched by full text: the words of the node's name without its ids
    /// ([`name_words`]); an id is matched exactly instead, and costs the full-text index a
    /// term of its own for every node.
    pub words: Option<String>,
    /// A span's trace id, lowercased: matched exactly, a hit for the trace.
    pub trace: Option<String>,
    /// For a span: whether it is its trace's root (`None` for a placeholder, a parent not
    /// seen yet, which may or may not be).
    pub root: Option<bool>,
}

/// What a node is, in the word a search hit shows.
pub fn kind(label: &str, is_span: bool) -> &'static str {
    if is_span {
        return "span";
    }
    match label {
        "Statement" => "claim",
        "Chunk" => "quote",
        "Verification" => "verification",
        "Agent" | "AgentRuntimeInstance" => "agent",
        "Service" => "service",
        "Document" | "Source" => "document",
        "Prompt" | "LlmPrompt" => "prompt",
        "Message" | "DialogMessage" => "message",
        "A2ATask" => "task",
        "Artifact" => "artifact",
        "LlmCall" | "ToolCall" => "call",
        "KGStatement" => "statement",
        "KGResource" => "resource",
        "Explain" => "reasoning",
        "Entity" => "entity",
        "Activity" => "activity",
        _ => "node",
    }
}

/// Whether `c` belongs to a word (as a search's words are read: `query.rs`).
fn word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether a word is an id: a run of at least [`MIN_ID_CHARS`] hex digits with a digit
/// among them (a hash, a trace or span id, a UUID's longer parts).
fn is_id_word(w: &str) -> bool {
    w.len() >= MIN_ID_CHARS
        && w.bytes().all(|b| b.is_ascii_hexdigit())
        && w.bytes().any(|b| b.is_ascii_digit())
}

/// Whether a part of a name is a UUID (`8-4-4-4-12` hex digits).
fn is_uuid(part: &str) -> bool {
    let groups: Vec<&str> = part.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The parts of a name between the characters that are neither word characters nor `-`.
fn parts(name: &str) -> impl Iterator<Item = &str> {
    name.split(|c: char| !word_char(c) && c != '-').filter(|p| !p.is_empty())
}

/// Whether a part of a name holds an id.
fn part_is_id(part: &str) -> bool {
    is_uuid(part) || part.split('-').any(is_id_word)
}

/// The words of a node's name without its ids: `agent:planner` gives `agent planner`,
/// `otel-msg:<sha-256>` gives `otel msg`, a UUID gives nothing. `None` when no word is left.
pub fn name_words(name: &str) -> Option<String> {
    let words: Vec<&str> = parts(name)
        .filter(|p| !is_uuid(p))
        .flat_map(|p| p.split(|c: char| !word_char(c)))
        .filter(|w| !w.is_empty() && !is_id_word(w))
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// The id a node's name ends with, lowercased, when its last part holds one
/// (`task:3f2a…-…` gives the UUID, `otel-msg:<sha-256>` the hash); `None` otherwise, and
/// when the name is that id.
pub fn name_id(name: &str) -> Option<String> {
    let last = name.rsplit(|c: char| !word_char(c) && c != '-').find(|p| !p.is_empty())?;
    (part_is_id(last) && last.len() < name.len()).then(|| last.to_lowercase())
}

/// The unique key of a node's item.
pub fn node_uid(graph: &str, node: &str) -> String {
    format!("{graph}{SEP}{node}")
}

/// A property's text: a string as it is, a list's strings joined.
fn text_of(v: &PropValue) -> Option<String> {
    match v {
        PropValue::Str(s) => Some(s.clone()),
        PropValue::List(items) => {
            let parts: Vec<String> = items.iter().filter_map(text_of).collect();
            (!parts.is_empty()).then(|| parts.join(" "))
        }
        _ => None,
    }
}

/// `text` cut to at most [`MAX_TEXT_CHARS`] characters.
pub fn capped(text: &str) -> String {
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        Some((at, _)) => text[..at].to_owned(),
        None => text.to_owned(),
    }
}

/// A node's searchable text from its properties (looked up by key), each value once.
pub fn node_text(get: impl Fn(&str) -> Option<String>) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut len = 0;
    for key in VIEW_TEXT_KEYS {
        if len >= MAX_TEXT_CHARS {
            break;
        }
        if let Some(v) = get(key).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty()) {
            if !parts.contains(&v) {
                len += v.chars().count() + 1;
                parts.push(v);
            }
        }
    }
    (!parts.is_empty()).then(|| capped(&parts.join(" \u{b7} ")))
}

/// The item of one node, given its properties (looked up by key).
pub fn node_item(graph: &str, name: &str, label: &str, get: impl Fn(&str) -> Option<String>) -> Item {
    let trace = get(OTEL_TRACE_ID).filter(|t| !t.is_empty());
    let is_span = trace.is_some() && TRACE_LABELS.iter().any(|l| l.as_str() == label);
    // A placeholder (`Span` without a start) is a parent not seen yet: whether it is the
    // root is not known.
    let root = (is_span && label != Label::Span.as_str())
        .then(|| get(OTEL_PARENT_SPAN_ID).is_none_or(|p| p.is_empty()));
    Item {
        uid: node_uid(graph, name),
        graph: graph.to_owned(),
        node: name.to_owned(),
        kind: kind(label, is_span),
        label: label.to_owned(),
        key: name.to_lowercase(),
        alt: if is_span { get(OTEL_SPAN_ID).map(|s| s.to_lowercase()) } else { name_id(name) },
        text: node_text(&get),
        words: name_words(name),
        trace: if is_span { trace.map(|t| t.to_lowercase()) } else { None },
        root,
    }
}

/// The items of every node a written delta holds.
pub fn delta_items(graph: &str, delta: &GraphDelta) -> Vec<Item> {
    delta
        .nodes()
        .map(|n| node_item(graph, &n.name, n.label.as_str(), |k: &str| n.props.get(k).and_then(text_of)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Node;

    #[test]
    fn a_claim_is_found_by_its_text_and_a_span_by_its_ids() {
        let mut d = GraphDelta::new();
        d.add_node(Node::new(Label::Statement, "st:1").with("claim_text", "The park opens in May"));
        d.add_node(
            Node::new(Label::LlmCall, "otel:AB:01")
                .with(OTEL_TRACE_ID, "AB")
                .with(OTEL_SPAN_ID, "01")
                .with(OTEL_PARENT_SPAN_ID, "00")
                .with("otel:name", "chat"),
        );
        d.add_node(
            Node::new(Label::AgentInvocation, "otel:AB:00")
                .with(OTEL_TRACE_ID, "AB")
                .with(OTEL_SPAN_ID, "00"),
        );
        d.add_node(Node::new(Label::Span, "otel:AB:0f").with(OTEL_TRACE_ID, "AB").with(OTEL_SPAN_ID, "0f"));
        let items = delta_items("g", &d);
        assert_eq!(items.len(), 4, "one item per node");
        let claim = items.iter().find(|i| i.node == "st:1").unwrap();
        assert_eq!((claim.kind, claim.key.as_str()), ("claim", "st:1"));
        assert_eq!(claim.text.as_deref(), Some("The park opens in May"));
        assert_eq!((claim.trace.as_deref(), claim.root), (None, None));
        let span = items.iter().find(|i| i.node == "otel:AB:01").unwrap();
        assert_eq!((span.kind, span.alt.as_deref()), ("span", Some("01")));
        // Every span carries its trace; the root says so, a placeholder does not know.
        let root = items.iter().find(|i| i.node == "otel:AB:00").unwrap();
        let placeholder = items.iter().find(|i| i.node == "otel:AB:0f").unwrap();
        assert_eq!((span.trace.as_deref(), span.root), (Some("ab"), Some(false)));
        assert_eq!((root.trace.as_deref(), root.root), (Some("ab"), Some(true)));
        assert_eq!((placeholder.trace.as_deref(), placeholder.root), (Some("ab"), None));
    }

    #[test]
    fn a_names_words_leave_its_ids_out_and_the_id_it_ends_with_is_matched_exactly() {
        let hash = "552e93216c029d4d6ed888d0a7440b3958010cc17382f64ea4b0a63e6ebfeb86";
        let uuid = "5F0C1A2E-8d4b-4c1e-9a77-0b1f3c2d4e01";
        let cases = [
            ("agent:planner", Some("agent planner"), None),
            ("urn:agent:gpt-5", Some("urn agent gpt 5"), None),
            ("model:openai/gpt-4o-mini", Some("model openai gpt 4o mini"), None),
            ("task:t0", Some("task t0"), None),
            ("prompt:summarise-v2", Some("prompt summarise v2"), None),
            ("ordinance:2025-31", Some("ordinance 2025 31"), None),
        ];
        for (name, words, id) in cases {
            assert_eq!((name_words(name).as_deref(), name_id(name)), (words, id), "{name}");
        }
        let msg = format!("otel-msg:{hash}");
        assert_eq!((name_words(&msg).as_deref(), name_id(&msg).as_deref()), (Some("otel msg"), Some(hash)));
        let agent = format!("agent_instance:{uuid}");
        assert_eq!(name_words(&agent).as_deref(), Some("agent_instance"));
        assert_eq!(name_id(&agent), Some(uuid.to_lowercase()));
        // A name that is an id has no words, and is its own key.
        assert_eq!((name_words(hash), name_id(hash)), (None, None));
        assert_eq!((name_words(uuid), name_id(uuid)), (None, None));
        // A span's ids are its key, its alt and its trace, never words.
        let span = format!("otel:{}:{}", &hash[..32], &hash[..16]);
        assert_eq!(name_words(&span).as_deref(), Some("otel"));
        // Short hex (a word such as "cafe" or "2025") stays a word.
        assert_eq!(name_words("doc:cafe-2025").as_deref(), Some("doc cafe 2025"));
    }

    #[test]
    fn text_is_capped_on_a_character_boundary() {
        let long = "é".repeat(MAX_TEXT_CHARS + 10);
        let t = node_text(|k| (k == "text").then(|| long.clone())).unwrap();
        assert_eq!(t.chars().count(), MAX_TEXT_CHARS);
        assert_eq!(node_text(|_| None), None);
        assert_eq!(node_text(|k| (k == "text").then(|| "  ".to_owned())), None);
    }
}
