//! W3C PROV export of the council demo (A2A runtime events and A2AP statements in one graph),
//! read back by the W3C reference library `prov` and by rdflib from the project's `.venv`
//! (tests/prov/check_export.py): every node a record, every edge a relation, in each format.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use provex::facade::{self, Quiet};
use provex::ingest::IngestOptions;
use provex::sources::prov::ProvFormat;

use crate::common;

/// The project's Python, which set-up gives `prov` and `rdflib`.
fn python() -> std::path::PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    assert!(p.exists(), "{} is missing: run scripts/setup.sh", p.display());
    p
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_prov_library_and_rdflib_read_every_export_back() {
    let dir = tempfile::tempdir().unwrap();
    let files = facade::write_council_files(dir.path()).unwrap();
    let files: Vec<_> = files.into_iter().filter(|f| f.extension().is_some_and(|e| e == "jsonl")).collect();
    let (provex, graph) = common::open("prov_export").await;
    provex
        .ingest(&graph, &files, IngestOptions::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
    let stats = provex.stats(&graph).await.unwrap();
    let out = tempfile::tempdir().unwrap();
    for f in ProvFormat::ALL {
        let text = provex.export_prov(&graph, f).await.unwrap();
        std::fs::write(out.path().join(format!("export.{f}")), text).unwrap();
    }
    let run = std::process::Command::new(python())
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/prov/check_export.py"))
        .arg(out.path())
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let got: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let json = &got["prov-json"];
    assert_eq!(json["records"], stats.nodes, "{got}");
    assert_eq!(json["relations"], stats.edges, "{got}");
    assert_eq!(json["round_trip_equal"], true);
    // `prov` writes no PROV-N reader; what it writes for the same document is what we wrote.
    assert_eq!(got["prov-n"]["same_as_prov_writes"], true, "{got}");
    for rdf in ["prov-o-turtle", "prov-o-jsonld"] {
        assert_eq!(got[rdf]["records"], stats.nodes, "{rdf}: {got}");
        // PROV-O's unqualified relations are triples: two edges with the same ends and
        // relation are one.
        assert_eq!(got[rdf]["distinct_relations"], json["distinct_relations"], "{rdf}: {got}");
        assert!(got[rdf]["triples"].as_u64().unwrap() > stats.nodes);
    }
    let missing = provex.export_prov(&format!("{graph}_none"), ProvFormat::ProvJson).await;
    assert!(missing.is_err());
    let _ = provex.delete_graph(&graph).await;
}
