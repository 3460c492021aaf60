//! Ingest and trace benchmarks of the spine, measured side by side in one run:
//! parse + normalise (CPU only), end-to-end ingest against a bare `UNWIND … MERGE` of the
//! same nodes and edges, and `trace --up --depth 10` on a 100,000-node graph.
//!
//! Run with `bash bench/ingest.sh` (release build, private FalkorDB on a free port);
//! `-- --parse-only` or `-- --trace-only` stop after the first or second part,
//! `-- --ingest-only` leaves the second part out, and `-- --write-events FILE` only writes
//! the event file (`-- --write-csv EVENTS DIR` an event file's graph as CSV for
//! `falkordb-bulk-insert`). Part 3 builds a fresh graph four ways (see there); `bash bench/bulk.sh`
//! runs it with `falkordb-bulk-insert` beside.

use std::collections::BTreeMap;

// The same allocator as the `provex` binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use falkordb::{FalkorClientBuilder, FalkorConnectionInfo, FalkorValue};
use provex::facade::{Provex, Quiet};
use provex::ingest::{normalize_line, Format, IngestOptions};
use provex::model::vocab::{EdgeKind, Label, ProvRelation, RelType};
use provex::model::{Edge, GraphDelta, Node, NodeRef, PropValue, Props};
use provex::store::TraceDirection;

#[path = "support/bench_events.rs"]
mod bench_events;
use bench_events::{private_provex, write_events};

/// Tasks in the event file, 9 events each; `PROVEX_BENCH_TASKS` overrides it (for
/// profiling under callgrind, say).
fn tasks() -> usize {
    std::env::var("PROVEX_BENCH_TASKS").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000)
}

/// Parses and normalises every line in memory, in batches as the ingest does, handing
/// each batch to `sink` (the ingest hands it to the store and drops it).
fn normalise_all(lines: &[&[u8]], mut sink: impl FnMut(GraphDelta)) {
    let mut delta = GraphDelta::new();
    for (i, line) in lines.iter().enumerate() {
        normalize_line(Format::A2a, line, &mut delta).unwrap();
        if (i + 1) % 2_000 == 0 {
            sink(delta.take());
        }
    }
    sink(delta);
}

fn prop(v: &PropValue) -> FalkorValue {
    match v {
        PropValue::Bool(b) => FalkorValue::Bool(*b),
        PropValue::Int(i) => FalkorValue::I64(*i),
        PropValue::Float(f) => FalkorValue::F64(*f),
        PropValue::Str(s) => FalkorValue::String(s.clone()),
        PropValue::List(l) => FalkorValue::Array(l.iter().map(prop).collect()),
    }
}

fn props(p: &Props) -> FalkorValue {
    FalkorValue::Map(p.iter().map(|(k, v)| (k.to_string(), prop(v))).collect())
}

/// The baseline: the same nodes and edges written with bare `UNWIND $rows … MERGE` queries
/// built straight from the normalised batches (no file, no parsing).
async fn bare_merge(url: &str, graph: &str, batches: &[GraphDelta]) -> f64 {
    let info: FalkorConnectionInfo = url.try_into().unwrap();
    let client = FalkorClientBuilder::new_async().with_connection_info(info).build().await.unwrap();
    let mut g = client.select_graph(graph);
    for l in Label::ALL {
        g.query(format!("CREATE INDEX FOR (n:`{l}`) ON (n.name)")).execute().await.unwrap();
    }
    let start = Instant::now();
    for batch in batches {
        let mut by_label: BTreeMap<Label, Vec<FalkorValue>> = BTreeMap::new();
        for n in batch.nodes() {
            let mut p = n.props.clone();
            p.insert("prov:type".into(), n.label.prov_type().into());
            p.insert("prov:base_type".into(), n.label.base_type().as_str().into());
            let row =
                [("name".to_owned(), FalkorValue::String(n.name.clone())), ("props".to_owned(), props(&p))];
            by_label.entry(n.label).or_default().push(FalkorValue::Map(row.into_iter().collect()));
        }
        for (label, rows) in by_label {
            let q = format!("UNWIND $rows AS r MERGE (n:`{label}` {{name: r.name}}) SET n += r.props");
            g.query(q).with_param("rows", FalkorValue::Array(rows)).execute().await.unwrap();
        }
        let mut by_group: BTreeMap<(Label, RelType, EdgeKind, Label), Vec<FalkorValue>> = BTreeMap::new();
        for e in batch.edges() {
            let mut p = e.props.clone();
            if let Some((k, v)) = e.kind.key() {
                p.insert(k.into(), v.into());
            }
            let row = [
                ("s".to_owned(), FalkorValue::String(e.source.name.clone())),
                ("t".to_owned(), FalkorValue::String(e.target.name.clone())),
                ("props".to_owned(), props(&p)),
            ];
            by_group
                .entry((e.source.label, e.rel, e.kind, e.target.label))
                .or_default()
                .push(FalkorValue::Map(row.into_iter().collect()));
        }
        for ((s, rel, kind, t), rows) in by_group {
            let key = kind.key().map(|(k, v)| format!(" {{`{k}`: '{v}'}}")).unwrap_or_default();
            let q = format!(
                "UNWIND $rows AS r MATCH (a:`{s}` {{name: r.s}}) MATCH (b:`{t}` {{name: r.t}}) \
                 MERGE (a)-[e:`{rel}`{key}]->(b) SET e += r.props"
            );
            g.query(q).with_param("rows", FalkorValue::Array(rows)).execute().await.unwrap();
        }
    }
    start.elapsed().as_secs_f64()
}

