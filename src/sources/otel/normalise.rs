//! OTLP spans onto PROV nodes and edges, exactly as docs/FORMATS.md "OpenTelemetry traces"
//! says, in the style of the A2A runtime events' graph: each span an activity
//! `otel:<trace>:<span>` labelled by what it does, its service, agent and model as agents,
//! its parent and links as edges, and the messages, tool arguments and results that flowed
//! as content-addressed entities. Every node and edge is an upsert, so re-exported spans
//! change nothing; a parent not in the request is a bare `Span` placeholder, folded into the
//! parent when it arrives (`placeholders`).

use std::borrow::Cow;
use std::collections::HashMap;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::trace::v1::Span;
use serde_json::{json, Map, Value};

use super::check::rejection;
pub use super::check::{check, rejected, RejectedSpan, SpanCounts};
use super::conventions::{self as conv, key};
use super::links;
use super::messages::{self, Event};
use super::msg::{self, Lists};
use super::props::{attr_key, attr_prop, content_json, gather, gather_str, set_attr, set_gathered, Gathered};
use super::wire::{attr_str, attr_text, attributes_json, hex, push_hex};
use crate::model::vocab::{A2aRelation, EdgeKind, Label, ProvRelation as Prov, RelType};
use crate::model::{GraphDelta, NodeId, PropValue, Props, PropsExt};

/// Property names written here (attributes are `otel:<key>`).
pub mod prop {
    pub const TRACE_ID: &str = crate::model::indexes::OTEL_TRACE_ID;
    pub const SPAN_ID: &str = "otel:span_id";
    pub const PARENT_SPAN_ID: &str = "otel:parent_span_id";
    pub const NAME: &str = "otel:name";
    pub const KIND: &str = "otel:kind";
    pub const STATUS: &str = "otel:status";
    pub const STATUS_MESSAGE: &str = "otel:status_message";
    pub const START_NS: &str = "otel:start_ns";
    pub const END_NS: &str = "otel:end_ns";
    pub const EVENTS: &str = "otel:events";
    pub const EXCEPTION_TYPE: &str = "otel:exception.type";
    pub const EXCEPTION_MESSAGE: &str = "otel:exception.message";
    pub const EXCEPTION_STACKTRACE: &str = "otel:exception.stacktrace";
    pub const RELATION: &str = "otel:relation";
    pub const INDEX: &str = "otel:index";
    pub const INDEXES: &str = "otel:indexes";
    pub const ROLE: &str = "otel:role";
    pub const CONTENT: &str = "otel:content";
    pub const AGENT_ID: &str = "otel:agent_id";
    pub const AGENT_NAME: &str = "otel:agent_name";
    pub const MODEL: &str = "otel:model";
    pub const PROVIDER: &str = "otel:provider";
    pub const SERVICE: &str = "otel:service";
    pub const START_TIME: &str = "prov:startTime";
    pub const END_TIME: &str = "prov:endTime";
    pub const PROV_ROLE: &str = "prov:role";
    pub const CONTEXT_ID: &str = "a2a:context_id";
    pub const TASK_ID: &str = "a2a:task_id";
}

/// `otel:relation` values.
pub const OTEL_PARENT: &str = "OTEL_PARENT";
pub const OTEL_LINK: &str = "OTEL_LINK";
pub const OTEL_REFERENCE: &str = "OTEL_REFERENCE";

/// A span's node name.
pub fn span_name(trace_id: &[u8], span_id: &[u8]) -> String {
    let mut s = String::with_capacity(6 + 2 * (trace_id.len() + span_id.len()));
    push_span_name(&mut s, trace_id, span_id);
    s
}

/// Appends a span's node name, `otel:<trace id>:<span id>` in lower-case hex, to `out`.
fn push_span_name(out: &mut String, trace_id: &[u8], span_id: &[u8]) {
    out.push_str("otel:");
    push_hex(out, trace_id);
    out.push(':');
    push_hex(out, span_id);
}

/// A span's ids, as the request holds them.
type SpanKey<'r> = (&'r [u8], &'r [u8]);

/// Hashing for the request's own tables (span ids, tool call ids): seeded per table, fast.
type Fast = foldhash::fast::RandomState;

/// A span of the request that is stored: its resource (by position), its node's label, the
/// attributes its messages and tool content are read from as JSON (the few
/// [`messages::is_content_key`] names; the others go to properties straight from the
/// request), and its tool result parsed (once, also for the tool messages that answer it).
struct Good<'r> {
    resource: usize,
    resource_attrs: &'r [KeyValue],
    span: &'r Span,
    label: Label,
    content: Map<String, Value>,
    /// The GenAI message lists given as text (not in `content`).
    lists: Lists<'r>,
    result: Option<Value>,
}

