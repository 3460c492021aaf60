//! Ingest behaviour: idempotence, rejected records, hostile text, following a growing
//! file, and a server that goes away mid-ingest.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use provex::facade::{ConnectOptions, IngestObserver, Provex, Quiet};
use provex::ingest::{IngestOptions, Rejected};
use provex::store::server::{PrivateServer, ServerOptions};
use provex::Error;

use crate::common;

fn no_cancel() -> Arc<AtomicBool> {
    Arc::new(AtomicBool::new(false))
}

fn example() -> PathBuf {
    common::repo().join("examples/a2a-run.jsonl")
}

#[tokio::test(flavor = "multi_thread")]
async fn ingesting_twice_changes_nothing() {
    let (provex, graph) = common::open("twice").await;
    let first = provex
        .ingest(&graph, &[example()], IngestOptions::default(), no_cancel(), Arc::new(Quiet))
        .await
        .unwrap();
    assert_eq!((first.events, first.rejected), (31, 0));
    let before = provex.stats(&graph).await.unwrap();
    let text_before = common::graph_text(&provex, &graph).await;
    provex
        .ingest(&graph, &[example()], IngestOptions::default(), no_cancel(), Arc::new(Quiet))
        .await
        .unwrap();
    let after = provex.stats(&graph).await.unwrap();
    assert_eq!(before, after);
    assert!(before.nodes > 50 && before.edges > 80, "{before:?}");
    assert_eq!(text_before, common::graph_text(&provex, &graph).await);
    provex.delete_graph(&graph).await.unwrap();
}

