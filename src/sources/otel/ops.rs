//! The OpenTelemetry trace reads, over `sources::otel::views`: a graph's traces, a
//! trace's agents and the hand-offs between them, one span's details (attributes, the
//! messages in order with the call that produced each input, tool arguments and results,
//! tokens, the exception), and the walk from a message back to the call that produced it
//! (docs/FORMATS.md "OpenTelemetry traces": what flowed between calls).

use std::collections::{BTreeMap, HashMap, HashSet};

use falkordb::FalkorValue;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::Label;
use crate::sources::otel::queries;
use crate::sources::otel::views::{
    self, first_int, int, raw_span, read_trace, rows, span_param, strip, text, trace_param, AgentBox,
    HandOff, MessageOrigin, MessageView, OriginStep, Raw, SpanDetails, SpanError, ToolContent, TraceAgents,
    TracePage, TraceSpans, TraceSummary, MAX_SPANS, MAX_TRACES, TOKENS_IN, TOKENS_OUT,
};
use crate::sources::Session;
use crate::store::value::str_param;
use crate::store::Store;

/// The most messages one span's details show.
const MAX_MESSAGES: i64 = 500;
/// Hops "where did this message come from" walks back at most.
const MAX_ORIGIN_HOPS: usize = 8;

impl Session {
    /// A page of a graph's traces, newest first.
    pub async fn traces(&self, graph: &str, offset: u32, limit: u32) -> Result<TracePage> {
        traces(&self.store, graph, offset, limit).await
    }

    /// One trace's spans for a waterfall.
    pub async fn trace_spans(&self, graph: &str, trace: &str, limit: u32) -> Result<TraceSpans> {
        views::trace_spans(&self.store, graph, trace, limit).await
    }

    /// One trace's agents and hand-offs.
    pub async fn trace_agents(&self, graph: &str, trace: &str, limit: u32) -> Result<TraceAgents> {
        trace_agents(&self.store, graph, trace, limit).await
    }

    /// One span's details.
    pub async fn span_details(&self, graph: &str, id: &str) -> Result<SpanDetails> {
        span_details(&self.store, graph, id).await
    }

    /// Where a message came from.
    pub async fn message_origin(&self, graph: &str, id: &str) -> Result<MessageOrigin> {
        message_origin(&self.store, graph, id).await
    }
}

/// One page of a graph's traces, newest first (`limit` capped at [`MAX_TRACES`]).
async fn traces(store: &Store, graph: &str, offset: u32, limit: u32) -> Result<TracePage> {
    let limit = i64::from(limit.clamp(1, MAX_TRACES));
    let page = rows(
        store,
        graph,
        &queries::trace_page(),
        vec![("offset", FalkorValue::I64(i64::from(offset))), ("limit", FalkorValue::I64(limit))],
    )
    .await?;
    let total = rows(store, graph, &queries::trace_count(), vec![])
        .await?
        .first()
        .and_then(|r| r.first().and_then(Value::as_u64))
        .unwrap_or(0);
    let ids: Vec<FalkorValue> = page.iter().filter_map(|r| text(&r[0])).map(|t| str_param(&t)).collect();
    // Services and agents of the listed traces.
    let mut who: HashMap<String, (Vec<String>, Vec<String>)> = HashMap::new();
    if !ids.is_empty() {
        let assoc =
            rows(store, graph, &queries::trace_actors(), vec![("ids", FalkorValue::Array(ids))]).await?;
        for r in assoc {
            let (Some(t), Some(a)) = (text(&r[0]), text(&r[1])) else { continue };
            let e = who.entry(t).or_default();
            if a.starts_with("service:") {
                e.0.push(strip(&a));
            } else {
                e.1.push(strip(&a));
            }
        }
    }
    let traces = page
        .iter()
        .filter_map(|r| {
            let trace_id = text(&r[0])?;
            let (st, en) = (int(&r[2]), int(&r[3]));
            // The first root that has arrived (its name known).
            let root = r[7].as_array().into_iter().flatten().find_map(|x| {
                let pair = x.as_array()?;
                Some((text(pair.first()?)?, pair.get(1).and_then(text)))
            });
            let (mut services, mut agents) = who.remove(&trace_id).unwrap_or_default();
            services.sort();
            agents.sort();
            Some(TraceSummary {
                root: root.as_ref().map(|r| r.0.clone()),
                root_name: root.and_then(|r| r.1),
                services,
                agents,
                started_ms: st,
                duration_ms: match (st, en) {
                    (Some(a), Some(b)) if b >= a => Some((b - a) as f64),
                    _ => None,
                },
                spans: r[1].as_u64().unwrap_or(0),
                errors: int(&r[4]).unwrap_or(0).max(0) as u64,
                tokens_in: int(&r[5]).unwrap_or(0).max(0) as u64,
                tokens_out: int(&r[6]).unwrap_or(0).max(0) as u64,
                trace_id,
            })
        })
        .collect();
    Ok(TracePage { traces, total, offset: u64::from(offset) })
}

