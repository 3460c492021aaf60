//! What the tamper-evident log costs an ingest, and how long `verify --graph` takes
//! (docs/BENCHMARKS.md, "Tamper-evident log: ..."): the same A2A event file ingested into
//! fresh graphs with the log off and on, alternated, on a private FalkorDB (with the median of
//! each); then the whole graph re-hashed against its log, with where the time went, and
//! inclusion proofs of random leaves built through FalkorDB and checked.
//! `bench_tlog_ingest [TASKS] [BIG_TASKS] [ROUNDS]` (default 20,000 tasks of 9 events each,
//! 2 rounds; TASKS 0 skips the rounds; with BIG_TASKS, one more graph of that many tasks, log
//! on, is ingested and verified 3 times: 150,000 tasks make over 1,000,000 nodes, built with
//! GRAPH.BULK when `PROVEX_BENCH_BULK=1`; `bash bench/tlog_ingest.sh`).

// The same allocator as the `provex` binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use provex::facade::Quiet;
use provex::ingest::IngestOptions;

#[path = "support/bench_events.rs"]
mod bench_events;
use bench_events::{private_provex, write_events};

#[tokio::main]
async fn main() {
    let arg = |i: usize, or: usize| std::env::args().nth(i).and_then(|a| a.parse().ok()).unwrap_or(or);
    let (tasks, big, rounds) = (arg(1, 20_000), arg(2, 0), arg(3, 2));
    let data = tempfile::tempdir().unwrap();
    let (_server, provex) = private_provex(data.path(), false).await;
    provex.set_log_key_dir(data.path().to_owned());
    let mut graphs = Vec::new();
    if tasks > 0 {
        graphs.extend(alternated(&provex, data.path(), tasks, rounds).await);
    }
    if big > 0 {
        graphs.push(one_big(&provex, data.path(), big).await);
    }
    for graph in &graphs {
        proofs_and_verify(&provex, graph).await;
    }
}

/// Ingests of `tasks` tasks with the log off and on, alternated over `rounds`; the medians.
/// Returns the first logged graph, kept for the proofs.
async fn alternated(
    provex: &provex::facade::Provex,
    dir: &std::path::Path,
    tasks: usize,
    rounds: usize,
) -> Vec<String> {
    let mut graphs = Vec::new();
    {
        let file = dir.join("events.jsonl");
        write_events(&file, tasks);
        let events = std::fs::read_to_string(&file).unwrap().lines().count();
        println!("{events} events ({tasks} tasks), {rounds} rounds");
        let mut times: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        for round in 0..rounds {
            // Alternated, and which goes first alternates too.
            let order = if round % 2 == 0 { [false, true] } else { [true, false] };
            for on in order {
                let graph = format!("bench_{}_{round}", if on { "log" } else { "nolog" });
                provex.set_log_enabled(on);
                let opts = IngestOptions { bulk: false, ..Default::default() };
                let t = Instant::now();
                let report = provex
                    .ingest(
                        &graph,
                        std::slice::from_ref(&file),
                        opts,
                        Arc::new(AtomicBool::new(false)),
                        Arc::new(Quiet),
                    )
                    .await
                    .unwrap();
                let secs = t.elapsed().as_secs_f64();
                times[usize::from(on)].push(secs);
                println!(
                    "round {round}, ingest, log {}: {} events, {} nodes in {secs:.2} s = {:.0} events/s",
                    if on { "on " } else { "off" },
                    report.events,
                    report.nodes_written,
                    report.events as f64 / secs
                );
                if on && round == 0 {
                    graphs.push(graph);
                } else {
                    provex.delete_graph(&graph).await.unwrap();
                }
            }
        }
        let [off, on] = times.map(|mut v| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        });
        println!("ingest medians: log off {off:.2} s, log on {on:.2} s ({:+.1}%)", (on / off - 1.0) * 100.0);
    }
    graphs
}

/// One ingest of `big` tasks with the log (in bulk with `PROVEX_BENCH_BULK=1`).
async fn one_big(provex: &provex::facade::Provex, dir: &std::path::Path, big: usize) -> String {
    {
        let big_file = dir.join("big.jsonl");
        write_events(&big_file, big);
        provex.set_log_enabled(true);
        let graph = "bench_big".to_owned();
        let bulk = std::env::var("PROVEX_BENCH_BULK").is_ok_and(|v| v == "1");
        let t = Instant::now();
        let opts = IngestOptions { bulk, ..Default::default() };
        let report = provex
            .ingest(&graph, &[big_file], opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
            .await
            .unwrap();
        println!(
            "ingest ({}), log on, {big} tasks: {} events, {} nodes in {:.2} s",
            report.method,
            report.events,
            report.nodes_written,
            t.elapsed().as_secs_f64()
        );
        graph
    }
}

/// Inclusion proofs through FalkorDB, then `verify --graph`, timed, for one graph.
async fn proofs_and_verify(provex: &provex::facade::Provex, graph: &str) {
    {
        // Inclusion proofs through FalkorDB (one pipelined read of the path's hashes), each
        // checked against its checkpoint.
        let (size, _) = provex.log_head(graph).await.unwrap();
        let mut times = Vec::new();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let t = Instant::now();
            let p = provex.log_prove(graph, state % size).await.unwrap();
            provex::tlog::proof::verify_inclusion(&p, None).unwrap();
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "inclusion proof through FalkorDB at {size} leaves: p50 {:.3} ms, p99 {:.3} ms",
            times[100], times[198]
        );
        let runs = if graph == "bench_big" { 3 } else { 1 };
        let mut secs = Vec::new();
        for _ in 0..runs {
            let (check, t) = provex.verify_graph_log_timed(graph).await.unwrap();
            let s = t.total.as_secs_f64();
            secs.push(s);
            println!(
                "verify --graph {graph}: {} nodes re-hashed against {} leaves in {s:.2} s = {:.0} nodes/s; \
                 {} pages, read {:.2} s, hash {:.2} s (on the worker), waited for pages {:.2} s, leaves {:.2} s; \
                 checkpoint matches: {}, mismatches: {}",
                check.nodes_checked,
                check.log_size,
                check.nodes_checked as f64 / s,
                t.pages,
                t.read.as_secs_f64(),
                t.hash.as_secs_f64(),
                t.waited.as_secs_f64(),
                t.leaves.as_secs_f64(),
                check.checkpoint_matches,
                check.mismatches.len(),
            );
            for m in check.mismatches.iter().take(3) {
                println!("  {} ({}): {}", m.name, m.label, m.reason);
            }
        }
        secs.sort_by(f64::total_cmp);
        println!("verify --graph {graph}: median {:.2} s of {runs}", secs[runs / 2]);
    }
}
