//! Every source's fresh import goes through the streamed GRAPH.BULK build (the spill file,
//! parts, many commands) and makes the graph its upserts make; a build of many small
//! commands and parts is checked against the server's own count of what it created.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use provex::facade::{IngestReport, Provex, Quiet};
use provex::ingest::IngestOptions;
use provex::store::bulk::Limits;
use provex::store::partial_name;

use crate::common::{self, everything};

async fn ingest(provex: &Provex, graph: &str, files: &[PathBuf], opts: IngestOptions) -> IngestReport {
    provex.ingest(graph, files, opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet)).await.unwrap()
}

/// How many `GRAPH.BULK` commands the shared server has run so far (other tests' too).
async fn bulk_commands() -> u64 {
    let client = redis::Client::open(common::admin_url()).unwrap();
    let mut con = client.get_multiplexed_async_connection().await.unwrap();
    let info: String = redis::cmd("INFO").arg("commandstats").query_async(&mut con).await.unwrap();
    info.lines()
        .find(|l| l.to_ascii_lowercase().starts_with("cmdstat_graph.bulk:"))
        .and_then(|l| l.split("calls=").nth(1))
        .and_then(|s| s.split(',').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Imports `files` into a new graph through the bulk path, with commands and parts small
/// enough that the build takes many of each, and into another with upserts; both graphs
/// must be the same. Returns the bulk import's report.
async fn same_both_ways(test: &str, files: &[PathBuf]) -> IngestReport {
    let (provex, graph) = common::open(test).await;
    let merged = format!("{graph}_merge");
    let _ = provex.delete_graph(&merged).await;
    let dir = tempfile::tempdir().unwrap();
    let rejects = Some(dir.path().join("rejected.jsonl"));
    provex.set_bulk_limits(Limits { max_blob: 1_000, max_command: 2_000 });
    let before = bulk_commands().await;
    let small =
        IngestOptions { bulk_max_rows: 40, batch_events: 25, rejects: rejects.clone(), ..Default::default() };
    let bulk = ingest(&provex, &graph, files, small).await;
    let commands = bulk_commands().await - before;
    let upserts =
        ingest(&provex, &merged, files, IngestOptions { bulk: false, rejects, ..Default::default() }).await;
    assert_eq!(bulk.method, "bulk", "{test}: {bulk:?}");
    assert_eq!(upserts.method, "merge");
    assert!(bulk.notes.is_empty(), "{test}: {:?}", bulk.notes);
    assert!(commands >= 2, "{test}: the build took {commands} GRAPH.BULK commands");
    let (a, b) = (everything(&provex, &graph).await, everything(&provex, &merged).await);
    assert!(a.len() > 10, "{test}: {} rows", a.len());
    assert_eq!(a, b, "{test}: the bulk-built graph differs from the upserted one");
    assert_eq!((bulk.events, bulk.rejected), (upserts.events, upserts.rejected));
    assert!(!common::server_graphs().await.contains(&partial_name(&graph)));
    let _ = provex.delete_graph(&graph).await;
    let _ = provex.delete_graph(&merged).await;
    bulk
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_sources_fresh_import_is_streamed_through_graph_bulk() {
    let root = common::repo();
    let sources: [(&str, Vec<PathBuf>); 6] = [
        (
            "bulk_src_a2a",
            vec![root.join("examples/a2a-run.jsonl"), root.join("examples/council/council-events.jsonl")],
        ),
        ("bulk_src_prov", vec![root.join("examples/prov/primer.json")]),
        ("bulk_src_lineage", vec![root.join("examples/lineage/summarise-prompt.jsonl")]),
        ("bulk_src_graphrag", vec![root.join("examples/trustgraph/graphrag.jsonl")]),
        ("bulk_src_react", vec![root.join("examples/trustgraph/react.jsonl")]),
        (
            "bulk_src_otel",
            vec![
                root.join("tests/data/otel/genai-tool-agent.jsonl"),
                root.join("tests/data/otel/openinference-agents.jsonl"),
            ],
        ),
    ];
    for (test, files) in sources {
        let report = same_both_ways(test, &files).await;
        assert!(report.events > 0, "{test}: {report:?}");
    }
}