fn duration_ms(s: &Raw) -> f64 {
    match (s.start, s.end) {
        (Some(a), Some(b)) if b >= a => (b - a) as f64 / 1e6,
        _ => 0.0,
    }
}

/// Who a span worked for in the agent view: its agent, else its service.
fn actor(s: &Raw) -> Option<String> {
    s.row.agent.clone().or_else(|| s.row.service.clone())
}

/// A trace's agents as boxes and the hand-offs between them.
async fn trace_agents(store: &Store, graph: &str, trace: &str, limit: u32) -> Result<TraceAgents> {
    let (spans, total) = read_trace(store, graph, trace, limit).await?;
    let index: HashMap<&str, usize> = spans.iter().enumerate().map(|(i, s)| (s.row.id.as_str(), i)).collect();
    let mut boxes: BTreeMap<String, AgentBox> = BTreeMap::new();
    for s in &spans {
        let Some(who) = actor(s) else { continue };
        let b = boxes.entry(who.clone()).or_insert_with(|| AgentBox {
            node: s.row.agent.as_ref().map(|a| format!("agent:{a}")),
            id: who,
            spans: 0,
            llm_calls: 0,
            tool_calls: 0,
            errors: 0,
            busy_ms: 0.0,
        });
        b.spans += 1;
        b.llm_calls += u64::from(s.row.label == "LlmCall");
        b.tool_calls += u64::from(s.row.label == "ToolCall");
        b.errors += u64::from(s.row.status == "error");
        if s.own_agent.is_some() {
            b.busy_ms += duration_ms(s);
        }
    }
    let mut edges: BTreeMap<(String, String, &'static str), HandOff> = BTreeMap::new();
    let mut add = |from: String, to: String, kind: &'static str, ms: f64, span: &str| {
        let h = edges.entry((from.clone(), to.clone(), kind)).or_insert_with(|| HandOff {
            from,
            to,
            kind: kind.into(),
            count: 0,
            total_ms: 0.0,
            spans: Vec::new(),
        });
        h.count += 1;
        h.total_ms += ms;
        if h.spans.len() < 50 && !span.is_empty() {
            h.spans.push(span.to_owned());
        }
    };
    for s in &spans {
        let Some(to) = actor(s) else { continue };
        if let Some(p) = s.row.parent.as_deref().and_then(|p| index.get(p)) {
            if let Some(from) = actor(&spans[*p]) {
                if from != to {
                    add(from, to.clone(), "delegation", duration_ms(s), &s.row.id);
                }
            }
        }
        for l in &s.row.links {
            if let Some(from) = index.get(l.target.as_str()).and_then(|i| actor(&spans[*i])) {
                if from != to {
                    add(from, to.clone(), "link", duration_ms(s), &s.row.id);
                }
            }
        }
    }
    // Data flow: a message one agent's call produced and another's consumed.
    let flows = rows(store, graph, &queries::trace_flows(), vec![("t", trace_param(trace)?)]).await?;
    for r in flows {
        let (Some(p), Some(c)) = (text(&r[0]), text(&r[1])) else { continue };
        let (Some(pi), Some(ci)) = (index.get(p.as_str()), index.get(c.as_str())) else { continue };
        if let (Some(from), Some(to)) = (actor(&spans[*pi]), actor(&spans[*ci])) {
            if from != to {
                add(from, to, "message", 0.0, &c);
            }
        }
    }
    // Who acted on whose behalf, as the agents say it (OpenInference `graph.node.parent_id`):
    // from the principal to the agent acting for it.
    let agents: Vec<FalkorValue> = boxes.values().filter_map(|b| b.node.as_deref()).map(str_param).collect();
    if !agents.is_empty() {
        let behalf =
            rows(store, graph, &queries::on_behalf(), vec![("agents", FalkorValue::Array(agents))]).await?;
        for r in behalf {
            let (Some(p), Some(a)) = (text(&r[0]), text(&r[1])) else { continue };
            let (Some(from), Some(to)) = (p.strip_prefix("agent:"), a.strip_prefix("agent:")) else {
                continue;
            };
            if from != to {
                add(from.to_owned(), to.to_owned(), "on_behalf", 0.0, "");
            }
        }
    }
    Ok(TraceAgents {
        trace_id: trace.trim().to_ascii_lowercase(),
        agents: boxes.into_values().collect(),
        hand_offs: edges.into_values().collect(),
        truncated: (spans.len() as u64) < total,
    })
}

