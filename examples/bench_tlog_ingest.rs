//! What the tamper-evident log costs an ingest, and how long `verify --graph` takes
//! (docs/BENCHMARKS.md, "Tamper-evident log: ingest and verify --graph"): the same A2A
//! event file ingested into fresh graphs with the log off and on, alternated, on a private
//! FalkorDB; then the whole graph re-hashed against its log, and inclusion proofs of random
//! leaves built through FalkorDB and checked. `bench_tlog_ingest [TASKS] [BIG_TASKS]`
//! (default 20,000 tasks of 9 events each; with BIG_TASKS, one more graph of that many
//! tasks, log on, is ingested and verified too: 150,000 tasks make over 1,000,000 nodes;
//! `bash bench/tlog_ingest.sh`).

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
    let tasks: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let big: usize = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(0);
    let data = tempfile::tempdir().unwrap();
    let (_server, provex) = private_provex(data.path(), false).await;
    provex.set_log_key_dir(data.path().to_owned());
    let file = data.path().join("events.jsonl");
    write_events(&file, tasks);
    let events = std::fs::read_to_string(&file).unwrap().lines().count();
    println!("{events} events ({tasks} tasks)");
    let mut graphs = Vec::new();
    for (round, on) in [(0, false), (0, true), (1, false), (1, true)] {
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
        println!(
            "ingest, log {}: {} events, {} nodes in {secs:.2} s = {:.0} events/s",
            if on { "on " } else { "off" },
            report.events,
            report.nodes_written,
            report.events as f64 / secs
        );
        if on {
            graphs.push(graph);
        }
    }
    if big > 0 {
        let big_file = data.path().join("big.jsonl");
        write_events(&big_file, big);
        provex.set_log_enabled(true);
        let graph = "bench_big".to_owned();
        let t = Instant::now();
        let opts = IngestOptions { bulk: false, ..Default::default() };
        let report = provex
            .ingest(&graph, &[big_file], opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
            .await
            .unwrap();
        println!(
            "ingest, log on, {big} tasks: {} events, {} nodes in {:.2} s",
            report.events,
            report.nodes_written,
            t.elapsed().as_secs_f64()
        );
        graphs.push(graph);
    }
    for graph in &graphs {
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
        let t = Instant::now();
        let check = provex.verify_graph_log(graph).await.unwrap();
        let secs = t.elapsed().as_secs_f64();
        assert!(check.mismatches.is_empty() && check.checkpoint_matches);
        println!(
            "verify --graph {graph}: {} nodes re-hashed against {} leaves in {secs:.2} s = {:.0} nodes/s",
            check.nodes_checked,
            check.log_size,
            check.nodes_checked as f64 / secs
        );
    }
}
