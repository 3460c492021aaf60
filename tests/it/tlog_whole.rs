//! Documents read whole (a PROV-JSON file, a pretty-printed OTLP document, a JSON array of
//! A2AP documents) join the graph's log as one leaf each, the whole file as received: the
//! nodes a PROV-JSON or OTLP document gives name that leaf, its inclusion proof holds, and an
//! edit made with Cypher behind the log is named by `verify --graph`.

use base64::Engine as _;

use crate::common;
use crate::tlog::{edit_covered, ingest};

/// The leaf's time of receipt, searched for between `from` and `to` (Unix ms): the leaf is
/// the hash of the whole file as read.
fn received_between(leaf: &str, path: &std::path::Path, bytes: &[u8], from: u64, to: u64) -> Option<u64> {
    let want = base64::engine::general_purpose::STANDARD.decode(leaf).unwrap();
    (from..=to).find(|t| provex::tlog::leaf_hash(&path.to_string_lossy(), *t, bytes).0[..] == want[..])
}

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64
}

/// Regression: a PROV-JSON document read whole added no leaf to the log, and its nodes named
/// none, so `verify --graph` could not see an edit to them.
#[tokio::test(flavor = "multi_thread")]
async fn a_prov_json_document_is_one_leaf_its_nodes_name() {
    let (provex, graph) = common::open("tlog_whole_prov").await;
    let keys = tempfile::tempdir().unwrap();
    provex.set_log_key_dir(keys.path().to_owned());
    let file = common::repo().join("examples/prov/primer.json");
    let (from, _) = (now_ms(), ());
    ingest(&provex, &graph, &file).await;
    let to = now_ms();
    let (size, _) = provex.log_head(&graph).await.unwrap();
    assert_eq!(size, 1, "the whole document is one leaf");

    let t = provex
        .query(&graph, "MATCH (n) WHERE n.log_digest IS NOT NULL RETURN n.name, n.log_leaves ORDER BY n.name")
        .await
        .unwrap();
    assert!(t.rows.len() >= 5, "{:?}", t.rows);
    for row in &t.rows {
        assert_eq!(row[1], serde_json::json!([0]), "{row:?}");
    }
    let proof = provex.log_prove(&graph, 0).await.unwrap();
    provex::tlog::proof::verify_inclusion(&proof, Some(&provex.log_key().unwrap().verifier_key())).unwrap();
    let bytes = std::fs::read(&file).unwrap();
    assert!(
        received_between(&proof.leaf_hash, &file, &bytes, from, to).is_some(),
        "the leaf is the file as read"
    );

    let clean = provex.verify_graph_log(&graph).await.unwrap();
    assert!(clean.checkpoint_matches);
    assert_eq!(clean.mismatches, vec![]);
    let victim = t.rows[0][0].as_str().unwrap().to_owned();
    edit_covered(&graph, &victim).await;
    let after = provex.verify_graph_log(&graph).await.unwrap();
    let names: Vec<&str> = after.mismatches.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, vec![victim.as_str()]);
}

/// A pretty-printed OTLP document and a JSON array of A2AP documents are one leaf each too.
#[tokio::test(flavor = "multi_thread")]
async fn otlp_documents_and_a2ap_arrays_read_whole_are_one_leaf_each() {
    let (provex, graph) = common::open("tlog_whole_other").await;
    let keys = tempfile::tempdir().unwrap();
    provex.set_log_key_dir(keys.path().to_owned());
    let dir = tempfile::tempdir().unwrap();
    // One OTLP request of the fixtures, pretty-printed over many lines: read whole.
    let line =
        std::fs::read_to_string(common::repo().join("tests/data/otel/genai-tool-agent.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
    let otlp = dir.path().join("trace.json");
    std::fs::write(&otlp, serde_json::to_string_pretty(&first).unwrap()).unwrap();
    let from = now_ms();
    ingest(&provex, &graph, &otlp).await;
    let to = now_ms();
    assert_eq!(provex.log_head(&graph).await.unwrap().0, 1);
    let t =
        provex.query(&graph, "MATCH (n) WHERE n.log_digest IS NOT NULL RETURN n.log_leaves").await.unwrap();
    assert!(!t.rows.is_empty());
    assert!(t.rows.iter().all(|r| r[0] == serde_json::json!([0])), "{:?}", t.rows);
    let proof = provex.log_prove(&graph, 0).await.unwrap();
    let bytes = std::fs::read(&otlp).unwrap();
    assert!(received_between(&proof.leaf_hash, &otlp, &bytes, from, to).is_some());

    // A2AP documents as one JSON array: the file is the next leaf.
    let council = tempfile::tempdir().unwrap();
    let files = provex::facade::write_council_files(council.path()).unwrap();
    let a2ap = files.iter().find(|f| f.to_string_lossy().ends_with("-a2ap.jsonl")).expect("an A2AP file");
    let docs: Vec<serde_json::Value> = std::fs::read_to_string(a2ap)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let array = dir.path().join("documents.json");
    std::fs::write(&array, serde_json::to_string_pretty(&docs).unwrap()).unwrap();
    ingest(&provex, &graph, &array).await;
    assert_eq!(provex.log_head(&graph).await.unwrap().0, 2);
    let check = provex.verify_graph_log(&graph).await.unwrap();
    assert!(check.checkpoint_matches);
    assert_eq!(check.mismatches, vec![]);
}