#[derive(Default)]
struct Collect(std::sync::Mutex<Vec<Rejected>>);
impl IngestObserver for Collect {
    fn rejected(&self, r: &Rejected) {
        self.0.lock().unwrap().push(r.clone());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_lines_are_rejected_and_the_good_ones_kept() {
    let (provex, graph) = common::open("bad_lines").await;
    let dir = tempfile::tempdir().unwrap();
    let good: Vec<String> = std::fs::read_to_string(example()).unwrap().lines().map(str::to_owned).collect();
    let path = dir.path().join("mixed.jsonl");
    let mut f = std::fs::File::create(&path).unwrap();
    // Line numbers: good[0] is 1, then the bad ones at 2..=5, then the rest of the good.
    writeln!(f, "{}", good[0]).unwrap();
    writeln!(f, "{{\"Task\": not json").unwrap(); // 2: malformed
    f.write_all(b"{\"Global\":{\"id\":\"x\",\"context_id\":\"\xff\xfe\"}}\n").unwrap(); // 3: not UTF-8
    writeln!(
        f,
        r#"{{"Global":{{"id":"u","context_id":"c","timestamp_ms":1,"data":{{"AgentRetired":{{}}}}}}}}"#
    )
    .unwrap(); // 4: unknown variant
    writeln!(f).unwrap(); // blank: skipped, but counted as a line number
    writeln!(f, r#"{{"Global":{{"id":"m","context_id":"c","timestamp_ms":1}}}}"#).unwrap(); // 6: missing data
    for line in &good[1..] {
        writeln!(f, "{line}").unwrap();
    }
    // Last line truncated, with no newline.
    write!(f, "{}", &good[1][..40]).unwrap();
    drop(f);

    let observer = Arc::new(Collect::default());
    let report = provex
        .ingest(&graph, std::slice::from_ref(&path), IngestOptions::default(), no_cancel(), observer.clone())
        .await
        .unwrap();
    assert_eq!(report.events, 31);
    assert_eq!(report.rejected, 5);

    // Every good line is in: the graph equals the clean file's graph.
    let (clean, clean_graph) = common::open("bad_lines_clean").await;
    clean
        .ingest(&clean_graph, &[example()], IngestOptions::default(), no_cancel(), Arc::new(Quiet))
        .await
        .unwrap();
    assert_eq!(common::graph_text(&provex, &graph).await, common::graph_text(&clean, &clean_graph).await);

    let rejects_path = dir.path().join("mixed.jsonl.rejected.jsonl");
    assert_eq!(report.files[0].rejects_file.as_deref(), Some(rejects_path.as_path()));
    let written: Vec<serde_json::Value> = std::fs::read_to_string(&rejects_path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let lines: Vec<u64> = written.iter().map(|r| r["line"].as_u64().unwrap()).collect();
    let last = 6 + good.len() as u64;
    assert_eq!(lines, [2, 3, 4, 6, last]);
    let reasons: Vec<&str> = written.iter().map(|r| r["reason"].as_str().unwrap()).collect();
    assert!(reasons[0].starts_with("malformed JSON"), "{reasons:?}");
    assert!(reasons[1].starts_with("not valid UTF-8"), "{reasons:?}");
    assert!(reasons[2].contains("unknown variant `AgentRetired`"), "{reasons:?}");
    assert!(reasons[3].contains("missing field `data`"), "{reasons:?}");
    assert!(reasons[4].starts_with("truncated JSON"), "{reasons:?}");
    assert!(written.iter().all(|r| r["file"].as_str().unwrap().ends_with("mixed.jsonl")));
    assert_eq!(written[0]["text"], "{\"Task\": not json");
    let seen: Vec<u64> = observer.0.lock().unwrap().iter().map(|r| r.line).collect();
    assert_eq!(seen, lines);
    provex.delete_graph(&graph).await.unwrap();
    clean.delete_graph(&clean_graph).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn cypher_in_a_field_is_stored_as_text() {
    let (provex, graph) = common::open("injection").await;
    let dir = tempfile::tempdir().unwrap();
    let hostile = r#"x'}) MATCH (n) DETACH DELETE n //"#;
    let hostile_json = serde_json::to_string(hostile).unwrap();
    let booted = r#"{"Global":{"id":"b","context_id":"c","timestamp_ms":1,"data":{"AgentBooted":{"agent_id":"a1","agent_type":"t","agent_version":"1","archive_path":"p"}}}}"#;
    let evil = format!(
        r#"{{"Task":{{"id":{hostile_json},"context_id":"c\"}}) DELETE n //","task_id":"t1","timestamp_ms":2,"data":{{"ToolCallStarted":{{"scope":{{"Task":{{"task_id":"t1"}}}},"tool_name":{hostile_json},"args":{{"q":{hostile_json}}},"metadata":{{}}}}}}}}}}"#
    );
    let file = common::file_with(&dir, "e.jsonl", &[booted, &evil]);
    let report =
        provex.ingest(&graph, &[file], IngestOptions::default(), no_cancel(), Arc::new(Quiet)).await.unwrap();
    assert_eq!((report.events, report.rejected), (2, 0));
    let call = provex.node(&graph, &format!("tool_call:{hostile}")).await.unwrap();
    assert_eq!(call.properties["a2a:tool_name"], hostile);
    assert_eq!(call.properties["a2a:context_id"], "c\"}) DELETE n //");
    let args = provex.node(&graph, &format!("tool_args:{hostile}")).await.unwrap();
    assert_eq!(args.properties["a2a:args"], serde_json::json!({ "q": hostile }).to_string());
    // Nothing else changed: the booted agent's nodes are all there.
    let stats = provex.stats(&graph).await.unwrap();
    assert_eq!(stats.labels["AgentBoot"], 1);
    assert_eq!(stats.labels["AgentArchive"], 1);
    assert_eq!(stats.nodes, 4 + 4); // boot, archive, instance, runner + call, args, task, execution
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn follow_reads_a_growing_file() {
    let (provex, graph) = common::open("follow").await;
    let provex = Arc::new(provex);
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = std::fs::read_to_string(example()).unwrap().lines().map(str::to_owned).collect();
    let path = dir.path().join("live.jsonl");
    std::fs::write(&path, lines[..10].join("\n") + "\n").unwrap();

    let mut rx = provex.subscribe();
    let cancel = no_cancel();
    let opts = IngestOptions { follow: true, poll: Duration::from_millis(20), ..Default::default() };
    let task = {
        let (p, g, path, c) = (provex.clone(), graph.clone(), path.clone(), cancel.clone());
        tokio::spawn(async move { p.ingest(&g, &[path], opts, c, Arc::new(Quiet)).await })
    };
    // The first ten lines arrive as a delta without the file being closed.
    let first = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await.unwrap().unwrap();
    assert!(first.nodes.iter().any(|n| n.name.starts_with("agent_boot:")));
    // A line written in two parts is read once complete.
    let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    let (head, tail) = lines[10].split_at(30);
    f.write_all(head.as_bytes()).unwrap();
    f.flush().unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    f.write_all(tail.as_bytes()).unwrap();
    f.write_all(b"\n").unwrap();
    for line in &lines[11..] {
        writeln!(f, "{line}").unwrap();
    }
    drop(f);
    let mut seq = first.seq;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let stats = provex.stats(&graph).await.unwrap();
        if stats.nodes == 61 {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "follow did not catch up: {stats:?}");
        if let Ok(Ok(b)) = tokio::time::timeout(Duration::from_millis(50), rx.recv()).await {
            assert!(b.seq > seq);
            seq = b.seq;
        }
    }
    cancel.store(true, Ordering::Relaxed);
    let report = tokio::time::timeout(Duration::from_secs(10), task).await.unwrap().unwrap().unwrap();
    assert_eq!((report.events, report.rejected), (31, 0));
    provex.delete_graph(&graph).await.unwrap();
}

/// Writes a synthetic run of `tasks` tasks, each with calls and states.
pub fn synthetic_events(path: &Path, tasks: usize) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut n = 0;
    let mut ev = |task: &str, ts: u64, data: String| {
        n += 1;
        writeln!(
            out,
            r#"{{"Task":{{"id":"s{n}","context_id":"ctx","task_id":"{task}","timestamp_ms":{ts},"data":{data}}}}}"#
        )
        .unwrap();
    };
    for t in 0..tasks {
        let task = format!("task-{t}");
        let agent = format!("agent-{}", t % 7);
        ev(&task, 10 * t as u64, format!(r#"{{"TaskCreated":{{"task_id":"{task}","agent_id":"{agent}"}}}}"#));
        ev(
            &task,
            10 * t as u64 + 1,
            format!(
                r#"{{"ToolCallStarted":{{"scope":{{"Task":{{"task_id":"{task}"}}}},"tool_name":"search","args":{{"i":{t}}},"metadata":{{"agent_id":"{agent}"}}}}}}"#
            ),
        );
        ev(
            &task,
            10 * t as u64 + 2,
            format!(
                r#"{{"TaskStatusChanged":{{"task_id":"{task}","old_status":"working","new_status":"completed"}}}}"#
            ),
        );
        ev(
            &task,
            10 * t as u64 + 3,
            format!(r#"{{"TaskArtifactGenerated":{{"task_id":"{task}","artifact_id":"art-{t}"}}}}"#),
        );
    }
}

struct Notify(tokio::sync::mpsc::UnboundedSender<u64>, AtomicU64);
impl IngestObserver for Notify {
    fn progress(&self, _: &Path, _: u64, events: u64) {
        if self.1.fetch_add(1, Ordering::Relaxed) == 0 {
            let _ = self.0.send(events);
        }
    }
}

/// Stops the server once the ingest reports progress, and starts it again 300 ms later on
/// the same port and data (within the store's retry window).
async fn restart_after_first_progress(
    mut progress: tokio::sync::mpsc::UnboundedReceiver<u64>,
    mut server: PrivateServer,
    opts: &ServerOptions,
) -> PrivateServer {
    progress.recv().await.unwrap();
    server.stop();
    tokio::time::sleep(Duration::from_millis(300)).await;
    PrivateServer::start(opts).unwrap()
}

async fn open_private(server: &PrivateServer) -> Provex {
    Provex::open(ConnectOptions { url: Some(server.url()), server: None }).await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn server_that_goes_away_mid_ingest() {
    const TASKS: usize = 6_000;
    let dir = tempfile::tempdir().unwrap();
    let events = dir.path().join("big.jsonl");
    synthetic_events(&events, TASKS);
    let data = tempfile::tempdir().unwrap();
    let opts = ServerOptions { data_dir: data.path().to_owned(), persist: true, port: None };
    let mut server = PrivateServer::start(&opts).unwrap();
    let fixed = ServerOptions { port: Some(server.port()), ..opts.clone() };
    let graph = "going_away";

    // 1. The server stops for good mid-ingest: a clear error after the retries.
    let provex = open_private(&server).await;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    // Upserts: a new graph would be built with GRAPH.BULK at the end (step 4).
    let small = IngestOptions { batch_events: 500, bulk: false, ..Default::default() };
    let files = [events.clone()];
    let ingest =
        provex.ingest(graph, &files, small.clone(), no_cancel(), Arc::new(Notify(tx, AtomicU64::new(0))));
    let stopper = async {
        rx.recv().await.unwrap();
        server.stop(); // SIGTERM: Redis saves what it has
    };
    let (result, ()) = tokio::join!(ingest, stopper);
    let err = result.unwrap_err();
    assert!(matches!(err, Error::ConnectionLost { .. }), "{err}");
    assert!(err.to_string().contains("re-run"), "{err}");
    drop(provex);

    // 2. The server comes back on the same data; re-running completes with no duplicates.
    let server = PrivateServer::start(&fixed).unwrap();
    let provex = open_private(&server).await;
    let partial = provex.stats(graph).await.unwrap();
    assert!(partial.nodes > 0, "the first batches were saved: {partial:?}");
    let report = provex
        .ingest(graph, std::slice::from_ref(&events), small.clone(), no_cancel(), Arc::new(Quiet))
        .await
        .unwrap();
    assert_eq!(report.events, 4 * TASKS as u64);
    let full = provex.stats(graph).await.unwrap();
    // Each task: task, execution, call, args, two states, artifact (+ 7 agents + runner).
    assert_eq!(full.nodes, 7 * TASKS as u64 + 8);
    assert_eq!(full.labels["ToolCall"], TASKS as u64);

    // 3. The server restarts within the retry window: the ingest rides it out, but is not
    // acknowledged (writes the server had answered before it went may be lost); re-running
    // completes it.
    provex.delete_graph(graph).await.unwrap();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let ingest =
        provex.ingest(graph, &files, small.clone(), no_cancel(), Arc::new(Notify(tx, AtomicU64::new(0))));
    let (result, server) = tokio::join!(ingest, restart_after_first_progress(rx, server, &fixed));
    let err = result.unwrap_err();
    assert!(matches!(err, Error::ConnectionLost { .. }), "{err}");
    provex.ingest(graph, &files, small, no_cancel(), Arc::new(Quiet)).await.unwrap();
    assert_eq!(provex.stats(graph).await.unwrap(), full);

    // 4. The same with GRAPH.BULK: the server goes away while the file is read or built;
    // a failed build leaves nothing behind and the upserts ride the restart out.
    provex.delete_graph(graph).await.unwrap();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let bulk = IngestOptions { batch_events: 500, ..Default::default() };
    let ingest = provex.ingest(graph, &files, bulk, no_cancel(), Arc::new(Notify(tx, AtomicU64::new(0))));
    let (result, server) = tokio::join!(ingest, restart_after_first_progress(rx, server, &fixed));
    if let Err(e) = result {
        assert!(matches!(e, Error::ConnectionLost { .. }), "{e}");
        let bulk = IngestOptions { batch_events: 500, ..Default::default() };
        provex.ingest(graph, &files, bulk, no_cancel(), Arc::new(Quiet)).await.unwrap();
    }
    assert_eq!(provex.stats(graph).await.unwrap(), full);
    drop(server);
}
