//! Decode and normalise OTLP traces (docs/FORMATS.md "OpenTelemetry traces"), single-threaded,
//! as spans per second: protobuf (`decode_protobuf`) and OTLP JSON (`decode_json`), each
//! followed by the normaliser into a graph delta, on requests of 100 agent-like spans (an
//! LLM call with GenAI messages, a tool call with arguments and result, an agent invocation
//! over them). No database.
//!
//! `cargo run --release --example bench_otel_decode [SPANS]` (default 200,000 spans).

use std::time::Instant;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value::Value, AnyValue, KeyValue};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use provex::model::GraphDelta;
use provex::sources::otel::normalise;
use provex::sources::otel::wire::{decode_json, decode_protobuf, encode_json, encode_protobuf};

const PER_REQUEST: usize = 100;

fn kv(k: &str, v: &str) -> KeyValue {
    KeyValue {
        key: k.into(),
        value: Some(AnyValue { value: Some(Value::StringValue(v.into())) }),
        ..Default::default()
    }
}

fn request(n: usize) -> ExportTraceServiceRequest {
    let spans = (0..PER_REQUEST)
        .map(|i| {
            let k = n * PER_REQUEST + i;
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

fn run(name: &str, bodies: &[Vec<u8>], decode: impl Fn(&[u8]) -> ExportTraceServiceRequest) {
    let spans = bodies.len() * PER_REQUEST;
    let started = Instant::now();
    let mut nodes = 0;
    for b in bodies {
        let mut delta = GraphDelta::new();
        let counts = normalise(&decode(b), &mut delta);
        assert_eq!(counts.accepted as usize, PER_REQUEST);
        nodes += delta.node_count();
    }
    let secs = started.elapsed().as_secs_f64();
    let bytes: usize = bodies.iter().map(Vec::len).sum();
    println!(
        "{name:9} {spans} spans in {secs:.3} s: {:.0} spans/s ({:.1} MB/s, {nodes} node upserts)",
        spans as f64 / secs,
        bytes as f64 / secs / 1e6
    );
}

fn main() {
    let spans: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(200_000);
    let requests: Vec<_> = (0..spans.div_ceil(PER_REQUEST)).map(request).collect();
    let proto: Vec<Vec<u8>> = requests.iter().map(encode_protobuf).collect();
    let json: Vec<Vec<u8>> = requests.iter().map(|r| encode_json(r).into_bytes()).collect();
    run("protobuf", &proto, |b| decode_protobuf(b).expect("protobuf"));
    run("json", &json, |b| decode_json(b).expect("json"));
}
