//! Prompt-lineage benchmark (docs/BENCHMARKS.md, "Prompt lineage"), synthetic lineages of realistic prompts (40–70 words,
//! a Zipf-like vocabulary of 3,000 words; each version a few word edits of its parent):
//!
//! - `ingest`: 1,000,000 records (25,000 lineages of 20 prompts, each a `LineageOutput` and its
//!   `DecisionEvent`) through `provex ingest` into a new graph (read, parse, check the graph
//!   constraints, GRAPH.BULK), against a bare `UNWIND … MERGE` of the same rows built
//!   beforehand; then `lineage retrieve` 10 evolutions either way around 200 prompts.
//! - `similar`: 100,000 prompts (5,000 lineages of 20); `lineage similar --limit 10` for 200
//!   prompts with the index, and an exact full scan with the same formula for 5 of them, the
//!   recall@10 of the first against the second.
//!
//! Run with `bash bench/lineage.sh [ingest|similar]` (starts a private FalkorDB on a free port).

#![recursion_limit = "256"]

#[path = "common/bare.rs"]
mod bare;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::Write as _;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use provex::diff::Snapshot;
use provex::facade::{ConnectOptions, Provex, Quiet};
use provex::ingest::{Format, IngestOptions};
use provex::sources::lineage::{apply, parse_record, Applied, Book, Semantic};
use provex::store::server::{PrivateServer, ServerOptions};
use serde_json::json;
use uuid::Uuid;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

const VOCAB: usize = 3_000;

fn word(rng: &mut Rng) -> String {
    // Zipf-like: small indexes (common words) far more often.
    let i = ((VOCAB as f64) * rng.unit().powi(3)) as usize;
    let syll = ["ka", "lo", "mi", "re", "tu", "sen", "dar", "vel", "on", "is", "pra", "gen"];
    let mut w = String::new();
    let mut n = i + 1;
    while n > 0 {
        w.push_str(syll[n % syll.len()]);
        n /= syll.len();
    }
    w
}

/// Lineages of `len` prompts: each a few word edits of the previous one (a fork now and then
/// from an earlier version).
fn lineages(count: usize, len: usize, seed: u64) -> Vec<Vec<(usize, Vec<String>)>> {
    let mut rng = Rng(seed);
    (0..count)
        .map(|_| {
            let n = 40 + rng.below(31);
            let root: Vec<String> = (0..n).map(|_| word(&mut rng)).collect();
            let mut out: Vec<(usize, Vec<String>)> = vec![(usize::MAX, root)];
            for i in 1..len {
                let parent = if rng.below(5) == 0 { rng.below(i) } else { i - 1 };
                let mut w = out[parent].1.clone();
                for _ in 0..2 + rng.below(5) {
                    let at = rng.below(w.len().max(1));
                    match rng.below(3) {
                        0 if w.len() > 30 => {
                            w.remove(at);
                        }
                        1 => w.insert(at, word(&mut rng)),
                        _ => w[at] = word(&mut rng),
                    }
                }
                out.push((parent, w));
            }
            out
        })
        .collect()
}

fn uid(kind: &str, l: usize, i: usize) -> Uuid {
    Uuid::new_v5(&Uuid::NAMESPACE_DNS, format!("bench/{kind}/{l}/{i}").as_bytes())
}

