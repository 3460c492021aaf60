//! Audit bundles (issue 15 §3) on the council demo: `provex bundle` writes one JSON-LD file
//! that `provex verify` checks with no database (the verify runs without `--falkordb`);
//! an intact, signed bundle passes, and each kind of tampering (a claim's text, a source's
//! bytes, a key, the stored report, the bundle's own signature) is reported at its place
//! with exit 1. A bundle of one statement holds that statement's trail and nothing else, and
//! a bundle opened in the explorer (ingested like any file) shows the same trails.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use assert_cmd::Command;
use provex::a2ap::bundle::{self, AuditBundle};
use provex::a2ap::keys::KeyFile;
use provex::facade::{self, Quiet};
use provex::ingest::IngestOptions;
use serde_json::Value;

use crate::common;

fn check(b: &Value) -> bundle::BundleCheck {
    bundle::verify(&serde_json::to_string(b).unwrap()).unwrap()
}

fn places(c: &bundle::BundleCheck) -> Vec<String> {
    c.findings.iter().map(|f| format!("{}: {}", f.place, f.reason)).collect()
}

/// `provex verify FILE` with no database: its exit code and output.
fn verify_cli(path: &Path) -> (i32, String) {
    let out = Command::cargo_bin("provex").unwrap().arg("verify").arg(path).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bundle_verifies_offline_and_every_tampering_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let files = facade::write_council_files(dir.path()).unwrap();
    let files: Vec<_> = files.into_iter().filter(|f| f.extension().is_some_and(|e| e == "jsonl")).collect();
    let (provex, graph) = common::open("bundle").await;
    provex
        .ingest(&graph, &files, IngestOptions::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
    let key = KeyFile::from_seed("exporter-1", "urn:agent:auditor", [9; 32]);
    let key_path = dir.path().join("exporter.key");
    std::fs::write(&key_path, key.to_json()).unwrap();

    let text = provex.bundle(&graph, &[], Some(&key_path)).await.unwrap();
    let path = dir.path().join("council.bundle.jsonld");
    std::fs::write(&path, &text).unwrap();
    let b: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(b["@type"], "provex:AuditBundle");
    assert!(b["@context"]["prov"].is_string());
    let parsed: AuditBundle = serde_json::from_value(b.clone()).unwrap();
    assert_eq!(parsed.statements.len(), 8);
    assert!(parsed.keys.iter().all(|k| k.trusted), "the demo's keys come from its registry");
    assert!(!parsed.slices.is_empty() && !parsed.sources.is_empty());
    // The graph's own report and the bundle's agree on what matters.
    let graph_report = provex.verify_graph(&graph, None).await.unwrap();
    assert_eq!(parsed.report.summary.statements, graph_report.summary.statements);
    assert_eq!(parsed.report.summary.verified_statements, graph_report.summary.verified_statements);
    assert_eq!(parsed.report.summary.signatures, graph_report.summary.signatures);

    let ok = check(&b);
    assert!(ok.intact, "{:?}", places(&ok));
    assert_eq!(ok.signed_by.as_deref(), Some("urn:agent:auditor (exporter-1)"));
    let (code, out) = verify_cli(&path);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("INTACT"), "{out}");

    // A claim's text changed: its signature no longer holds, and the bundle's signature.
    let mut t = b.clone();
    let docs = t["provex:documents"].as_array_mut().unwrap();
    let st = docs.iter_mut().find(|d| d.get("claim").is_some()).unwrap();
    let id = st["@id"].as_str().unwrap().to_owned();
    let text = st["claim"]["text"].as_str().unwrap().replace("council", "mayor");
    st["claim"]["text"] = Value::String(text);
    let c = check(&t);
    assert!(!c.intact);
    let p = places(&c);
    assert!(p.iter().any(|f| f.starts_with("provex:signature:")), "{p:?}");
    assert!(
        p.iter().any(|f| f.contains(".signature: ") && f.contains(&id) && f.contains("\"invalid\"")),
        "{p:?}"
    );
    let tampered = dir.path().join("tampered.jsonld");
    std::fs::write(&tampered, serde_json::to_string(&t).unwrap()).unwrap();
    let (code, out) = verify_cli(&tampered);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("TAMPERED provex:report.documents[") && out.contains(&id), "{out}");

    // A source's bytes changed: the slices cut from it and its hash say so.
    let mut t = b.clone();
    let src =
        t["provex:documents"].as_array_mut().unwrap().iter_mut().find(|d| d.get("text").is_some()).unwrap();
    let changed = src["text"].as_str().unwrap().replacen('a', "o", 40);
    src["text"] = Value::String(changed);
    let p = places(&check(&t));
    assert!(p.iter().any(|f| f.starts_with("provex:slices[")), "{p:?}");
    assert!(p.iter().any(|f| f.starts_with("provex:sources[")), "{p:?}");

    // A trusted key swapped for another: the signatures made with it fail.
    let mut t = b.clone();
    t["provex:keys"][0]["publicKey"] = Value::String(KeyFile::from_seed("x", "y", [3; 32]).public_key);
    let p = places(&check(&t));
    assert!(p.iter().any(|f| f.contains(".signature: ")), "{p:?}");

    // The stored report edited: named at its place.
    let mut t = b.clone();
    t["provex:report"]["summary"]["verified_statements"] = Value::from(8);
    let p = places(&check(&t));
    assert!(
        p.iter().any(|f| f.starts_with("provex:report.summary.verified_statements: the bundle says 8")),
        "{p:?}"
    );

    // The bundle's signature value edited; and removed (an unsigned bundle is intact).
    let mut t = b.clone();
    t["provex:signature"]["value"] = Value::String(bundle_sig_of_other(&b));
    assert_eq!(places(&check(&t)), ["provex:signature: the bundle's signature does not match its content"]);
    let mut t = b.clone();
    t.as_object_mut().unwrap().remove("provex:signature");
    let c = check(&t);
    assert!(c.intact && c.signed_by.is_none());

    // One statement: its documents only.
    let one = parsed.statements[0].clone();
    let text = provex.bundle(&graph, std::slice::from_ref(&one), None).await.unwrap();
    let small: AuditBundle = serde_json::from_str(&text).unwrap();
    assert_eq!(small.statements, std::slice::from_ref(&one));
    assert!(small.documents.len() < parsed.documents.len());
    let statements = small.documents.iter().filter(|d| d.get("claim").is_some()).count();
    assert_eq!(statements, 1);
    assert!(bundle::verify(&text).unwrap().intact);
    let missing = provex.bundle(&graph, &["urn:uuid:nope".to_owned()], None).await;
    assert!(missing.is_err());

    // Opened in the explorer (ingested as any file is): the statements' trails are the
    // graph's, checked with the keys the bundle marks trusted.
    let opened = format!("{graph}_opened");
    let _ = provex.delete_graph(&opened).await;
    let r = provex
        .ingest(
            &opened,
            std::slice::from_ref(&path),
            IngestOptions::default(),
            Arc::new(AtomicBool::new(false)),
            Arc::new(Quiet),
        )
        .await
        .unwrap();
    assert_eq!((r.files[0].format.as_str(), r.rejected), ("a2ap", 0));
    for id in &parsed.statements {
        let (a, b) = (provex.trail(&graph, id).await.unwrap(), provex.trail(&opened, id).await.unwrap());
        assert_eq!(serde_json::to_value(&a).unwrap(), serde_json::to_value(&b).unwrap(), "{id}");
    }
    // Read-only: the bundle is a node of its graph, and nothing more goes in.
    let stats = provex.stats(&opened).await.unwrap();
    assert_eq!(stats.labels.get("AuditBundle"), Some(&1), "{stats:?}");
    let again = provex
        .ingest(&opened, &files, IngestOptions::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap_err();
    assert!(again.to_string().contains("read-only"), "{again}");
    assert_eq!(provex.stats(&opened).await.unwrap(), stats);
    let _ = provex.delete_graph(&opened).await;
    let _ = provex.delete_graph(&graph).await;
}

/// A valid-looking signature value that belongs to other bytes.
fn bundle_sig_of_other(b: &Value) -> String {
    let mut other: AuditBundle = serde_json::from_value(b.clone()).unwrap();
    other.graph.push('x');
    bundle::sign(&mut other, &KeyFile::from_seed("exporter-1", "urn:agent:auditor", [9; 32])).unwrap();
    other.signature.unwrap().value
}
