//! PROV-JSON import (issue 15 §1): every document of the `prov` library's own test suite, its
//! example documents and random documents built with its API (tests/prov/round_trip.py) is
//! imported into a graph and exported again, and `prov` finds the two documents equal
//! (`ProvDocument.unified()`). A document with unreadable records keeps the rest, and each
//! rejected record is reported with its line.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use provex::facade::Quiet;
use provex::ingest::{Format, IngestOptions};
use provex::sources::prov::ProvFormat;

use crate::common;

fn python() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    assert!(p.exists(), "{} is missing: run scripts/setup.sh", p.display());
    p
}

fn script(args: &[&str]) -> String {
    let run = std::process::Command::new(python())
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/prov/round_trip.py"))
        .args(args)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    String::from_utf8(run.stdout).unwrap()
}

fn opts(rejects: &Path) -> IngestOptions {
    IngestOptions { format: Format::Auto, rejects: Some(rejects.to_owned()), ..Default::default() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prov_finds_every_document_equal_after_a_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    script(&["make", dir.path().to_str().unwrap(), "40"]);
    let (provex, graph) = common::open("prov_round_trip").await;
    let mut docs: Vec<PathBuf> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().path()).collect();
    docs.sort();
    assert!(docs.len() > 400, "{} documents", docs.len());
    let rejects = dir.path().join("rejects.jsonl");
    for (i, doc) in docs.iter().enumerate() {
        let g = format!("{graph}_{i}");
        let report = provex
            .ingest(
                &g,
                std::slice::from_ref(doc),
                opts(&rejects),
                Arc::new(AtomicBool::new(false)),
                Arc::new(Quiet),
            )
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", doc.display()));
        assert_eq!(report.files[0].format, "prov-json", "{}: recognised by auto", doc.display());
        assert_eq!(report.files[0].rejected, 0, "{}: {:?}", doc.display(), std::fs::read_to_string(&rejects));
        let text = match provex.export_prov(&g, ProvFormat::ProvJson).await {
            Ok(t) => t,
            // A document with nothing in it makes no graph.
            Err(provex::Error::NotFound { .. }) => "{\"prefix\": {}}".to_owned(),
            Err(e) => panic!("{}: {e}", doc.display()),
        };
        std::fs::write(doc.with_extension("out.json"), text).unwrap();
        let _ = provex.delete_graph(&g).await;
    }
    let got: serde_json::Value =
        serde_json::from_str(&script(&["compare", dir.path().to_str().unwrap()])).unwrap();
    assert_eq!(got["total"].as_u64(), Some(docs.len() as u64), "{got}");
    assert_eq!(got["failed"], serde_json::json!({}), "{got}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_records_are_rejected_with_their_line_and_the_rest_kept() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("doc.json");
    std::fs::write(
        &doc,
        r#"{
  "prefix": {"ex": "http://example.org/"},
  "entity": {
    "ex:e1": {"prov:label": "kept"},
    "nope:e2": {},
    "ex:e3": 7
  },
  "activity": {"ex:a1": {}},
  "used": {
    "_:u1": {"prov:activity": "ex:a1", "prov:entity": "ex:e1"},
    "_:u2": {"prov:activity": 12}
  },
  "wasDerivedFrom": {"_:d1": {"prov:generatedEntity": "ex:e1", "prov:usedEntity": "ex:e0"}},
  "madeUp": {}
}
"#,
    )
    .unwrap();
    let (provex, graph) = common::open("prov_import_rejects").await;
    let rejects = dir.path().join("rejects.jsonl");
    let report = provex
        .ingest(
            &graph,
            std::slice::from_ref(&doc),
            opts(&rejects),
            Arc::new(AtomicBool::new(false)),
            Arc::new(Quiet),
        )
        .await
        .unwrap();
    let f = &report.files[0];
    assert_eq!((f.format.as_str(), f.rejected), ("prov-json", 4), "{f:?}");
    let got = common::rejects(&rejects);
    assert!(got.contains(&(5, "entity nope:e2: its prefix is not declared".into())), "{got:?}");
    assert!(
        got.iter().any(|(l, r)| *l == 6 && r.starts_with("entity ex:e3: a body is not an object")),
        "{got:?}"
    );
    assert!(got.contains(&(11, "used _:u2: prov:activity is not a qualified name".into())), "{got:?}");
    assert!(got.contains(&(14, "madeUp: not a PROV-JSON section".into())), "{got:?}");
    // What was good is there: two entities (e0 only named), one activity, two relations.
    let text = provex.export_prov(&graph, ProvFormat::ProvJson).await.unwrap();
    let out: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(out["entity"].as_object().unwrap().keys().collect::<Vec<_>>(), ["ex:e1"]);
    assert_eq!(out["entity"]["ex:e1"]["prov:label"], "kept");
    assert_eq!(out["used"]["_:u1"]["prov:entity"], "ex:e1");
    assert_eq!(out["wasDerivedFrom"]["_:d1"]["prov:usedEntity"], "ex:e0");
    // Importing it again changes nothing.
    let before = provex.stats(&graph).await.unwrap();
    provex
        .ingest(
            &graph,
            std::slice::from_ref(&doc),
            opts(&rejects),
            Arc::new(AtomicBool::new(false)),
            Arc::new(Quiet),
        )
        .await
        .unwrap();
    assert_eq!(provex.stats(&graph).await.unwrap(), before);
    assert_eq!(provex.export_prov(&graph, ProvFormat::ProvJson).await.unwrap(), text);
    let _ = provex.delete_graph(&graph).await;
}
