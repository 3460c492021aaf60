//! The OpenTelemetry data made by the real producers (tests/otel/: the Python SDK, the
//! `openai` client and its GenAI and OpenInference instrumentations, against a stand-in chat
//! endpoint): the fixture files under tests/data/otel/ decode as OTLP JSON with
//! `opentelemetry-proto`'s own types, and hold exactly the spans the SDK's in-memory exporter
//! kept in the same run (`*.expected.json`).

use std::collections::BTreeMap;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use serde_json::Value;

use crate::common;

const FIXTURES: [&str; 3] = ["genai-tool-agent", "openinference-agents", "links-and-failure"];

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

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