/// Normalises every good span of a request into `out`; bad spans are refused with their
/// reason and the rest kept.
pub fn normalise(request: &ExportTraceServiceRequest, out: &mut GraphDelta) -> SpanCounts {
    let mut counts = SpanCounts::default();
    let total: usize =
        request.resource_spans.iter().flat_map(|r| &r.scope_spans).map(|s| s.spans.len()).sum();
    // The labels of the spans this request holds, for their children's and links' edges.
    let mut labels: HashMap<SpanKey<'_>, Label, Fast> =
        HashMap::with_capacity_and_hasher(total, Fast::default());
    let mut good = Vec::with_capacity(total);
    for (resource, rs) in request.resource_spans.iter().enumerate() {
        let resource_attrs = rs.resource.as_ref().map_or(&[][..], |r| &r.attributes[..]);
        for span in rs.scope_spans.iter().flat_map(|ss| &ss.spans) {
            match check(span) {
                Ok(()) => {
                    let label = conv::label(&span.attributes);
                    labels.insert((&span.trace_id[..], &span.span_id[..]), label);
                    let (content, lists) = content_json(&span.attributes);
                    good.push(Good { resource, resource_attrs, span, label, content, lists, result: None });
                }
                Err(reason) => counts.rejected.push(rejection(span, reason)),
            }
        }
    }
    // The results of the tool calls this request holds, parsed once, and by tool call id
    // (the position of its span) for the tool messages that answer them. A span sent twice
    // in one request has the label of its last copy.
    let mut results: HashMap<Cow<'_, str>, usize, Fast> = HashMap::default();
    for (i, g) in good.iter_mut().enumerate() {
        g.label = labels[&(&g.span.trace_id[..], &g.span.span_id[..])];
        if g.label != Label::ToolCall || tool_result(&g.content, true).is_none() {
            continue;
        }
        let span = g.span;
        let id = attr_text(&span.attributes, key::TOOL_CALL_ID)
            .or_else(|| attr_text(&span.attributes, key::OI_TOOL_CALL_ID));
        if let Some(id) = id {
            results.insert(id, i);
        }
    }
    // Parsed only where a tool message may read it; a tool call's own result node is named
    // from its text (`Normaliser::tool`).
    for &i in results.values() {
        good[i].result = tool_result(&good[i].content, true).map(messages::parse_lenient);
    }
    let mut n = Normaliser {
        out,
        labels: &labels,
        results: &results,
        good: &good,
        services: vec![None; request.resource_spans.len()],
        scratch: String::new(),
        canon: String::new(),
        text: Vec::new(),
        memo: content::Memo::default(),
    };
    for g in &good {
        n.span(g);
        counts.accepted += 1;
    }
    counts
}

struct Normaliser<'a, 'r> {
    out: &'a mut GraphDelta,
    labels: &'a HashMap<SpanKey<'r>, Label, Fast>,
    /// The spans of tool calls with a result, by tool call id (positions in `good`).
    results: &'a HashMap<Cow<'r, str>, usize, Fast>,
    /// The spans being stored.
    good: &'a [Good<'r>],
    /// Each resource's `Service` agent, once made.
    services: Vec<Option<NodeId>>,
    /// A node name being built (a parent's, an agent's): the delta copies it only for a
    /// node it does not hold yet.
    scratch: String,
    /// The RFC 8785 form of content being named.
    canon: String,
    /// Content's JSON text being written, copied into its node only when it changes there.
    text: Vec<u8>,
    /// Content already named in this request (`normalise_content`).
    memo: content::Memo<'a>,
}

/// A tool call's result: `gen_ai.tool.call.result`, else (an OpenInference tool span)
/// `output.value`.
fn tool_result(attrs: &Map<String, Value>, tool: bool) -> Option<&Value> {
    attrs.get(key::TOOL_RESULT).or_else(|| tool.then(|| attrs.get("output.value")).flatten())
}

/// A message edge's ordinals: the first as `otel:index`, all of them as `otel:indexes`.
fn set_ordinals(props: &mut Props, at: Vec<i64>) {
    props.set(prop::INDEX, at[0]);
    props.insert(Cow::Borrowed(prop::INDEXES), PropValue::List(at.into_iter().map(PropValue::Int).collect()));
}

