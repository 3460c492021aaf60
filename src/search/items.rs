//! What the cross-graph search index holds of a written node: one item per node (its
//! graph, name, label, what kind of thing it is, its id for exact matching, and its words
//! for full-text matching), and one item per OpenTelemetry trace (its trace id, standing for
//! the trace's root span, or its first span written until the root is). Built from the
//! deltas the write path publishes, and from stored nodes when the index is rebuilt.

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

/// One entry of the index.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// Unique over the index: the graph and the node's name (or the trace id).
    pub uid: String,
    pub graph: String,
    /// The node a hit opens.
    pub node: String,
    /// What it is, in a word (`claim`, `quote`, `agent`, `trace`, …: [`kind`]).
    pub kind: &'static str,
    pub label: String,
    /// Matched exactly, lowercased: the node's name, or the trace id.
    pub key: String,
    /// Also matched exactly, lowercased: a span's own id.
    pub alt: Option<String>,
    /// Words matched by full text: the node's text ([`VIEW_TEXT_KEYS`]), at most
    /// [`MAX_TEXT_CHARS`].
    pub text: Option<String>,
    /// For a trace's item: whether its node is the trace's root span.
    pub trace_root: Option<bool>,
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

/// The unique key of a node's item.
pub fn node_uid(graph: &str, node: &str) -> String {
    format!("{graph}{SEP}{node}")
}

/// The unique key of a trace's item.
fn trace_uid(graph: &str, trace: &str) -> String {
    format!("{graph}{SEP}{SEP}trace{SEP}{trace}")
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

/// The items of one node, given its properties (looked up by key).
pub fn node_items(graph: &str, name: &str, label: &str, get: impl Fn(&str) -> Option<String>) -> Vec<Item> {
    let trace = get(OTEL_TRACE_ID).filter(|t| !t.is_empty());
    let is_span = trace.is_some() && TRACE_LABELS.iter().any(|l| l.as_str() == label);
    let mut out = vec![Item {
        uid: node_uid(graph, name),
        graph: graph.to_owned(),
        node: name.to_owned(),
        kind: kind(label, is_span),
        label: label.to_owned(),
        key: name.to_lowercase(),
        alt: if is_span { get(OTEL_SPAN_ID).map(|s| s.to_lowercase()) } else { None },
        text: node_text(&get),
        trace_root: None,
    }];
    if let (true, Some(trace)) = (is_span, trace) {
        // A placeholder (`Span` without a start) is a parent not seen yet: never the root.
        let root = get(OTEL_PARENT_SPAN_ID).is_none_or(|p| p.is_empty()) && label != Label::Span.as_str();
        out.push(Item {
            uid: trace_uid(graph, &trace),
            graph: graph.to_owned(),
            node: name.to_owned(),
            kind: "trace",
            label: label.to_owned(),
            key: trace.to_lowercase(),
            alt: None,
            text: None,
            trace_root: Some(root),
        });
    }
    out
}

/// The items of every node a written delta holds, a trace's item once (from its root span
/// when the delta has it).
pub fn delta_items(graph: &str, delta: &GraphDelta) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::with_capacity(delta.node_count());
    let mut traces: Vec<Item> = Vec::new();
    for n in delta.nodes() {
        let get = |k: &str| n.props.get(k).and_then(text_of);
        for item in node_items(graph, &n.name, n.label.as_str(), get) {
            if item.trace_root.is_none() {
                out.push(item);
                continue;
            }
            match traces.iter_mut().find(|t| t.uid == item.uid) {
                Some(t) if item.trace_root == Some(true) => *t = item,
                Some(_) => {}
                None => traces.push(item),
            }
        }
    }
    out.extend(traces);
    out
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
        let items = delta_items("g", &d);
        let claim = items.iter().find(|i| i.node == "st:1").unwrap();
        assert_eq!((claim.kind, claim.key.as_str()), ("claim", "st:1"));
        assert_eq!(claim.text.as_deref(), Some("The park opens in May"));
        let span = items.iter().find(|i| i.node == "otel:AB:01" && i.trace_root.is_none()).unwrap();
        assert_eq!((span.kind, span.alt.as_deref()), ("span", Some("01")));
        // One item for the trace, standing for its root span.
        let traces: Vec<&Item> = items.iter().filter(|i| i.kind == "trace").collect();
        assert_eq!(traces.len(), 1);
        assert_eq!((traces[0].node.as_str(), traces[0].key.as_str()), ("otel:AB:00", "ab"));
        assert_eq!(traces[0].trace_root, Some(true));
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
