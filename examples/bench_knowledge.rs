//! Knowledge-graph statement benchmarks (docs/BENCHMARKS.md, "GraphQL, the A2A knowledge
//! extension, questions"), run by `bash bench/knowledge.sh`:
//!
//! - `update`: `knowledge/update` of 1,000 new statements through the facade (checks, the
//!   write as PROV, the change events), 20 times; p50 and p95.
//! - `subscribers`: `provex serve` with 20 `knowledge/subscribe` SSE streams open; 200 updates
//!   of one statement each, 20 a second, over JSON-RPC; for every event at every subscriber,
//!   the time from the update's request leaving to the event arriving (commit → event, with
//!   the write itself included); p50, p95, max.
//! - `about FILE`: ingests FILE (A2AP documents from `bench_a2ap gen`, 100,000 statements)
//!   into a private FalkorDB, then the GraphQL query `statementsAbout` for a topic matching one
//!   statement, 50 times; p50 and p95.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use provex::facade::{ConnectOptions, Provex, Quiet};
use provex::ingest::IngestOptions;
use provex::sources::knowledge::UpdateParams;
use provex::store::server::{PrivateServer, ServerOptions};
use serde_json::json;

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn statements(round: usize, n: usize) -> serde_json::Value {
    let m: Vec<_> = (0..n)
        .map(|i| {
            json!({"op": "add", "statement": {"subject": {"id": format!("ex:city{}", i % 100)},
                "predicate": {"id": format!("ex:fact{}", i % 7)}, "object": {"value": round * n + i},
                "graph": "ex:bench", "certainty": 0.5 + (i % 50) as f64 / 100.0,
                "provenance": {"sourceAgentId": "agent:bench"}}})
        })
        .collect();
    json!({"mutations": m, "sourceAgentId": "agent:bench", "justification": "benchmark"})
}

async fn open(dir: &std::path::Path) -> (PrivateServer, Provex) {
    let server =
        PrivateServer::start(&ServerOptions { data_dir: dir.to_owned(), persist: false, port: None })
            .unwrap();
    let provex = Provex::open(ConnectOptions { url: Some(server.url()), server: None }).await.unwrap();
    (server, provex)
}

async fn update() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, provex) = open(dir.path()).await;
    let mut ms = Vec::new();
    for round in 0..21 {
        let p: UpdateParams = serde_json::from_value(statements(round, 1000)).unwrap();
        let t = Instant::now();
        let r = provex.kg_update("bench", &p).await.unwrap();
        assert_eq!(r.statements_affected, Some(1000));
        if round > 0 {
            ms.push(t.elapsed().as_secs_f64() * 1000.0); // the first builds the indexes
        }
    }
    println!(
        "knowledge/update of 1,000 statements (facade), 20 runs: p50 {:.1} ms, p95 {:.1} ms",
        pct(&mut ms, 0.5),
        pct(&mut ms, 0.95)
    );
}

