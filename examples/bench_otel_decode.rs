//! Decode and normalise OTLP traces (docs/FORMATS.md "OpenTelemetry traces"), single-threaded,
//! as spans per second: protobuf (`decode_protobuf`) and OTLP JSON (`decode_json`), each
//! followed by the normaliser into a graph delta, on requests of 100 agent-like spans (an
//! LLM call with GenAI messages, a tool call with arguments and result, an agent invocation
//! over them). No database. Each input is timed twice: decoded alone, then decoded and
//! normalised (the difference is the normaliser's).
//!
//! `cargo run --release --example bench_otel_decode [SPANS]` (default 200,000 spans).

use std::time::Instant;

#[path = "support/otel_spans.rs"]
mod otel_spans;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use provex::model::GraphDelta;
use provex::sources::otel::normalise;
use provex::sources::otel::wire::{decode_json, decode_protobuf, encode_json, encode_protobuf};

const PER_REQUEST: usize = 100;

fn run(name: &str, bodies: &[Vec<u8>], decode: impl Fn(&[u8]) -> ExportTraceServiceRequest) {
    let spans = bodies.len() * PER_REQUEST;
    // The decoder alone first (what is left of the time is the normaliser's).
    let started = Instant::now();
    for b in bodies {
        std::hint::black_box(decode(b));
    }
    let secs = started.elapsed().as_secs_f64();
    println!("{name:9} decode alone: {:.0} spans/s", spans as f64 / secs);
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
    let requests: Vec<_> =
        (0..spans.div_ceil(PER_REQUEST)).map(|n| otel_spans::request(n, PER_REQUEST)).collect();
    let proto: Vec<Vec<u8>> = requests.iter().map(encode_protobuf).collect();
    let json: Vec<Vec<u8>> = requests.iter().map(|r| encode_json(r).into_bytes()).collect();
    run("protobuf", &proto, |b| decode_protobuf(b).expect("protobuf"));
    run("json", &json, |b| decode_json(b).expect("json"));
}