// ---------------------------------------------------------------- one span

/// A message node's role and parts, whatever spelling its properties use.
fn message_content(props: &BTreeMap<String, Value>) -> (Option<String>, Vec<Value>) {
    let role = ["otel:role", "role", "a2a:role"].iter().find_map(|k| props.get(*k).and_then(text));
    let parts = ["otel:parts", "parts", "otel:content", "content", "a2a:content"]
        .iter()
        .find_map(|k| props.get(*k))
        .map(|v| match v {
            Value::String(s) => match serde_json::from_str::<Value>(s) {
                Ok(Value::Array(a)) => a,
                Ok(other @ Value::Object(_)) => vec![other],
                _ => vec![serde_json::json!({"type": "text", "content": s})],
            },
            Value::Array(a) => a
                .iter()
                .map(|x| match x {
                    Value::String(s) => serde_json::from_str::<Value>(s)
                        .ok()
                        .filter(Value::is_object)
                        .unwrap_or_else(|| serde_json::json!({"type": "text", "content": s})),
                    other => other.clone(),
                })
                .collect(),
            other => vec![other.clone()],
        })
        .unwrap_or_default();
    (role, parts)
}

fn content_value(props: &BTreeMap<String, Value>) -> Value {
    let raw = ["otel:content", "content", "otel:value", "value", "a2a:args", "a2a:result"]
        .iter()
        .find_map(|k| props.get(*k))
        .cloned()
        .unwrap_or(Value::Null);
    match &raw {
        Value::String(s) => serde_json::from_str(s).unwrap_or(raw),
        _ => raw,
    }
}

fn props_of(v: &Value) -> BTreeMap<String, Value> {
    v.get("properties")
        .and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default()
}