async fn subscribers() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, provex) = open(dir.path()).await;
    let provex = Arc::new(provex);
    let opts = provex::serve::ServeOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        token: None,
        token_dir: None,
        ui: None,
        open: false,
        allow_dirs: Vec::new(),
        limits: Default::default(),
    };
    let running = provex::serve::start(provex.clone(), opts).await.unwrap();
    let url = format!("http://{}/a2a/bench", running.addr);
    let http = reqwest::Client::new();
    // Warm up (indexes), then open the subscribers.
    let warm: UpdateParams = serde_json::from_value(statements(9999, 10)).unwrap();
    provex.kg_update("bench", &warm).await.unwrap();
    let sent: Arc<std::sync::Mutex<std::collections::HashMap<i64, Instant>>> = Default::default();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<f64>();
    for s in 0..20 {
        let body = json!({"jsonrpc": "2.0", "id": s, "method": "knowledge/subscribe",
            "params": {"subscriptionQuery": "subscription { triples(subject: \"ex:live\") { op } }"}});
        let mut resp = http.post(&url).bearer_auth(running.token()).json(&body).send().await.unwrap();
        let (sent, tx) = (sent.clone(), tx.clone());
        tokio::spawn(async move {
            let mut buf = String::new();
            while let Ok(Some(chunk)) = resp.chunk().await {
                buf.push_str(std::str::from_utf8(&chunk).unwrap());
                while let Some(end) = buf.find("\n\n") {
                    let block: String = buf.drain(..end + 2).collect();
                    let data: String = block.lines().filter_map(|l| l.strip_prefix("data:")).collect();
                    if let Ok(v) = serde_json::from_str::<serde_json::Value>(data.trim()) {
                        let n = v["result"]["statement"]["object"]["value"].as_i64().unwrap_or(-1);
                        if let Some(t) = sent.lock().unwrap().get(&n) {
                            let _ = tx.send(t.elapsed().as_secs_f64() * 1000.0);
                        }
                    }
                }
            }
        });
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut ticker = tokio::time::interval(Duration::from_millis(50));
    for n in 0..200i64 {
        ticker.tick().await;
        let body = json!({"jsonrpc": "2.0", "id": n, "method": "knowledge/update", "params": {"mutations": [{"op": "add",
            "statement": {"subject": {"id": "ex:live"}, "predicate": {"id": "ex:n"}, "object": {"value": n}}}], "sourceAgentId": "agent:bench"}});
        sent.lock().unwrap().insert(n, Instant::now());
        let r = http.post(&url).bearer_auth(running.token()).json(&body).send().await.unwrap();
        assert!(r.status().is_success());
    }
    let mut got = Vec::new();
    while let Ok(Some(ms)) = tokio::time::timeout(Duration::from_secs(2), rx.recv()).await {
        got.push(ms);
    }
    assert_eq!(got.len(), 200 * 20, "every subscriber sees every change once");
    println!(
        "commit → subscriber event, 20 subscribers, 200 updates at 20/s ({} events): p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        got.len(),
        pct(&mut got, 0.5),
        pct(&mut got, 0.95),
        pct(&mut got, 1.0)
    );
    running.stop().await;
}

async fn about(file: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (_server, provex) = open(dir.path()).await;
    let keys = format!("{file}.keys.json");
    let opts = IngestOptions { keys: Some(keys.into()), ..Default::default() };
    let t = Instant::now();
    provex
        .ingest("about", &[file.into()], opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
    let n = provex.query("about", "MATCH (s:Statement) RETURN count(s)").await.unwrap().rows[0][0].clone();
    println!("ingested {n} statements in {:.1} s", t.elapsed().as_secs_f64());
    let provex = Arc::new(provex);
    let q = "{ statementsAbout(topic: \"claim 4242:\") { id claimText consensusScore verified evidence { text } } }";
    let mut ms = Vec::new();
    for i in 0..51 {
        let t = Instant::now();
        let r = provex::graphql::execute(provex.clone(), "about", q, None).await;
        let found = r["data"]["statementsAbout"].as_array().map_or(0, Vec::len);
        assert_eq!(found, 1, "{r}");
        if i > 0 {
            ms.push(t.elapsed().as_secs_f64() * 1000.0); // the first loads the ledger
        }
    }
    println!(
        "statementsAbout over {n} statements, 50 runs: p50 {:.1} ms, p95 {:.1} ms",
        pct(&mut ms, 0.5),
        pct(&mut ms, 0.95)
    );
    // The search alone (ids only), to tell it from the trail of what it finds.
    let q = "{ statementsAbout(topic: \"claim 4242:\") { id } }";
    let mut ms = Vec::new();
    for _ in 0..50 {
        let t = Instant::now();
        let r = provex::graphql::execute(provex.clone(), "about", q, None).await;
        assert_eq!(r["data"]["statementsAbout"].as_array().map_or(0, Vec::len), 1);
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "  of which the search (ids only): p50 {:.1} ms, p95 {:.1} ms",
        pct(&mut ms, 0.5),
        pct(&mut ms, 0.95)
    );
    let t = Instant::now();
    let trail = provex
        .trail(
            "about",
            &provex::sources::statements::evidence::statement_id("urn:agent:bench-summariser", "x"),
        )
        .await;
    let _ = (trail, t);
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("update") => update().await,
        Some("subscribers") => subscribers().await,
        Some("about") => about(args.get(2).expect("FILE")).await,
        _ => eprintln!("usage: bench_knowledge update | subscribers | about FILE"),
    }
}
