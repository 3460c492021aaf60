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
use provex::facade::{self, Quiet};
use provex::ingest::IngestOptions;
use provex::sources::statements::bundle::{self, AuditBundle};
use provex::sources::statements::keys::KeyFile;
use provex::sources::statements::trust::TrustStatus;
use serde_json::Value;

use crate::common;

const UNSIGNED: &str =
    "provex:signature: the bundle is not signed: nothing shows who made it or that it is whole";

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

    // The bundle's signature value edited; and removed (an unsigned bundle fails).
    let mut t = b.clone();
    t["provex:signature"]["value"] = Value::String(bundle_sig_of_other(&b));
    assert_eq!(places(&check(&t)), ["provex:signature: the bundle's signature does not match its content"]);
    let mut t = b.clone();
    t.as_object_mut().unwrap().remove("provex:signature");
    let c = check(&t);
    assert!(!c.intact && c.signed_by.is_none());
    assert_eq!(c.trust, TrustStatus::Failed);
    assert_eq!(places(&c), [UNSIGNED]);

    // One statement: its documents only.
    let one = parsed.statements[0].clone();
    let text = provex.bundle(&graph, std::slice::from_ref(&one), None).await.unwrap();
    let small: AuditBundle = serde_json::from_str(&text).unwrap();
    assert_eq!(small.statements, std::slice::from_ref(&one));
    assert!(small.documents.len() < parsed.documents.len());
    let statements = small.documents.iter().filter(|d| d.get("claim").is_some()).count();
    assert_eq!(statements, 1);
    assert_eq!(places(&bundle::verify(&text).unwrap()), [UNSIGNED], "unsigned, else whole");
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

// ---- Whom a bundle is trusted from: `provex verify BUNDLE --trust FILE` ----
//
// Found on main: a bundle rebuilt without one VALIDATED verification and signed by a new key
// under the same agent name and key id printed "signature valid" and exited 0; a bundle
// with its signature stripped read as intact; an empty file passed with exit 0; a truncated
// one exited 2. These build the bundles in memory (no database) and run the real binary.

use provex::demo::council;
use provex::sources::statements::{ConsensusConfig, KeyRegistry, Ledger};

const EXPORTER: &str = "urn:agent:auditor";
const EXPORTER_KEY_ID: &str = "exporter-1";

/// The council demo's A2AP documents without the lines naming `skip`, in a ledger trusting
/// `registry`.
fn council_ledger(registry: KeyRegistry, skip: Option<&str>) -> Ledger {
    let text: String = council::generate()
        .a2ap_jsonl()
        .lines()
        .filter(|l| skip.is_none_or(|id| !l.contains(id)))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut ledger = Ledger::new(registry, ConsensusConfig::default());
    ledger.ingest_text(&text);
    ledger
}

/// A bundle of every statement of `ledger`, signed with `key`, as text.
fn signed_bundle(ledger: &Ledger, key: &KeyFile) -> String {
    let mut b = bundle::make(ledger, "council", &[]).unwrap();
    bundle::sign(&mut b, key).unwrap();
    serde_json::to_string_pretty(&b).unwrap() + "\n"
}

/// The id of one VALIDATED verification response of the council demo.
fn a_validated_response() -> String {
    council::generate()
        .a2ap_jsonl()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["@type"] == "a2ap:VerificationResponse" && v["verdict"] == "VALIDATED")
        .map(|v| v["@id"].as_str().unwrap().to_owned())
        .expect("the demo validates some statement")
}

fn genuine_exporter() -> KeyFile {
    KeyFile::from_seed(EXPORTER_KEY_ID, EXPORTER, [9; 32])
}

fn fingerprint(key: &KeyFile) -> String {
    provex::sources::statements::trust::fingerprint(&key.verifying_key().unwrap())
}

/// The auditor's trust file: the demo agents' registry and the exporter's key.
fn trust_registry() -> String {
    let mut reg = council::demo_registry();
    reg.add_entry(&genuine_exporter().entry()).unwrap();
    reg.to_json()
}

