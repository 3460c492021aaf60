//! An OTLP JSON file of SPANS agent-like spans (docs/BENCHMARKS.md "OpenTelemetry traces"):
//! `provex ingest` of it into a fresh graph (read, decode, normalise, GRAPH.BULK, the span
//! placeholders folded) against a bare `UNWIND … MERGE` of the same rows, built beforehand
//! from the file's normalised graph. The spans are those of `bench_otel_decode` (an agent
//! invocation over an LLM call with GenAI messages and a tool call with arguments and
//! result), 99 to a request.
//!
//! `bash bench/otel_file.sh [SPANS]` (default 1,000,000; starts a private FalkorDB).
//! `BENCH_SEARCH_INDEX=off` ingests without feeding the cross-graph search index (what the
//! index costs the import).

#![recursion_limit = "256"]

#[path = "support/fresh_graph.rs"]
mod fresh_graph;
#[path = "support/otel_spans.rs"]
mod otel_spans;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::Write as _;

use provex::diff::Snapshot;
use provex::ingest::{Format, IngestOptions};
use provex::model::GraphDelta;
use provex::sources::otel::normalise;
use provex::sources::otel::wire::encode_json;

/// Spans a request (a line): 33 whole traces, so that no parent is in another line.
const PER_REQUEST: usize = 99;

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
            let r = otel_spans::request(n, PER_REQUEST);
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

    let bench = fresh_graph::Bench::start().await;
    let bare_t = bench.bare("otel_bare", &snap);
    drop(snap);
    let indexed = !std::env::var("BENCH_SEARCH_INDEX").is_ok_and(|v| v == "off");
    bench.provex.set_search_index(indexed);
    let opts = IngestOptions { format: Format::Otlp, ..Default::default() };
    let (ours, r) = bench.ingest("otel_file", &file, opts).await;
    bench.assert_same_graph("otel_file", "otel_bare").await;
    println!(
        "bare UNWIND … MERGE of the rows (built beforehand): {bare_t:.1?}: {:.0} spans/s",
        spans as f64 / bare_t.as_secs_f64()
    );
    println!(
        "provex ingest into a fresh graph ({}, search index {}): {ours:.1?}: {:.0} spans/s, {:.2}x the bare rate",
        r.method,
        if indexed { "fed" } else { "off" },
        spans as f64 / ours.as_secs_f64(),
        bare_t.as_secs_f64() / ours.as_secs_f64()
    );
}
