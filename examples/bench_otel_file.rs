//! An OTLP JSON file of SPANS agent-like spans (docs/BENCHMARKS.md "OpenTelemetry traces"):
//! `provex ingest` of it into a fresh graph (read, decode, normalise, GRAPH.BULK, the span
//! placeholders folded) against a bare `UNWIND … MERGE` of the same rows, built beforehand
//! from the file's normalised graph, each on a private server of its own, `provex ingest`
//! in a process of its own (the benchmark's holds the file's graph and the baseline's rows). The spans are those of `bench_otel_decode` (an agent
//! invocation over an LLM call with GenAI messages and a tool call with arguments and
//! result), 99 to a request.
//!
//! `bash bench/otel_file.sh [SPANS]` (default 1,000,000; starts a private FalkorDB).
//! `BENCH_SEARCH_INDEX=off` ingests without feeding the cross-graph search index (what the
//! index costs the import); `BENCH_KEEP_FILE=PATH` keeps a copy of the file, and with
//! `BENCH_BARE=off` nothing else is done (a file for `provex ingest` runs of one's own).

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
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).is_some_and(|a| a == "--ingest") {
        return ingest_alone(std::path::Path::new(&args[2])).await;
    }
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
    if let Ok(keep) = std::env::var("BENCH_KEEP_FILE") {
        std::fs::copy(&file, keep).unwrap();
        if std::env::var("BENCH_BARE").is_ok_and(|v| v == "off") {
            return;
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
    let bare_size = bench.size("otel_bare").await;
    drop(bench);
    // Ours in a process of its own, on a server of its own, as the baseline had: not in
    // this one, which built the file and the baseline's rows (gigabytes at a million spans).
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .arg("--ingest")
        .arg(&file)
        .output()
        .unwrap();
    assert!(child.status.success(), "{}", String::from_utf8_lossy(&child.stderr));
    let said = String::from_utf8(child.stdout).unwrap();
    let [secs, method, nodes, edges, indexed]: [&str; 5] =
        said.split_whitespace().collect::<Vec<_>>().try_into().unwrap_or_else(|_| panic!("{said}"));
    assert_eq!((nodes.parse().unwrap(), edges.parse().unwrap()), bare_size, "the same graph");
    let ours: f64 = secs.parse().unwrap();
    println!(
        "bare UNWIND … MERGE of the rows (built beforehand): {bare_t:.1?}: {:.0} spans/s",
        spans as f64 / bare_t.as_secs_f64()
    );
    println!(
        "provex ingest into a fresh graph ({method}, search index {indexed}): {ours:.1}s: {:.0} spans/s, {:.2}x the bare rate",
        spans as f64 / ours,
        bare_t.as_secs_f64() / ours
    );
}

/// `--ingest FILE`: the file into a fresh graph of a new private server, timed; prints the
/// seconds, the method, the graph's nodes and edges, and whether the index was fed.
async fn ingest_alone(file: &std::path::Path) {
    let bench = fresh_graph::Bench::start().await;
    let indexed = !std::env::var("BENCH_SEARCH_INDEX").is_ok_and(|v| v == "off");
    bench.provex.set_search_index(indexed);
    let opts = IngestOptions { format: Format::Otlp, ..Default::default() };
    let (took, r) = bench.ingest("otel_file", file, opts).await;
    let s = bench.provex.stats("otel_file").await.unwrap();
    println!(
        "{:.3} {} {} {} {}",
        took.as_secs_f64(),
        r.method,
        s.nodes,
        s.edges,
        if indexed { "fed" } else { "off" }
    );
}
