//! The OpenTelemetry files made by the real producers: the fixtures under tests/data/otel/
//! decode as OTLP JSON with `opentelemetry-proto`'s own types and hold exactly the spans the
//! SDK's in-memory exporter kept in the same run (`*.expected.json`); the council demo's
//! summariser spans (examples/council/council-otel.jsonl) are tied to its A2A task and its
//! claims, in the file and in the demo's graph.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use provex::demo::council;
use provex::facade::Provex;
use serde_json::Value;

use super::{attr, hex, FIXTURES};
use crate::common;

/// A span of an OTLP JSON file in the shape of the expected-spans JSON (the fields compared).
fn span_row(resource: &[(String, String)], sp: &opentelemetry_proto::tonic::trace::v1::Span) -> Value {
    let attrs: BTreeMap<String, String> =
        sp.attributes.iter().map(|kv| (kv.key.clone(), value_text(&kv.value))).collect();
    let code = ["unset", "ok", "error"][sp.status.as_ref().map_or(0, |s| s.code as usize)];
    serde_json::json!({
        "trace_id": hex(&sp.trace_id),
        "span_id": hex(&sp.span_id),
        "parent_span_id": (!sp.parent_span_id.is_empty()).then(|| hex(&sp.parent_span_id)),
        "name": sp.name,
        "kind": sp.kind,
        "start_ns": sp.start_time_unix_nano,
        "end_ns": sp.end_time_unix_nano,
        "status": code,
        "attributes": attrs,
        "events": sp.events.iter().map(|e| (e.name.clone(), e.time_unix_nano)).collect::<Vec<_>>(),
        "links": sp.links.iter().map(|l| (hex(&l.trace_id), hex(&l.span_id), l.attributes.len())).collect::<Vec<_>>(),
        "resource": resource.iter().cloned().collect::<BTreeMap<_, _>>(),
    })
}

/// An attribute value as the expected JSON writes it: strings as they are, anything else as
/// its JSON text.
fn value_text(v: &Option<opentelemetry_proto::tonic::common::v1::AnyValue>) -> String {
    match v.as_ref().and_then(|v| v.value.as_ref()) {
        Some(Any::StringValue(s)) => s.clone(),
        Some(Any::IntValue(i)) => i.to_string(),
        Some(Any::DoubleValue(d)) => serde_json::json!(d).to_string(),
        Some(Any::BoolValue(b)) => b.to_string(),
        Some(Any::ArrayValue(a)) => {
            let items: Vec<String> = a.values.iter().map(|v| value_text(&Some(v.clone()))).collect();
            serde_json::json!(items).to_string()
        }
        other => panic!("unexpected attribute value {other:?}"),
    }
}

fn expected_row(sp: &Value) -> Value {
    let attrs: BTreeMap<String, String> = sp["attributes"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            let t = match v {
                Value::String(s) => s.clone(),
                Value::Array(items) => serde_json::json!(items
                    .iter()
                    .map(|i| i.as_str().unwrap().to_owned())
                    .collect::<Vec<_>>())
                .to_string(),
                other => other.to_string(),
            };
            (k.clone(), t)
        })
        .collect();
    let resource: BTreeMap<String, String> = sp["resource"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
        .collect();
    serde_json::json!({
        "trace_id": sp["trace_id"],
        "span_id": sp["span_id"],
        "parent_span_id": sp["parent_span_id"],
        "name": sp["name"],
        "kind": sp["kind"],
        "start_ns": sp["start_ns"],
        "end_ns": sp["end_ns"],
        "status": sp["status"]["code"],
        "attributes": attrs,
        "events": sp["events"].as_array().unwrap().iter().map(|e| (e["name"].as_str().unwrap().to_owned(), e["time_ns"].as_u64().unwrap())).collect::<Vec<_>>(),
        "links": sp["links"].as_array().unwrap().iter().map(|l| (l["trace_id"].as_str().unwrap().to_owned(), l["span_id"].as_str().unwrap().to_owned(), l["attributes"].as_object().unwrap().len())).collect::<Vec<_>>(),
        "resource": resource,
    })
}

/// The spans of an OTLP JSON lines file, by span id, and how many requests carried them.
fn decode(path: &std::path::Path) -> (BTreeMap<String, Value>, usize) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut spans = BTreeMap::new();
    let mut requests = 0;
    for (i, line) in text.lines().enumerate() {
        let req: ExportTraceServiceRequest =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1));
        requests += 1;
        for rs in req.resource_spans {
            let resource: Vec<(String, String)> = rs
                .resource
                .iter()
                .flat_map(|r| r.attributes.iter().map(|kv| (kv.key.clone(), value_text(&kv.value))))
                .collect();
            for ss in rs.scope_spans {
                for sp in ss.spans {
                    let row = span_row(&resource, &sp);
                    assert!(
                        spans.insert(hex(&sp.span_id), row).is_none(),
                        "span {} sent twice",
                        hex(&sp.span_id)
                    );
                }
            }
        }
    }
    (spans, requests)
}

