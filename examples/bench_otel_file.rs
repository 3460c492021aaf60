//! An OTLP JSON file of SPANS agent-like spans (docs/BENCHMARKS.md "OpenTelemetry traces"):
//! `provex ingest` of it into a fresh graph (read, decode, normalise, GRAPH.BULK, the span
//! placeholders folded) against a bare `UNWIND … MERGE` of the same rows, built beforehand
//! from the file's normalised graph. The spans are those of `bench_otel_decode` (an agent
//! invocation over an LLM call with GenAI messages and a tool call with arguments and
//! result), 99 to a request.
//!
//! `bash bench/otel_file.sh [SPANS]` (default 1,000,000; starts a private FalkorDB).

#![recursion_limit = "256"]

#[path = "common/bare.rs"]
mod bare;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::Write as _;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value::Value, AnyValue, KeyValue};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use provex::diff::Snapshot;
use provex::facade::{ConnectOptions, Provex, Quiet};
use provex::ingest::{Format, IngestOptions};
use provex::model::GraphDelta;
use provex::sources::otel::normalise;
use provex::sources::otel::wire::encode_json;
use provex::store::server::{PrivateServer, ServerOptions};

/// Spans a request (a line): 33 whole traces, so that no parent is in another line.
const PER_REQUEST: usize = 99;

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

#[tokio::main]
async fn main() {
    let asked: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let requests = asked.div_ceil(PER_REQUEST);
    let spans = requests * PER_REQUEST;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("spans.jsonl");
    // The file, and the graph it makes (the rows of the bare baseline).
    let mut delta = GraphDelta::new();
    {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
        for n in 0..requests {
            let r = request(n);
            normalise(&r, &mut delta);
            out.write_all(encode_json(&r).as_bytes()).unwrap();
            out.write_all(b"\n").unwrap();
        }
    }
    let snap = Snapshot::from_delta(&delta);
    drop(delta);
    let mb = std::fs::metadata(&file).unwrap().len() as f64 / 1e6;
    println!(
        "{spans} spans, {mb:.0} MB of OTLP JSON: {} nodes, {} edges",
        snap.nodes.len(),
        snap.edges.len()
    );

    let data = tempfile::tempdir().unwrap();
    let server =
        PrivateServer::start(&ServerOptions { data_dir: data.path().into(), persist: false, port: None })
            .unwrap();
    let provex = Provex::open(ConnectOptions { url: Some(server.url()), server: None }).await.unwrap();
    let bare_t = bare::bare_merge(&server.url(), "otel_bare", &snap);
    drop(snap);
    let opts = IngestOptions { format: Format::Otlp, ..Default::default() };
    let t = Instant::now();
    let r = provex
        .ingest(
            "otel_file",
            std::slice::from_ref(&file),
            opts,
            Arc::new(AtomicBool::new(false)),
            Arc::new(Quiet),
        )
        .await
        .unwrap();
    let ours = t.elapsed();
    assert_eq!(r.rejected, 0);
    let s = provex.stats("otel_file").await.unwrap();
    let b = provex.stats("otel_bare").await.unwrap();
    assert_eq!((s.nodes, s.edges), (b.nodes, b.edges), "the same graph");
    println!(
        "bare UNWIND … MERGE of the rows (built beforehand): {bare_t:.1?}: {:.0} spans/s",
        spans as f64 / bare_t.as_secs_f64()
    );
    println!(
        "provex ingest into a fresh graph ({}): {ours:.1?}: {:.0} spans/s, {:.2}x the bare rate",
        r.method,
        spans as f64 / ours.as_secs_f64(),
        bare_t.as_secs_f64() / ours.as_secs_f64()
    );
}
