//! What the explorer's Traces tab shows of OpenTelemetry spans stored as docs/FORMATS.md
//! "OpenTelemetry traces" describes: a graph's traces (root, service, agents, duration,
//! spans, errors, tokens), one trace's spans for a waterfall, its agents and the hand-offs
//! between them, one span's details (attributes, messages, tool arguments and results,
//! error), and where a message came from; and the bounded read of one trace's spans that the
//! waterfall and the agent view share (the facade makes the other reads from these helpers).
//! Every read is bounded: lists are paged, a trace's spans capped with a `truncated` flag.

use std::collections::{BTreeMap, HashMap};

use falkordb::FalkorValue;
use serde::Serialize;
use serde_json::Value;

use super::queries;
use crate::error::{Error, Result};
use crate::store::value::{str_param, to_json};
use crate::store::Store;

/// The most traces one page lists.
pub const MAX_TRACES: u32 = 1_000;
/// Traces listed when no limit is asked for.
pub const DEFAULT_TRACES: u32 = 100;
/// The most spans one trace's read returns.
pub const MAX_SPANS: u32 = 20_000;
/// Spans read when no limit is asked for.
pub const DEFAULT_SPANS: u32 = 5_000;

/// One trace of a graph.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct TraceSummary {
    /// The trace id (lower-case hex).
    pub trace_id: String,
    /// The root span's node (`otel:<trace>:<span>`), when it has arrived.
    pub root: Option<String>,
    /// The root span's name (`otel:name`).
    pub root_name: Option<String>,
    /// The services (`service:<namespace>/<name>` without the prefix) of its spans.
    pub services: Vec<String>,
    /// The agents (`agent:<id>` without the prefix) its spans ran as.
    pub agents: Vec<String>,
    /// Epoch milliseconds of its first span's start.
    #[ts(type = "number | null")]
    pub started_ms: Option<i64>,
    /// From the first start to the last end, in milliseconds.
    pub duration_ms: Option<f64>,
    #[ts(type = "number")]
    pub spans: u64,
    /// Spans whose status is `error`.
    #[ts(type = "number")]
    pub errors: u64,
    #[ts(type = "number")]
    pub tokens_in: u64,
    #[ts(type = "number")]
    pub tokens_out: u64,
}

/// A page of a graph's traces, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct TracePage {
    pub traces: Vec<TraceSummary>,
    /// Traces in the graph.
    #[ts(type = "number")]
    pub total: u64,
    #[ts(type = "number")]
    pub offset: u64,
}

/// A span link, as the waterfall marks it.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct SpanLink {
    /// The linked span's node.
    pub target: String,
    /// Its trace, when the link leaves this trace.
    pub trace_id: String,
}

/// One span of a trace, for the waterfall.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct SpanRow {
    /// Its node (`otel:<trace>:<span>`).
    pub id: String,
    pub span_id: String,
    /// The parent span's node; none for a root.
    pub parent: Option<String>,
    pub name: String,
    /// `LlmCall`, `ToolCall`, `AgentInvocation`, `Retrieval`, `Embedding`, `Evaluation`, `Span`.
    pub label: String,
    /// Nanoseconds from the trace's first start (exact ns are too large for a JS number).
    #[ts(type = "number | null")]
    pub start_ns: Option<i64>,
    #[ts(type = "number | null")]
    pub end_ns: Option<i64>,
    /// `ok`, `error` or `unset`; `pending` for a parent named by a child that has not arrived.
    pub status: String,
    pub service: Option<String>,
    /// The agent it ran as: its own, else its nearest ancestor's.
    pub agent: Option<String>,
    pub model: Option<String>,
    pub links: Vec<SpanLink>,
}

/// One trace's spans in start order.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct TraceSpans {
    pub trace_id: String,
    /// The first start as exact epoch nanoseconds (text: too large for a JS number).
    pub start_ns: Option<String>,
    pub spans: Vec<SpanRow>,
    /// More spans exist than were read (`limit`).
    pub truncated: bool,
    #[ts(type = "number")]
    pub total: u64,
}

/// An agent of a trace, drawn as a box.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct AgentBox {
    /// The agent's id (`agent:<id>` without the prefix); the service's name for spans of no agent.
    pub id: String,
    /// Its node, when it is an agent node.
    pub node: Option<String>,
    #[ts(type = "number")]
    pub spans: u64,
    #[ts(type = "number")]
    pub llm_calls: u64,
    #[ts(type = "number")]
    pub tool_calls: u64,
    #[ts(type = "number")]
    pub errors: u64,
    /// Time its own invocations took, in milliseconds.
    pub busy_ms: f64,
}

/// Work passed from one agent to another.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct HandOff {
    pub from: String,
    pub to: String,
    /// `delegation` (a span of `from` is the parent of a span of `to`), `link` (a span
    /// link), `message` (a message one produced, the other consumed), or `on_behalf` (`to`
    /// acted on behalf of `from`: its agent `ACTED_ON_BEHALF_OF` the other's).
    pub kind: String,
    #[ts(type = "number")]
    pub count: u64,
    /// Time the receiving spans took, in milliseconds.
    pub total_ms: f64,
    /// The spans (delegations and links: the receiving ones) that make it up, at most 50.
    pub spans: Vec<String>,
}

