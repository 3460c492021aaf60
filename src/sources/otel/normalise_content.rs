//! The content-addressed side of a span: the messages it consumed and produced, and a tool
//! call's arguments and result, as entities named by their RFC 8785 form's digest, so the
//! same message in two calls is one node (docs/FORMATS.md "OpenTelemetry traces").

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::BuildHasher;

use hashbrown::hash_table::HashTable;
use serde_json::{Map, Value};

use super::{prop, set_ordinals, tool_result, Fast, Normaliser};
use crate::model::vocab::{EdgeKind, Label, ProvRelation as Prov, RelType};
use crate::model::{NodeId, PropsExt};
use crate::sources::otel::conventions::key;
use crate::sources::otel::json_tree::Json;
use crate::sources::otel::messages;
use crate::sources::otel::msg::{self, Msg};

impl<'a, 'r> Normaliser<'a, 'r> {
    /// The messages consumed and produced; a tool message derives from the tool result it
    /// carries (the same content names the same `ToolResult`). A message a call holds twice
    /// in one list is one edge with every ordinal it holds there (`otel:indexes`), the first
    /// in `otel:index`.
    pub(super) fn flow(&mut self, node: NodeId, flow: &msg::Flow<'_>) {
        for (msg, at) in self.places(&flow.inputs) {
            let props = self.out.upsert_edge(RelType::WasConsumedBy, EdgeKind::Prov(Prov::Used), node, msg);
            props.set_str(prop::PROV_ROLE, "input_message");
            set_ordinals(props, at);
        }
        for (msg, at) in self.places(&flow.outputs) {
            let props = self.out.upsert_edge(
                RelType::WasGeneratedBy,
                EdgeKind::Prov(Prov::WasGeneratedBy),
                msg,
                node,
            );
            set_ordinals(props, at);
        }
    }

    /// Each distinct message of a list, in the order first seen, with its ordinals there.
    pub(super) fn places(&mut self, list: &[Msg<'_>]) -> Vec<(NodeId, Vec<i64>)> {
        let mut out: Vec<(NodeId, Vec<i64>)> = Vec::with_capacity(list.len());
        // Long lists are looked up by name, short ones by a pass over what is found so far.
        let long = list.len() > 16;
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (i, m) in list.iter().enumerate() {
            let msg = self.message(m);
            let found = if long {
                let next = out.len();
                match seen.entry(self.out.node_name(msg).to_owned()) {
                    std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert(next);
                        None
                    }
                }
            } else {
                out.iter().position(|(n, _)| *n == msg)
            };
            match found {
                Some(k) => out[k].1.push(i as i64),
                None => out.push((msg, vec![i as i64])),
            }
        }
        out
    }

    pub(super) fn message(&mut self, m: &Msg<'_>) -> NodeId {
        self.text.clear();
        // Writing JSON to a Vec cannot fail.
        let _ = serde_json::to_writer(&mut self.text, &m.parts);
        let role = m.role();
        // A message of a string role is named by it and its parts, and the same parts' text
        // is the same parts (the text parses back to them): the same role and text are the
        // same node.
        let keyed = m.has_text_role();
        let text = std::str::from_utf8(&self.text).unwrap_or_default();
        let hash = self.memo.hasher.hash_one((role, text));
        let known =
            keyed.then(|| self.memo.messages.find(hash, |(r, t, _)| r == role && t == text)).flatten();
        let msg = match known {
            Some(k) => k.2,
            None if !keyed => self.message_node(m),
            None => {
                let msg = self.message_node(m);
                let text = std::str::from_utf8(&self.text).unwrap_or_default();
                let entry = (role.to_owned(), text.to_owned(), msg);
                let hasher = &self.memo.hasher;
                self.memo
                    .messages
                    .insert_unique(hash, entry, |(r, t, _)| hasher.hash_one((r.as_str(), t.as_str())));
                msg
            }
        };
        let props = self.out.node_props(msg);
        props.set_str(prop::ROLE, role);
        props.set_str(prop::CONTENT, std::str::from_utf8(&self.text).unwrap_or_default());
        if role == "tool" {
            // The result of the tool call it answers when that call is in the request, else
            // the content it carries (the same content names the same `ToolResult`).
            let (results, good) = (self.results, self.good);
            let parts = match &m.parts {
                Json::Array(parts) => &parts[..],
                _ => &[],
            };
            let responses: Vec<Cow<'_, Value>> = parts
                .iter()
                .filter(|p| p.get("type").and_then(Json::as_str) == Some("tool_call_response"))
                .filter_map(|p| {
                    let by_id = p.get("id").and_then(Json::as_str).and_then(|id| results.get(id));
                    let parsed = by_id.and_then(|&i| good[i].result.as_ref()).map(Cow::Borrowed);
                    parsed.or_else(|| {
                        p.get("response").map(|r| Cow::Owned(messages::parse_lenient(&r.to_value())))
                    })
                })
                .collect();
            for r in responses {
                let result = self.content(Label::ToolResult, "otel-result:", &r);
                self.out.upsert_edge(
                    RelType::WasDerivedFrom,
                    EdgeKind::Prov(Prov::WasDerivedFrom),
                    msg,
                    result,
                );
            }
        }
        msg
    }

