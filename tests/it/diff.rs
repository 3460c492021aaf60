//! `provex diff` on the use case: the council demo run by two agent versions, one
//! of which drops a verification and alters a quote. The diff shows exactly those, and
//! what they change in the derived state.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use provex::diff::{EdgeItem, GraphDiff, NodeItem};
use provex::facade::{self, DiffSide, Quiet};
use provex::ingest::IngestOptions;
use provex::sources::statements::stored::Envelope;
use serde_json::{json, Value};

use crate::common;

/// A genuine verification (GPT-5 validating the "parks amendment tabled" statement, the
/// 36th document), dropped by the second version.
const DROPPED: &str = "urn:uuid:69f2faa4-5c65-5a6b-9321-954263edec84";
/// The statement it verified: two verifications (the 35th, confidence 0.93, and the
/// dropped one, 0.9), both VALIDATED.
const CONTRADICTION: &str = "urn:uuid:5857aaae-2c8e-5511-9c60-a7b668981a02";
/// The forged verification, the 37th and last document: it comes in one place earlier.
const FORGED: &str = "urn:uuid:18672834-ebb1-52f9-8a14-52b50120749c";
/// The statement whose quote the second version alters (the parks shortfall), and the
/// transcript chunk its one evidence segment cites.
const ALTERED: &str = "urn:uuid:0c8bfa34-581b-5add-8255-6ebee869c70e";
const CHUNK: &str = "urn:chunk:576ddbff-4b8e-5634-921f-079d20a36d20";
const GPT5: &str = "urn:agent:gpt-5";
const QUOTE: &str = "The parks department projects a shortfall of one point two million dollars for fiscal \
                     year 2026, mostly from the Riverside Pool repairs.";
const ALTERED_QUOTE: &str =
    "The parks department projects a shortfall of one point five million dollars for \
                             fiscal year 2026, mostly from the Riverside Pool repairs.";

/// Writes the demo's files into `a/`, and into `b/` the same with the verification dropped
/// and the quote altered (the statement's signature is left as it was, as an agent that
/// edits after signing would).
pub(crate) fn two_runs(dir: &Path) -> (Vec<PathBuf>, Vec<PathBuf>, Value, Value, Value) {
    let a = facade::write_council_files(&dir.join("a")).unwrap();
    let b_dir = dir.join("b");
    std::fs::create_dir_all(&b_dir).unwrap();
    let mut b = Vec::new();
    let (mut statement_a, mut statement_b, mut forged) = (Value::Null, Value::Null, Value::Null);
    for f in &a {
        let text = std::fs::read_to_string(f).unwrap();
        let out = b_dir.join(f.file_name().unwrap());
        if f.to_string_lossy().ends_with("-a2ap.jsonl") {
            let mut lines = Vec::new();
            for line in text.lines() {
                let doc: Value = serde_json::from_str(line).unwrap();
                match doc["@id"].as_str().unwrap() {
                    DROPPED => continue,
                    ALTERED => {
                        assert_eq!(doc["evidence"][0]["quoteText"], QUOTE);
                        assert_eq!(doc["evidence"].as_array().unwrap().len(), 1);
                        statement_a = doc.clone();
                        let changed = line.replace("one point two million", "one point five million");
                        statement_b = serde_json::from_str(&changed).unwrap();
                        lines.push(changed);
                        continue;
                    }
                    FORGED => forged = doc,
                    _ => {}
                }
                lines.push(line.to_owned());
            }
            assert_eq!(text.lines().count(), 37);
            assert_eq!(text.lines().last().map(|l| l.contains(FORGED)), Some(true));
            std::fs::write(&out, lines.join("\n") + "\n").unwrap();
        } else {
            std::fs::write(&out, text).unwrap();
        }
        // The runtime events, A2AP documents and the summariser's spans (the research
        // question's stream is not part of what the two agent versions did).
        if f.extension().is_some_and(|e| e == "jsonl") && !f.to_string_lossy().ends_with("-explain.jsonl") {
            b.push(out);
        }
    }
    let a: Vec<PathBuf> = a
        .into_iter()
        .filter(|f| {
            f.extension().is_some_and(|e| e == "jsonl") && !f.to_string_lossy().ends_with("-explain.jsonl")
        })
        .collect();
    assert_eq!(a.len(), 3);
    (a, b, statement_a, statement_b, forged)
}

/// The stored document property (`a2ap:document`) of a document that arrived `arrival`th
/// (counting from 0).
fn envelope(arrival: usize, document: &Value) -> Value {
    Value::String(serde_json::to_string(&Envelope { arrival, document: document.clone() }).unwrap())
}

fn edge_ids(items: &[EdgeItem]) -> Vec<(String, String, Option<String>, String)> {
    items.iter().map(|e| (e.source.clone(), e.rel.clone(), e.kind.clone(), e.target.clone())).collect()
}

fn e(s: &str, rel: &str, kind: Option<&str>, t: &str) -> (String, String, Option<String>, String) {
    (s.into(), rel.into(), kind.map(Into::into), t.into())
}

