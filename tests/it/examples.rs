//! The example files the README lists under "Examples" that no other test reads: each
//! ingests whole with the format the README names and gives the graph it describes.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use provex::facade::Quiet;
use provex::ingest::IngestOptions;

use crate::common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_prov_json_and_trustgraph_examples_ingest_whole() {
    let (provex, graph) = common::open("examples").await;
    let tg = format!("{graph}_tg");
    let _ = provex.delete_graph(&tg).await;
    let ex = common::repo().join("examples");
    let stop = || Arc::new(AtomicBool::new(false));

    // The W3C PROV Primer's example: a newspaper article, the data sets and charts it was
    // made from, and who made them.
    let primer = [ex.join("prov/primer.json")];
    let report =
        provex.ingest(&graph, &primer, IngestOptions::default(), stop(), Arc::new(Quiet)).await.unwrap();
    assert_eq!((report.files[0].format.as_str(), report.files[0].rejected), ("prov-json", 0));
    let stats = provex.stats(&graph).await.unwrap();
    assert_eq!((stats.labels["Entity"], stats.labels["Activity"], stats.labels["Agent"]), (10, 5, 2));
    assert_eq!(stats.relationships["WAS_DERIVED_FROM"], 5);

    // TrustGraph's explain streams as its gateway sends them: a ReAct agent whose first tool
    // call fails before it answers, and a GraphRAG answer with the edges it selected.
    let files = [ex.join("trustgraph/react.jsonl"), ex.join("trustgraph/graphrag.jsonl")];
    let report = provex.ingest(&tg, &files, IngestOptions::default(), stop(), Arc::new(Quiet)).await.unwrap();
    for f in &report.files {
        assert_eq!((f.format.as_str(), f.rejected), ("trustgraph", 0), "{f:?}");
    }
    let mut kinds: Vec<(String, String)> =
        provex.sessions(&tg).await.unwrap().into_iter().map(|s| (s.kind, s.status)).collect();
    kinds.sort();
    assert_eq!(kinds, [("agent".into(), "answered".into()), ("graphrag".into(), "answered".into())]);
    assert_eq!(provex.stats(&tg).await.unwrap().relationships["SELECTED_EDGE"], 2);
    let _ = provex.delete_graph(&graph).await;
    let _ = provex.delete_graph(&tg).await;
}
