//! TrustGraph benchmark (issue 12): streams of the shape `trustgraph-base` writes (the four
//! sessions `tests/trustgraph/make_streams.py` makes: ReAct, GraphRAG, DocRAG in both older
//! spellings), repeated with fresh session ids to `SESSIONS` sessions.
//!
//! - Parse and normalise (`trustgraph::StreamState::line` after `serde_json`), one thread:
//!   triples per second.
//! - End to end into FalkorDB (`provex ingest` into a new graph: read, parse, GRAPH.BULK,
//!   labels) against a bare `UNWIND … MERGE` of the same rows built beforehand.
//!
//! Run with `bash bench/trustgraph.sh` (makes the streams with the project's `.venv`, starts
//! a private FalkorDB on a free port). Medians of 3.

#![recursion_limit = "256"]

#[path = "support/fresh_graph.rs"]
mod fresh_graph;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::Path;
use std::time::{Duration, Instant};

use provex::diff::Snapshot;
use provex::ingest::{Format, IngestOptions};
use provex::model::GraphDelta;
use provex::sources::reasoning::StreamState;

const SESSIONS: usize = 20_000;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The streams `make_streams.py` wrote into `dir`, repeated with new session ids.
fn streams(dir: &Path) -> (String, usize) {
    let ids = ["3f0c2a5e-react", "7b1d-graphrag", "c9e2-docrag", "d4f1-docrag"];
    let mut base = String::new();
    for n in ["react", "graphrag", "docrag", "docrag-dash"] {
        base.push_str(&std::fs::read_to_string(dir.join(format!("{n}.jsonl"))).unwrap());
    }
    let mut out = String::with_capacity(base.len() * SESSIONS / 4);
    for copy in 0..SESSIONS / 4 {
        let mut text = base.clone();
        for id in ids {
            text = text.replace(id, &format!("{id}-{copy}"));
        }
        out.push_str(&text);
    }
    let triples = out.matches("\"p\": {\"t\": \"i\"").count();
    (out, triples)
}

fn parse(text: &str) -> GraphDelta {
    let mut state = StreamState::default();
    let mut delta = GraphDelta::default();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        state.line(&v, &mut delta).unwrap();
    }
    delta
}

#[tokio::main]
async fn main() {
    let dir = Path::new(std::env::args().nth(1).as_deref().unwrap_or("target/tg-streams")).to_owned();
    let (text, triples) = streams(&dir);
    let lines = text.lines().count();
    println!("{SESSIONS} sessions: {lines} messages, {triples} triples, {:.1} MB", text.len() as f64 / 1e6);
    let mut times = Vec::new();
    let mut delta = GraphDelta::default();
    for _ in 0..3 {
        let t = Instant::now();
        delta = parse(&text);
        times.push(t.elapsed());
    }
    let t = median(times);
    println!(
        "parse and normalise, one thread: median {t:?} of 3: {:.0} triples/s ({:.0} messages/s)",
        triples as f64 / t.as_secs_f64(),
        lines as f64 / t.as_secs_f64()
    );
    let snap = Snapshot::from_delta(&delta);
    println!("{} nodes, {} edges", snap.nodes.len(), snap.edges.len());
    let file = dir.join("bench-streams.jsonl");
    std::fs::write(&file, &text).unwrap();

    let bench = fresh_graph::Bench::start().await;
    let (mut bare_t, mut ours) = (Vec::new(), Vec::new());
    for run in 0..3 {
        eprintln!("run {run}");
        bare_t.push(bench.bare("bench_tg_bare", &snap));
        let _ = bench.provex.delete_graph("bench_tg").await;
        let opts = IngestOptions { format: Format::TrustGraph, ..Default::default() };
        ours.push(bench.ingest("bench_tg", &file, opts).await.0);
    }
    bench.assert_same_graph("bench_tg", "bench_tg_bare").await;
    let (bare_t, ours) = (median(bare_t), median(ours));
    println!("bare UNWIND … MERGE of the rows (built beforehand): median {bare_t:?} of 3");
    println!(
        "provex ingest into a new graph (read, parse, GRAPH.BULK, labels): median {ours:?} of 3 ({:.0}% of the bare rate)",
        100.0 * bare_t.as_secs_f64() / ours.as_secs_f64()
    );
}
