//! Audit bundles carry the graph's log proofs, checked offline against a real FalkorDB's
//! log: each document's line and inclusion proof to a signed checkpoint, and with `--since`
//! (a checkpoint or an earlier bundle the auditor kept) the consistency proof from it. A
//! forged proof, checkpoint or line is refused naming its place; a bundle rebuilt from a
//! rewritten history without one VALIDATED verification fails `verify --since`.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use assert_cmd::Command;
use provex::facade::{self, Provex, Quiet};
use provex::ingest::IngestOptions;
use provex::sources::statements::bundle::log::Since;
use provex::sources::statements::bundle::{self, AuditBundle, BundleCheck};
use provex::sources::statements::keys::KeyFile;

use crate::common;

fn places(c: &BundleCheck) -> Vec<String> {
    c.findings.iter().map(|f| format!("{}: {}", f.place, f.reason)).collect()
}

async fn ingest(provex: &Provex, graph: &str, files: &[std::path::PathBuf]) {
    let opts = IngestOptions { bulk: false, ..Default::default() };
    provex.ingest(graph, files, opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet)).await.unwrap();
}

/// Re-signs a changed bundle, as whoever made it could.
fn resign(b: &mut AuditBundle, key: &KeyFile) -> String {
    bundle::sign(b, key).unwrap();
    serde_json::to_string(b).unwrap()
}

fn check_since(text: &str, since: Option<&[u8]>) -> BundleCheck {
    let since = since.map(|s| Since::from_bytes(s).unwrap());
    bundle::verify_since(text, None, since.as_ref()).unwrap()
}