/// The agent's records of the lineages, as JSON lines.
fn write_records(path: &std::path::Path, all: &[Vec<(usize, Vec<String>)>], decisions: bool) -> usize {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut n = 0;
    let session = Uuid::from_u128(42);
    for (l, lineage) in all.iter().enumerate() {
        let lid = uid("lineage", l, 0);
        let mut versions: Vec<(u16, u16, u16, u32)> = Vec::new();
        for (i, (parent, words)) in lineage.iter().enumerate() {
            let ts = format!("2026-11-{:02}T{:02}:{:02}:00Z", 1 + i / 24 % 28, i % 24, l % 60);
            let (version, position) = match versions.get(*parent) {
                None => ((1, 0, 0), 1),
                Some(&(a, b, c, p)) => ((a, b, c + 1), p + 1),
            };
            versions.push((version.0, version.1, version.2, position));
            let id = uid("prompt", l, i);
            let mut rec = json!({
                "lineage_node": {
                    "id": id, "session_id": session, "timestamp": ts, "content": words.join(" "),
                    "metadata": {"model": "gpt-4o", "temperature": 0.2},
                    "lineage_id": lid,
                    "lineage_version": {"major": version.0, "minor": version.1, "patch": version.2},
                    "chain_position": position, "is_root": *parent == usize::MAX, "is_head": true,
                    "lineage_tracked_at": ts,
                },
                "lineage_id": lid, "chain_position": position, "chain_depth": position, "confidence": 0.8,
                "constraints_applied": ["no_circular_lineage"], "warnings": [], "timestamp": ts,
            });
            if *parent != usize::MAX {
                rec["evolution_edge"] = json!({
                    "id": uid("edge", l, i), "from": uid("prompt", l, *parent), "to": id, "edge_type": "refines",
                    "evolution_type": "refines", "similarity_score": 0.8, "created_at": ts,
                });
            }
            writeln!(out, "{rec}").unwrap();
            n += 1;
            if decisions {
                let d = json!({
                    "event_id": uid("event", l, i), "agent_id": "prompt-lineage-agent", "agent_version": "1.0.0",
                    "decision_type": "prompt_lineage_tracking", "inputs_hash": format!("{:064x}", l * 1000 + i),
                    "outputs": {"node_id": id, "lineage_id": lid, "chain_position": position, "chain_depth": position},
                    "confidence": 0.8, "constraints_applied": ["no_circular_lineage"],
                    "execution_ref": {"trace_id": format!("{l:032x}"), "span_id": format!("{i:016x}")},
                    "timestamp": ts,
                });
                writeln!(out, "{d}").unwrap();
                n += 1;
            }
        }
    }
    n
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn p95(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() * 95 / 100]
}

