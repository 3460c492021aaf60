//! The explorer's view of a graph's tamper-evident log against a real FalkorDB: a node's
//! leaves come with inclusion paths at a signed checkpoint (with when it was signed) that
//! hold offline, its line rebuilds its leaf, and `log_status` names a statement edited with
//! Cypher behind Provex's back, while `log_inclusion` says its stored form no longer matches.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use provex::facade::log_proofs::{LeafProof, LogInclusion};
use provex::facade::Quiet;
use provex::ingest::IngestOptions;
use provex::tlog::proof::{self, Inclusion, INCLUSION_TYPE};
use sha2::{Digest, Sha256};

use crate::common;

async fn ingest_council_statements(provex: &provex::facade::Provex, graph: &str) {
    let file = common::repo().join("examples/council/council-a2ap.jsonl");
    let opts = IngestOptions { bulk: false, ..Default::default() };
    provex.ingest(graph, &[file], opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet)).await.unwrap();
}

/// RFC 9162's leaf hash of a Provex log entry, written here from docs/FORMATS.md.
fn leaf_of(source: &str, received: i64, line: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update([0u8]);
    h.update((source.len() as u16).to_be_bytes());
    h.update(source.as_bytes());
    h.update((received as u64).to_be_bytes());
    h.update(line.as_bytes());
    h.finalize().into()
}

/// The inclusion proof file (docs/FORMATS.md, "Tamper-evident log") of one of a node's
/// leaves, as a browser or `provex log verify` checks it offline.
fn inclusion_file(inc: &LogInclusion, leaf: &LeafProof) -> Inclusion {
    Inclusion {
        kind: INCLUSION_TYPE.into(),
        checkpoint: inc.checkpoint.clone().unwrap(),
        index: leaf.index,
        leaf_hash: leaf.leaf_hash.clone(),
        path: leaf.path.clone(),
    }
}

fn b64(b: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(b)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_statements_inclusion_holds_offline_and_a_cypher_edit_is_named_by_the_status() {
    let (provex, graph) = common::open("log_proofs").await;
    let keys = tempfile::tempdir().unwrap();
    provex.set_log_key_dir(keys.path().to_owned());
    let before =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    ingest_council_statements(&provex, &graph).await;
    let vkey = provex.log_key().unwrap().verifier_key();

    let t = provex.query(&graph, "MATCH (s:Statement) RETURN s.name AS n ORDER BY n").await.unwrap();
    let statements: Vec<String> = t.rows.iter().map(|r| r[0].as_str().unwrap().to_owned()).collect();
    assert!(statements.len() >= 3, "{statements:?}");

    let clean = provex.log_status(&graph).await.unwrap();
    assert!(clean.complete && clean.checkpoint_matches, "{clean:?}");
    assert_eq!((clean.differing, clean.mismatches.len()), (0, 0), "{clean:?}");
    assert!(clean.nodes_checked >= statements.len() as u64);
    assert_eq!(clean.checkpoint_size, Some(clean.tree_size));
    let signed = clean.checkpoint_at.expect("the ingest's checkpoint has a time");
    assert!(signed >= before, "signed at {signed}, ingest began at {before}");

    let victim = &statements[0];
    let inc = provex.log_inclusion(&graph, victim).await.unwrap();
    assert_eq!(inc.label, "Statement");
    assert_eq!(inc.verifier_key, vkey);
    assert_eq!(inc.checkpoint_at, Some(signed), "the ingest's checkpoint is the one proved against");
    assert_eq!(inc.leaves.len(), 1, "{inc:?}");
    let leaf = &inc.leaves[0];
    // The path holds at the signed checkpoint, checked offline with the instance's key.
    let file = inclusion_file(&inc, leaf);
    let cp = proof::verify_inclusion(&file, Some(&vkey)).unwrap();
    assert_eq!(cp.size, inc.tree_size);
    // The line the node keeps hashes to that leaf, and the line holds the statement.
    let rec = inc.record.clone().expect("a statement keeps its line");
    assert_eq!(rec.index, leaf.index);
    assert_eq!(b64(&leaf_of(&rec.source, rec.received, &rec.line)), leaf.leaf_hash);
    assert!(rec.line.contains(victim.as_str()), "{}", rec.line);
    let stored = inc.stored.clone().unwrap();
    assert!(stored.matches);
    assert!(stored.values.iter().any(|v| v.name == "claim_text"), "{stored:?}");
    // Another leaf's index with this path does not hold.
    let mut forged = file.clone();
    forged.index = (leaf.index + 1) % inc.tree_size;
    assert!(proof::verify_inclusion(&forged, Some(&vkey)).is_err());

    // A node that came from no logged record has no leaves, and an unknown one is not found.
    assert!(matches!(
        provex.log_inclusion(&graph, "no-such-node").await,
        Err(provex::error::Error::NotFound { .. })
    ));

    // A claim rewritten with Cypher, as someone with access to FalkorDB would.
    let client = redis::Client::open(common::url()).unwrap();
    let mut con = client.get_multiplexed_async_connection().await.unwrap();
    let q = format!(
        "MATCH (s:Statement {{name: '{victim}'}}) SET s.claim_text = 'the opposite of what was signed'"
    );
    let _: redis::Value = redis::cmd("GRAPH.QUERY").arg(&graph).arg(q).query_async(&mut con).await.unwrap();

    let after = provex.log_status(&graph).await.unwrap();
    assert!(after.complete && after.checkpoint_matches, "the log itself is untouched: {after:?}");
    assert_eq!(after.differing, 1, "{after:?}");
    let names: Vec<&str> = after.mismatches.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, vec![victim.as_str()]);
    assert_eq!(after.mismatches[0].label, "Statement");
    assert_eq!(after.mismatches[0].leaves, vec![leaf.index as i64]);

    let edited = provex.log_inclusion(&graph, victim).await.unwrap();
    let stored = edited.stored.unwrap();
    assert!(!stored.matches, "the edited statement no longer matches its digest");
    let claim = stored.values.iter().find(|v| v.name == "claim_text").unwrap();
    assert_eq!(claim.json, "\"the opposite of what was signed\"");
    // Its leaf is still in the log: the log shows what was received, the store was changed.
    assert_eq!(edited.leaves, inc.leaves);

    // A graph not made yet answers an empty status, not an error (a page may open it before
    // its first record arrives).
    let empty = provex.log_status(&format!("{graph}_not_yet")).await.unwrap();
    assert_eq!((empty.tree_size, empty.nodes_checked, empty.differing, empty.complete), (0, 0, 0, true));
    assert!(empty.checkpoint_matches);

    // Under no time at all, the first page is still read (the graph is one page).
    let quick = provex.log_status_within(&graph, std::time::Duration::ZERO).await.unwrap();
    assert_eq!((quick.complete, quick.differing), (true, 1), "{quick:?}");
}

