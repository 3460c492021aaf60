//! The tamper-evident log of a graph against a real FalkorDB: leaves appended per record
//! accepted, nodes naming their leaves, signed checkpoints, inclusion and consistency
//! proofs that hold offline, and `verify --graph` naming a node edited with Cypher behind
//! Provex's back.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use assert_cmd::Command;
use provex::facade::Quiet;
use provex::ingest::IngestOptions;
use provex::tlog::proof::{self, ProofFile};

use crate::common;

fn example() -> std::path::PathBuf {
    common::repo().join("examples/a2a-run.jsonl")
}

pub(crate) async fn ingest(provex: &provex::facade::Provex, graph: &str, file: &std::path::Path) {
    let opts = IngestOptions { bulk: false, ..Default::default() };
    provex
        .ingest(graph, &[file.to_owned()], opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
}

/// Sets a property with Cypher, as someone with access to FalkorDB would.
pub(crate) async fn cypher_write(graph: &str, query: &str) {
    let client = redis::Client::open(common::url()).unwrap();
    let mut con = client.get_multiplexed_async_connection().await.unwrap();
    let _: redis::Value =
        redis::cmd("GRAPH.QUERY").arg(graph).arg(query).query_async(&mut con).await.unwrap();
}

/// Changes the first property a node's log digest covers, with Cypher.
pub(crate) async fn edit_covered(graph: &str, node: &str) {
    let client = redis::Client::open(common::url()).unwrap();
    let mut con = client.get_multiplexed_async_connection().await.unwrap();
    let q = format!("MATCH (n {{name: '{node}'}}) RETURN n.log_digest");
    let v: redis::Value = redis::cmd("GRAPH.RO_QUERY").arg(graph).arg(q).query_async(&mut con).await.unwrap();
    let text = format!("{v:?}");
    let names = text.split('|').nth(1).expect("a digest");
    let first: String = names.chars().take_while(|c| *c != ' ' && *c != '"' && *c != ')').collect();
    assert!(!first.is_empty(), "{text}");
    cypher_write(graph, &format!("MATCH (n {{name: '{node}'}}) SET n.`{first}` = 'edited'")).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn records_become_leaves_and_proofs_hold_offline() {
    let (provex, graph) = common::open("tlog_proofs").await;
    let keys = tempfile::tempdir().unwrap();
    provex.set_log_key_dir(keys.path().to_owned());
    let vkey = provex.log_key().unwrap().verifier_key();

    ingest(&provex, &graph, &example()).await;
    // One leaf per accepted line, and a checkpoint signed after the ingest.
    let (size, _) = provex.log_head(&graph).await.unwrap();
    assert_eq!(size, 31);
    let first = provex.log_checkpoint(&graph).await.unwrap();
    let cp = provex::tlog::checkpoint::open(&first, Some(&vkey)).unwrap();
    assert_eq!(cp.size, 31);
    assert!(cp.origin.ends_with(&format!("/{graph}")), "{}", cp.origin);

    // Nodes name the leaves they came from.
    let t = provex
        .query(&graph, "MATCH (n) WHERE n.log_leaves IS NOT NULL RETURN n.name AS n, n.log_leaves AS l")
        .await
        .unwrap();
    assert!(t.rows.len() > 30, "{} nodes name leaves", t.rows.len());
    for row in &t.rows {
        for l in row[1].as_array().unwrap() {
            assert!(l.as_u64().unwrap() < 31, "{row:?}");
        }
    }

    // Every leaf's inclusion proof holds offline, signed by the instance.
    for i in [0u64, 1, 15, 30] {
        let p = provex.log_prove(&graph, i).await.unwrap();
        let text = serde_json::to_vec(&p).unwrap();
        let ProofFile::Inclusion(back) = proof::parse(&text).unwrap() else { panic!("kind") };
        proof::verify_inclusion(&back, Some(&vkey)).unwrap();
        // Another leaf's hash is not at this index.
        let mut forged = back.clone();
        forged.leaf_hash = provex.log_prove(&graph, (i + 1) % 31).await.unwrap().leaf_hash;
        assert!(proof::verify_inclusion(&forged, Some(&vkey)).is_err());
    }

    // More records: the log grows, and the new checkpoint extends the first.
    let dir = tempfile::tempdir().unwrap();
    let more = common::file_with(
        &dir,
        "more.jsonl",
        &[
            r#"{"Global":{"id":"e-more","context_id":"c","timestamp_ms":1,"data":{"AgentBooted":{"agent_id":"a-more","agent_type":"clerk","agent_version":"1","archive_path":"p"}}}}"#,
        ],
    );
    ingest(&provex, &graph, &more).await;
    let c = provex.log_consistency(&graph, &first).await.unwrap();
    let (old, new) = proof::verify_consistency(&c, Some(&vkey)).unwrap();
    assert_eq!((old.size, new.size), (31, 32));
    // A checkpoint of another history of 31 leaves is not extended by this log.
    let other = provex.log_key().unwrap().sign(&graph, 31, provex::tlog::Hash([9; 32])).unwrap();
    let mut forged = c.clone();
    forged.old = String::from_utf8(other).unwrap();
    assert!(proof::verify_consistency(&forged, Some(&vkey)).is_err());
}

/// Regression: a statement (here an agent's record) edited directly in FalkorDB with Cypher
/// went unnoticed; `verify --graph` now names the node whose stored form no longer matches.
#[tokio::test(flavor = "multi_thread")]
async fn verify_graph_names_a_node_edited_with_cypher() {
    let (provex, graph) = common::open("tlog_tamper").await;
    let keys = tempfile::tempdir().unwrap();
    provex.set_log_key_dir(keys.path().to_owned());
    ingest(&provex, &graph, &example()).await;
    let clean = provex.verify_graph_log(&graph).await.unwrap();
    assert!(clean.checkpoint_matches);
    assert!(clean.nodes_checked > 30);
    assert_eq!(clean.mismatches, vec![], "an untouched graph matches its log");

    let t = provex
        .query(&graph, "MATCH (n) WHERE n.log_digest IS NOT NULL RETURN n.name AS n ORDER BY n.name LIMIT 1")
        .await
        .unwrap();
    let victim = t.rows[0][0].as_str().unwrap().to_owned();
    edit_covered(&graph, &victim).await;

    let after = provex.verify_graph_log(&graph).await.unwrap();
    let names: Vec<&str> = after.mismatches.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, vec![victim.as_str()]);
    assert!(!after.mismatches[0].leaves.is_empty());
}

/// Regression: `verify --graph` read every node in one query, which a graph of a million
/// nodes made outlast the server's time limit; it reads them a page of node ids at a time,
/// and a change on any page is found.
#[tokio::test(flavor = "multi_thread")]
async fn verify_graph_reads_the_graph_page_by_page() {
    let (provex, graph) = common::open("tlog_pages").await;
    let keys = tempfile::tempdir().unwrap();
    provex.set_log_key_dir(keys.path().to_owned());
    ingest(&provex, &graph, &example()).await;
    let whole = provex.verify_graph_log(&graph).await.unwrap();
    provex.set_log_verify_page(3);
    let paged = provex.verify_graph_log(&graph).await.unwrap();
    assert_eq!(paged, whole);
    let t = provex
        .query(&graph, "MATCH (n) WHERE n.log_digest IS NOT NULL RETURN n.name ORDER BY ID(n) DESC LIMIT 1")
        .await
        .unwrap();
    let last = t.rows[0][0].as_str().unwrap().to_owned();
    edit_covered(&graph, &last).await;
    let after = provex.verify_graph_log(&graph).await.unwrap();
    let names: Vec<&str> = after.mismatches.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, vec![last.as_str()]);
}