async fn ingest(provex: &Provex, graph: &str, file: &std::path::Path) -> Duration {
    let _ = provex.delete_graph(graph).await;
    let opts = IngestOptions { format: Format::Lineage, bulk_max_rows: 5_000_000, ..Default::default() };
    let t = Instant::now();
    let r = provex
        .ingest(graph, &[file.to_owned()], opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
    assert_eq!(r.rejected, 0, "{r:?}");
    t.elapsed()
}

async fn bench_ingest(provex: &Provex, url: &str, dir: &std::path::Path) {
    let all = lineages(25_000, 20, 7);
    let file = dir.join("lineage-1m.jsonl");
    let records = write_records(&file, &all, true);
    drop(all);
    // The rows the ingest writes, built beforehand for the bare MERGE.
    let mut book = Book::new();
    let mut delta = provex::model::GraphDelta::default();
    for line in std::fs::read_to_string(&file).unwrap().lines() {
        match apply(&mut book, &parse_record(line).unwrap(), &mut |_, _| Semantic::Unconfigured).unwrap() {
            Applied::Done(d, _) => delta.extend(d),
            Applied::Waiting(p) => panic!("waiting for {p}"),
        }
    }
    drop(book);
    let snap = Snapshot::from_delta(&delta);
    drop(delta);
    println!(
        "{records} records ({:.0} MB): {} nodes, {} edges",
        std::fs::metadata(&file).unwrap().len() as f64 / 1e6,
        snap.nodes.len(),
        snap.edges.len()
    );
    let (mut bare, mut ours) = (Vec::new(), Vec::new());
    for run in 0..3 {
        eprintln!("run {run}");
        bare.push(bare::bare_merge(url, "bench_lineage_bare", &snap));
        ours.push(ingest(provex, "bench_lineage", &file).await);
    }
    let (bare, ours) = (median(bare), median(ours));
    let s = provex.stats("bench_lineage").await.unwrap();
    let b = provex.stats("bench_lineage_bare").await.unwrap();
    assert_eq!((s.nodes, s.edges), (b.nodes, b.edges), "the same graph");
    println!("bare UNWIND … MERGE of the rows (built beforehand): median {bare:?} of 3");
    println!(
        "provex ingest (read, parse, check, GRAPH.BULK): median {ours:?} of 3 ({:.0}% of the bare rate)",
        100.0 * bare.as_secs_f64() / ours.as_secs_f64()
    );
    let mut rng = Rng(11);
    let mut times = Vec::new();
    let mut sizes = 0;
    for _ in 0..200 {
        let id = uid("prompt", rng.below(25_000), 5 + rng.below(10));
        let t = Instant::now();
        let g = provex.lineage_retrieve("bench_lineage", &id.to_string(), 10, 10, false).await.unwrap();
        times.push(t.elapsed());
        sizes += g.prompts.len();
    }
    println!(
        "lineage retrieve --ancestor-depth 10 --descendant-depth 10 (200 prompts, {:.1} prompts each): p50 {:?}, p95 {:?}",
        sizes as f64 / 200.0,
        median(times.clone()),
        p95(times)
    );
}

async fn bench_similar(provex: &Provex, dir: &std::path::Path) {
    let all = lineages(5_000, 20, 3);
    let file = dir.join("lineage-100k.jsonl");
    write_records(&file, &all, false);
    let t = ingest(provex, "bench_similar", &file).await;
    println!("100,000 prompts ingested in {t:?}");
    let t = Instant::now();
    let idx = provex.similar_index("bench_similar").await.unwrap();
    println!("index of {} prompts built (read and tokenised) in {:?}", idx.len(), t.elapsed());
    let mut rng = Rng(5);
    let picks: Vec<(usize, usize)> = (0..200).map(|_| (rng.below(5_000), rng.below(20))).collect();
    let mut times = Vec::new();
    let mut answers = Vec::new();
    for (l, i) in &picks {
        let id = uid("prompt", *l, *i).to_string();
        let t = Instant::now();
        let hits = provex.lineage_similar("bench_similar", &id, 0.0, 10).await.unwrap();
        times.push(t.elapsed());
        answers.push(hits);
    }
    println!(
        "lineage similar --limit 10 with the index (200 prompts): p50 {:?}, p95 {:?}",
        median(times.clone()),
        p95(times)
    );
    let (mut scan_times, mut found, mut wanted) = (Vec::new(), 0usize, 0usize);
    for (k, (l, i)) in picks.iter().take(5).enumerate() {
        let id = uid("prompt", *l, *i);
        let text = all[*l][*i].1.join(" ");
        let t = Instant::now();
        let exact = idx.scan(&text, Some(id), 0.0, 10);
        scan_times.push(t.elapsed());
        // Recall@10: the exact top 10 found by the index, by id, a prompt tied in score with
        // the index's tenth counting as found (ties may name different prompts).
        let floor = answers[k].last().map_or(f64::INFINITY, |h| h.confidence);
        found += exact
            .iter()
            .filter(|h| answers[k].iter().any(|a| a.id == h.id) || (h.confidence - floor).abs() < 1e-12)
            .count();
        wanted += exact.len();
    }
    println!(
        "exact full scan, same formula (5 prompts): median {:?}; recall@10 of the index {:.3}",
        median(scan_times),
        found as f64 / wanted as f64
    );
}

#[tokio::main]
async fn main() {
    let what = std::env::args().nth(1).unwrap_or_else(|| "all".into());
    let dir = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let server =
        PrivateServer::start(&ServerOptions { data_dir: data.path().into(), persist: false, port: None })
            .unwrap();
    let provex = Provex::open(ConnectOptions { url: Some(server.url()), server: None }).await.unwrap();
    provex.set_embeddings(None);
    if what == "all" || what == "similar" {
        bench_similar(&provex, dir.path()).await;
    }
    if what == "all" || what == "ingest" {
        bench_ingest(&provex, &server.url(), dir.path()).await;
    }
}