/// `provex verify BUNDLE [--since FILE]` with no database: exit code and output.
fn verify_cli(path: &Path, since: Option<&Path>) -> (i32, String) {
    let mut c = Command::cargo_bin("provex").unwrap();
    c.env("PROVEX_FALKORDB_URL", "redis://127.0.0.1:1").arg("verify").arg(path);
    if let Some(s) = since {
        c.arg("--since").arg(s);
    }
    let out = c.output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bundles_carry_log_proofs_that_catch_forgeries_and_rewritten_history() {
    let dir = tempfile::tempdir().unwrap();
    let files = facade::write_council_files(dir.path()).unwrap();
    let files: Vec<_> = files.into_iter().filter(|f| f.extension().is_some_and(|e| e == "jsonl")).collect();
    let (provex, graph) = common::open("tlog_bundle").await;
    let keys = tempfile::tempdir().unwrap();
    provex.set_log_key_dir(keys.path().to_owned());
    ingest(&provex, &graph, &files).await;
    let key = KeyFile::from_seed("exporter-1", "urn:agent:auditor", [9; 32]);
    let key_path = dir.path().join("exporter.key");
    std::fs::write(&key_path, key.to_json()).unwrap();

    // The first bundle: every statement and verification proven in the log.
    let first = provex.bundle(&graph, &[], Some(&key_path)).await.unwrap();
    let b1: AuditBundle = serde_json::from_str(&first).unwrap();
    let log = b1.log.clone().expect("the graph has a log");
    let (size1, _) = provex.log_head(&graph).await.unwrap();
    assert!(log.checkpoint.contains(&format!("\n{size1}\n")), "{}", log.checkpoint);
    let proven: Vec<&str> = log.records.iter().map(|r| r.document.as_str()).collect();
    for st in &b1.statements {
        assert!(proven.contains(&st.as_str()), "statement {st} has no log proof");
    }
    let verifications = b1.documents.iter().filter(|d| d["@type"] == "a2ap:VerificationResponse").count();
    assert!(verifications >= 10, "{verifications}");
    let ok = check_since(&first, None);
    assert_eq!(places(&ok), Vec::<String>::new());
    let lc = ok.log.as_ref().unwrap();
    assert_eq!(lc.proven, log.records.len());
    assert_eq!(lc.size, size1);
    assert!(lc.signer.as_ref().unwrap().agent.starts_with("provex/"));
    let b1_path = dir.path().join("first.bundle.jsonld");
    std::fs::write(&b1_path, &first).unwrap();
    let cp1_path = dir.path().join("first.checkpoint");
    std::fs::write(&cp1_path, &log.checkpoint).unwrap();
    let (code, out) = verify_cli(&b1_path, None);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("documents in provex/") && out.contains(&format!("checkpoint of {size1} leaves")),
        "{out}"
    );

    // More records, then a bundle since the first: its log extends the first's.
    ingest(&provex, &graph, &[common::repo().join("examples/a2a-run.jsonl")]).await;
    let second = provex.bundle_since(&graph, &[], Some(&key_path), Some(first.as_bytes())).await.unwrap();
    let b2: AuditBundle = serde_json::from_str(&second).unwrap();
    assert!(b2.log.as_ref().unwrap().consistency.is_some());
    for since in [first.as_bytes(), log.checkpoint.as_bytes()] {
        let c = check_since(&second, Some(since));
        assert_eq!(places(&c), Vec::<String>::new());
        assert_eq!(c.log.as_ref().unwrap().since, Some(size1));
    }
    let b2_path = dir.path().join("second.bundle.jsonld");
    std::fs::write(&b2_path, &second).unwrap();
    for since in [&b1_path, &cp1_path] {
        let (code, out) = verify_cli(&b2_path, Some(since));
        assert_eq!(code, 0, "{out}");
        assert!(out.contains(&format!("extends the earlier checkpoint of {size1} leaves")), "{out}");
    }

    // Forgeries, each re-signed by the bundle's maker, each refused at its place.
    let forged = |change: &dyn Fn(&mut AuditBundle)| {
        let mut b = b2.clone();
        change(&mut b);
        check_since(&resign(&mut b, &key), Some(first.as_bytes()))
    };
    let c = forged(&|b| b.log.as_mut().unwrap().records[0].received += 1);
    assert!(
        places(&c)[0].starts_with("provex:log.records[0]: ") && places(&c)[0].contains("is not leaf"),
        "{:?}",
        places(&c)
    );
    let c = forged(&|b| {
        let r = &mut b.log.as_mut().unwrap().records[1];
        r.path[0] = provex::tlog::proof::encode_hash(&provex::tlog::Hash([7; 32]));
    });
    assert!(places(&c)[0].starts_with("provex:log.records[1]: "), "{:?}", places(&c));
    let c = forged(&|b| {
        let records = &mut b.log.as_mut().unwrap().records;
        records[2].line = records[3].line.clone();
    });
    assert!(places(&c)[0].contains("does not hold the bundle's document"), "{:?}", places(&c));
    let c = forged(&|b| {
        let l = b.log.as_mut().unwrap();
        l.checkpoint =
            l.checkpoint.replacen(&format!("\n{}\n", size1 + 31), &format!("\n{}\n", size1 + 30), 1);
    });
    assert!(
        places(&c).iter().any(|p| p.starts_with("provex:log.checkpoint: the signature does not verify")),
        "{:?}",
        places(&c)
    );
    // A checkpoint of another history of the first's size, signed by the same key.
    let other = provex.log_key().unwrap().sign(&graph, size1, provex::tlog::Hash([9; 32])).unwrap();
    let c = check_since(&second, Some(&other));
    assert!(places(&c).iter().any(|p| p.contains("starts at another checkpoint")), "{:?}", places(&c));
    assert_eq!(c.trust, provex::sources::statements::trust::TrustStatus::Failed);

    // History rewritten: the graph and its log made again from the same files without one
    // VALIDATED verification, by the same instance. Its new bundle is intact on its own,
    // and fails against what the auditor kept.
    let dropped_line = files
        .iter()
        .flat_map(|f| std::fs::read_to_string(f).unwrap().lines().map(str::to_owned).collect::<Vec<_>>())
        .find(|l| l.contains("a2ap:VerificationResponse") && l.contains("\"VALIDATED\""))
        .expect("a VALIDATED verification");
    let dropped: serde_json::Value = serde_json::from_str(&dropped_line).unwrap();
    let dropped_id = dropped["@id"].as_str().unwrap().to_owned();
    provex.delete_graph(&graph).await.unwrap();
    // Its operator may do anything with the server.
    let client = redis::Client::open(common::admin_url()).unwrap();
    let mut con = client.get_multiplexed_async_connection().await.unwrap();
    let _: () = redis::cmd("DEL")
        .arg(format!("provex:log:{graph}"))
        .arg(format!("provex:log:{graph}:checkpoint"))
        .query_async(&mut con)
        .await
        .unwrap();
    let rewritten: Vec<_> = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let kept: Vec<&str> = text.lines().filter(|l| *l != dropped_line).collect();
            let out = dir.path().join(format!("rewritten-{}", f.file_name().unwrap().to_string_lossy()));
            std::fs::write(&out, kept.join("\n") + "\n").unwrap();
            out
        })
        .collect();
    let (again, _) = common::open("tlog_bundle_again").await;
    again.set_log_key_dir(keys.path().to_owned());
    ingest(&again, &graph, &rewritten).await;
    // No consistency proof from the kept checkpoint can be made.
    assert!(again.bundle_since(&graph, &[], Some(&key_path), Some(first.as_bytes())).await.is_err());
    let third = again.bundle(&graph, &[], Some(&key_path)).await.unwrap();
    assert_eq!(places(&check_since(&third, None)), Vec::<String>::new(), "intact on its own");
    let c = check_since(&third, Some(first.as_bytes()));
    assert_eq!(c.trust, provex::sources::statements::trust::TrustStatus::Failed);
    let found = places(&c);
    assert!(found.iter().any(|p| p.contains("fewer than the earlier checkpoint's")), "{found:?}");
    let third_path = dir.path().join("third.bundle.jsonld");
    std::fs::write(&third_path, &third).unwrap();
    let (code, out) = verify_cli(&third_path, Some(&b1_path));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("records were removed"), "{out}");
    // Against the kept checkpoint alone, the same.
    let (code, _) = verify_cli(&third_path, Some(&cp1_path));
    assert_eq!(code, 1);

    // The same history grown past the kept size (more records after the rewrite): the
    // consistency proof cannot hold, and what the earlier bundle showed is missing.
    ingest(&again, &graph, &[common::repo().join("examples/a2a-run.jsonl")]).await;
    let fourth = again.bundle(&graph, &[], Some(&key_path)).await.unwrap();
    let c = check_since(&fourth, Some(first.as_bytes()));
    let found = places(&c);
    assert!(
        found.iter().any(|p| p.contains("no consistency proof from the earlier checkpoint")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|p| p.contains(&format!("{dropped_id} ")) && p.contains("is left out of this one")),
        "{found:?}"
    );
}