/// Every source of the council demo in one graph (A2A events, A2AP documents, a TrustGraph
/// stream whose placeholders are folded into statements): nothing is reported as changed
/// behind the log when nobody changed anything, and ingesting again keeps it so.
#[tokio::test(flavor = "multi_thread")]
async fn a_graph_of_every_source_matches_its_log() {
    let (provex, graph) = common::open("tlog_council").await;
    let keys = tempfile::tempdir().unwrap();
    provex.set_log_key_dir(keys.path().to_owned());
    let council = common::repo().join("examples/council");
    let mut files: Vec<_> = std::fs::read_dir(&council)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    assert!(files.len() >= 3, "{files:?}");
    // The other sources' examples, and a prompt tracked later that turns a head into a parent.
    let dir = tempfile::tempdir().unwrap();
    let later = common::file_with(
        &dir,
        "later.jsonl",
        &[
            r#"{"prompt_content": "Translate this poem into French verse.", "session_id": "9311309e-6cef-5d4b-9d03-789d1c4d255d", "parent_prompt_id": "8694045c-6322-533a-949a-567537b80d2f", "evolution_type": "derives", "timestamp": "2026-11-09T11:00:00Z"}"#,
        ],
    );
    for f in [
        "lineage/summarise-prompt.jsonl",
        "prov/primer.json",
        "trustgraph/graphrag.jsonl",
        "trustgraph/react.jsonl",
    ] {
        files.push(common::repo().join("examples").join(f));
    }
    files.push(later);
    for round in 0..2 {
        for f in &files {
            ingest(&provex, &graph, f).await;
        }
        let check = provex.verify_graph_log(&graph).await.unwrap();
        assert!(check.checkpoint_matches, "round {round}");
        assert!(check.nodes_checked > 0);
        assert_eq!(check.mismatches, vec![], "round {round}");
        let status = provex.log_status(&graph).await.unwrap();
        assert!(status.checkpoint_matches && status.complete, "round {round}: {status:?}");
        assert_eq!(status.differing, 0, "round {round}: {status:?}");
    }
}