/// One span with its attributes, messages, tool content, tokens and error.
async fn span_details(store: &Store, graph: &str, id: &str) -> Result<SpanDetails> {
    let p = span_param(id)?;
    let found = rows(store, graph, &queries::span(), vec![("id", p.clone())]).await?;
    let r = found.first().ok_or_else(|| Error::NotFound { what: "span", name: id.to_owned() })?;
    let raw = raw_span(r).ok_or_else(|| Error::NotFound { what: "span", name: id.to_owned() })?;
    let props = props_of(&r[11]);
    // Its service, agent and model, and its own position in the trace.
    let mut span = raw.row.clone();
    if let Some(t) = text(&r[8]) {
        if let Ok(view) = views::trace_spans(store, graph, &t, MAX_SPANS).await {
            if let Some(row) = view.spans.into_iter().find(|s| s.id == span.id) {
                span = row;
            }
        }
    }
    let params = || vec![("id", p.clone()), ("n", FalkorValue::I64(MAX_MESSAGES))];
    let mut msgs = rows(store, graph, &queries::span_inputs(), params()).await?;
    msgs.extend(rows(store, graph, &queries::span_outputs(), params()).await?);
    // One entry per place a message holds in the call's list: the same message consumed
    // twice by one call is one edge with both ordinals (`otel:indexes`).
    let mut messages: Vec<MessageView> = Vec::new();
    for r in &msgs {
        let props = props_of(&r[3]);
        let (role, parts) = message_content(&props);
        let (Some(id), Some(direction)) = (props.get("name").and_then(text), text(&r[0])) else { continue };
        let mut at: Vec<Option<i64>> = r[2].as_array().into_iter().flatten().map(int).collect();
        if at.is_empty() {
            at.push(int(&r[1]));
        }
        for index in at {
            messages.push(MessageView {
                id: id.clone(),
                direction: direction.clone(),
                index,
                role: role.clone(),
                parts: parts.clone(),
                produced_by: text(&r[4]),
            });
        }
    }
    messages.sort_by_key(|m| (m.direction != "input", m.index.unwrap_or(i64::MAX)));
    let mut tools = rows(store, graph, &queries::span_tool_args(), vec![("id", p.clone())]).await?;
    let results = rows(store, graph, &queries::span_tool_result(), vec![("id", p.clone())]).await?;
    let args_found = tools.len();
    tools.extend(results);
    let (mut tool_args, mut tool_result) = (None, None);
    for (i, r) in tools.iter().enumerate() {
        let props = props_of(&r[0]);
        let Some(name) = props.get("name").and_then(text) else { continue };
        let c = ToolContent { id: name, value: content_value(&props) };
        if i < args_found {
            tool_args = Some(c);
        } else {
            tool_result = Some(c);
        }
    }
    let linked_from = rows(store, graph, &queries::span_linked_from(), vec![("id", p)])
        .await?
        .iter()
        .filter_map(|r| text(&r[0]))
        .collect();
    let get = |k: &str| props.get(k).and_then(text);
    let error = (span.status == "error" || get("otel:exception.type").is_some()).then(|| SpanError {
        status_message: get("otel:status_message"),
        exception_type: get("otel:exception.type"),
        message: get("otel:exception.message"),
        stacktrace: get("otel:exception.stacktrace"),
    });
    Ok(SpanDetails {
        start_ns: raw.start.map(|x| x.to_string()),
        end_ns: raw.end.map(|x| x.to_string()),
        tokens_in: first_int(&props, TOKENS_IN),
        tokens_out: first_int(&props, TOKENS_OUT),
        attributes: props.into_iter().filter(|(k, _)| k.starts_with("otel:")).collect(),
        span,
        messages,
        tool_args,
        tool_result,
        error,
        linked_from,
    })
}

/// Walks back from a message to the call that produced it: a message a call generated is
/// that call's; a tool's message derives from a tool result, which its tool call generated.
async fn message_origin(store: &Store, graph: &str, id: &str) -> Result<MessageOrigin> {
    let first = rows(store, graph, &queries::node_label(), vec![("id", str_param(id))]).await?;
    let label = first
        .first()
        .and_then(|r| text(&r[0]))
        .ok_or_else(|| Error::NotFound { what: "message", name: id.to_owned() })?;
    let first_label = Label::parse(&label);
    let mut steps = vec![OriginStep { id: id.to_owned(), label, via: String::new() }];
    let mut seen: HashSet<String> = HashSet::from([id.to_owned()]);
    let mut at = (id.to_owned(), first_label);
    let mut call = None;
    for _ in 0..MAX_ORIGIN_HOPS {
        let next = rows(store, graph, &queries::origin_step(at.1), vec![("id", str_param(&at.0))]).await?;
        let Some(r) = next.iter().find(|r| text(&r[1]).is_some_and(|n| !seen.contains(&n))) else { break };
        let name = text(&r[1]).unwrap_or_default();
        seen.insert(name.clone());
        let label = text(&r[2]).unwrap_or_default();
        let next_label = Label::parse(&label);
        steps.push(OriginStep { id: name.clone(), label, via: text(&r[0]).unwrap_or_default() });
        if r[3].as_bool() == Some(true) {
            call = Some(name);
            break;
        }
        at = (name, next_label);
    }
    let first_use = if call.is_none() {
        rows(store, graph, &queries::first_use(first_label), vec![("id", str_param(id))])
            .await?
            .first()
            .and_then(|r| text(&r[0]))
    } else {
        None
    };
    Ok(MessageOrigin { message: id.to_owned(), steps, call, first_use })
}