/// Writes the nodes and edges as `falkordb-bulk-insert` reads them (no quoting, `\\`
/// escapes): one file per label (`name` first, as the identifier) and per relationship type.
fn write_csv(dir: &Path, all: &GraphDelta) -> Vec<(bool, std::path::PathBuf)> {
    fn field(v: &str) -> String {
        let mut s = String::with_capacity(v.len());
        for c in v.chars() {
            if matches!(c, '\\' | ',' | '\n' | '\r') {
                s.push('\\');
            }
            s.push(c);
        }
        s
    }
    fn text(v: &PropValue) -> String {
        match v {
            PropValue::Str(s) => field(s),
            PropValue::Int(i) => i.to_string(),
            PropValue::Float(f) => f.to_string(),
            PropValue::Bool(b) => b.to_string(),
            PropValue::List(items) => field(&format!("{:?}", items.iter().map(text).collect::<Vec<_>>())),
        }
    }
    let mut files = Vec::new();
    let mut by_label: BTreeMap<Label, Vec<&Node>> = BTreeMap::new();
    for n in all.nodes() {
        by_label.entry(n.label).or_default().push(n);
    }
    for (label, nodes) in by_label {
        let mut keys: Vec<String> =
            nodes.iter().flat_map(|n| n.props.keys().map(|k| k.to_string())).collect();
        keys.sort();
        keys.dedup();
        keys.retain(|k| k != "name");
        let path = dir.join(format!("{label}.csv"));
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let header: String = keys.iter().map(|k| format!(",{k}")).collect();
        writeln!(out, "name,prov:type,prov:base_type{header}").unwrap();
        for n in nodes {
            write!(out, "{},{},{}", field(&n.name), field(&label.prov_type()), label.base_type().as_str())
                .unwrap();
            for k in &keys {
                write!(out, ",{}", n.props.get(k.as_str()).map(text).unwrap_or_default()).unwrap();
            }
            writeln!(out).unwrap();
        }
        files.push((true, path));
    }
    let mut by_rel: BTreeMap<RelType, Vec<&Edge>> = BTreeMap::new();
    for e in all.edges() {
        by_rel.entry(e.rel).or_default().push(e);
    }
    for (rel, edges) in by_rel {
        let mut keys: Vec<String> =
            edges.iter().flat_map(|e| e.props.keys().map(|k| k.to_string())).collect();
        keys.extend(edges.iter().filter_map(|e| e.kind.key().map(|(k, _)| k.to_owned())));
        keys.sort();
        keys.dedup();
        let path = dir.join(format!("{rel}.csv"));
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let header: String = keys.iter().map(|k| format!(",{k}")).collect();
        writeln!(out, "src,dst{header}").unwrap();
        for e in edges {
            write!(out, "{},{}", field(&e.source.name), field(&e.target.name)).unwrap();
            for k in &keys {
                let kind = e.kind.key().filter(|(kk, _)| kk == k).map(|(_, v)| v.to_owned());
                let v = e.props.get(k.as_str()).map(text).or(kind).unwrap_or_default();
                write!(out, ",{v}").unwrap();
            }
            writeln!(out).unwrap();
        }
        files.push((false, path));
    }
    files
}

