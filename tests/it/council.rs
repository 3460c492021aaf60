//! The council-meeting demo end to end: its files verify exactly as designed from the CLI,
//! it ingests into FalkorDB (at once, paced, or from its files), and the trails and the
//! re-verification read back from the graph match the design.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use assert_cmd::Command;
use provex::demo::council;
use provex::facade::Quiet;
use provex::ingest::IngestOptions;
use provex::sources::statements::{EvidenceStatus, SignatureStatus, Standing};

use crate::common;

fn cli() -> Command {
    let mut c = Command::cargo_bin("provex").unwrap();
    c.arg("--falkordb").arg(common::url());
    c
}

fn failed_ids(report: &serde_json::Value) -> Vec<String> {
    report["documents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| {
            let sig = d["signature"].as_str();
            let bad_sig = sig.is_some_and(|s| s != "valid");
            let bad_evidence = d["evidence"].as_array().unwrap().iter().any(|e| e["status"] == "mismatch");
            bad_sig || bad_evidence
        })
        .map(|d| d["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn demo_files_verify_as_designed_from_the_cli() {
    let demo = council::generate();
    let dir = tempfile::tempdir().unwrap();
    // --out alone writes the files and needs no database.
    let out = Command::cargo_bin("provex")
        .unwrap()
        .args(["--falkordb", "redis://127.0.0.1:1", "demo", "council", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let a2ap = dir.path().join("council-a2ap.jsonl");
    let keys = dir.path().join("council-keys.json");
    assert_eq!(std::fs::read_to_string(&a2ap).unwrap(), demo.a2ap_jsonl());

    let out =
        cli().arg("verify").arg(&a2ap).arg("--keys").arg(&keys).args(["--format", "json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "the altered quote and the forged verification fail");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut failed = failed_ids(&report);
    failed.sort();
    let mut want = vec![demo.statements.parking_study_altered.clone(), demo.forged_verification.clone()];
    want.sort();
    assert_eq!(failed, want);
    let statements: Vec<&serde_json::Value> = report["documents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["type"] == "a2ap:ProvenanceStatement")
        .collect();
    assert!(statements.iter().all(|d| d["consensus"].is_number() && d["verified"].is_boolean()));

    // Without the registry the keys are unknown: every signature fails.
    let out = cli().arg("verify").arg(&a2ap).args(["--format", "json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    // Text and table formats, and a missing file (exit 2).
    for format in ["text", "table"] {
        let out = cli()
            .arg("verify")
            .arg(&a2ap)
            .arg("--keys")
            .arg(&keys)
            .args(["--format", format])
            .output()
            .unwrap();
        assert!(String::from_utf8_lossy(&out.stdout).contains(&demo.forged_verification), "{format}");
    }
    let out = cli().args(["verify", "/no/such/file.jsonl"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[tokio::test(flavor = "multi_thread")]
async fn demo_into_falkordb_gives_the_designed_trails() {
    let demo = council::generate();
    let s = &demo.statements;
    let (provex, graph) = common::open("council").await;
    let report = provex.demo_council(&graph, None, Arc::new(AtomicBool::new(false))).await.unwrap();
    assert_eq!(
        (report.events, report.documents),
        (131, 37),
        "{report:?}: 123 runtime events, 7 explain messages, 1 span export request"
    );
    let stats = provex.stats(&graph).await.unwrap();
    assert_eq!(stats.labels["Statement"], 8);
    assert_eq!(stats.labels["Verification"], 17);
    assert_eq!(
        stats.labels["LlmCall"],
        36 + 1,
        "the runtime events and the summariser's spans are in the same graph"
    );
    let challenged = provex
        .query(&graph, "MATCH (:Agent)-[:CHALLENGED]->(s:Statement) RETURN DISTINCT s.name ORDER BY s.name")
        .await
        .unwrap();
    // The bike-lane claim, and the parks claim the Claude verifier contradicts.
    let mut want = vec![s.bike_pilot_march.clone(), s.parks_approved.clone()];
    want.sort();
    let want: Vec<Vec<serde_json::Value>> = want.into_iter().map(|id| vec![serde_json::json!(id)]).collect();
    assert_eq!(challenged.rows, want);
    assert_eq!(stats.relationships["CONTRADICTS"], 1);

    // The challenged claim: its trail, in time order, with the consensus after each step.
    let trail = provex.trail(&graph, &s.bike_pilot_march).await.unwrap();
    assert!(!trail.verified);
    assert!((trail.consensus - 0.31).abs() < 1e-9);
    let verdicts: Vec<&str> = trail.verifications.iter().map(|v| v.verdict.as_str()).collect();
    assert_eq!(verdicts, vec!["VALIDATED", "CHALLENGED"]);
    let times: Vec<_> = trail.verifications.iter().map(|v| v.time.clone()).collect();
    let mut sorted = times.clone();
    sorted.sort();
    assert_eq!(times, sorted);
    assert_eq!(trail.verifications.last().unwrap().consensus_after, trail.consensus);
    let ev = &trail.evidence[0];
    assert_eq!(ev.status, EvidenceStatus::Match);
    assert!(ev.timestamp.is_some(), "quotes carry their hh:mm:ss");
    assert!(ev.document.available);

    // The altered quote, and the forged verification left out of the consensus.
    let altered = provex.trail(&graph, &s.parking_study_altered).await.unwrap();
    assert_eq!(altered.signature, SignatureStatus::Invalid);
    assert_eq!(altered.evidence[0].status, EvidenceStatus::Mismatch);
    // Its consensus alone reaches the threshold (`verified` as the format defines it), but
    // its headline is the worst thing true of it: the invalid signature, never "verified".
    assert!(altered.verified && (altered.consensus - 0.89).abs() < 1e-9, "{altered:?}");
    assert_eq!(altered.standing, Standing::InvalidSignature);
    assert_eq!(trail.standing, Standing::Challenged, "the bike-lane claim");
    assert_eq!(provex.trail(&graph, &s.rezoning_approved).await.unwrap().standing, Standing::Verified);
    // The graph keeps the same standing beside `verified`, and the view carries it.
    let stored = provex
        .query(&graph, "MATCH (s:Statement) RETURN s.name, s.standing, s.verified ORDER BY s.name")
        .await
        .unwrap();
    assert_eq!(stored.rows.len(), 8);
    for row in &stored.rows {
        let t = provex.trail(&graph, row[0].as_str().unwrap()).await.unwrap();
        assert_eq!(row[1], serde_json::json!(t.standing.as_str()), "{row:?}");
        assert_eq!(row[2], serde_json::json!(t.verified), "{row:?}");
    }
    let view = provex.view(&graph, provex::facade::ViewRequest::default()).await.unwrap();
    let node = view.nodes.iter().find(|n| n.id == s.parking_study_altered).unwrap();
    assert_eq!(node.standing.as_deref(), Some("invalid_signature"));
    let parks = provex.trail(&graph, &s.parks_approved).await.unwrap();
    let forged = parks.verifications.iter().find(|v| v.verification_id == demo.forged_verification).unwrap();
    assert_eq!(forged.signature, SignatureStatus::Invalid);
    assert!(!forged.counted);
    assert_eq!(parks.consensus, 0.0);
    assert_eq!(parks.contradicted_by, vec![s.parks_tabled.clone()]);

    // Re-verifying what the graph holds gives the same failures as the files.
    let stored = provex.verify_graph(&graph, None).await.unwrap();
    let mut failed: Vec<&str> = stored.documents.iter().filter(|d| d.failed).map(|d| d.id.as_str()).collect();
    failed.sort();
    let mut want = vec![s.parking_study_altered.as_str(), demo.forged_verification.as_str()];
    want.sort();
    assert_eq!(failed, want);
    assert_eq!(stored.summary.statements, 8);

    // Running the demo again changes nothing.
    let before = common::graph_text(&provex, &graph).await;
    provex.demo_council(&graph, None, Arc::new(AtomicBool::new(false))).await.unwrap();
    assert_eq!(before, common::graph_text(&provex, &graph).await);
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn demo_files_ingest_like_the_demo_stream() {
    let (provex, graph) = common::open("council_files").await;
    let dir = tempfile::tempdir().unwrap();
    let files = provex::facade::write_council_files(dir.path()).unwrap();
    let opts = IngestOptions { keys: Some(dir.path().join("council-keys.json")), ..Default::default() };
    let report = provex
        .ingest(
            &graph,
            &[files[0].clone(), files[1].clone(), files[4].clone(), files[5].clone()],
            opts,
            Arc::new(AtomicBool::new(false)),
            Arc::new(Quiet),
        )
        .await
        .unwrap();
    assert_eq!(report.rejected, 0);
    assert_eq!(report.files[0].format, "a2a");
    assert_eq!(report.files[1].format, "a2ap");
    assert_eq!(report.files[2].format, "trustgraph");
    assert_eq!(report.files[3].format, "otlp");
    let (streamed, stream_graph) = common::open("council_stream").await;
    streamed.demo_council(&stream_graph, None, Arc::new(AtomicBool::new(false))).await.unwrap();
    assert_eq!(common::graph_text(&provex, &graph).await, common::graph_text(&streamed, &stream_graph).await);

    // The trail from the CLI, as JSON.
    let s = council::generate().statements;
    let out =
        cli().args(["trail", &s.bike_pilot_march, "--graph", &graph, "--format", "json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let trail: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(trail["verified"], false);
    assert_eq!(trail["standing"], "challenged");
    // The parking-study claim headlines its invalid signature, not its consensus.
    let out = cli().args(["trail", &s.parking_study_altered, "--graph", &graph]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let headline = text.lines().next().unwrap();
    assert!(headline.starts_with("INVALID SIGNATURE"), "{text}");
    assert!(!text.to_lowercase().contains("verified"), "no line calls it verified: {text}");
    let out = cli()
        .args(["trail", &s.parking_study_altered, "--graph", &graph, "--format", "json"])
        .output()
        .unwrap();
    let trail: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (&trail["verified"], &trail["standing"]),
        (&serde_json::json!(true), &serde_json::json!("invalid_signature"))
    );
    let out = cli().args(["verify", "--graph", &graph, "--format", "json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    provex.delete_graph(&graph).await.unwrap();
    streamed.delete_graph(&stream_graph).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn paced_demo_streams_deltas_over_time() {
    let (provex, graph) = common::open("council_paced").await;
    let provex = Arc::new(provex);
    let mut rx = provex.subscribe();
    let run = {
        let (p, g) = (provex.clone(), graph.clone());
        tokio::spawn(async move { p.demo_council(&g, Some(5), Arc::new(AtomicBool::new(false))).await })
    };
    let mut batches = 0;
    let mut last_seq = 0;
    let started = std::time::Instant::now();
    while let Ok(Ok(batch)) = tokio::time::timeout(Duration::from_secs(5), rx.recv()).await {
        assert!(batch.seq > last_seq);
        last_seq = batch.seq;
        if batch.graph == graph {
            batches += 1;
        }
        if run.is_finished() && rx.is_empty() {
            break;
        }
    }
    run.await.unwrap().unwrap();
    let records = council::generate().records.len();
    assert_eq!((batches, records), (168, 168), "one write per record");
    assert!(started.elapsed() >= Duration::from_millis(5 * (records as u64 - 1)));
    provex.delete_graph(&graph).await.unwrap();
}

#[test]
fn layout_from_a_trace_file_and_from_the_graph() {
    let graph = format!("t_layout_{}", std::process::id());
    let example = common::repo().join("examples/a2a-run.jsonl");
    cli().args(["ingest", "--graph", &graph]).arg(&example).assert().success();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("trace.json");
    let out = cli()
        .args(["trace", "artifact:art-figures-q3", "--graph", &graph, "--format", "json"])
        .output()
        .unwrap();
    std::fs::write(&trace, &out.stdout).unwrap();
    let sub: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();

    let out = cli().args(["layout", "--input"]).arg(&trace).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let layout: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(layout["nodes"].as_array().unwrap().len(), sub["nodes"].as_array().unwrap().len());
    assert_eq!(layout["edges"].as_array().unwrap().len(), sub["edges"].as_array().unwrap().len());
    for e in layout["edges"].as_array().unwrap() {
        assert!(e["points"].as_array().unwrap().len() >= 2);
    }
    let out = cli()
        .args(["layout", "--input"])
        .arg(&trace)
        .args(["--format", "svg", "--direction", "right"])
        .output()
        .unwrap();
    let svg = String::from_utf8(out.stdout).unwrap();
    assert!(svg.starts_with("<svg") || svg.starts_with("<?xml"), "{}", &svg[..svg.len().min(80)]);
    assert!(svg.contains("artifact:art-figures-q3"));

    let out = cli()
        .args(["layout", "--graph", &graph, "--root", "task_execution_task-research-q3", "--depth", "1"])
        .output()
        .unwrap();
    let around: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> =
        around["nodes"].as_array().unwrap().iter().map(|n| n["id"].as_str().unwrap()).collect();
    assert!(ids.contains(&"task:task-research-q3") && ids.contains(&"llm_call:evt-0015"), "{ids:?}");
    let out = cli().args(["layout", "--graph", &graph]).output().unwrap();
    let whole: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(whole["nodes"].as_array().unwrap().len(), 61);
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"nodes":[{"id":"a"}],"edges":[{"source":"a","target":"zz"}]}"#).unwrap();
    let out = cli().args(["layout", "--input"]).arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("zz"));
}

/// Search finds nodes by what the UI says about them, not only by their text: "forged" the
/// forged verification, "altered" and "mismatch" the altered claim and its quote,
/// "challenged" the challenged claims and the challenges, "invalid" the forged verification
/// and the altered claim; each before any node whose text merely contains the word.
#[tokio::test(flavor = "multi_thread")]
async fn search_finds_verdicts_signatures_and_evidence_problems() {
    let demo = council::generate();
    let s = &demo.statements;
    let (provex, graph) = common::open("council_search").await;
    provex.demo_council(&graph, None, Arc::new(AtomicBool::new(false))).await.unwrap();
    let ids = |hits: &[provex::api::SearchHit]| hits.iter().map(|h| h.id.clone()).collect::<Vec<_>>();
    let column = |rows: provex::store::Table| -> Vec<String> {
        rows.rows.into_iter().map(|r| r[0].as_str().unwrap().to_owned()).collect()
    };

    let forged = provex.search(&graph, "forged", 20).await.unwrap();
    assert_eq!(ids(&forged), vec![demo.forged_verification.clone()], "{forged:?}");
    assert_eq!(forged[0].label, "Verification");
    assert_eq!(forged[0].field, "signature");
    assert!(forged[0].snippet.starts_with("Forged verification"), "{}", forged[0].snippet);

    let mismatching_quotes = column(
        provex.query(&graph, "MATCH (c:Chunk {evidence_status: 'mismatch'}) RETURN c.name").await.unwrap(),
    );
    assert_eq!(mismatching_quotes.len(), 1);
    for word in ["altered", "mismatch"] {
        let hits = provex.search(&graph, word, 20).await.unwrap();
        let found = ids(&hits);
        assert_eq!(found[0], s.parking_study_altered, "{word}: {hits:?}");
        assert!(found.contains(&mismatching_quotes[0]), "{word}: the quote: {hits:?}");
        assert!(
            hits.iter().take(2).all(|h| h.field == "signature" || h.field == "evidence"),
            "{word}: {hits:?}"
        );
    }

    let challenged = provex.search(&graph, "challenged", 50).await.unwrap();
    let found = ids(&challenged);
    let challenges = column(
        provex
            .query(&graph, "MATCH (v:Verification) WHERE v.verdict = 'CHALLENGED' RETURN v.name")
            .await
            .unwrap(),
    );
    let want_claims = [s.bike_pilot_march.clone(), s.parks_approved.clone()];
    let n = want_claims.len() + challenges.len();
    let mut first: Vec<String> = found[..n].to_vec();
    first.sort();
    let mut want: Vec<String> = want_claims.iter().chain(&challenges).cloned().collect();
    want.sort();
    assert_eq!(first, want, "challenged claims and challenges come first: {challenged:?}");
    assert!(challenged[..n].iter().all(|h| h.field == "verdict"));

    let invalid = ids(&provex.search(&graph, "invalid", 20).await.unwrap());
    assert_eq!(
        invalid[..2].to_vec(),
        vec![demo.forged_verification.clone(), s.parking_study_altered.clone()]
    );
    // Text search still works, after the problems (none named here).
    let text = provex.search(&graph, "bike lane", 20).await.unwrap();
    assert!(text.iter().any(|h| h.id == s.bike_pilot_march), "{text:?}");
    provex.delete_graph(&graph).await.unwrap();
}