/// A trace's agents and the hand-offs between them.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct TraceAgents {
    pub trace_id: String,
    pub agents: Vec<AgentBox>,
    pub hand_offs: Vec<HandOff>,
    /// Only the first spans were read (see `trace_spans`).
    pub truncated: bool,
}

/// A message a call consumed or produced.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct MessageView {
    /// Its node (`otel-msg:<sha256>`).
    pub id: String,
    /// `input` or `output`.
    pub direction: String,
    #[ts(type = "number | null")]
    pub index: Option<i64>,
    pub role: Option<String>,
    /// Its parts in the GenAI message schema (`{"type":"text","content":…}`, tool calls…).
    #[ts(type = "Array<JsonValue>")]
    pub parts: Vec<Value>,
    /// For an input: the call (another span) that produced it, when one did.
    pub produced_by: Option<String>,
}

/// An entity holding a tool's arguments or result.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ToolContent {
    pub id: String,
    /// Parsed when it is JSON, else the text.
    pub value: Value,
}

/// The exception a span recorded.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct SpanError {
    pub status_message: Option<String>,
    pub exception_type: Option<String>,
    pub message: Option<String>,
    pub stacktrace: Option<String>,
}

/// One span with everything recorded of it.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct SpanDetails {
    pub span: SpanRow,
    /// The exact start and end, epoch nanoseconds as text.
    pub start_ns: Option<String>,
    pub end_ns: Option<String>,
    /// Every `otel:*` property (the span's attributes, its kind, status, events).
    #[ts(type = "Record<string, JsonValue>")]
    pub attributes: BTreeMap<String, Value>,
    /// Inputs in order, then outputs in order.
    pub messages: Vec<MessageView>,
    pub tool_args: Option<ToolContent>,
    pub tool_result: Option<ToolContent>,
    #[ts(type = "number | null")]
    pub tokens_in: Option<i64>,
    #[ts(type = "number | null")]
    pub tokens_out: Option<i64>,
    pub error: Option<SpanError>,
    /// Spans this one links to, and spans linking to it.
    pub linked_from: Vec<String>,
}

/// One step of the walk back from a message.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct OriginStep {
    pub id: String,
    pub label: String,
    /// The relationship that led here (`WAS_GENERATED_BY`, `WAS_DERIVED_FROM`, `WAS_CONSUMED_BY`).
    pub via: String,
}

/// Where a message came from: the walk from it back to the call that produced it.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct MessageOrigin {
    pub message: String,
    /// The message first, the producing call last.
    pub steps: Vec<OriginStep>,
    /// The span that produced it; none when no recorded call did (a user's message): then
    /// `first_use` is the first call that consumed it.
    pub call: Option<String>,
    pub first_use: Option<String>,
}

// ---------------------------------------------------------------- reading helpers

pub(crate) async fn rows(
    store: &Store,
    graph: &str,
    cypher: &str,
    params: Vec<(&str, FalkorValue)>,
) -> Result<Vec<Vec<Value>>> {
    let (_, rows) = store.run_ro(graph, cypher, params).await?;
    Ok(rows.iter().map(|r| r.iter().map(to_json).collect()).collect())
}

pub(crate) fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// An integer stored as a number or as decimal text.
pub(crate) fn int(v: &Value) -> Option<i64> {
    v.as_i64().or_else(|| v.as_f64().map(|f| f as i64)).or_else(|| v.as_str()?.trim().parse().ok())
}

/// The first of `keys` a property map holds as an integer.
pub(crate) fn first_int(props: &BTreeMap<String, Value>, keys: &[&str]) -> Option<i64> {
    keys.iter().find_map(|k| props.get(*k).and_then(int))
}

pub use super::queries::{TOKENS_IN, TOKENS_OUT};

/// `service:ns/name` → `ns/name`, `agent:x` → `x`, `model:p/m` → `p/m`.
pub(crate) fn strip(name: &str) -> String {
    name.split_once(':').map(|(_, rest)| rest).unwrap_or(name).to_owned()
}

pub(crate) fn trace_param(id: &str) -> Result<FalkorValue> {
    let t = id.trim().to_ascii_lowercase();
    if t.is_empty() || t.len() > 64 || !t.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Error::Usage(format!("`{id}` is not a trace id (hex)")));
    }
    Ok(str_param(&t))
}

pub(crate) fn span_param(id: &str) -> Result<FalkorValue> {
    if !id.starts_with("otel:") || id.len() > 200 {
        return Err(Error::Usage(format!("`{id}` is not a span (otel:<trace id>:<span id>)")));
    }
    Ok(str_param(id))
}

// ---------------------------------------------------------------- traces

// ---------------------------------------------------------------- one trace

