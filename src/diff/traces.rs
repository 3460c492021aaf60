//! What a diff means for OpenTelemetry traces, read before its node and edge lists: two runs
//! of the same agent have other trace ids, span ids and times, so their spans never match by
//! name. Spans are matched here by a key that stays put from run to run (the path from the
//! root of what each span is: operation, agent, model, tool, and its ordinal among siblings
//! with the same key, in start order), and the summary says which calls, messages, tool
//! arguments and results, and agents differ. Spans are stored as docs/FORMATS.md
//! "OpenTelemetry traces" describes.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{NodeKey, PropMap, Snapshot};

/// The longest text shown of a message, argument or result.
const SHOWN_CHARS: usize = 300;
/// How deep the span tree is followed: a deeper span keys as a root (a bounded walk).
const MAX_DEPTH: usize = 256;

/// One side of a trace comparison.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TraceSide {
    /// The trace ids compared, sorted.
    pub traces: Vec<String>,
    #[ts(type = "number")]
    pub spans: u64,
}

/// A span of either run, matched by its key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CallDiff {
    /// Its place, readable: each ancestor's and its own step, joined by ` / ` (a step is
    /// the operation, the tool, the agent when it is not its parent's, the model in
    /// brackets, then `#N` for the Nth of the same under one parent).
    pub path: String,
    /// `LlmCall`, `ToolCall`, `AgentInvocation`, … (docs/FORMATS.md).
    pub label: String,
    /// `gen_ai.operation.name`, else OpenInference's span kind, else the label.
    pub operation: String,
    pub agent: Option<String>,
    pub model: Option<String>,
    pub tool: Option<String>,
    /// Its span's node in run A, none when only B has it.
    pub a: Option<String>,
    /// Its span's node in run B, none when only A has it.
    pub b: Option<String>,
    pub status_a: Option<String>,
    pub status_b: Option<String>,
    /// What differs when both have it: `status`, `inputs`, `outputs`, `arguments`, `result`.
    pub changes: Vec<String>,
}

/// A message, tool argument or result only one run has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ContentItem {
    /// Its node (`otel-msg:…`, content-addressed).
    pub name: String,
    pub role: Option<String>,
    /// Its content (a message's parts as text), cut at 300 characters.
    pub text: String,
}

/// Messages of either run: content-addressed, so the same message is one node.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct MessageDiff {
    #[ts(type = "number")]
    pub shared: u64,
    pub only_a: Vec<ContentItem>,
    pub only_b: Vec<ContentItem>,
}

/// A tool call whose arguments or result differ between the runs, or that one run lacks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ToolDiff {
    pub tool: String,
    /// The call's path (as [`CallDiff::path`]).
    pub path: String,
    pub arguments_a: Option<String>,
    pub arguments_b: Option<String>,
    pub result_a: Option<String>,
    pub result_b: Option<String>,
    /// `arguments`, `result`, or `only in A` / `only in B`.
    pub changes: Vec<String>,
}

/// The agents (`agent:<id>` without the prefix) of either run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AgentDiff {
    pub shared: Vec<String>,
    pub only_a: Vec<String>,
    pub only_b: Vec<String>,
}

/// Two runs compared call by call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TraceDiff {
    pub a: TraceSide,
    pub b: TraceSide,
    /// Every span of either run, in A's order with B's extra ones after their matched
    /// predecessor.
    pub calls: Vec<CallDiff>,
    pub messages: MessageDiff,
    pub tools: Vec<ToolDiff>,
    pub agents: AgentDiff,
}

impl TraceDiff {
    /// Whether the runs differ in any call, message, tool or agent (ids and times aside).
    pub fn differs(&self) -> bool {
        self.calls.iter().any(|c| c.a.is_none() || c.b.is_none() || !c.changes.is_empty())
            || !self.messages.only_a.is_empty()
            || !self.messages.only_b.is_empty()
            || !self.tools.is_empty()
            || !self.agents.only_a.is_empty()
            || !self.agents.only_b.is_empty()
    }

    /// Calls present in both runs.
    pub fn matched(&self) -> usize {
        self.calls.iter().filter(|c| c.a.is_some() && c.b.is_some()).count()
    }
}