/// `provex verify ARGS…` with no database: exit code, stdout, stderr.
fn verify_args(args: &[&std::ffi::OsStr]) -> (i32, String, String) {
    let out = Command::cargo_bin("provex").unwrap().arg("verify").args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

struct Files {
    dir: tempfile::TempDir,
}

impl Files {
    fn new() -> Self {
        Files { dir: tempfile::tempdir().unwrap() }
    }
    fn put(&self, name: &str, text: &str) -> std::path::PathBuf {
        let p = self.dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

#[test]
fn a_forged_bundle_fails_against_the_trust_file_and_shows_its_new_fingerprint_without() {
    let f = Files::new();
    let genuine = f.put(
        "genuine.jsonld",
        &signed_bundle(&council_ledger(council::demo_registry(), None), &genuine_exporter()),
    );
    // The forgery: one VALIDATED verification left out, the report recomputed, the whole
    // signed by a new key under the exporter's agent name and key id.
    let left_out = a_validated_response();
    let forger = KeyFile::from_seed(EXPORTER_KEY_ID, EXPORTER, [7; 32]);
    let forged_text = signed_bundle(&council_ledger(council::demo_registry(), Some(&left_out)), &forger);
    assert!(!forged_text.contains(&left_out));
    let forged = f.put("forged.jsonld", &forged_text);
    let trust = f.put("trust.json", &trust_registry());
    let (fp_genuine, fp_forged) = (fingerprint(&genuine_exporter()), fingerprint(&forger));
    assert_ne!(fp_genuine, fp_forged);

    // Without --trust: both verify as signed and whole, neither is called trusted, and each
    // shows its signer's fingerprint.
    for (path, fp) in [(&genuine, &fp_genuine), (&forged, &fp_forged)] {
        let (code, out, err) = verify_args(&[path.as_os_str()]);
        assert_eq!(code, 0, "{out}{err}");
        let first = out.lines().next().unwrap();
        assert_eq!(
            first,
            format!("signature valid, signer not pinned: {EXPORTER} (key {EXPORTER_KEY_ID}) {fp}")
        );
        assert!(out.contains("NOT PINNED:"), "{out}");
        assert!(!out.contains("PINNED: every key") && !out.to_lowercase().contains("trusted"), "{out}");
    }

    // With --trust: the genuine one is pinned, the forged one fails naming the key.
    let (code, out, err) =
        verify_args(&[genuine.as_os_str(), std::ffi::OsStr::new("--trust"), trust.as_os_str()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.starts_with(&format!(
            "signature valid, signer pinned: {EXPORTER} (key {EXPORTER_KEY_ID}) {fp_genuine}\n"
        )),
        "{out}"
    );
    assert!(out.contains("PINNED: every key it rests on is in the trust file"), "{out}");
    assert!(!out.contains("NOT in the trust file"), "{out}");
    let (code, out, err) =
        verify_args(&[forged.as_os_str(), std::ffi::OsStr::new("--trust"), trust.as_os_str()]);
    assert_eq!(code, 1, "{out}{err}");
    let named = format!("not in the trust file: {EXPORTER} (key {EXPORTER_KEY_ID}) {fp_forged}");
    assert!(out.starts_with(&format!("verification failed: {named}\n")), "{out}");
    assert!(out.contains(&format!("FAILED: {named}")), "{out}");

    // The JSON output carries the verdict, the signer's fingerprint and every key's pin.
    let json = |args: &[&std::ffi::OsStr]| {
        let mut a = args.to_vec();
        a.extend([std::ffi::OsStr::new("--format"), std::ffi::OsStr::new("json")]);
        let (code, out, _) = verify_args(&a);
        (code, serde_json::from_str::<Value>(&out).unwrap())
    };
    let (code, v) = json(&[forged.as_os_str(), std::ffi::OsStr::new("--trust"), trust.as_os_str()]);
    assert_eq!(code, 1);
    assert_eq!(v["trust"], "failed");
    assert_eq!(v["signer"]["fingerprint"], fp_forged.as_str());
    assert_eq!(v["signer"]["pinned"], false);
    assert!(v["reason"].as_str().unwrap().contains(&fp_forged));
    let keys = v["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 3, "the demo's three agents sign its documents: {keys:?}");
    assert!(keys
        .iter()
        .all(|k| k["pinned"] == true && k["fingerprint"].as_str().unwrap().starts_with("SHA256:")));
    let (code, v) = json(&[forged.as_os_str()]);
    assert_eq!((code, &v["trust"], &v["signer"]["pinned"]), (0, &Value::from("not_pinned"), &Value::Null));
    assert!(v["headline"].as_str().unwrap().ends_with(&fp_forged));
    let (code, v) = json(&[genuine.as_os_str(), std::ffi::OsStr::new("--trust"), trust.as_os_str()]);
    assert_eq!((code, &v["trust"], &v["signer"]["pinned"]), (0, &Value::from("pinned"), &Value::Bool(true)));
    assert_eq!(v["reason"], Value::Null);

    // `--keys` keeps its meaning for --graph and is refused for a bundle.
    let (code, _, err) =
        verify_args(&[genuine.as_os_str(), std::ffi::OsStr::new("--keys"), trust.as_os_str()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--trust"), "{err}");
}

#[test]
fn documents_signed_by_a_new_key_under_a_known_agent_fail_against_the_trust_file() {
    // The forger re-signs the summariser's documents with a key of their own, registered
    // under the summariser's name and key id, and signs the bundle with the genuine key.
    let f = Files::new();
    let genuine_reg = council::demo_registry();
    let victim = genuine_reg.entries()[0].clone();
    let forger = KeyFile::from_seed(&victim.key_id, &victim.agent, [5; 32]);
    let mut forged_reg = KeyRegistry::new();
    for e in genuine_reg.entries() {
        let entry = if e.key_id == victim.key_id { forger.entry() } else { e };
        forged_reg.add_entry(&entry).unwrap();
    }
    let mut forged_docs = String::new();
    for line in council::generate().a2ap_jsonl().lines() {
        let mut v: Value = serde_json::from_str(line).unwrap();
        if v.pointer("/signature/publicKey").and_then(Value::as_str) == Some(victim.key_id.as_str()) {
            provex::sources::statements::sign_value(
                &mut v,
                &forger,
                provex::sources::statements::KeyRef::KeyId,
            )
            .unwrap();
        }
        forged_docs.push_str(&format!("{v}\n"));
    }
    let mut ledger = Ledger::new(forged_reg, ConsensusConfig::default());
    ledger.ingest_text(&forged_docs);
    let path = f.put("forged-docs.jsonld", &signed_bundle(&ledger, &genuine_exporter()));
    let trust = f.put("trust.json", &trust_registry());

    let (code, out, err) = verify_args(&[path.as_os_str()]);
    assert_eq!(code, 0, "whole and signed, only not pinned: {out}{err}");
    let (code, out, err) =
        verify_args(&[path.as_os_str(), std::ffi::OsStr::new("--trust"), trust.as_os_str()]);
    assert_eq!(code, 1, "{out}{err}");
    let named = format!("{} (key {}) {}", victim.agent, victim.key_id, fingerprint(&forger));
    assert!(out.starts_with(&format!("verification failed: not in the trust file: {named}")), "{out}");
    assert!(
        out.contains(&format!("documents    {named}: ")) && out.contains("NOT in the trust file"),
        "{out}"
    );

    // A trust file of bare public keys pins keys for any agent: the genuine keys only.
    let mut keys: Vec<String> =
        council::demo_registry().entries().iter().map(|e| format!("ed25519:{}", e.public_key)).collect();
    keys.push(genuine_exporter().public_key);
    let bare = f.put("trust.keys", &(keys.join("\n") + "\n"));
    let (code, out, _) = verify_args(&[path.as_os_str(), std::ffi::OsStr::new("--trust"), bare.as_os_str()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains(&fingerprint(&forger)), "{out}");
    let genuine = f.put(
        "genuine.jsonld",
        &signed_bundle(&council_ledger(council::demo_registry(), None), &genuine_exporter()),
    );
    let (code, out, _) =
        verify_args(&[genuine.as_os_str(), std::ffi::OsStr::new("--trust"), bare.as_os_str()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("signature valid, signer pinned: "), "{out}");
}

#[test]
fn unsigned_empty_truncated_and_unparsable_bundles_fail_with_exit_1_and_the_reason() {
    let f = Files::new();
    let text = signed_bundle(&council_ledger(council::demo_registry(), None), &genuine_exporter());
    let trust = f.put("trust.json", &trust_registry());
    let mut stripped: Value = serde_json::from_str(&text).unwrap();
    stripped.as_object_mut().unwrap().remove("provex:signature");
    let cut = text.len() / 2;
    let cut_line = text[..cut].lines().count();
    let cases = [
        (
            "stripped.jsonld",
            serde_json::to_string_pretty(&stripped).unwrap(),
            "the bundle is not signed".to_owned(),
        ),
        ("empty.jsonld", String::new(), "empty file".to_owned()),
        ("blank.jsonld", "\n  \n".to_owned(), "empty file".to_owned()),
        ("truncated.jsonld", text[..cut].to_owned(), format!("truncated.jsonld: line {cut_line}, column ")),
        (
            "not-json.jsonld",
            "{\"@type\": \"provex:AuditBundle\", oops}\n".to_owned(),
            "not-json.jsonld: line 1, column 33: not an audit bundle".to_owned(),
        ),
    ];
    for (name, body, says) in &cases {
        let path = f.put(name, body);
        for with_trust in [false, true] {
            let mut args = vec![path.as_os_str()];
            if with_trust {
                args.extend([std::ffi::OsStr::new("--trust"), trust.as_os_str()]);
            }
            let (code, out, err) = verify_args(&args);
            assert_eq!(code, 1, "{name} (trust: {with_trust}): {out}{err}");
            assert!(out.starts_with("verification failed: "), "{name}: {out}");
            assert!(out.contains(says.as_str()), "{name}: wants {says:?} in {out}");
            assert!(!out.contains("INTACT") && !out.contains("signature valid"), "{name}: {out}");
        }
        let (code, out, _) =
            verify_args(&[path.as_os_str(), std::ffi::OsStr::new("--format"), std::ffi::OsStr::new("json")]);
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!((code, &v["trust"]), (1, &Value::from("failed")), "{name}");
        assert!(v["reason"].as_str().unwrap().contains(says.as_str()), "{name}: {v}");
    }
    // A trust file that cannot be read is a usage error naming it (exit 2), not a verdict.
    let bad = f.put("bad-trust.json", "{\"keys\": [");
    let genuine = f.put("genuine.jsonld", &text);
    let (code, _, err) =
        verify_args(&[genuine.as_os_str(), std::ffi::OsStr::new("--trust"), bad.as_os_str()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad-trust.json") && err.contains("trust file"), "{err}");
}
