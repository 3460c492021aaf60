//! A2AP benchmarks (docs/BENCHMARKS.md, "A2AP"), built the same way against today's code and the
//! baseline so that both are measured by one driver (`bash bench/a2ap.sh` runs both):
//!
//! - `gen FILE N`: writes N signed A2AP documents (10 source documents, then per statement
//!   one statement and two verification responses) and `FILE.keys.json`, the registry.
//! - `follow FILE`: ingests FILE into a fresh graph of a private FalkorDB in chunks of 100
//!   documents (what `--follow` of a growing file delivers) and counts the node and edge
//!   rows written (every write is published on the delta stream, which this counts); then
//!   asks for 200 trails of statements spread over the graph and prints their p50 and p95.
//!
//! - `bundle N`: an audit bundle of N statements (with their sources and two
//!   verifications each), made from a ledger of `gen`'s documents and signed; then
//!   `provex verify`'s check of it (`sources::statements::bundle::verify`: every signature, quote, hash and
//!   consensus figure recomputed, no database), median of 3.
//!
//! `gen` and `follow` use only what both versions have: the facade's ingest, subscribe and trail.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use provex::demo::council::demo_key;
use provex::facade::{ConnectOptions, Provex, Quiet};
use provex::ingest::IngestOptions;
use provex::sources::statements::evidence::{chunk_id, sha256_tag, statement_id};
use provex::sources::statements::{sign_value, KeyRef, KeyRegistry};
use provex::store::server::{PrivateServer, ServerOptions};
use serde_json::json;

const SUMMARISER: &str = "urn:agent:bench-summariser";
const VERIFIERS: [&str; 2] = ["urn:agent:bench-verifier-a", "urn:agent:bench-verifier-b"];
const SOURCES: usize = 10;

fn source_text(i: usize) -> String {
    (0..200).map(|j| format!("Sentence {j} of source {i} says something worth citing. ")).collect()
}

fn generate(path: &Path, n: usize) -> Vec<String> {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut registry = KeyRegistry::new();
    for agent in [SUMMARISER, VERIFIERS[0], VERIFIERS[1]] {
        registry.add_entry(&demo_key(agent).entry()).unwrap();
    }
    std::fs::write(keys_path(path), registry.to_json()).unwrap();
    let texts: Vec<String> = (0..SOURCES).map(source_text).collect();
    let mut written = 0;
    for (i, text) in texts.iter().enumerate().take(n) {
        let doc = json!({"@type": "a2ap:SourceDocument", "@id": format!("urn:doc:bench:{i}"), "title": format!("Source {i}"), "text": text});
        writeln!(out, "{doc}").unwrap();
        written += 1;
    }
    let mut statements = Vec::new();
    let mut k = 0usize;
    while written < n {
        let source = k % SOURCES;
        let doc_id = format!("urn:doc:bench:{source}");
        let sentence =
            format!("Sentence {} of source {source} says something worth citing.", (k / SOURCES) % 200);
        let start = texts[source].find(&sentence).unwrap();
        let claim = format!("Claim {k}: {sentence}");
        let sid = statement_id(SUMMARISER, &claim);
        let t = |s: usize| format!("2025-10-15T{:02}:{:02}:{:02}Z", (s / 3600) % 24, (s / 60) % 60, s % 60);
        let mut st = json!({
            "@type": "a2ap:ProvenanceStatement", "@id": sid, "generatedAtTime": t(k * 3),
            "agent": SUMMARISER,
            "claim": {"text": claim, "confidence": 0.9, "contentHash": sha256_tag(claim.as_bytes())},
            "evidence": [{"sourceDocument": doc_id, "chunkId": chunk_id(&doc_id, start as u64),
                "byteRange": {"start": start, "end": start + sentence.len()}, "quoteText": sentence,
                "contentHash": sha256_tag(sentence.as_bytes())}],
        });
        sign_value(&mut st, &demo_key(SUMMARISER), KeyRef::KeyId).unwrap();
        writeln!(out, "{st}").unwrap();
        written += 1;
        statements.push(sid.clone());
        for (v, agent) in VERIFIERS.iter().enumerate() {
            if written >= n {
                break;
            }
            let verdict = if (k + v) % 5 == 0 { "CHALLENGED" } else { "VALIDATED" };
            let mut r = json!({
                "@type": "a2ap:VerificationResponse", "@id": format!("urn:uuid:bench-v{k}-{v}"),
                "respondedAt": t(k * 3 + v + 1), "respondingAgent": agent, "targetStatement": sid,
                "verdict": verdict, "confidence": 0.8,
            });
            sign_value(&mut r, &demo_key(agent), KeyRef::KeyId).unwrap();
            writeln!(out, "{r}").unwrap();
            written += 1;
        }
        k += 1;
    }
    statements
}

fn keys_path(file: &Path) -> PathBuf {
    PathBuf::from(format!("{}.keys.json", file.display()))
}