/// Exception events as `otel:exception.*`, the others as a JSON list in `otel:events`
/// (into `props`); returns every event for the messages they may carry.
fn events<'s>(props: &mut Gathered, span: &'s Span) -> Vec<Event<'s>> {
    let mut list = Vec::new();
    let mut all = Vec::new();
    for e in &span.events {
        let attributes = attributes_json(&e.attributes);
        if e.name == "exception" {
            for (k, p) in [
                ("exception.type", prop::EXCEPTION_TYPE),
                ("exception.message", prop::EXCEPTION_MESSAGE),
                ("exception.stacktrace", prop::EXCEPTION_STACKTRACE),
            ] {
                if let Some(Value::String(s)) = attributes.get(k) {
                    gather_str(props, p, s);
                }
            }
        } else {
            list.push(json!({"name": e.name, "time_unix_nano": e.time_unix_nano, "attributes": attributes}));
        }
        all.push(Event { name: &e.name, attributes });
    }
    if !list.is_empty() {
        gather(props, prop::EVENTS, Value::Array(list).to_string());
    }
    all
}

impl<'a, 'r> Normaliser<'a, 'r> {
    /// A span's node (bare: a placeholder when it is not in this request).
    fn span_node(&mut self, trace_id: &'r [u8], span_id: &'r [u8]) -> NodeId {
        let label = self.labels.get(&(trace_id, span_id)).copied().unwrap_or(Label::Span);
        let mut name = std::mem::take(&mut self.scratch);
        name.clear();
        name.push_str("otel:");
        push_hex(&mut name, trace_id);
        name.push(':');
        push_hex(&mut name, span_id);
        let node = self.out.upsert_node(label, &name);
        self.scratch = name;
        node
    }

    /// The node `<prefix><a>[<sep><b>]` of `label` (an agent's, a model's), its name built in
    /// the scratch buffer.
    fn named_node(&mut self, label: Label, prefix: &str, a: &str, b: Option<(&str, &str)>) -> NodeId {
        let mut name = std::mem::take(&mut self.scratch);
        name.clear();
        name.push_str(prefix);
        name.push_str(a);
        if let Some((sep, b)) = b {
            name.push_str(sep);
            name.push_str(b);
        }
        let node = self.out.upsert_node(label, &name);
        self.scratch = name;
        node
    }

    fn span(&mut self, good: &'a Good<'r>) {
        let Good { resource, resource_attrs, span, label, ref content, lists, ref result } = *good;
        // The attributes as properties `otel:<key>`, then the span's own properties, which
        // are set over attributes of the same name.
        let mut own: Gathered = Vec::with_capacity(span.attributes.len() + 16);
        for kv in &span.attributes {
            own.push((attr_key(&kv.key), attr_prop(kv.value.as_ref())));
        }
        let props = &mut own;
        let mut name = std::mem::take(&mut self.scratch);
        name.clear();
        push_span_name(&mut name, &span.trace_id, &span.span_id);
        let node = self.out.upsert_node(label, &name);
        // The span's own properties in their names' order, so that sorting them in with the
        // attributes moves few of them (`set_gathered`).
        if let Some(c) = attr_text(&span.attributes, key::CONVERSATION)
            .or_else(|| attr_text(&span.attributes, key::OI_SESSION))
        {
            gather_str(props, prop::CONTEXT_ID, &c);
        }
        let task = attr_text(&span.attributes, key::A2A_TASK).filter(|t| !t.is_empty());
        if let Some(task) = &task {
            gather_str(props, prop::TASK_ID, task);
        }
        let (start, end) = (span.start_time_unix_nano as i64, span.end_time_unix_nano as i64);
        gather(props, prop::END_NS, end);
        gather_str(props, prop::KIND, conv::span_kind(span.kind));
        gather_str(props, prop::NAME, &span.name);
        if !span.parent_span_id.is_empty() {
            gather(props, prop::PARENT_SPAN_ID, hex(&span.parent_span_id));
        }
        // The name is `otel:<32 hex digits>:<16 hex digits>` (the ids were checked).
        gather_str(props, prop::SPAN_ID, &name[38..]);
        gather(props, prop::START_NS, start);
        let status = span.status.as_ref();
        gather_str(props, prop::STATUS, conv::status(status.map_or(0, |s| s.code)));
        if let Some(m) = status.map(|s| s.message.as_str()).filter(|m| !m.is_empty()) {
            gather_str(props, prop::STATUS_MESSAGE, m);
        }
        gather_str(props, prop::TRACE_ID, &name[5..37]);
        self.scratch = name;
        gather(props, prop::END_TIME, end / 1_000_000);
        gather(props, prop::START_TIME, start / 1_000_000);
        let events = events(&mut own, span);

        self.service(node, resource, resource_attrs);
        if !span.parent_span_id.is_empty() {
            let parent = self.span_node(&span.trace_id, &span.parent_span_id);
            let rel = if label == Label::ToolCall { RelType::WasExecutedBy } else { RelType::WasInvokedBy };
            self.out.upsert_edge(rel, EdgeKind::Plain, parent, node).set_str(prop::RELATION, OTEL_PARENT);
        }
        for l in &span.links {
            let target = self.span_node(&l.trace_id, &l.span_id);
            let props = self.out.upsert_edge(
                RelType::WasInformedBy,
                EdgeKind::Prov(Prov::WasInformedBy),
                node,
                target,
            );
            props.set_str(prop::RELATION, OTEL_LINK);
            for (k, v) in attributes_json(&l.attributes) {
                set_attr(props, &k, &v);
            }
        }
        self.agents(node, &span.attributes);
        if let Some(task) = task {
            let t = self.out.upsert_node(Label::A2ATask, &crate::sources::runtime_events::names::task(&task));
            self.out.node_props(t).set_str(prop::TASK_ID, &task);
            let rel = if label == Label::ToolCall { RelType::WasExecutedBy } else { RelType::WasInvokedBy };
            self.out.upsert_edge(rel, EdgeKind::A2a(A2aRelation::TaskCall), t, node);
        }
        let flow = msg::extract(content, lists, &events, label != Label::ToolCall);
        self.flow(node, &flow);
        self.tool(node, label, content, result.as_ref());
        let mut refs = Vec::new();
        let attributes = &span.attributes;
        for (i, kv) in attributes.iter().enumerate() {
            // Of a key given twice, the last value (as in the attributes' JSON).
            if links::may_reference(kv.value.as_ref()) && !attributes[i + 1..].iter().any(|l| l.key == kv.key)
            {
                links::attribute_references(kv.value.as_ref(), &mut refs);
            }
        }
        for m in flow.inputs.iter().chain(&flow.outputs) {
            links::json_references(&m.parts, &mut refs);
        }
        for (l, n) in refs {
            let target = self.out.upsert_node(l, &n);
            self.out
                .upsert_edge(RelType::Used, EdgeKind::Prov(Prov::Used), node, target)
                .set_str(prop::RELATION, OTEL_REFERENCE);
        }
        set_gathered(self.out.node_props(node), own);
    }

