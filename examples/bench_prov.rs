//! W3C PROV benchmark (issue 15): a PROV-JSON document of 100,000 records (60,000 entities,
//! 30,000 activities, 10,000 agents) and 180,000 relations.
//!
//! - Import: `provex ingest` of the file into a new graph (GRAPH.BULK) and with `--no-bulk`
//!   (upserts), end to end (read, parse, write), against a bare `UNWIND … MERGE` of the same
//!   rows built beforehand (the nodes by label, then the edges by type, 5,000 rows a query).
//! - Export: the 100,000-node graph to PROV-JSON (`Provex::export_prov`: read, map, write),
//!   against the `prov` library serialising the same document (`ProvDocument.serialize`,
//!   the document read beforehand), in the project's `.venv`.
//!
//! Medians of 3. Run with `bash bench/prov.sh` (starts a private FalkorDB on a free port).

#[path = "support/fresh_graph.rs"]
mod fresh_graph;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::Path;
use std::time::{Duration, Instant};

use provex::diff::Snapshot;
use provex::ingest::{Format, IngestOptions};
use provex::sources::prov::ProvFormat;
use serde_json::{json, Map, Value};

const ENTITIES: usize = 60_000;
const ACTIVITIES: usize = 30_000;
const AGENTS: usize = 10_000;

fn document() -> Value {
    let mut entity = Map::new();
    let mut activity = Map::new();
    let mut agent = Map::new();
    let (mut generated, mut used, mut assoc, mut derived) = (Map::new(), Map::new(), Map::new(), Map::new());
    for i in 0..ENTITIES {
        entity.insert(
            format!("ex:e{i}"),
            json!({"prov:label": format!("entity {i}"), "ex:size": i,
                   "prov:type": {"$": "ex:Document", "type": "prov:QUALIFIED_NAME"}}),
        );
        generated.insert(
            format!("_:g{i}"),
            json!({"prov:entity": format!("ex:e{i}"), "prov:activity": format!("ex:a{}", i / 2)}),
        );
        if i > 0 {
            derived.insert(
                format!("_:d{i}"),
                json!({"prov:generatedEntity": format!("ex:e{i}"), "prov:usedEntity": format!("ex:e{}", i - 1)}),
            );
        }
    }
    for i in 0..ACTIVITIES {
        activity.insert(
            format!("ex:a{i}"),
            json!({"prov:startTime": "2026-11-24T08:00:00Z", "prov:label": format!("step {i}")}),
        );
        used.insert(format!("_:u{i}"), json!({"prov:activity": format!("ex:a{i}"), "prov:entity": format!("ex:e{}", (2 * i + 1) % ENTITIES)}));
        assoc.insert(
            format!("_:w{i}"),
            json!({"prov:activity": format!("ex:a{i}"), "prov:agent": format!("ex:ag{}", i % AGENTS)}),
        );
    }
    for i in 0..AGENTS {
        agent.insert(
            format!("ex:ag{i}"),
            json!({"prov:type": {"$": "prov:Person", "type": "prov:QUALIFIED_NAME"}}),
        );
    }
    json!({"prefix": {"ex": "http://example.org/"}, "entity": entity, "activity": activity, "agent": agent,
           "wasGeneratedBy": generated, "used": used, "wasAssociatedWith": assoc, "wasDerivedFrom": derived})
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bench.prov.json");
    std::fs::write(&file, serde_json::to_string_pretty(&document()).unwrap()).unwrap();
    let bytes = std::fs::metadata(&file).unwrap().len();
    let imported = provex::sources::prov::import::import(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let snap = Snapshot::from_delta(&imported.delta);
    println!(
        "document: {:.1} MB, {} records and relations; {} nodes, {} edges",
        bytes as f64 / 1e6,
        imported.statements,
        snap.nodes.len(),
        snap.edges.len()
    );

    let bench = fresh_graph::Bench::start().await;
    let provex = &bench.provex;
    let ingest = |graph: &'static str, bulk: bool| {
        let (bench, file) = (&bench, file.clone());
        async move {
            let _ = bench.provex.delete_graph(graph).await;
            let opts = IngestOptions { format: Format::ProvJson, bulk, ..Default::default() };
            bench.ingest(graph, &file, opts).await.0
        }
    };
    let (mut bulk, mut merge, mut bare) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..3 {
        eprintln!("run {run}");
        bare.push(bench.bare("bench_prov_bare", &snap));
        merge.push(ingest("bench_prov_merge", false).await);
        bulk.push(ingest("bench_prov", true).await);
    }
    bench.assert_same_graph("bench_prov", "bench_prov_bare").await;
    let stats = provex.stats("bench_prov").await.unwrap();
    let (bare, merge, bulk) = (median(bare), median(merge), median(bulk));
    println!("bare UNWIND … MERGE of the rows (built beforehand): median {bare:?} of 3");
    println!(
        "provex ingest --no-bulk (read, parse, upsert): median {merge:?} of 3 ({:.0}% of the bare rate)",
        100.0 * bare.as_secs_f64() / merge.as_secs_f64()
    );
    println!(
        "provex ingest into a new graph (read, parse, GRAPH.BULK): median {bulk:?} of 3 ({:.0}% of the bare rate)",
        100.0 * bare.as_secs_f64() / bulk.as_secs_f64()
    );

    let mut export = Vec::new();
    let mut text = String::new();
    for _ in 0..3 {
        let t = Instant::now();
        text = provex.export_prov("bench_prov", ProvFormat::ProvJson).await.unwrap();
        export.push(t.elapsed());
    }
    println!(
        "export of the {}-node graph to PROV-JSON ({:.1} MB): median {:?} of 3",
        stats.nodes,
        text.len() as f64 / 1e6,
        median(export)
    );
    let out = dir.path().join("export.json");
    std::fs::write(&out, &text).unwrap();
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    let script = "import sys, time\nfrom prov.model import ProvDocument\n\
                  doc = ProvDocument.deserialize(sys.argv[1], format='json')\nts = []\n\
                  for _ in range(3):\n    t = time.perf_counter(); doc.serialize(format='json'); ts.append(time.perf_counter() - t)\n\
                  print(sorted(ts)[1], len(doc.get_records()))";
    let run = std::process::Command::new(python).arg("-c").arg(script).arg(&out).output().unwrap();
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let mut parts = said.split_whitespace();
    let secs: f64 = parts.next().unwrap().parse().unwrap();
    println!(
        "the prov library serialising the same document ({} records): median {:?} of 3",
        parts.next().unwrap_or("?"),
        Duration::from_secs_f64(secs)
    );
}