/// What one span is, read from a snapshot.
#[derive(Debug, Default, Clone)]
struct Span<'a> {
    name: &'a str,
    label: &'a str,
    trace: &'a str,
    span_id: &'a str,
    parent: Option<&'a str>,
    start: i64,
    status: Option<&'a str>,
    operation: String,
    tool: Option<&'a str>,
    agent: Option<&'a str>,
    model: Option<&'a str>,
    inputs: BTreeMap<i64, &'a str>,
    outputs: BTreeMap<i64, &'a str>,
    args: Option<&'a str>,
    result: Option<&'a str>,
}

fn text<'a>(p: &'a PropMap, k: &str) -> Option<&'a str> {
    p.get(k).and_then(Value::as_str)
}

fn int(p: &PropMap, k: &str) -> Option<i64> {
    p.get(k).and_then(|v| v.as_i64().or_else(|| v.as_str().and_then(|s| s.parse().ok())))
}

/// Whether a snapshot holds any span.
pub fn has_spans(s: &Snapshot) -> bool {
    s.nodes.values().any(|p| text(p, "otel:span_id").is_some() && text(p, "otel:trace_id").is_some())
}

/// The spans of `traces` (every trace when none) with their agents, models, messages,
/// arguments and results.
fn spans<'a>(s: &'a Snapshot, traces: Option<&str>) -> HashMap<&'a str, Span<'a>> {
    let mut out: HashMap<&str, Span> = HashMap::new();
    for (k, p) in &s.nodes {
        let (Some(trace), Some(span_id)) = (text(p, "otel:trace_id"), text(p, "otel:span_id")) else {
            continue;
        };
        if traces.is_some_and(|t| t != trace) {
            continue;
        }
        let operation = text(p, "otel:gen_ai.operation.name")
            .map(str::to_owned)
            .or_else(|| text(p, "otel:openinference.span.kind").map(str::to_lowercase))
            .unwrap_or_else(|| k.label.clone());
        out.insert(
            &k.name,
            Span {
                name: &k.name,
                label: &k.label,
                trace,
                span_id,
                parent: text(p, "otel:parent_span_id").filter(|s| !s.is_empty()),
                start: int(p, "otel:start_ns").unwrap_or(0),
                status: text(p, "otel:status"),
                operation,
                tool: text(p, "otel:gen_ai.tool.name").or_else(|| text(p, "otel:tool.name")),
                ..Default::default()
            },
        );
    }
    for (k, p) in &s.edges {
        let index = int(p, "otel:index").unwrap_or(0);
        // Every place a message holds in its call's list (one edge for a message held twice).
        let at: Vec<i64> = match p.get("otel:indexes").and_then(Value::as_array) {
            Some(list) if !list.is_empty() => list.iter().filter_map(Value::as_i64).collect(),
            _ => vec![index],
        };
        match k.rel.as_str() {
            "WAS_ASSOCIATED_WITH" => {
                if let Some(span) = out.get_mut(k.source.as_str()) {
                    if let Some(id) = k.target.strip_prefix("agent:") {
                        span.agent = Some(id);
                    } else if let Some(m) = k.target.strip_prefix("model:") {
                        span.model = Some(m);
                    }
                }
            }
            "WAS_CONSUMED_BY" if k.target.starts_with("otel-msg:") => {
                if let Some(span) = out.get_mut(k.source.as_str()) {
                    span.inputs.extend(at.iter().map(|i| (*i, k.target.as_str())));
                }
            }
            "WAS_USED_BY" if k.target.starts_with("otel-args:") => {
                if let Some(span) = out.get_mut(k.source.as_str()) {
                    span.args = Some(&k.target);
                }
            }
            "WAS_GENERATED_BY" => {
                if let Some(span) = out.get_mut(k.target.as_str()) {
                    if k.source.starts_with("otel-msg:") {
                        span.outputs.extend(at.iter().map(|i| (*i, k.source.as_str())));
                    } else if k.source.starts_with("otel-result:") {
                        span.result = Some(&k.source);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// A span's step: what it is, without its ordinal.
fn step(s: &Span<'_>, inherited: Option<&str>) -> String {
    let mut out = s.operation.clone();
    for part in [s.tool, s.agent.filter(|a| Some(*a) != inherited)].into_iter().flatten() {
        out.push(' ');
        out.push_str(part);
    }
    if let Some(m) = s.model {
        out.push_str(&format!(" [{m}]"));
    }
    out
}

/// One run's spans keyed by path, in depth-first start order.
struct Keyed<'a> {
    order: Vec<String>,
    by_path: HashMap<String, Span<'a>>,
}

fn key<'a>(spans: HashMap<&'a str, Span<'a>>) -> Keyed<'a> {
    let id = |s: &Span<'a>| (s.trace, s.span_id);
    let known: BTreeSet<(&str, &str)> = spans.values().map(id).collect();
    let mut children: HashMap<Option<(&str, &str)>, Vec<&Span<'a>>> = HashMap::new();
    for s in spans.values() {
        let parent = s.parent.map(|p| (s.trace, p)).filter(|p| known.contains(p));
        children.entry(parent).or_default().push(s);
    }
    for list in children.values_mut() {
        list.sort_by(|x, y| (x.start, x.name).cmp(&(y.start, y.name)));
    }
    let mut keyed = Keyed { order: Vec::new(), by_path: HashMap::new() };
    // (span, its path, the agent it runs as, depth), depth first in start order; a stack, so
    // the walk is bounded by MAX_DEPTH whatever the input.
    let mut stack: Vec<(Option<&Span<'a>>, String, Option<&str>, usize)> =
        vec![(None, String::new(), None, 0)];
    while let Some((span, path, agent, depth)) = stack.pop() {
        if let Some(s) = span {
            let mut s = s.clone();
            s.agent = agent;
            keyed.order.push(path.clone());
            keyed.by_path.insert(path.clone(), s);
        }
        if depth > MAX_DEPTH {
            continue;
        }
        let Some(list) = children.get(&span.map(id)) else { continue };
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut next = Vec::with_capacity(list.len());
        for s in list {
            let own = step(s, agent);
            let n = seen.entry(own.clone()).and_modify(|n| *n += 1).or_insert(1);
            let own = if *n > 1 { format!("{own} #{n}") } else { own };
            let full = if path.is_empty() { own } else { format!("{path} / {own}") };
            next.push((Some(*s), full, s.agent.or(agent), depth + 1));
        }
        stack.extend(next.into_iter().rev());
    }
    keyed
}

/// A message's parts (the GenAI message schema's `parts`, as stored) as a reader would say
/// them: texts, tool calls as `name(arguments)`, tool responses; anything else as stored.
fn readable(stored: &str) -> String {
    let Ok(Value::Array(parts)) = serde_json::from_str::<Value>(stored) else { return stored.to_owned() };
    let as_text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let said: Vec<String> = parts
        .iter()
        .map(|p| match p.get("type").and_then(Value::as_str) {
            Some("text") => p.get("content").map(as_text).unwrap_or_default(),
            Some("tool_call") => format!(
                "{}({})",
                p.get("name").map(as_text).unwrap_or_default(),
                p.get("arguments").map(as_text).unwrap_or_default()
            ),
            Some("tool_call_response") => p.get("response").map(as_text).unwrap_or_default(),
            _ => p.to_string(),
        })
        .collect();
    said.join(" ")
}

fn content(s: &Snapshot, label: &str, name: &str) -> Option<(Option<String>, String)> {
    let p = s.nodes.get(&NodeKey { label: label.to_owned(), name: name.to_owned() })?;
    let stored = text(p, "otel:content").unwrap_or_default();
    let mut t = if label == "Message" { readable(stored) } else { stored.to_owned() };
    if t.chars().count() > SHOWN_CHARS {
        t = t.chars().take(SHOWN_CHARS - 1).collect::<String>() + "…";
    }
    Some((text(p, "otel:role").map(str::to_owned), t))
}

fn shown(s: &Snapshot, label: &str, name: Option<&str>) -> Option<String> {
    name.and_then(|n| content(s, label, n)).map(|(_, t)| t)
}

/// Compares the spans of trace `ta` of `a` (every trace of `a` when none) with those of
/// trace `tb` of `b`.
pub fn compare(a: &Snapshot, b: &Snapshot, ta: Option<&str>, tb: Option<&str>) -> TraceDiff {
    let (sa, sb) = (spans(a, ta), spans(b, tb));
    let side = |s: &HashMap<&str, Span<'_>>| TraceSide {
        traces: s.values().map(|s| s.trace.to_owned()).collect::<BTreeSet<_>>().into_iter().collect(),
        spans: s.len() as u64,
    };
    let (side_a, side_b) = (side(&sa), side(&sb));
    let msgs = |s: &HashMap<&str, Span<'_>>| -> BTreeSet<String> {
        s.values()
            .flat_map(|s| s.inputs.values().chain(s.outputs.values()))
            .map(|m| (*m).to_owned())
            .collect()
    };
    let agents = |s: &HashMap<&str, Span<'_>>| -> BTreeSet<String> {
        s.values().filter_map(|s| s.agent).map(str::to_owned).collect()
    };
    let (ma, mb, ga, gb) = (msgs(&sa), msgs(&sb), agents(&sa), agents(&sb));
    let (ka, kb) = (key(sa), key(sb));

    let mut calls = Vec::new();
    let mut tools = Vec::new();
    let mut order: Vec<&String> = ka.order.iter().collect();
    // B's extra spans go after the last path they share a prefix with, else at the end.
    for (i, p) in kb.order.iter().enumerate() {
        if ka.by_path.contains_key(p) {
            continue;
        }
        let after = kb.order[..i].iter().rev().find(|q| ka.by_path.contains_key(*q));
        let at = after.and_then(|q| order.iter().position(|o| *o == q)).map_or(order.len(), |x| x + 1);
        order.insert(at, p);
    }
    for path in order {
        let (x, y) = (ka.by_path.get(path), kb.by_path.get(path));
        let Some(s) = x.or(y) else { continue };
        let mut changes = Vec::new();
        if let (Some(x), Some(y)) = (x, y) {
            for (what, differs) in [
                ("status", x.status != y.status),
                ("inputs", x.inputs != y.inputs),
                ("outputs", x.outputs != y.outputs),
                ("arguments", x.args != y.args),
                ("result", x.result != y.result),
            ] {
                if differs {
                    changes.push(what.to_owned());
                }
            }
        }
        if s.label == "ToolCall" {
            let mut t: Vec<String> =
                changes.iter().filter(|c| matches!(c.as_str(), "arguments" | "result")).cloned().collect();
            if x.is_none() || y.is_none() {
                t.push(if x.is_none() { "only in B" } else { "only in A" }.to_owned());
            }
            if !t.is_empty() {
                tools.push(ToolDiff {
                    tool: s.tool.unwrap_or(&s.operation).to_owned(),
                    path: path.clone(),
                    arguments_a: shown(a, "ToolArgs", x.and_then(|x| x.args)),
                    arguments_b: shown(b, "ToolArgs", y.and_then(|y| y.args)),
                    result_a: shown(a, "ToolResult", x.and_then(|x| x.result)),
                    result_b: shown(b, "ToolResult", y.and_then(|y| y.result)),
                    changes: t,
                });
            }
        }
        calls.push(CallDiff {
            path: path.clone(),
            label: s.label.to_owned(),
            operation: s.operation.clone(),
            agent: s.agent.map(str::to_owned),
            model: s.model.map(str::to_owned),
            tool: s.tool.map(str::to_owned),
            a: x.map(|s| s.name.to_owned()),
            b: y.map(|s| s.name.to_owned()),
            status_a: x.and_then(|s| s.status).map(str::to_owned),
            status_b: y.and_then(|s| s.status).map(str::to_owned),
            changes,
        });
    }
    let items = |s: &Snapshot, names: &mut dyn Iterator<Item = &String>| -> Vec<ContentItem> {
        names
            .map(|n| {
                let (role, text) = content(s, "Message", n).unwrap_or_default();
                ContentItem { name: n.clone(), role, text }
            })
            .collect()
    };
    let messages = MessageDiff {
        shared: ma.intersection(&mb).count() as u64,
        only_a: items(a, &mut ma.difference(&mb)),
        only_b: items(b, &mut mb.difference(&ma)),
    };
    let agents = AgentDiff {
        shared: ga.intersection(&gb).cloned().collect(),
        only_a: ga.difference(&gb).cloned().collect(),
        only_b: gb.difference(&ga).cloned().collect(),
    };
    TraceDiff { a: side_a, b: side_b, calls, messages, tools, agents }
}
