//! The tamper-evident log of a graph while it is being written, against a real FalkorDB:
//! `log_status` and `verify --graph` asked mid-ingest (records logged, nodes written, no
//! checkpoint signed yet) or by another session than the writer's say "pending", never that
//! the store disagrees with its log; and a node that keeps its line has its leaf rebuilt, so
//! a line rewritten together with its digest is still named.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use provex::facade::{ConnectOptions, Provex, Quiet};
use provex::ingest::IngestOptions;

use crate::common;
use crate::tlog::{cypher_write, edit_covered};

/// Waits (up to 60 s) until `done` holds.
async fn until<F: std::future::Future<Output = bool>>(what: &str, mut done: impl FnMut() -> F) {
    let start = Instant::now();
    while !done().await {
        assert!(start.elapsed() < Duration::from_secs(60), "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The highest leaf any node of the graph names (-1 when none does yet).
async fn highest_leaf_named(provex: &Provex, graph: &str) -> i64 {
    let Ok(t) = provex
        .query(graph, "MATCH (n) WHERE n.log_leaves IS NOT NULL UNWIND n.log_leaves AS l RETURN max(l) AS m")
        .await
    else {
        return -1;
    };
    t.rows.first().and_then(|r| r[0].as_i64()).unwrap_or(-1)
}

/// Stops a following ingest when dropped.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A file holding the example run's first 20 lines, followed by an ingest: the run's lines
/// (to append the rest), the options and the flag that stop it, which a failed assertion
/// sets too (the guard), else its reader would follow the file for ever.
struct Followed {
    lines: Vec<String>,
    _dir: tempfile::TempDir,
    file: std::path::PathBuf,
    opts: IngestOptions,
    cancel: Arc<AtomicBool>,
    _stop: StopOnDrop,
}

impl Followed {
    fn first_20() -> Followed {
        let lines = common::example_lines();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("events.jsonl");
        std::fs::write(&file, lines[..20].join("\n") + "\n").unwrap();
        let cancel = Arc::new(AtomicBool::new(false));
        let opts = IngestOptions {
            bulk: false,
            follow: true,
            poll: Duration::from_millis(20),
            ..Default::default()
        };
        Followed { lines, _dir: dir, file, opts, _stop: StopOnDrop(cancel.clone()), cancel }
    }
}

/// Regression: while an ingest had logged its records and written their nodes but not yet
/// signed its checkpoint, `log_status` said the checkpoint did not match (a log with no
/// checkpoint yet), so the explorer's "store disagrees with its log" banner showed for nothing;
/// and a session that had read the log before another one appended to it compared the
/// nodes with the log it remembered, naming every new node as past the log. The leaves after
/// the latest checkpoint are now pending, and a real edit is still named.
#[tokio::test(flavor = "multi_thread")]
async fn the_status_of_a_graph_mid_ingest_says_pending_not_a_disagreement() {
    let (writer, graph) = common::open("tlog_mid_ingest").await;
    let keys = tempfile::tempdir().unwrap();
    writer.set_log_key_dir(keys.path().to_owned());
    // The explorer's session: the same server, a log frontier of its own.
    let reader =
        Provex::open(ConnectOptions { url: Some(common::url().to_owned()), server: None }).await.unwrap();
    reader.set_log_key_dir(keys.path().to_owned());

    // A followed file: the ingest signs its checkpoint only when it is stopped.
    let Followed { lines, _dir, file, opts, cancel, _stop } = Followed::first_20();
    assert!(lines.len() > 20);
    let ingest = writer.ingest(&graph, std::slice::from_ref(&file), opts, cancel.clone(), Arc::new(Quiet));
    let look = async {
        until("the first 20 records' nodes", || async { highest_leaf_named(&reader, &graph).await == 19 })
            .await;
        let s = reader.log_status(&graph).await.unwrap();
        assert_eq!((s.tree_size, s.checkpoint_size, s.pending), (20, None, 20), "{s:?}");
        assert!(s.checkpoint_matches && s.complete, "no checkpoint yet contradicts nothing: {s:?}");
        assert_eq!((s.differing, s.mismatches.len()), (0, 0), "{s:?}");
        let v = reader.verify_graph_log(&graph).await.unwrap();
        assert_eq!(v.mismatches, vec![], "mid-ingest, every node matches its leaves");

        // A checkpoint signed mid-ingest, then more records: the log is longer than its
        // checkpoint, and the explorer's session has read the log before they came.
        reader.log_checkpoint(&graph).await.unwrap();
        let mut more = std::fs::OpenOptions::new().append(true).open(&file).unwrap();
        std::io::Write::write_all(&mut more, (lines[20..].join("\n") + "\n").as_bytes()).unwrap();
        let last = lines.len() as i64 - 1;
        until("every record's nodes", || async { highest_leaf_named(&reader, &graph).await == last }).await;
        let s = reader.log_status(&graph).await.unwrap();
        assert_eq!((s.tree_size, s.checkpoint_size), (lines.len() as u64, Some(20)), "{s:?}");
        assert_eq!(s.pending, lines.len() as u64 - 20, "{s:?}");
        assert!(s.checkpoint_matches, "{s:?}");
        assert_eq!((s.differing, s.mismatches.len()), (0, 0), "{s:?}");
        let v = reader.verify_graph_log(&graph).await.unwrap();
        assert!(v.checkpoint_matches && v.log_size == lines.len() as u64, "{v:?}");
        assert_eq!(v.mismatches, vec![]);
        cancel.store(true, Ordering::Relaxed);
    };
    let (report, ()) = tokio::join!(ingest, look);
    report.unwrap();

    // Stopped: the ingest signed its checkpoint, nothing is pending.
    let s = reader.log_status(&graph).await.unwrap();
    assert_eq!((s.checkpoint_size, s.pending, s.differing), (Some(lines.len() as u64), 0, 0), "{s:?}");
    // A real edit is still named, by the session that did not write.
    let t = reader
        .query(&graph, "MATCH (n) WHERE n.log_digest IS NOT NULL RETURN n.name AS n ORDER BY n.name LIMIT 1")
        .await
        .unwrap();
    let victim = t.rows[0][0].as_str().unwrap().to_owned();
    edit_covered(&graph, &victim).await;
    let s = reader.log_status(&graph).await.unwrap();
    assert_eq!(s.differing, 1, "{s:?}");
    assert_eq!(s.mismatches[0].name, victim);
    let v = reader.verify_graph_log(&graph).await.unwrap();
    assert_eq!(v.mismatches.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(), vec![victim.as_str()]);
}

/// Regression: `verify --graph` re-hashed a node's properties against the digest stored
/// beside them only, so a statement whose kept document was rewritten together with a digest
/// to match went unnoticed (and a later bundle silently left it out of its log). The leaf of
/// every node that keeps its line is rebuilt from that line and read from the log.
#[tokio::test(flavor = "multi_thread")]
async fn verify_graph_rebuilds_the_leaf_of_a_node_that_keeps_its_line() {
    let (provex, graph) = common::open("tlog_lines").await;
    let keys = tempfile::tempdir().unwrap();
    provex.set_log_key_dir(keys.path().to_owned());
    let file = common::repo().join("examples/council/council-a2ap.jsonl");
    crate::tlog::ingest(&provex, &graph, &file).await;
    let clean = provex.verify_graph_log(&graph).await.unwrap();
    assert_eq!(clean.mismatches, vec![]);

    let t = provex
        .query(
            &graph,
            "MATCH (s:Statement) WHERE s.log_source IS NOT NULL RETURN s.name AS n, properties(s) AS p ORDER BY n",
        )
        .await
        .unwrap();
    // A statement whose document needs no escaping in a Cypher string.
    let (victim, props) = t
        .rows
        .iter()
        .map(|r| (r[0].as_str().unwrap().to_owned(), r[1].as_object().unwrap().clone()))
        .find(|(_, p)| p["a2ap:document"].as_str().is_some_and(|d| !d.contains(['\'', '\\'])))
        .expect("a statement");
    let mut envelope: serde_json::Value =
        serde_json::from_str(props["a2ap:document"].as_str().unwrap()).unwrap();
    envelope["document"]["x-rewritten"] = serde_json::json!(true);
    let document = serde_json::to_string(&envelope).unwrap();
    let mut edited = props.clone();
    edited.insert("a2ap:document".into(), serde_json::Value::String(document.clone()));
    let digest = props["log_digest"].as_str().unwrap();
    let names = digest.split_once('|').unwrap().1.split(' ').filter(|s| !s.is_empty());
    let forged =
        provex::tlog::digest_pairs(names.map(|k| (k.to_owned(), edited.get(k).cloned().unwrap_or_default())));
    assert!(forged.contains("a2ap:document"), "{forged}");
    cypher_write(
        &graph,
        &format!(
            "MATCH (s:Statement {{name: '{victim}'}}) SET s.`a2ap:document` = '{document}', s.log_digest = '{forged}'"
        ),
    )
    .await;

    // Its properties hash to the rewritten digest; its line no longer hashes to its leaf.
    let status = provex.log_status(&graph).await.unwrap();
    assert_eq!(status.differing, 0, "{status:?}");
    let after = provex.verify_graph_log(&graph).await.unwrap();
    let names: Vec<&str> = after.mismatches.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, vec![victim.as_str()]);
    assert!(after.mismatches[0].reason.contains("line it keeps no longer hashes"), "{:?}", after.mismatches);
}

/// Runs the CLI against the test server, with `data` as its data folder (the log key's
/// folder); returns its exit code and what it printed.
fn provex_cli(data: &std::path::Path, args: &[&str]) -> (Option<i32>, String) {
    let out = assert_cmd::Command::cargo_bin("provex")
        .unwrap()
        .arg("--falkordb")
        .arg(common::url())
        .env("PROVEX_DATA_DIR", data)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// Regression: `provex verify --graph` said "checkpoint DOES NOT MATCH the log" (exit 1) for a
/// graph whose log has no checkpoint yet (an ingest still going on), where the explorer says
/// its records are being written. It now says exactly that: no checkpoint yet, how many
/// records are logged and not yet checkpointed, and how many nodes were checked against their
/// leaves; once a checkpoint is signed, how many records came after it.
#[tokio::test(flavor = "multi_thread")]
async fn the_cli_says_records_logged_mid_ingest_are_not_yet_checkpointed() {
    let (writer, graph) = common::open("tlog_cli_pending").await;
    let keys = tempfile::tempdir().unwrap();
    writer.set_log_key_dir(keys.path().to_owned());
    let Followed { lines, _dir, file, opts, cancel, _stop } = Followed::first_20();
    let ingest = writer.ingest(&graph, std::slice::from_ref(&file), opts, cancel.clone(), Arc::new(Quiet));
    let cli = |args: Vec<String>| {
        let data = keys.path().to_owned();
        async move {
            tokio::task::spawn_blocking(move || {
                provex_cli(&data, &args.iter().map(String::as_str).collect::<Vec<_>>())
            })
            .await
            .unwrap()
        }
    };
    let look = async {
        until("the first 20 records' nodes", || async { highest_leaf_named(&writer, &graph).await == 19 })
            .await;
        let nodes = writer.verify_graph_log(&graph).await.unwrap().nodes_checked;
        assert!(nodes > 0);
        for args in [["verify", "--graph", &graph].as_slice(), ["log", "verify", "-g", &graph].as_slice()] {
            let (code, out) = cli(args.iter().map(|s| s.to_string()).collect()).await;
            assert!(!out.contains("DOES NOT MATCH"), "{args:?}: {out}");
            assert!(
                out.contains(&format!(
                    "partly verified: no checkpoint yet: 20 records logged, not yet checkpointed; {nodes} nodes checked against their leaves"
                )),
                "{args:?}: {out}"
            );
            assert!(!out.contains("changed behind the log"), "{args:?}: {out}");
            assert_eq!(code, Some(0), "nothing disagrees with the log: {args:?}: {out}");
        }

        // A checkpoint of the first 20, then 11 more records.
        writer.log_checkpoint(&graph).await.unwrap();
        let mut more = std::fs::OpenOptions::new().append(true).open(&file).unwrap();
        std::io::Write::write_all(&mut more, (lines[20..].join("\n") + "\n").as_bytes()).unwrap();
        let last = lines.len() as i64 - 1;
        until("every record's nodes", || async { highest_leaf_named(&writer, &graph).await == last }).await;
        let (code, out) = cli(vec!["verify".into(), "--graph".into(), graph.clone()]).await;
        let since = lines.len() - 20;
        assert!(
            out.contains(&format!(
                "checkpoint of 20 leaves matches (the log extends it); partly verified: {since} records logged since, not yet checkpointed"
            )),
            "{out}"
        );
        assert_eq!(code, Some(0), "{out}");
        cancel.store(true, Ordering::Relaxed);
    };
    let (report, ()) = tokio::join!(ingest, look);
    report.unwrap();
    // Stopped: the ingest signed its checkpoint, nothing is pending.
    let (code, out) = cli(vec!["verify".into(), "--graph".into(), graph.clone()]).await;
    assert!(out.contains(&format!("log of {graph}: {} leaves, ", lines.len())), "{out}");
    assert!(out.contains("checkpoint matches\n") && !out.contains("partly verified"), "{out}");
    assert_eq!(code, Some(0), "{out}");
}
