//! The agent-like OTLP spans of the OpenTelemetry benchmarks (`bench_otel_decode`,
//! `bench_otel_file`): in each trace an agent invocation over an LLM call with GenAI
//! messages and a tool call with arguments and result, three spans a trace.

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value::Value, AnyValue, KeyValue};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};

fn kv(k: &str, v: &str) -> KeyValue {
    KeyValue {
        key: k.into(),
        value: Some(AnyValue { value: Some(Value::StringValue(v.into())) }),
        ..Default::default()
    }
}

/// Request `n` of requests of `per_request` spans each: spans `n * per_request ..` of the
/// run, of one resource (service `bench`).
pub fn request(n: usize, per_request: usize) -> ExportTraceServiceRequest {
    let spans = (0..per_request)
        .map(|i| {
            let k = n * per_request + i;
            let trace = (k / 3) as u128 + 1;
            let (op, attrs) = match k % 3 {
                0 => ("invoke_agent", vec![kv("gen_ai.agent.id", "planner"), kv("a2a.task.id", &format!("t{}", k / 3))]),
                1 => (
                    "chat",
                    vec![
                        kv("gen_ai.provider.name", "openai"),
                        kv("gen_ai.request.model", "gpt-4o-mini"),
                        kv("gen_ai.input.messages", &format!(r#"[{{"role":"user","parts":[{{"type":"text","content":"question {}"}}]}}]"#, k / 3)),
                        kv("gen_ai.output.messages", r#"[{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"lookup","arguments":{"q":"x"}}]}]"#),
                    ],
                ),
                _ => (
                    "execute_tool",
                    vec![kv("gen_ai.tool.call.id", "c1"), kv("gen_ai.tool.call.arguments", r#"{"q":"x"}"#), kv("gen_ai.tool.call.result", &format!(r#"{{"hits":{}}}"#, k % 17))],
                ),
            };
            let mut attributes = vec![kv("gen_ai.operation.name", op)];
            attributes.extend(attrs);
            Span {
                trace_id: trace.to_be_bytes().to_vec(),
                span_id: ((k % 3) as u64 + 1).to_be_bytes().to_vec(),
                parent_span_id: if k % 3 == 0 { Vec::new() } else { 1u64.to_be_bytes().to_vec() },
                name: op.into(),
                kind: 1,
                start_time_unix_nano: 1_700_000_000_000_000_000 + k as u64,
                end_time_unix_nano: 1_700_000_000_000_100_000 + k as u64,
                attributes,
                ..Default::default()
            }
        })
        .collect();
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource { attributes: vec![kv("service.name", "bench")], ..Default::default() }),
            scope_spans: vec![ScopeSpans { spans, ..Default::default() }],
            ..Default::default()
        }],
    }
}