/// Regression: the council demo streamed its records past the log, so the explorer said
/// "not in the log" for every node of the graph most people open first. Its records now join
/// the log as an ingest's do, its statements prove their inclusion offline, and its store
/// matches its log.
#[tokio::test(flavor = "multi_thread")]
async fn the_council_demo_is_logged_and_matches_its_log() {
    let (provex, graph) = common::open("log_proofs_demo").await;
    let keys = tempfile::tempdir().unwrap();
    provex.set_log_key_dir(keys.path().to_owned());
    provex.demo_council(&graph, None, Arc::new(AtomicBool::new(false))).await.unwrap();
    let vkey = provex.log_key().unwrap().verifier_key();

    let status = provex.log_status(&graph).await.unwrap();
    assert!(status.tree_size > 100, "{status:?}");
    assert!(status.complete && status.checkpoint_matches, "{status:?}");
    assert_eq!(status.differing, 0, "{:?}", status.mismatches);
    assert!(status.nodes_checked > 100, "{status:?}");
    assert!(status.checkpoint_at.is_some());

    let t = provex.query(&graph, "MATCH (s:Statement) RETURN s.name AS n ORDER BY n").await.unwrap();
    assert!(t.rows.len() >= 3);
    for row in &t.rows {
        let name = row[0].as_str().unwrap();
        let inc = provex.log_inclusion(&graph, name).await.unwrap();
        assert_eq!(inc.leaves.len(), 1, "{name}: {inc:?}");
        let leaf = &inc.leaves[0];
        let file = inclusion_file(&inc, leaf);
        proof::verify_inclusion(&file, Some(&vkey)).unwrap();
        let rec = inc.record.expect("a statement keeps its line");
        assert_eq!(rec.source, "council-a2ap.jsonl");
        assert_eq!(b64(&leaf_of(&rec.source, rec.received, &rec.line)), leaf.leaf_hash, "{name}");
        assert!(inc.stored.unwrap().matches, "{name}");
    }
    // Nodes of the other streams name leaves too (an A2A task, a span).
    let others = provex
        .query(&graph, "MATCH (n) WHERE n.log_leaves IS NOT NULL AND NOT n:Statement RETURN count(n) AS c")
        .await
        .unwrap();
    assert!(others.rows[0][0].as_u64().unwrap() > 50, "{others:?}");
}