    /// The resource's `Service` agent (made once per resource), with its attributes; the
    /// span is associated with it.
    fn service(&mut self, node: NodeId, index: usize, resource: &[KeyValue]) {
        let s = match self.services[index] {
            Some(s) => s,
            None => {
                let service = attr_str(resource, key::SERVICE_NAME).unwrap_or("unknown_service");
                let name = match attr_str(resource, key::SERVICE_NAMESPACE).filter(|n| !n.is_empty()) {
                    Some(ns) => format!("service:{ns}/{service}"),
                    None => format!("service:{service}"),
                };
                let s = self.out.upsert_node(Label::Service, &name);
                let props = self.out.node_props(s);
                for (k, v) in attributes_json(resource) {
                    set_attr(props, &k, &v);
                }
                props.set_str(prop::SERVICE, service);
                self.services[index] = Some(s);
                s
            }
        };
        self.out.upsert_edge(RelType::WasAssociatedWith, EdgeKind::Prov(Prov::WasAssociatedWith), node, s);
    }

    /// The agent and the model a span names.
    fn agents(&mut self, node: NodeId, attributes: &[KeyValue]) {
        let assoc = EdgeKind::Prov(Prov::WasAssociatedWith);
        if let Some(id) = conv::agent_id(attributes) {
            let agent = self.named_node(Label::Agent, "agent:", &id, None);
            let props = self.out.node_props(agent);
            props.set_str(prop::AGENT_ID, &id);
            if let Some(n) = conv::agent_name(attributes) {
                props.set_str(prop::AGENT_NAME, n);
            }
            self.out.upsert_edge(RelType::WasAssociatedWith, assoc, node, agent);
            if let Some(p) = attr_text(attributes, key::OI_NODE_PARENT).filter(|p| !p.is_empty() && *p != id)
            {
                let parent = self.named_node(Label::Agent, "agent:", &p, None);
                self.out.node_props(parent).set_str(prop::AGENT_ID, &p);
                self.out.upsert_edge(
                    RelType::ActedOnBehalfOf,
                    EdgeKind::Prov(Prov::ActedOnBehalfOf),
                    agent,
                    parent,
                );
            }
        }
        if let Some((provider, model)) = conv::model(attributes) {
            let m = self.named_node(Label::Agent, "model:", provider, Some(("/", model)));
            let props = self.out.node_props(m);
            props.set_str(prop::MODEL, model);
            props.set_str(prop::PROVIDER, provider);
            self.out
                .upsert_edge(RelType::WasAssociatedWith, assoc, node, m)
                .set_str(prop::PROV_ROLE, "model");
        }
    }
}

#[path = "normalise_content.rs"]
mod content;

#[cfg(test)]
#[path = "normalise_tests.rs"]
mod tests;