fn node_ids(items: &[NodeItem]) -> Vec<(String, String)> {
    items.iter().map(|n| (n.label.clone(), n.name.clone())).collect()
}

/// The expected diff, item by item:
/// - the dropped verification's node, with its `PERFORMED_BY` edge to GPT-5 and its
///   `VALIDATES` edge to the statement, are removed; so is GPT-5's accountability edge
///   `VERIFIED` to that statement (drawn for each validly signed verification);
/// - the statement's consensus is now that of its one remaining verification: 0.915 → 0.93;
/// - the altered statement keeps its signature, which no longer covers its content:
///   `signature_status` valid → invalid, its quote no longer matches the transcript:
///   `evidence_status` match → mismatch (on the statement, its `CITES` edge and the cited
///   chunk), the `CITES` edge carries the new `quote_text`, and the statement's stored
///   document is the new one; being no longer validly signed, it is no longer attributed
///   to GPT-5: the `GENERATED` edge is removed; its `standing` (the headline) goes from
///   verified to invalid_signature;
/// - the forged verification arrived 37th, now 36th: its stored document's arrival number
///   is 35 instead of 36 (nothing else about it changes: it was never counted).
///
/// Nothing is added.
pub(crate) fn assert_expected(d: &GraphDiff, statement_a: &Value, statement_b: &Value, forged: &Value) {
    // First, what it means for claims: the verification dropped, the consensus it leaves,
    // the altered claim's signature and evidence, and its quote.
    let s = &d.summary;
    assert!(s.claims_added.is_empty() && s.claims_removed.is_empty() && s.verifications_added.is_empty());
    let dropped = &s.verifications_removed;
    assert_eq!(dropped.len(), 1);
    assert_eq!(
        (
            dropped[0].name.as_str(),
            dropped[0].text.as_deref(),
            dropped[0].agent.as_deref(),
            dropped[0].claim.as_deref()
        ),
        (DROPPED, Some("VALIDATED"), Some(GPT5), Some(CONTRADICTION))
    );
    let changes: Vec<(&str, &str, &str, Value, Value)> = s
        .changes
        .iter()
        .map(|c| {
            let (b, a) = (c.before.clone().unwrap(), c.after.clone().unwrap());
            (c.claim.as_deref().unwrap(), c.what.as_str(), c.label.as_str(), b, a)
        })
        .collect();
    let mut want = vec![
        (ALTERED, "standing", "Statement", json!("verified"), json!("invalid_signature")),
        (ALTERED, "signature", "Statement", json!("valid"), json!("invalid")),
        (ALTERED, "evidence", "Statement", json!("match"), json!("mismatch")),
        (ALTERED, "quote", "CITES", json!(QUOTE), json!(ALTERED_QUOTE)),
        (ALTERED, "evidence", "CITES", json!("match"), json!("mismatch")),
        (CONTRADICTION, "consensus", "Statement", json!(0.915), json!(0.93)),
    ];
    want.sort_by(|x, y| x.0.cmp(y.0));
    assert_eq!(changes, want);
    assert!(d.nodes.added.is_empty(), "{:?}", d.nodes.added);
    assert!(d.edges.added.is_empty(), "{:?}", d.edges.added);
    assert_eq!(node_ids(&d.nodes.removed), [("Verification".to_owned(), DROPPED.to_owned())]);
    let removed = &d.nodes.removed[0].props;
    assert_eq!((&removed["verdict"], &removed["confidence"]), (&json!("VALIDATED"), &json!(0.9)));
    assert_eq!(
        edge_ids(&d.edges.removed),
        [
            e(GPT5, "GENERATED", Some("WAS_ATTRIBUTED_TO"), ALTERED),
            e(GPT5, "VERIFIED", None, CONTRADICTION),
            e(DROPPED, "PERFORMED_BY", Some("WAS_ASSOCIATED_WITH"), GPT5),
            e(DROPPED, "VALIDATES", Some("USED"), CONTRADICTION),
        ]
    );
    // Claims first, then verifications, then the transcript's chunk: by importance.
    let changed = serde_json::to_value(&d.nodes.changed).unwrap();
    assert_eq!(
        changed,
        json!([
            {"label": "Statement", "name": ALTERED, "rank": 0,
             "before": {"a2ap:document": envelope(8, statement_a), "evidence_status": "match",
                        "signature_status": "valid", "standing": "verified"},
             "after": {"a2ap:document": envelope(8, statement_b), "evidence_status": "mismatch",
                       "signature_status": "invalid", "standing": "invalid_signature"}},
            {"label": "Statement", "name": CONTRADICTION, "rank": 0,
             "before": {"consensus_score": 0.915}, "after": {"consensus_score": 0.93}},
            {"label": "Verification", "name": FORGED, "rank": 1,
             "before": {"a2ap:document": envelope(36, forged)},
             "after": {"a2ap:document": envelope(35, forged)}},
            {"label": "Chunk", "name": CHUNK, "rank": 2,
             "before": {"evidence_status": "match"}, "after": {"evidence_status": "mismatch"}},
        ])
    );
    assert_eq!(
        serde_json::to_value(&d.edges.changed).unwrap(),
        json!([{
            "source": ALTERED, "type": "CITES", "kind": "WAS_DERIVED_FROM", "target": CHUNK, "rank": 0,
            "before": {"evidence_status": "match", "quote_text": QUOTE},
            "after": {"evidence_status": "mismatch", "quote_text": ALTERED_QUOTE},
        }])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn council_run_by_two_agent_versions_differs_by_the_dropped_verification_and_the_altered_quote() {
    let dir = tempfile::tempdir().unwrap();
    let (a_files, b_files, statement_a, statement_b, forged) = two_runs(dir.path());
    let (provex, graph_a) = common::open("diff_council_a").await;
    let graph_b = format!("{graph_a}_b");
    let _ = provex.delete_graph(&graph_b).await;
    for (graph, files) in [(&graph_a, &a_files), (&graph_b, &b_files)] {
        let report = provex
            .ingest(graph, files, IngestOptions::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
            .await
            .unwrap();
        assert_eq!(report.rejected, 0);
    }

    let d = provex.diff_graphs(&graph_a, &graph_b).await.unwrap();
    assert_expected(&d, &statement_a, &statement_b, &forged);
    // Both runs hold the summariser's spans: its calls are matched one by one and none
    // differs (what differs is the A2AP documents, above).
    let runs = d.traces.as_ref().expect("the summariser's spans are compared");
    assert!(runs.a.spans > 0 && runs.a.spans == runs.b.spans, "{runs:?}");
    assert_eq!(runs.matched() as u64, runs.a.spans);
    assert!(!runs.differs(), "{runs:#?}");
    assert!(runs.calls.iter().any(|c| c.label == "LlmCall"), "{runs:#?}");
    // The other way round, added and removed swap and before and after too.
    let back = provex.diff_graphs(&graph_b, &graph_a).await.unwrap();
    assert_eq!((back.nodes.added, back.nodes.removed), (d.nodes.removed.clone(), vec![]));
    assert_eq!(back.edges.added, d.edges.removed);
    assert!(provex.diff_graphs(&graph_a, &graph_a).await.unwrap().is_empty());

    // Files are normalised in memory as an ingest would write them: a file and the graph
    // ingested from it do not differ, and two files differ as their graphs do.
    let a2ap =
        |files: &[PathBuf]| files.iter().find(|f| f.to_string_lossy().ends_with("-a2ap.jsonl")).cloned();
    let events =
        |files: &[PathBuf]| files.iter().find(|f| f.to_string_lossy().ends_with("-events.jsonl")).cloned();
    let (fa, fb) = (a2ap(&a_files).unwrap(), a2ap(&b_files).unwrap());
    let file_diff = facade::diff_files(&fa, &fb).unwrap();
    assert_expected(&file_diff, &statement_a, &statement_b, &forged);
    assert!(facade::diff_files(&events(&a_files).unwrap(), &events(&b_files).unwrap()).unwrap().is_empty());
    let mut whole = facade::file_snapshot(&fa).unwrap();
    let statement_nodes = whole.nodes.len();
    let ev = facade::file_snapshot(&events(&a_files).unwrap()).unwrap();
    whole.nodes.extend(ev.nodes);
    whole.edges.extend(ev.edges);
    let otel =
        |files: &[PathBuf]| files.iter().find(|f| f.to_string_lossy().ends_with("-otel.jsonl")).cloned();
    let spans = facade::file_snapshot(&otel(&a_files).unwrap()).unwrap();
    for (k, p) in spans.nodes {
        whole.nodes.entry(k).or_default().extend(p);
    }
    for (k, p) in spans.edges {
        whole.edges.entry(k).or_default().extend(p);
    }
    // A span naming a statement does so through an `Explain` placeholder, which the store
    // folds into the statement of that name (an edge is keyed by names: it stays as it is).
    let named: std::collections::HashSet<String> =
        whole.nodes.keys().filter(|k| k.label != "Explain").map(|k| k.name.clone()).collect();
    whole.nodes.retain(|k, _| k.label != "Explain" || !named.contains(&k.name));
    let stored = provex.graph_snapshot(&graph_a).await.unwrap();
    assert_eq!(stored.nodes.len(), whole.nodes.len());
    assert!(provex::diff::diff(&whole, &stored).is_empty(), "{:#?}", provex::diff::diff(&whole, &stored));
    let mixed = provex.diff(&DiffSide::File(fa), &DiffSide::Graph(graph_b.clone())).await.unwrap();
    // Graph B also holds the events and spans, which file A does not: they are all that is added.
    assert_eq!(mixed.nodes.removed, d.nodes.removed);
    assert_eq!(mixed.nodes.changed, d.nodes.changed);
    assert_eq!(mixed.edges.changed, d.edges.changed);
    assert_eq!(mixed.nodes.added.len(), whole.nodes.len() - statement_nodes);

    let missing = provex.diff_graphs(&graph_a, "no_such_graph_for_diff").await.unwrap_err();
    assert_eq!(missing.code(), provex::api::ErrorCode::NotFound, "{missing}");
    provex.delete_graph(&graph_a).await.unwrap();
    provex.delete_graph(&graph_b).await.unwrap();
}