    /// A message's node `otel-msg:<digest>`, its name built in the scratch buffers.
    fn message_node(&mut self, m: &Msg<'_>) -> NodeId {
        let mut name = std::mem::take(&mut self.scratch);
        name.clear();
        m.push_name(&mut name, &mut self.canon, "otel-msg:");
        let node = self.out.upsert_node(Label::Message, &name);
        self.scratch = name;
        node
    }

    /// The node `<prefix><digest of value>` of `label` ([`messages::content_name`]), its
    /// name built in the scratch buffers.
    pub(super) fn content_node(&mut self, label: Label, prefix: &str, value: &Value) -> NodeId {
        let mut name = std::mem::take(&mut self.scratch);
        name.clear();
        messages::push_content_name(&mut name, &mut self.canon, prefix, value);
        let node = self.out.upsert_node(label, &name);
        self.scratch = name;
        node
    }

    /// A content-addressed entity holding `value`.
    pub(super) fn content(&mut self, label: Label, prefix: &str, value: &Value) -> NodeId {
        let node = self.content_node(label, prefix, value);
        let text = match value {
            Value::String(s) => s.as_str(),
            other => {
                self.text.clear();
                // Writing a `Value` to a Vec cannot fail.
                let _ = serde_json::to_writer(&mut self.text, other);
                std::str::from_utf8(&self.text).unwrap_or_default()
            }
        };
        self.out.node_props(node).set_str(prop::CONTENT, text);
        node
    }

    /// A tool call's arguments and result: the GenAI attributes, else (OpenInference) the
    /// tool span's `tool.parameters` or `input.value` and its `output.value`.
    /// `parsed` is the result already parsed, when it is.
    pub(super) fn tool(
        &mut self,
        node: NodeId,
        label: Label,
        attrs: &'a Map<String, Value>,
        parsed: Option<&Value>,
    ) {
        let tool = label == Label::ToolCall;
        let args = attrs.get(key::TOOL_ARGS).or_else(|| {
            tool.then(|| attrs.get(key::OI_TOOL_PARAMS).or_else(|| attrs.get("input.value"))).flatten()
        });
        if let Some(a) = args {
            let args = self.attribute_content(Label::ToolArgs, "otel-args:", a, None);
            self.out
                .upsert_edge(RelType::WasUsedBy, EdgeKind::Prov(Prov::Used), node, args)
                .set_str(prop::PROV_ROLE, "a2a:args");
        }
        if let Some(r) = tool_result(attrs, tool) {
            let result = self.attribute_content(Label::ToolResult, "otel-result:", r, parsed);
            self.out.upsert_edge(RelType::WasGeneratedBy, EdgeKind::Prov(Prov::WasGeneratedBy), result, node);
        }
    }

    /// [`Self::content`] of an attribute's value as [`messages::parse_lenient`] reads it
    /// (`parsed`, when it is already): the same text seen again in this request names the
    /// same node and holds the same content, so it is neither parsed nor named again.
    fn attribute_content(
        &mut self,
        label: Label,
        prefix: &str,
        raw: &'a Value,
        parsed: Option<&Value>,
    ) -> NodeId {
        let Value::String(s) = raw else {
            return self.content(label, prefix, &messages::parse_lenient(raw));
        };
        if let Some((node, text)) = self.memo.attributes.get(&(label, s.as_str())) {
            self.out.node_props(*node).set_str(prop::CONTENT, text);
            return *node;
        }
        let node = match parsed {
            Some(p) => self.content(label, prefix, p),
            None => self.content(label, prefix, &messages::parse_lenient(raw)),
        };
        let text = self.out.node_props(node).get(prop::CONTENT).and_then(|v| v.as_str()).unwrap_or_default();
        self.memo.attributes.insert((label, s.as_str()), (node, text.to_owned()));
        node
    }
}

/// What a request's content has named so far: the same content in several spans (a tool
/// call's arguments, a message in every later call's history) is named once.
#[derive(Default)]
pub(super) struct Memo<'a> {
    hasher: Fast,
    /// Tool arguments and results by label and attribute text: the node and its content.
    attributes: HashMap<(Label, &'a str), (NodeId, String), Fast>,
    /// Messages by role and the JSON text of their parts.
    messages: HashTable<(String, String, NodeId)>,
}
