//! The Runs view's list (`runs`) over many graphs: the first list after the ingest (every
//! graph read, its time span scanned once), then p50 and p99 of the whole list cold (no row
//! kept in the session: the rows stored in the database, as after a restart), warm (every
//! row kept: nothing written since) and after one graph is written (its counts read again).
//! `bash bench/runs_serve.sh` measures the same through `provex serve`, restarted.
//!
//! Run with `bash bench/runs.sh` (a private FalkorDB on a free port), or
//! `-- --url redis+cluster://host:port` for a server or cluster already running. Options:
//! `--graphs N` (default 100), `--events N` per graph (default 2,000; A2A runtime events,
//! nine a task, some tool calls failing), `--rounds N` (default 30).
#![recursion_limit = "256"]

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use provex::facade::{ConnectOptions, Provex, Quiet};
use provex::ingest::IngestOptions;

#[path = "support/a2a_events.rs"]
mod a2a_events;

struct Options {
    graphs: usize,
    events: usize,
    rounds: usize,
    url: Option<String>,
}

fn options() -> Options {
    let mut o = Options { graphs: 100, events: 2_000, rounds: 30, url: None };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = pair.get(1).cloned().unwrap_or_default();
        let number = || value.replace([',', '_'], "").parse::<usize>().expect("a number");
        match pair[0].as_str() {
            "--graphs" => o.graphs = number(),
            "--events" => o.events = number(),
            "--rounds" => o.rounds = number(),
            "--url" => o.url = Some(value),
            other => panic!("unknown option {other}"),
        }
    }
    o
}

fn write_events(path: &Path, events: usize) {
    let mut out = String::new();
    for t in 0..events.div_ceil(9) {
        a2a_events::task_events(&mut out, t, "ctx-runs", true);
    }
    std::fs::write(path, out).unwrap();
}

async fn ingest(provex: &Provex, graph: &str, file: &Path) {
    let report = provex
        .ingest(
            graph,
            &[file.to_owned()],
            IngestOptions::default(),
            Arc::new(AtomicBool::new(false)),
            Arc::new(Quiet),
        )
        .await
        .unwrap();
    assert_eq!(report.rejected, 0);
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1_000.0
}

/// p50 and p99 (nearest rank) of the samples, in ms.
fn percentiles(mut samples: Vec<Duration>) -> (f64, f64) {
    samples.sort();
    let at = |p: f64| samples[((p * samples.len() as f64).ceil() as usize).clamp(1, samples.len()) - 1];
    (ms(at(0.50)), ms(at(0.99)))
}

/// Times `rounds` lists, each after `before` (which may forget or write).
async fn measure<F, Fut>(provex: &Provex, graphs: usize, rounds: usize, mut before: F) -> (f64, f64)
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut samples = Vec::with_capacity(rounds);
    for i in 0..rounds {
        before(i).await;
        let t = Instant::now();
        let list = provex.runs(None, Duration::ZERO).await.unwrap();
        samples.push(t.elapsed());
        assert!(list.rows.len() >= graphs, "{} rows", list.rows.len());
        assert!(list.rows.iter().all(|r| r.unavailable.is_none()), "a graph did not answer");
    }
    percentiles(samples)
}

#[tokio::main]
async fn main() {
    let o = options();
    let dir = tempfile::tempdir().unwrap();
    let (_server, url) = match &o.url {
        Some(u) => (None, u.clone()),
        None => {
            let opts = provex::store::server::ServerOptions {
                data_dir: dir.path().join("db"),
                persist: false,
                port: None,
            };
            let server = provex::store::server::PrivateServer::start(&opts).unwrap();
            let url = server.url();
            (Some(server), url)
        }
    };
    let provex = Provex::open(ConnectOptions { url: Some(url), server: None }).await.unwrap();
    let file = dir.path().join("events.jsonl");
    write_events(&file, o.events);
    let names: Vec<String> = (0..o.graphs).map(|i| format!("runs_bench_{i:03}")).collect();
    let t = Instant::now();
    for g in &names {
        let _ = provex.delete_graph(g).await;
        ingest(&provex, g, &file).await;
    }
    let nodes = provex.stats(&names[0]).await.unwrap().nodes;
    println!(
        "{} graphs of {} events ({} nodes each) ingested in {:.1} s{}",
        o.graphs,
        o.events,
        nodes,
        t.elapsed().as_secs_f64(),
        if provex.url().contains("cluster") { " (cluster)" } else { "" }
    );
    let t = Instant::now();
    provex.runs(None, Duration::ZERO).await.unwrap();
    println!("runs, the first list after the ingest: {:7.1} ms", t.elapsed().as_secs_f64() * 1_000.0);
    let cold = measure(&provex, o.graphs, o.rounds, |_| {
        provex.forget_runs();
        async {}
    })
    .await;
    println!("runs, cold (no row kept in session): p50 {:7.1} ms   p99 {:7.1} ms", cold.0, cold.1);
    let warm = measure(&provex, o.graphs, o.rounds, |_| async {}).await;
    println!("runs, warm (every row kept):        p50 {:7.1} ms   p99 {:7.1} ms", warm.0, warm.1);
    let extra = dir.path().join("one-more.jsonl");
    std::fs::write(&extra, {
        let mut s = String::new();
        a2a_events::task_events(&mut s, 1_000_000, "ctx-runs-more", true);
        s
    })
    .unwrap();
    let (provex_ref, names_ref, extra_ref) = (&provex, &names, &extra);
    let one = measure(&provex, o.graphs, o.rounds, |i| async move {
        ingest(provex_ref, &names_ref[i % names_ref.len()], extra_ref).await;
    })
    .await;
    println!("runs, after one graph is written:   p50 {:7.1} ms   p99 {:7.1} ms", one.0, one.1);
    for g in &names {
        let _ = provex.delete_graph(g).await;
    }
}