/// Each fixture's OTLP JSON decodes with `opentelemetry-proto`'s types (hex ids, 64-bit
/// integers as strings, integer enums) and holds span for span what the SDK kept: ids,
/// parents, names, kinds, times, status, attributes, events, links and resource. The spans
/// came in several requests (the exporter batches), children before their parents.
#[test]
fn fixtures_hold_exactly_the_spans_the_sdk_kept() {
    for name in FIXTURES {
        let dir = common::repo().join("tests/data/otel");
        let (got, requests) = decode(&dir.join(format!("{name}.jsonl")));
        let expected: Value =
            serde_json::from_slice(&std::fs::read(dir.join(format!("{name}.expected.json"))).unwrap())
                .unwrap();
        let want: BTreeMap<String, Value> = expected["spans"]
            .as_array()
            .unwrap()
            .iter()
            .map(|sp| (sp["span_id"].as_str().unwrap().to_owned(), expected_row(sp)))
            .collect();
        assert_eq!(got.keys().collect::<Vec<_>>(), want.keys().collect::<Vec<_>>(), "{name}: span ids");
        for (id, row) in &want {
            assert_eq!(&got[id], row, "{name}: span {id}");
        }
        assert!(requests > 1, "{name}: the exporter's batches");
    }
}

/// The scenarios cover what the tests need: both conventions, a tool call between two LLM
/// calls, agents handing off, a span linking to two others, a failing tool with its exception
/// and a failing LLM call, `a2a.task.id`.
#[test]
fn fixtures_cover_the_scenarios() {
    let dir = common::repo().join("tests/data/otel");
    let all: Vec<Value> = FIXTURES
        .iter()
        .flat_map(|name| {
            let v: Value =
                serde_json::from_slice(&std::fs::read(dir.join(format!("{name}.expected.json"))).unwrap())
                    .unwrap();
            v["spans"].as_array().unwrap().clone()
        })
        .collect();
    let with = |key: &str, value: &str| all.iter().filter(|s| s["attributes"][key] == value).count();
    assert_eq!(with("gen_ai.operation.name", "chat"), 2 + 2 + 2, "chat calls");
    assert_eq!(with("gen_ai.operation.name", "execute_tool"), 2);
    assert_eq!(with("gen_ai.operation.name", "invoke_agent"), 4);
    assert_eq!(with("openinference.span.kind", "LLM"), 4);
    assert_eq!(with("openinference.span.kind", "AGENT"), 3);
    assert_eq!(with("openinference.span.kind", "TOOL"), 1);
    assert_eq!(all.iter().filter(|s| s["attributes"]["a2a.task.id"].is_string()).count(), 1);
    assert_eq!(all.iter().map(|s| s["links"].as_array().unwrap().len()).max(), Some(2));
    let errors: Vec<&Value> = all.iter().filter(|s| s["status"]["code"] == "error").collect();
    assert_eq!(errors.len(), 2, "a failing tool and a failing LLM call");
    assert!(errors.iter().any(|s| s["events"][0]["name"] == "exception"));
}

/// The summariser's claims (statement id, text) in the council demo's signed statements.
fn summariser_claims() -> Vec<(String, String)> {
    let a2ap = std::fs::read_to_string(common::repo().join("examples/council/council-a2ap.jsonl")).unwrap();
    a2ap.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|d| d["agent"]["@id"] == council::SUMMARISER && d["claim"].is_object())
        .map(|d| (d["@id"].as_str().unwrap().to_owned(), d["claim"]["text"].as_str().unwrap().to_owned()))
        .collect()
}