fn statement_ids(file: &Path) -> Vec<String> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .filter(|l| l.contains("a2ap:ProvenanceStatement"))
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["@id"].as_str().unwrap().to_owned())
        .collect()
}

async fn follow(file: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let server_opts = ServerOptions { data_dir: dir.path().join("db"), persist: false, port: None };
    let server = PrivateServer::start(&server_opts).unwrap();
    let provex =
        Provex::open(ConnectOptions { url: Some(server.url()), server: None }).await.expect("connect");
    let mut rx = provex.subscribe();
    let counter = tokio::spawn(async move {
        let (mut nodes, mut edges, mut batches, mut lagged) = (0u64, 0u64, 0u64, 0u64);
        loop {
            match rx.recv().await {
                Ok(b) => {
                    nodes += b.nodes.len() as u64;
                    edges += b.edges.len() as u64;
                    batches += 1;
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => lagged += n,
                Err(_) => break,
            }
        }
        (nodes, edges, batches, lagged)
    });
    let opts = IngestOptions {
        batch_events: 100,
        keys: Some(keys_path(file)),
        rejects: Some(dir.path().join("rejects.jsonl")),
        ..IngestOptions::default()
    };
    let docs = std::fs::read_to_string(file).unwrap().lines().count();
    let started = Instant::now();
    let report = provex
        .ingest("bench", &[file.to_owned()], opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .expect("ingest");
    let ingest_ms = started.elapsed().as_millis();
    let stats = provex.stats("bench").await.expect("stats");
    let statements = statement_ids(file);
    // Trails: the first asks load the ledger (when it is held), then 200 timed.
    let first = Instant::now();
    provex.trail("bench", &statements[0]).await.expect("trail");
    let first_ms = first.elapsed().as_secs_f64() * 1e3;
    let mut times = Vec::new();
    for i in 0..200 {
        let id = &statements[(i * 7919) % statements.len()];
        let t = Instant::now();
        let trail = provex.trail("bench", id).await.expect("trail");
        times.push(t.elapsed().as_secs_f64() * 1e3);
        assert_eq!(trail.verifications.len(), 2);
    }
    times.sort_by(f64::total_cmp);
    drop(provex);
    let (nodes, edges, batches, lagged) = counter.await.unwrap();
    println!("documents: {docs} ({} rejected), ingest {ingest_ms} ms", report.rejected);
    println!("graph: {} nodes, {} edges ({} rows)", stats.nodes, stats.edges, stats.nodes + stats.edges);
    println!(
        "rows written: {nodes} node rows + {edges} edge rows = {} in {batches} writes ({:.2} per document){}",
        nodes + edges,
        (nodes + edges) as f64 / docs as f64,
        if lagged > 0 { format!(", {lagged} batches not counted (lagged)") } else { String::new() }
    );
    println!(
        "trail: first {first_ms:.1} ms; 200 more p50 {:.2} ms, p95 {:.2} ms",
        times[times.len() / 2],
        times[times.len() * 95 / 100]
    );
}

fn bundle(statements: usize) {
    use provex::sources::statements::bundle;
    use provex::sources::statements::consensus::ConsensusConfig;
    use provex::sources::statements::ledger::Ledger;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("docs.jsonl");
    generate(&file, SOURCES + 3 * statements);
    let registry = KeyRegistry::from_json(&std::fs::read_to_string(keys_path(&file)).unwrap()).unwrap();
    let mut ledger = Ledger::new(registry, ConsensusConfig::default());
    ledger.ingest_text(&std::fs::read_to_string(&file).unwrap());
    let t = Instant::now();
    let mut b = bundle::make(&ledger, "bench", &[]).unwrap();
    bundle::sign(&mut b, &demo_key("urn:agent:bench-exporter")).unwrap();
    let text = serde_json::to_string_pretty(&b).unwrap();
    println!(
        "bundle of {} statements, {} documents, {:.1} MB, made in {:?}",
        b.statements.len(),
        b.documents.len(),
        text.len() as f64 / 1e6,
        t.elapsed()
    );
    let mut times = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        let check = bundle::verify(&text).unwrap();
        times.push(t.elapsed());
        assert!(check.intact, "{:?}", check.findings);
    }
    times.sort();
    println!(
        "provex verify of the bundle: median {:?} of 3 (min {:?}, max {:?})",
        times[1], times[0], times[2]
    );
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("gen") => {
            let n: usize = args[2].parse().unwrap();
            let statements = generate(Path::new(&args[1]), n);
            println!("wrote {n} documents ({} statements) to {}", statements.len(), args[1]);
        }
        Some("follow") => follow(Path::new(&args[1])).await,
        Some("bundle") => bundle(args[1].parse().unwrap()),
        _ => eprintln!("usage: bench_a2ap gen FILE N | follow FILE | bundle N"),
    }
}
