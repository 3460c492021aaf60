//! A batch's log leaves appended in the same pipelined round trip as its nodes, against a real
//! FalkorDB: every record an ingest acknowledged is a leaf of the log after a SIGKILL of the
//! database, nodes name only leaves the log holds, and a batch whose log another writer moved
//! names the leaves where its records went (each leaf checked against the line it hashes).

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use provex::facade::{ConnectOptions, Provex, Quiet};
use provex::ingest::IngestOptions;
use provex::store::server::{PrivateServer, ServerOptions};

use crate::common;

async fn open(url: &str, keys: &std::path::Path) -> Provex {
    let p = Provex::open(ConnectOptions { url: Some(url.to_owned()), server: None }).await.unwrap();
    p.set_log_key_dir(keys.to_owned());
    p
}

/// The example events ingested into `graph` by upserts, two events a batch, every one
/// acknowledged; returns the lines.
async fn merge_ingest(provex: &Provex, graph: &str) -> Vec<String> {
    let lines = common::example_lines();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("events.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let ingest = IngestOptions { bulk: false, batch_events: 2, ..Default::default() };
    let quit = Arc::new(AtomicBool::new(false));
    let report =
        provex.ingest(graph, std::slice::from_ref(&file), ingest, quit, Arc::new(Quiet)).await.unwrap();
    assert_eq!(report.events, lines.len() as u64);
    lines
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64
}

/// Every node's name and the leaves it names (none before the graph exists).
async fn leaves_named(provex: &Provex, graph: &str) -> HashMap<String, Vec<u64>> {
    let Ok(t) = provex
        .query(graph, "MATCH (n) WHERE n.log_leaves IS NOT NULL RETURN n.name AS n, n.log_leaves AS l")
        .await
    else {
        return HashMap::new();
    };
    t.rows
        .iter()
        .map(|r| {
            let leaves = r[1].as_array().unwrap().iter().map(|l| l.as_u64().unwrap()).collect();
            (r[0].as_str().unwrap().to_owned(), leaves)
        })
        .collect()
}

/// The line each leaf of the log is the hash of, as `(source, line number)`: found by hashing
/// every line of `sources` at every millisecond of `window` (the leaf's time of receipt).
async fn what_each_leaf_hashes(
    provex: &Provex,
    graph: &str,
    sources: &[(String, Vec<String>)],
    window: (u64, u64),
) -> Vec<Option<(String, usize)>> {
    let (size, _) = provex.log_head(graph).await.unwrap();
    let mut known = HashMap::new();
    for (source, lines) in sources {
        for (i, line) in lines.iter().enumerate() {
            for ms in window.0..=window.1 {
                let leaf = provex::tlog::leaf_hash(source, ms, line.as_bytes());
                known.insert(provex::tlog::proof::encode_hash(&leaf), (source.clone(), i));
            }
        }
    }
    let mut out = Vec::new();
    for i in 0..size {
        let proof = provex.log_prove(graph, i).await.unwrap();
        out.push(known.get(&proof.leaf_hash).cloned());
    }
    out
}

/// Waits (up to 60 s) until the highest leaf any node names is `leaf`.
async fn until_named(provex: &Provex, graph: &str, leaf: u64) {
    let start = Instant::now();
    while leaves_named(provex, graph).await.values().flatten().max() != Some(&leaf) {
        assert!(start.elapsed() < Duration::from_secs(60), "no node names leaf {leaf}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// An ingest of many small batches (each batch's leaves and nodes in one pipeline) is
/// acknowledged, then the database is killed with SIGKILL: after the restart the log holds a
/// leaf for every record, every node names only leaves the log holds, the checkpoint signed
/// at the end matches, and no node differs from its leaves.
#[tokio::test(flavor = "multi_thread")]
async fn every_acknowledged_record_is_a_leaf_after_kill_9_of_the_database() {
    let data = tempfile::tempdir().unwrap();
    let keys = tempfile::tempdir().unwrap();
    let opts = ServerOptions { data_dir: data.path().to_owned(), persist: true, port: None };
    let mut server = PrivateServer::start(&opts).unwrap();
    let provex = open(&server.url(), keys.path()).await;
    let lines = merge_ingest(&provex, "acked").await;

    server.kill();
    drop(provex);
    let server = PrivateServer::start(&opts).unwrap();
    let after = open(&server.url(), keys.path()).await;
    let (size, _) = after.log_head("acked").await.unwrap();
    assert_eq!(size, lines.len() as u64, "a leaf for every acknowledged record");
    let named = leaves_named(&after, "acked").await;
    assert!(named.len() > 30, "{named:?}");
    let all: BTreeSet<u64> = named.values().flatten().copied().collect();
    assert_eq!(all.last(), Some(&(size - 1)), "the last record's nodes name its leaf: {all:?}");
    let check = after.verify_graph_log("acked").await.unwrap();
    assert!(check.checkpoint_matches && check.pending == 0, "{check:?}");
    assert_eq!(check.mismatches, vec![]);
}

/// A following ingest that knew where the log ended writes its next batch after another
/// session appended to the same log: the append that led its pipeline is refused, and the
/// batch's leaves go where the log ends now, with its nodes naming them there (not the other
/// session's leaves). Every leaf is the hash of the line it stands for, in order.
#[tokio::test(flavor = "multi_thread")]
async fn a_batch_whose_log_moved_under_it_names_the_leaves_it_got() {
    let (writer, graph) = common::open("log_append_moved").await;
    let keys = tempfile::tempdir().unwrap();
    writer.set_log_key_dir(keys.path().to_owned());
    let other =
        Provex::open(ConnectOptions { url: Some(common::url().to_owned()), server: None }).await.unwrap();
    other.set_log_key_dir(keys.path().to_owned());
    let lines = common::example_lines();
    assert_eq!(lines.len(), 31);
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("followed.jsonl"), dir.path().join("other.jsonl"));
    std::fs::write(&a, lines[..10].join("\n") + "\n").unwrap();
    std::fs::write(&b, lines[10..20].join("\n") + "\n").unwrap();
    let from = now_ms();

    let cancel = Arc::new(AtomicBool::new(false));
    let opts =
        IngestOptions { bulk: false, follow: true, poll: Duration::from_millis(20), ..Default::default() };
    let follow = writer.ingest(&graph, std::slice::from_ref(&a), opts, cancel.clone(), Arc::new(Quiet));
    let meanwhile = async {
        until_named(&writer, &graph, 9).await;
        // Another session appends 10 records: the follower's frontier is now behind the log.
        let opts = IngestOptions { bulk: false, ..Default::default() };
        other
            .ingest(&graph, std::slice::from_ref(&b), opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
            .await
            .unwrap();
        let before: BTreeSet<String> = leaves_named(&writer, &graph).await.into_keys().collect();
        let mut more = std::fs::OpenOptions::new().append(true).open(&a).unwrap();
        std::io::Write::write_all(&mut more, (lines[20..].join("\n") + "\n").as_bytes()).unwrap();
        until_named(&writer, &graph, 30).await;
        cancel.store(true, Ordering::Relaxed);
        before
    };
    let (report, before) = tokio::join!(follow, meanwhile);
    assert_eq!(report.unwrap().events, 21);
    let to = now_ms();

    // The nodes the follower's last records made name only the leaves those records got.
    let named = leaves_named(&writer, &graph).await;
    let new: Vec<(&String, &Vec<u64>)> = named.iter().filter(|(n, _)| !before.contains(*n)).collect();
    assert!(!new.is_empty());
    for (name, leaves) in &new {
        assert!(leaves.iter().all(|l| (20..31).contains(l)), "{name} names {leaves:?}");
    }
    // Every acknowledged record is a leaf, in the order the log took them.
    let source = |p: &std::path::Path| p.to_string_lossy().into_owned();
    let sources = [(source(&a), [&lines[..10], &lines[20..]].concat()), (source(&b), lines[10..20].to_vec())];
    let leaves = what_each_leaf_hashes(&writer, &graph, &sources, (from, to)).await;
    let want: Vec<Option<(String, usize)>> = (0..10)
        .map(|i| (source(&a), i))
        .chain((0..10).map(|i| (source(&b), i)))
        .chain((10..21).map(|i| (source(&a), i)))
        .map(Some)
        .collect();
    assert_eq!(leaves, want);
    let check = other.verify_graph_log(&graph).await.unwrap();
    assert_eq!(check.mismatches, vec![], "{check:?}");
}

/// The commands of a Redis append-only file (RESP arrays of bulk strings), in order.
fn aof_commands(bytes: &[u8]) -> Vec<Vec<Vec<u8>>> {
    fn line(b: &[u8], at: &mut usize) -> usize {
        let end = *at + b[*at..].windows(2).position(|w| w == b"\r\n").unwrap();
        let n = std::str::from_utf8(&b[*at + 1..end]).unwrap().parse().unwrap();
        *at = end + 2;
        n
    }
    let (mut out, mut at) = (Vec::new(), 0);
    while at < bytes.len() {
        assert_eq!(bytes[at], b'*', "a command at byte {at}");
        let args = (0..line(bytes, &mut at))
            .map(|_| {
                let len = line(bytes, &mut at);
                let arg = bytes[at..at + len].to_vec();
                at += len + 2;
                arg
            })
            .collect();
        out.push(args);
    }
    out
}

/// Each batch of a merge ingest is one transaction in the append-only file: its log append
/// and its upserts between one `MULTI` and its `EXEC`, so the private server (`appendfsync
/// always`) fsyncs the batch once, not once per command, and a crash keeps all of it or none
/// (a plain pipeline wrote each command on its own, after its own fsync).
#[tokio::test(flavor = "multi_thread")]
async fn a_batch_is_one_transaction_in_the_append_only_file() {
    let data = tempfile::tempdir().unwrap();
    let keys = tempfile::tempdir().unwrap();
    let opts = ServerOptions { data_dir: data.path().to_owned(), persist: true, port: None };
    let server = PrivateServer::start(&opts).unwrap();
    let provex = open(&server.url(), keys.path()).await;
    merge_ingest(&provex, "tx").await;

    let mut commands = Vec::new();
    for entry in std::fs::read_dir(data.path().join("appendonlydir")).unwrap() {
        let path = entry.unwrap().path();
        if path.to_string_lossy().ends_with(".incr.aof") {
            commands.extend(aof_commands(&std::fs::read(&path).unwrap()));
        }
    }
    let (log, graph) = (b"provex:log:tx".to_vec(), b"tx".to_vec());
    let (mut open_tx, mut appends, mut transactions) = (None::<(bool, usize)>, 0, 0);
    for c in &commands {
        let name = c[0].to_ascii_uppercase();
        match (name.as_slice(), open_tx.as_mut()) {
            (b"MULTI", _) => open_tx = Some((false, 0)),
            (b"EXEC", Some((appended, upserts))) => {
                if *appended {
                    assert!(*upserts > 0, "a transaction with the log append holds the batch's upserts");
                    transactions += 1;
                }
                open_tx = None;
            }
            (b"APPEND", tx) if c[1] == log => {
                appends += 1;
                let (appended, _) = tx.expect("the log append inside a transaction");
                *appended = true;
            }
            (b"GRAPH.QUERY" | b"GRAPH.EFFECT", Some((true, upserts))) if c[1] == graph => *upserts += 1,
            _ => {}
        }
    }
    assert!(appends > 10, "{appends} log appends");
    assert_eq!(transactions, appends, "one transaction per batch");
}