/// An event file's nodes and edges, normalised, as the CSV files `falkordb-bulk-insert`
/// reads, in `dir`, and `dir/args`: its arguments naming them.
fn write_csv_of(events: &Path, dir: &Path) {
    let bytes = std::fs::read(events).unwrap();
    let lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()).collect();
    let mut all = GraphDelta::new();
    normalise_all(&lines, |b| all.extend(b));
    let files = write_csv(dir, &all);
    let names: String = files
        .iter()
        .map(|(node, p)| format!("{} {}\n", if *node { "-n" } else { "-r" }, p.display()))
        .collect();
    std::fs::write(dir.join("args"), names).unwrap();
    println!("{} nodes, {} edges", all.node_count(), all.edge_count());
}

/// Runs `falkordb-bulk-insert` on the CSV files; its wall time in seconds.
fn run_bulk_insert(cmd: &str, url: &str, graph: &str, files: &[(bool, std::path::PathBuf)]) -> f64 {
    let mut c = std::process::Command::new(cmd);
    c.arg(graph).arg("-u").arg(url);
    for (node, path) in files {
        c.arg(if *node { "-n" } else { "-r" }).arg(path);
    }
    c.stdout(std::process::Stdio::null());
    let t = Instant::now();
    let status = c.status().expect("run falkordb-bulk-insert");
    assert!(status.success(), "falkordb-bulk-insert failed");
    t.elapsed().as_secs_f64()
}

/// A layered random DAG of `n` entities, each derived from 1–3 of the 300 nodes before it.
fn random_dag(n: usize) -> Vec<GraphDelta> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut rnd = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut batches = Vec::new();
    let mut delta = GraphDelta::new();
    for i in 0..n {
        let name = format!("artifact:dag-{i}");
        delta.add_node(Node::new(Label::Artifact, name.clone()));
        if i > 0 {
            let parents = 1 + (rnd() % 3) as usize;
            for _ in 0..parents {
                let j = i - 1 - (rnd() as usize % i.min(300));
                let e = Edge::new(
                    RelType::WasGeneratedBy,
                    EdgeKind::Prov(ProvRelation::WasDerivedFrom),
                    NodeRef::new(Label::Artifact, name.clone()),
                    NodeRef::new(Label::Artifact, format!("artifact:dag-{j}")),
                );
                delta.add_edge(e);
            }
        }
        if (i + 1) % 10_000 == 0 {
            batches.push(delta.take());
        }
    }
    batches.push(delta);
    batches
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--write-events") {
        write_events(Path::new(&args[i + 1]), tasks());
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--write-csv") {
        write_csv_of(Path::new(&args[i + 1]), Path::new(&args[i + 2]));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("events.jsonl");
    write_events(&file, tasks());
    let bytes = std::fs::read(&file).unwrap();
    let lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()).collect();
    let events = lines.len() as f64;
    println!("events: {} ({} tasks), {:.1} MB", lines.len(), tasks(), bytes.len() as f64 / 1e6);

    // 1. Parse + normalise, CPU only (best of 3).
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        normalise_all(&lines, drop);
        best = best.min(t.elapsed().as_secs_f64());
    }
    let mut batches = Vec::new();
    normalise_all(&lines, |b| batches.push(b));
    println!("parse+normalise: {:.0} events/s (best of 3, {best:.3} s)", events / best);
    if std::env::args().any(|a| a == "--parse-only") {
        return;
    }

    // FalkorDB on a free port, with nothing kept; with PROVEX_BENCH_DURABLE set, as the app
    // runs it (an append-only file, every acknowledgement waiting until it is on disk).
    let data = tempfile::tempdir().unwrap();
    let (server, provex) =
        private_provex(data.path(), std::env::var_os("PROVEX_BENCH_DURABLE").is_some()).await;
    let url = server.url();

    if !args.iter().any(|a| a == "--ingest-only") {
        trace_benchmark(&provex).await;
    }
    if std::env::args().any(|a| a == "--trace-only") {
        return;
    }

    fresh_graph_benchmark(&provex, &url, &file, &batches, events).await;
    drop(server);
}

