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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_council_turtle_export_imports_as_the_same_graph() {
    let (provex, graph) = common::open("prov_o_same").await;
    let again = format!("{graph}_again");
    let _ = provex.delete_graph(&again).await;
    provex.demo_council(&graph, None, Arc::new(AtomicBool::new(false))).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("council.ttl");
    std::fs::write(&file, provex.export_prov(&graph, ProvFormat::ProvOTurtle).await.unwrap()).unwrap();
    let report = provex
        .ingest(
            &again,
            std::slice::from_ref(&file),
            IngestOptions::default(),
            Arc::new(AtomicBool::new(false)),
            Arc::new(Quiet),
        )
        .await
        .unwrap();
    assert_eq!((report.files[0].format.as_str(), report.files[0].rejected), ("prov-o", 0));

    // No difference at all: names, labels, properties, edge types and kinds.
    let d = provex.diff_graphs(&graph, &again).await.unwrap();
    assert!(
        d.is_empty(),
        "{}",
        provex::diff::render_text(&d).lines().take(20).collect::<Vec<_>>().join("\n")
    );
    let (sa, sb) = (provex.stats(&graph).await.unwrap(), provex.stats(&again).await.unwrap());
    assert_eq!(
        (sa.nodes, sa.edges, &sa.labels, &sa.relationships),
        (sb.nodes, sb.edges, &sb.labels, &sb.relationships)
    );
    // Every claim's trail reads the same.
    let claims = provex.query(&graph, "MATCH (s:Statement) RETURN s.name ORDER BY s.name").await.unwrap();
    assert_eq!(claims.rows.len(), 8);
    for row in &claims.rows {
        let id = row[0].as_str().unwrap();
        let (a, b) = (provex.trail(&graph, id).await.unwrap(), provex.trail(&again, id).await.unwrap());
        assert_eq!(serde_json::to_value(a).unwrap(), serde_json::to_value(b).unwrap(), "{id}");
    }
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