fn provex_cli(data: &std::path::Path) -> Command {
    let mut c = Command::cargo_bin("provex").unwrap();
    c.arg("--falkordb").arg(common::url()).env("PROVEX_DATA_DIR", data);
    c
}

#[test]
fn the_cli_makes_and_checks_proofs_offline() {
    let graph = format!("t_tlog_cli_{}", std::process::id());
    let data = tempfile::tempdir().unwrap();
    let out = provex_cli(data.path()).args(["ingest", "--graph", &graph]).arg(example()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));

    let cp = data.path().join("cp.txt");
    let out =
        provex_cli(data.path()).args(["log", "checkpoint", "-g", &graph, "--out"]).arg(&cp).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let key = provex_cli(data.path()).args(["log", "key"]).output().unwrap();
    let key = String::from_utf8(key.stdout).unwrap();
    assert!(key.starts_with("provex/"), "{key}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(data.path().join("log-key.json")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    let node = "task_execution_task-research-q3";
    let pf = data.path().join("proof.json");
    let out = provex_cli(data.path())
        .args(["log", "prove", "-g", &graph, "--node", node, "--out"])
        .arg(&pf)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));

    // Offline: no database named, no data folder.
    let offline = || {
        let mut c = Command::cargo_bin("provex").unwrap();
        c.env("PROVEX_FALKORDB_URL", "redis://127.0.0.1:1");
        c
    };
    let out = offline().args(["log", "verify"]).arg(&pf).args(["--key", key.trim()]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("is in provex/"));

    // A proof whose path was changed fails, saying why.
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&pf).unwrap()).unwrap();
    v["index"] = serde_json::json!(v["index"].as_u64().unwrap() ^ 1);
    let bad = data.path().join("bad.json");
    std::fs::write(&bad, v.to_string()).unwrap();
    let out = offline().args(["log", "verify"]).arg(&bad).args(["--key", key.trim()]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("does not hold"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    // Consistency from the kept checkpoint, after more records.
    let out = provex_cli(data.path()).args(["ingest", "--graph", &graph]).arg(example()).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let cf = data.path().join("consistency.json");
    let out = provex_cli(data.path())
        .args(["log", "consistency", "-g", &graph, "--since"])
        .arg(&cp)
        .arg("--out")
        .arg(&cf)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let out = offline().args(["log", "verify"]).arg(&cf).args(["--key", key.trim()]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("at size 62 extends size 31"));

    // verify --graph: clean, then a node edited with Cypher is named (exit 1).
    let out = provex_cli(data.path()).args(["log", "verify", "-g", &graph]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(edit_covered(&graph, node));
    let out = provex_cli(data.path()).args(["verify", "--graph", &graph]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains(&format!("changed behind the log: {node}")), "{text}");
}

/// Regression: the nodes made from A2AP documents (statements, verifications, sources,
/// agents' records) named no leaf of the log, so a statement's claim edited with Cypher went
/// unnoticed by `verify --graph`. Each now names the leaf of its line and a digest of its
/// document and what is read from it; a small batch size spreads the documents over many
/// batches, and the graph still matches its log after a second session ingests it again.
#[tokio::test(flavor = "multi_thread")]
async fn a2ap_statement_nodes_name_their_leaves_and_a_changed_claim_is_caught() {
    let (provex, graph) = common::open("tlog_a2ap").await;
    let keys = tempfile::tempdir().unwrap();
    provex.set_log_key_dir(keys.path().to_owned());
    let file = common::repo().join("examples/council/council-a2ap.jsonl");
    let opts = IngestOptions { bulk: false, batch_events: 5, ..Default::default() };
    provex
        .ingest(&graph, std::slice::from_ref(&file), opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();

    let (size, _) = provex.log_head(&graph).await.unwrap();
    let lines = std::fs::read_to_string(&file).unwrap().lines().filter(|l| !l.trim().is_empty()).count();
    assert_eq!(size, lines as u64, "one leaf per line");
    let t = provex
        .query(
            &graph,
            "MATCH (n) WHERE n.`a2ap:document` IS NOT NULL \
             RETURN labels(n)[0] AS l, n.name AS n, n.log_leaves AS leaves, n.log_digest AS d, n.`a2ap:document` AS doc",
        )
        .await
        .unwrap();
    let mut statements = Vec::new();
    for row in &t.rows {
        let leaves = row[2].as_array().unwrap_or_else(|| panic!("{row:?} names no leaf"));
        assert_eq!(leaves.len(), 1, "{row:?}");
        let leaf = leaves[0].as_u64().unwrap();
        assert!(leaf < size, "{row:?}");
        // The leaf is the line the document came in on: its line holds the document's @id.
        let line = std::fs::read_to_string(&file).unwrap().lines().nth(leaf as usize).unwrap().to_owned();
        assert!(
            line.contains(&format!("\"{}\"", row[1].as_str().unwrap())),
            "{row:?} at leaf {leaf}: {line}"
        );
        let digest = row[3].as_str().unwrap();
        assert!(digest.contains("a2ap:document"), "{digest}");
        if row[0] == "Statement" {
            assert!(digest.contains("claim_text"), "{digest}");
            statements.push(row[1].as_str().unwrap().to_owned());
        }
    }
    assert!(statements.len() >= 3, "{statements:?}");
    let clean = provex.verify_graph_log(&graph).await.unwrap();
    assert_eq!(clean.mismatches, vec![], "an untouched graph matches its log");
    assert!(clean.checkpoint_matches);

    // Another session, whose ledger is read back from the graph, ingests the file again.
    let (again, _) = common::open("tlog_a2ap_again").await;
    again.set_log_key_dir(keys.path().to_owned());
    let opts = IngestOptions { bulk: false, batch_events: 5, ..Default::default() };
    again.ingest(&graph, &[file], opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet)).await.unwrap();
    let check = again.verify_graph_log(&graph).await.unwrap();
    assert_eq!(check.mismatches, vec![], "ingesting again changes nothing the log covers");

    // A claim rewritten with Cypher is named, and only that statement.
    let victim = &statements[0];
    let q = format!(
        "MATCH (s:Statement {{name: '{victim}'}}) SET s.claim_text = 'the opposite of what was signed'"
    );
    cypher_write(&graph, &q).await;
    let after = again.verify_graph_log(&graph).await.unwrap();
    let names: Vec<&str> = after.mismatches.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, vec![victim.as_str()]);
    assert_eq!(after.mismatches[0].label, "Statement");
}

/// The checkpoint an ingest signs survives the private server's stop and start: a second
/// process finds the log at its checkpoint and every node as its records gave it (the
/// checkpoint and its time were once written by a script whose effect a restart lost, and
/// every later `verify --graph` said the checkpoint did not match).
#[test]
fn a_checkpoint_survives_the_private_servers_restart() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = assert_cmd::Command::cargo_bin("provex")
            .unwrap()
            .env_remove("PROVEX_FALKORDB_URL")
            .env_remove("PROVEX_EMBEDDINGS_URL")
            .arg("--data-dir")
            .arg(dir.path().join("data"))
            .args(args)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
        (out.status.code(), text)
    };
    let example = common::repo().join("examples/lineage/summarise-prompt.jsonl");
    let rejects = dir.path().join("rejects.jsonl");
    let (code, out) = run(&[
        "ingest",
        example.to_str().unwrap(),
        "--graph",
        "week",
        "--rejects",
        rejects.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = run(&["verify", "--graph", "week"]);
    assert!(out.contains("checkpoint matches"), "{out}");
    assert!(!out.contains("changed behind the log"), "{out}");
    assert_eq!(code, Some(0), "{out}");
}