/// The council demo's summariser spans (examples/council/council-otel.jsonl, made with the
/// real SDK by tests/otel/make_council_otel.py): its agent, A2A task and context as the
/// runtime events name them; its LLM call's answer holds the text of every claim the
/// summariser signed, and each published statement's span names the statement and links to
/// that call.
#[test]
fn council_spans_are_tied_to_the_summarisers_task_and_claims() {
    let (spans, _) = decode(&common::repo().join("examples/council").join(council::OTEL_FILE));
    let op = |s: &&Value, name: &str| attr(s, "gen_ai.operation.name").as_deref() == Some(name);
    let agent = spans.values().find(|s| op(s, "invoke_agent")).unwrap();
    assert_eq!(attr(agent, "a2a.task.id").as_deref(), Some("task-summarise-council-2025-10-14"));
    assert_eq!(attr(agent, "gen_ai.conversation.id").as_deref(), Some(council::CONTEXT_ID));
    assert_eq!(attr(agent, "gen_ai.agent.id").as_deref(), Some("00000000-0000-0000-0000-0000000000a1"));
    let chat = spans.values().find(|s| op(s, "chat")).unwrap();
    let output: Value = serde_json::from_str(&attr(chat, "gen_ai.output.messages").unwrap()).unwrap();
    let answer = output[0]["parts"][0]["content"].as_str().unwrap();
    let claims = summariser_claims();
    assert_eq!(claims.len(), 7);
    for (urn, text) in &claims {
        assert!(answer.contains(text.as_str()), "the answer holds {text:?}");
        let published =
            spans.values().find(|s| attr(s, "a2ap.statement.id").as_deref() == Some(urn)).unwrap();
        assert_eq!(published["links"][0][1], chat["span_id"], "{urn} links to the LLM call");
        assert_eq!(attr(published, "a2ap.claim.text").as_deref(), Some(text.as_str()));
    }
}

async fn column(provex: &Provex, graph: &str, q: &str) -> Vec<String> {
    let t = provex.query(graph, q).await.unwrap();
    t.rows.iter().map(|r| r[0].as_str().map(str::to_owned).unwrap_or_else(|| r[0].to_string())).collect()
}

/// The council demo streams its summariser's spans with the rest: from each claim the
/// summariser signed, the graph leads to the LLM call that wrote it (the statement's span uses
/// the statement and is informed by the call), whose answer holds the claim's text, and on to
/// the messages that call was given (the prompt the runtime events record); the spans sit
/// under the summariser's A2A task, the very node the runtime events made.
#[tokio::test(flavor = "multi_thread")]
async fn council_claims_lead_to_the_llm_call_that_wrote_them() {
    let (provex, graph) = common::open("otel_council").await;
    provex.demo_council(&graph, None, Arc::new(AtomicBool::new(false))).await.unwrap();
    let (spans, _) = decode(&common::repo().join("examples/council").join(council::OTEL_FILE));
    let node =
        |s: &Value| format!("otel:{}:{}", s["trace_id"].as_str().unwrap(), s["span_id"].as_str().unwrap());
    let chat = spans.values().find(|s| attr(s, "gen_ai.operation.name").as_deref() == Some("chat")).unwrap();
    let call = node(chat);
    for (urn, text) in summariser_claims() {
        let q = format!(
            "MATCH (s:Statement {{name: '{urn}'}})<-[:USED]-(p)-[:WAS_INFORMED_BY]->(c:LlmCall) RETURN DISTINCT c.name"
        );
        assert_eq!(column(&provex, &graph, &q).await, vec![call.clone()], "{urn}");
        let q = format!(
            "MATCH (m:Message)-[:WAS_GENERATED_BY]->(c:LlmCall {{name: '{call}'}}) RETURN m.`otel:content`"
        );
        let answer = column(&provex, &graph, &q).await;
        assert_eq!(answer.len(), 1);
        assert!(answer[0].contains(&text), "{text:?} in {}", answer[0]);
    }
    let q = format!(
        "MATCH (c:LlmCall {{name: '{call}'}})-[r:WAS_CONSUMED_BY]->(m:Message) \
         RETURN m.`otel:role` + ': ' + m.`otel:content` ORDER BY r.`otel:index`"
    );
    let given = column(&provex, &graph, &q).await;
    assert_eq!(given.len(), 2, "{given:?}");
    assert!(given[0].starts_with("system: ") && given[0].contains("You summarise city council meetings."));
    assert!(given[1].starts_with("user: ") && given[1].contains("Summarise the transcript by agenda item."));

    let agent =
        spans.values().find(|s| attr(s, "gen_ai.operation.name").as_deref() == Some("invoke_agent")).unwrap();
    let q = "MATCH (t:A2ATask {name: 'task:task-summarise-council-2025-10-14'})-[:WAS_INVOKED_BY]->(a:AgentInvocation) \
             RETURN a.name";
    assert_eq!(column(&provex, &graph, q).await, vec![node(agent)]);
    let q = "MATCH (t:A2ATask {name: 'task:task-summarise-council-2025-10-14'}) RETURN count(t)";
    assert_eq!(column(&provex, &graph, q).await, vec!["1"]);
    let q = "MATCH (:A2ATaskExecution)--(t:A2ATask {name: 'task:task-summarise-council-2025-10-14'}) RETURN count(t)";
    assert_ne!(column(&provex, &graph, q).await, vec!["0"], "the runtime events' task node");
}
