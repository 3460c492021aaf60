//! A Provex graph exported as PROV-O (Turtle) and imported again is the same graph
//! (docs/FORMATS.md "PROV-O (Turtle) in"): the council demo exported as Turtle, ingested
//! into another graph (its format detected), and compared with `diff`; a Turtle document
//! that is not Turtle is refused with its line and reason.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use provex::facade::Quiet;
use provex::ingest::IngestOptions;
use provex::sources::prov::ProvFormat;

use crate::common;
use crate::prov_round_trip::council_round_trip;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_council_turtle_export_imports_as_the_same_graph() {
    let (provex, graph) = common::open("prov_o_same").await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("council.ttl");
    let again = council_round_trip(&provex, &graph, ProvFormat::ProvOTurtle, &file, "prov-o", |v| v).await;
    provex.delete_graph(&again).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_turtle_is_refused_with_its_line() {
    let (provex, graph) = common::open("prov_o_broken").await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.ttl");
    std::fs::write(
        &file,
        "@prefix prov: <http://www.w3.org/ns/prov#> .\n<urn:a> a prov:Entity .\n<urn:b> prov:used <urn:a\n",
    )
    .unwrap();
    let report = provex
        .ingest(
            &graph,
            std::slice::from_ref(&file),
            IngestOptions::default(),
            Arc::new(AtomicBool::new(false)),
            Arc::new(Quiet),
        )
        .await
        .unwrap();
    let f = &report.files[0];
    assert_eq!((f.format.as_str(), f.rejected), ("prov-o", 1));
    // Nothing of the file was written (the graph was not even made).
    assert_eq!(provex.stats(&graph).await.map_or(0, |s| s.nodes), 0);
}