/// A span as read, before its times are made relative.
pub(crate) struct Raw {
    pub row: SpanRow,
    pub start: Option<i64>,
    pub end: Option<i64>,
    /// The agent it is associated with itself (not inherited).
    pub own_agent: Option<String>,
}

pub(crate) fn raw_span(r: &[Value]) -> Option<Raw> {
    let id = text(&r[0])?;
    let trace = text(&r[8]).unwrap_or_default();
    let start = int(&r[5]).or_else(|| int(&r[9]).map(|ms| ms * 1_000_000));
    let end = int(&r[6]).or_else(|| int(&r[10]).map(|ms| ms * 1_000_000));
    let parent = text(&r[3]).map(|p| format!("otel:{trace}:{}", p.to_ascii_lowercase()));
    Some(Raw {
        row: SpanRow {
            span_id: text(&r[2]).unwrap_or_else(|| id.rsplit(':').next().unwrap_or_default().to_owned()),
            parent,
            name: text(&r[4]).unwrap_or_default(),
            label: text(&r[1]).unwrap_or_else(|| "Span".into()),
            start_ns: None,
            end_ns: None,
            status: if start.is_none() {
                "pending".into()
            } else {
                text(&r[7]).unwrap_or_else(|| "unset".into())
            },
            service: None,
            agent: None,
            model: None,
            links: Vec::new(),
            id,
        },
        start,
        end,
        own_agent: None,
    })
}

/// Reads a trace's spans (at most `limit`), with their service, agent, model and links.
pub(crate) async fn read_trace(
    store: &Store,
    graph: &str,
    trace: &str,
    limit: u32,
) -> Result<(Vec<Raw>, u64)> {
    let t = trace_param(trace)?;
    let limit = limit.clamp(1, MAX_SPANS);
    // The trace's spans through the `otel:trace_id` index of each span label.
    let mut spans: Vec<Raw> = rows(
        store,
        graph,
        &queries::trace_spans(),
        vec![("t", t.clone()), ("limit", FalkorValue::I64(i64::from(limit)))],
    )
    .await?
    .iter()
    .filter_map(|r| raw_span(r))
    .collect();
    let total = rows(store, graph, &queries::trace_span_count(), vec![("t", t.clone())])
        .await?
        .first()
        .and_then(|r| r.first().and_then(Value::as_u64))
        .unwrap_or(0);
    if spans.is_empty() {
        return Err(Error::NotFound { what: "trace", name: trace.to_owned() });
    }
    let index: HashMap<String, usize> =
        spans.iter().enumerate().map(|(i, s)| (s.row.id.clone(), i)).collect();
    let assoc = rows(store, graph, &queries::trace_span_actors(), vec![("t", t.clone())]).await?;
    for r in assoc {
        let (Some(s), Some(a)) = (text(&r[0]), text(&r[1])) else { continue };
        let Some(&i) = index.get(&s) else { continue };
        let span = &mut spans[i];
        if a.starts_with("service:") {
            span.row.service = Some(strip(&a));
        } else if a.starts_with("agent:") {
            span.own_agent = Some(strip(&a));
        } else {
            span.row.model = Some(strip(&a));
        }
    }
    let links = rows(store, graph, &queries::trace_links(), vec![("t", t)]).await?;
    for r in links {
        let (Some(s), Some(o)) = (text(&r[0]), text(&r[1])) else { continue };
        if let Some(&i) = index.get(&s) {
            spans[i].row.links.push(SpanLink { target: o, trace_id: text(&r[2]).unwrap_or_default() });
        }
    }
    // Each span's agent: its own, else its nearest ancestor's (bounded by the span count).
    let parents: Vec<Option<usize>> =
        spans.iter().map(|s| s.row.parent.as_ref().and_then(|p| index.get(p).copied())).collect();
    for i in 0..spans.len() {
        let (mut at, mut hops) = (Some(i), 0);
        while let Some(j) = at {
            if let Some(a) = &spans[j].own_agent {
                spans[i].row.agent = Some(a.clone());
                break;
            }
            hops += 1;
            if hops > spans.len() {
                break;
            }
            at = parents[j];
        }
    }
    Ok((spans, total))
}

/// One trace's spans for a waterfall, in start order, at most `limit`.
pub async fn trace_spans(store: &Store, graph: &str, trace: &str, limit: u32) -> Result<TraceSpans> {
    let (spans, total) = read_trace(store, graph, trace, limit).await?;
    let first = spans.iter().filter_map(|s| s.start).min();
    let truncated = (spans.len() as u64) < total;
    let spans = spans
        .into_iter()
        .map(|s| {
            let mut row = s.row;
            if let Some(f) = first {
                row.start_ns = s.start.map(|x| x - f);
                row.end_ns = s.end.map(|x| x - f);
            }
            row
        })
        .collect();
    Ok(TraceSpans {
        trace_id: trace.trim().to_ascii_lowercase(),
        start_ns: first.map(|f| f.to_string()),
        spans,
        truncated,
        total,
    })
}