/// Part 2: `trace --up --depth 10` from 200 roots of a 100,000-node graph (run first:
/// FalkorDB frees deleted graphs in the background, which would slow the traces down if they
/// ran after the ingests).
async fn trace_benchmark(provex: &Provex) {
    let g = "dag100k";
    for b in random_dag(100_000) {
        provex.write(g, b).await.unwrap();
    }
    let stats = provex.stats(g).await.unwrap();
    let mut times = Vec::new();
    let mut sizes = Vec::new();
    for k in 0..200u64 {
        let root = format!("artifact:dag-{}", 50_000 + (k * 7919) % 50_000);
        let t = Instant::now();
        let sub = provex.trace(g, &root, TraceDirection::Up, 10).await.unwrap();
        times.push(t.elapsed().as_secs_f64() * 1e3);
        sizes.push(sub.nodes.len() as f64);
    }
    let p95 = {
        let mut t = times.clone();
        t.sort_by(f64::total_cmp);
        t[t.len() * 95 / 100]
    };
    println!(
        "trace --up --depth 10 on {} nodes / {} edges: median {:.2} ms, p95 {p95:.2} ms over 200 roots (median {} nodes reached)",
        stats.nodes,
        stats.edges,
        median(&mut times),
        median(&mut sizes)
    );
    provex.delete_graph(g).await.unwrap();
}

/// Part 3: a fresh graph four ways (see inside), median of 3 rounds each.
async fn fresh_graph_benchmark(provex: &Provex, url: &str, file: &Path, batches: &[GraphDelta], events: f64) {
    let nodes: usize = batches.iter().map(GraphDelta::node_count).sum();
    let edges: usize = batches.iter().map(GraphDelta::edge_count).sum();
    // 3. A fresh graph four ways, round-robin, each on a new graph: the bare UNWIND MERGE,
    // Provex's upserts (`bulk: false`), Provex's GRAPH.BULK path, and `falkordb-bulk-insert`
    // (when PROVEX_BULK_INSERT names it) on the same nodes and edges written as CSV.
    let mut all = GraphDelta::new();
    for b in batches {
        all.extend(b.clone());
    }
    let csv_dir = tempfile::tempdir().unwrap();
    let csvs = write_csv(csv_dir.path(), &all);
    let bulk_insert = std::env::var("PROVEX_BULK_INSERT").ok();
    let (mut bare_t, mut merge_t, mut bulk_t, mut insert_t) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for round in 0..3 {
        let g = format!("bare{round}");
        bare_t.push(bare_merge(url, &g, batches).await);
        provex.delete_graph(&g).await.unwrap();
        for bulk in [false, true] {
            let g = format!("provex{round}{bulk}");
            let t = Instant::now();
            let opts = IngestOptions { bulk, ..Default::default() };
            let report = provex
                .ingest(
                    &g,
                    std::slice::from_ref(&file.to_path_buf()),
                    opts,
                    Arc::new(AtomicBool::new(false)),
                    Arc::new(Quiet),
                )
                .await
                .unwrap();
            let secs = t.elapsed().as_secs_f64();
            assert_eq!(report.rejected, 0);
            assert_eq!(report.method, if bulk { "bulk" } else { "merge" });
            let stats = provex.stats(&g).await.unwrap();
            provex.delete_graph(&g).await.unwrap();
            if round == 0 {
                println!(
                    "graph ({}): {} nodes, {} edges ({nodes} node and {edges} edge upserts)",
                    report.method, stats.nodes, stats.edges
                );
            }
            if bulk {
                bulk_t.push(secs)
            } else {
                merge_t.push(secs)
            }
        }
        if let Some(cmd) = &bulk_insert {
            let g = format!("insert{round}");
            insert_t.push(run_bulk_insert(cmd, url, &g, &csvs));
            let stats = provex.stats(&g).await.unwrap();
            if round == 0 {
                println!("graph (falkordb-bulk-insert): {} nodes, {} edges", stats.nodes, stats.edges);
            }
            provex.delete_graph(&g).await.unwrap();
        }
    }
    let line = |what: &str, t: &mut Vec<f64>| {
        let m = median(t);
        println!(
            "{what} (median of 3): {m:.2} s = {:.0} events/s, {:.0} nodes/s, {:.0} edges/s",
            events / m,
            nodes as f64 / m,
            edges as f64 / m
        );
        m
    };
    let bare = line("bare UNWIND MERGE", &mut bare_t);
    let merge = line("provex ingest, upserts (--no-bulk)", &mut merge_t);
    let bulk = line("provex ingest, GRAPH.BULK", &mut bulk_t);
    println!("upserts / bare throughput: {:.0}%", 100.0 * bare / merge);
    println!("GRAPH.BULK / bare throughput: {:.2}x", bare / bulk);
    if !insert_t.is_empty() {
        let insert = line("falkordb-bulk-insert (CSV)", &mut insert_t);
        println!("GRAPH.BULK / falkordb-bulk-insert throughput: {:.2}x", insert / bulk);
    }
}
