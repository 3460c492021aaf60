//! Search across graphs (`provex search`, `GET /api/search`): its latency over many graphs,
//! and what keeping its index current costs an ingest.
//!
//! 1. The same A2A runtime event file ingested into a fresh graph with the index on and off,
//!    alternated, both ways a fresh graph is written (GRAPH.BULK, and upserts): the median
//!    of each, and the difference.
//! 2. `GRAPHS` graphs of `EVENTS` events each (A2A runtime events, every graph's tasks and
//!    agents its own), then `search_all` asked `QUERIES` times each for words found in every
//!    graph, words found in one, and a node's id: p50 and p99.
//!
//! Run with `bash bench/search.sh [GRAPHS EVENTS QUERIES]` (defaults 100 2000 200; a private
//! FalkorDB on a free port).
#![recursion_limit = "256"]

// The same allocator as the `provex` binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use provex::facade::{ConnectOptions, Provex, Quiet};
use provex::ingest::IngestOptions;
use provex::store::server::{PrivateServer, ServerOptions};

#[path = "support/a2a_events.rs"]
mod a2a_events;

/// Events of one task (`a2a_events::task_events`).
const TASK_EVENTS: usize = 9;
/// Rounds of the A/B ingest, each way.
const ROUNDS: usize = 5;

fn arg(i: usize, default: usize) -> usize {
    std::env::args().nth(i).and_then(|a| a.parse().ok()).unwrap_or(default)
}

/// Writes graph `g`'s events: tasks numbered from `g * tasks`, so every graph's ids are its own.
fn write_graph_file(path: &std::path::Path, g: usize, tasks: usize) {
    let mut out = String::new();
    for t in 0..tasks {
        a2a_events::task_events(&mut out, g * tasks + t, &format!("ctx-{g}"), true);
    }
    std::fs::write(path, out).unwrap();
}

async fn ingest(provex: &Provex, graph: &str, file: &std::path::Path, bulk: bool) -> Duration {
    let t = Instant::now();
    let opts = IngestOptions { bulk, ..Default::default() };
    let files = [file.to_owned()];
    provex.ingest(graph, &files, opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet)).await.unwrap();
    t.elapsed()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The index on and off, alternated, on one file, fresh graphs each time.
async fn ab(provex: &Provex, file: &std::path::Path, events: usize, bulk: bool) {
    let (mut on, mut off) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        for indexed in [round % 2 == 0, round % 2 != 0] {
            provex.set_search_index(indexed);
            let graph = format!("ab-{}-{round}-{indexed}", if bulk { "bulk" } else { "merge" });
            let _ = provex.delete_graph(&graph).await;
            let d = ingest(provex, &graph, file, bulk).await;
            if indexed {
                on.push(d)
            } else {
                off.push(d)
            }
            provex.delete_graph(&graph).await.unwrap();
        }
    }
    provex.set_search_index(true);
    let (on, off) = (median(on), median(off));
    let slower = (ms(on) / ms(off) - 1.0) * 100.0;
    println!(
        "ingest {events} events, {}: index off {:.0} ms ({:.0} ev/s), on {:.0} ms ({:.0} ev/s): {slower:+.1}%",
        if bulk { "GRAPH.BULK (fresh graph)" } else { "upserts" },
        ms(off),
        events as f64 / off.as_secs_f64(),
        ms(on),
        events as f64 / on.as_secs_f64(),
    );
}

async fn latency(provex: &Provex, what: &str, q: &str, queries: usize, expect_graphs: Option<usize>) {
    let mut times = Vec::with_capacity(queries);
    let mut hits = Vec::new();
    for _ in 0..queries {
        let t = Instant::now();
        hits = provex.search_all(q, 50).await.unwrap();
        times.push(t.elapsed());
    }
    times.sort();
    let graphs: std::collections::BTreeSet<&str> = hits.iter().map(|h| h.graph.as_str()).collect();
    if let Some(n) = expect_graphs {
        assert!(graphs.len() >= n.min(1), "{what}: {hits:?}");
    }
    println!(
        "search_all {what} {q:?}: {} hits in {} graphs; p50 {:.1} ms, p99 {:.1} ms ({queries} queries)",
        hits.len(),
        graphs.len(),
        ms(times[queries / 2]),
        ms(times[(queries * 99 / 100).min(queries - 1)]),
    );
}

#[tokio::main]
async fn main() {
    let (graphs, events, queries) = (arg(1, 100), arg(2, 2_000), arg(3, 200));
    let tasks = events.div_ceil(TASK_EVENTS);
    let dir = tempfile::tempdir().unwrap();
    let opts = ServerOptions { data_dir: dir.path().into(), persist: false, port: None };
    let server = PrivateServer::start(&opts).unwrap();
    let provex = Provex::open(ConnectOptions { url: Some(server.url()), server: None }).await.unwrap();

    let ab_file = dir.path().join("ab.jsonl");
    write_graph_file(&ab_file, 10_000, tasks * 10);
    println!("## What the index costs an ingest ({ROUNDS} rounds each way, alternated; medians)");
    ab(&provex, &ab_file, tasks * 10 * TASK_EVENTS, true).await;
    ab(&provex, &ab_file, tasks * 10 * TASK_EVENTS, false).await;

    println!("## {graphs} graphs of {} events", tasks * TASK_EVENTS);
    let t = Instant::now();
    for g in 0..graphs {
        let file = dir.path().join(format!("g{g}.jsonl"));
        write_graph_file(&file, g, tasks);
        ingest(&provex, &format!("run-{g:03}"), &file, true).await;
        std::fs::remove_file(&file).unwrap();
    }
    let items: u64 = {
        let mut n = 0;
        for g in 0..graphs {
            n += provex.search_items(&format!("run-{g:03}")).await.unwrap();
        }
        n
    };
    println!("ingested in {:.1} s; the index holds {items} items", t.elapsed().as_secs_f64());
    // Warm-up.
    provex.search_all("warm", 5).await.unwrap();
    latency(&provex, "words in every graph", "summarise agenda", queries, Some(graphs)).await;
    let one = (graphs / 2) * tasks + tasks / 2;
    latency(&provex, "words in one graph", &format!("item {one}"), queries, Some(1)).await;
    let node = provex
        .query(&format!("run-{:03}", graphs / 2), "MATCH (n:A2ATask) RETURN n.name AS n LIMIT 1")
        .await
        .unwrap();
    let id = node.rows[0][0].as_str().unwrap().to_owned();
    latency(&provex, "an id", &id, queries, Some(1)).await;
}
