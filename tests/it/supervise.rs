//! The private FalkorDB server is kept running (issue 26 §1, supervision): killed with
//! SIGKILL, it is started again on the same data folder (at a new address) and requests go
//! on; open streams say "restarting" then "up" and go on without a gap; a server that cannot
//! be started again gives an error naming what happened.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use provex::api::{ErrorCode, StreamMessage, View};
use provex::facade::{ConnectOptions, Provex, Quiet};
use provex::ingest::IngestOptions;
use provex::store::server::ServerOptions;
use provex::store::supervisor::Health;

use crate::common;
use crate::serve::{serve_on, Events};

/// A facade on a private server of its own, in `dir`.
pub(crate) async fn private(dir: &tempfile::TempDir, persist: bool, port: Option<u16>) -> Provex {
    let server = ServerOptions { data_dir: dir.path().join("falkordb"), persist, port };
    Provex::open(ConnectOptions { url: None, server: Some(server) }).await.expect("open a private server")
}

/// Kills the private server at once (SIGKILL) and returns its pid.
pub(crate) fn kill_server(provex: &Provex) -> u32 {
    let pid = provex.private_server().and_then(|s| s.pid()).expect("a server of our own");
    // SAFETY: a signal to a process this test's facade started.
    let r = unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
    assert_eq!(r, 0, "kill {pid}");
    pid
}

async fn ingest_example(provex: &Provex, graph: &str) -> u64 {
    let file = common::repo().join("examples/a2a-run.jsonl");
    let opts = IngestOptions { bulk: false, ..Default::default() };
    let report = provex
        .ingest(graph, &[file], opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .expect("ingest");
    report.nodes_written
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_private_server_is_started_again_and_requests_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let provex = private(&dir, false, None).await;
    let graph = "supervised";
    ingest_example(&provex, graph).await;
    let before = common::graph_text(&provex, graph).await;
    let url = provex.url();

    let dead = kill_server(&provex);
    // The next request waits for the server to be back instead of failing.
    let graphs = provex.graphs().await.expect("a request after the kill");
    let sup = provex.private_server().unwrap();
    let pid = sup.pid().expect("running again");
    assert_ne!(pid, dead);
    assert!(matches!(sup.health(), Health::Up { restarts: 1, .. }), "{:?}", sup.health());
    // This server keeps nothing on disk: the graph is gone, and writing it again works on
    // the new server, wherever it listens now.
    assert!(!graphs.contains(&graph.to_owned()), "{graphs:?}");
    eprintln!("before {url}, after {}", provex.url());
    ingest_example(&provex, graph).await;
    assert_eq!(common::graph_text(&provex, graph).await, before);

    // A second death mid-ingest: the writes in flight are sent again.
    let again = provex.private_server().unwrap().pid().unwrap();
    let p = &provex;
    let (_, report) = tokio::join!(
        async {
            tokio::time::sleep(Duration::from_millis(5)).await;
            kill_server(p)
        },
        ingest_example(p, "supervised_2")
    );
    assert!(report > 0);
    assert_ne!(provex.private_server().unwrap().pid().unwrap(), again);
    assert_eq!(common::graph_text(&provex, "supervised_2").await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_cannot_start_again_fails_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let provex = private(&dir, false, None).await;
    provex.graphs().await.unwrap();
    // The data folder is moved away and a file takes its place: the server runs on, but
    // every try to start it again there fails.
    let data = dir.path().join("falkordb");
    std::fs::rename(&data, dir.path().join("moved")).unwrap();
    std::fs::write(&data, "not a folder").unwrap();
    let pid = kill_server(&provex);
    let e = provex.graphs().await.expect_err("no server");
    assert_eq!(e.code(), ErrorCode::Server, "{e}");
    let text = e.to_string();
    assert!(
        text.contains(&format!(
            "the private FalkorDB server (pid {pid}) stopped: killed by signal 9 (SIGKILL)"
        )),
        "{text}"
    );
    assert!(text.contains("did not start again after 5 tries"), "{text}");
    assert!(text.contains("falkordb.log"), "{text}");
    assert!(matches!(provex.private_server().unwrap().health(), Health::Failed { .. }));
    // It stays failed (no endless restarts), and says so again.
    let again = provex.stats("g").await.expect_err("still no server");
    assert_eq!(again.to_string(), e.to_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stream_says_database_restarting_then_goes_on_without_a_gap() {
    let dir = tempfile::tempdir().unwrap();
    let provex = Arc::new(private(&dir, false, None).await);
    let graph = "streamed";
    ingest_example(&provex, graph).await;
    let (_running, base) = serve_on(provex.clone(), None).await;
    let view: View = crate::serve::client()
        .get(format!("{base}/api/graphs/{graph}/view"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut events = Events::open(&format!("{base}/api/graphs/{graph}/stream?since={}", view.seq)).await;

    let pid = kill_server(&provex);
    let restarting = events.next_within(Duration::from_secs(30)).await.expect("a message");
    match &restarting {
        StreamMessage::Database { graph: g, seq, state, message } => {
            assert_eq!((g.as_str(), *seq, state.as_str()), (graph, view.seq + 1, "restarting"));
            assert!(message.contains(&format!("(pid {pid}) stopped: killed by signal 9")), "{message}");
        }
        other => panic!("expected the database's state, got {other:?}"),
    }
    let up = events.next_within(Duration::from_secs(30)).await.expect("a message");
    match &up {
        StreamMessage::Database { seq, state, .. } => {
            assert_eq!((*seq, state.as_str()), (view.seq + 2, "up"))
        }
        other => panic!("expected the database back, got {other:?}"),
    }
    // Records written after it come next, numbered on.
    let line = r#"{"Global":{"id":"e1","context_id":"c","timestamp_ms":1,"data":{"AgentBooted":{"agent_id":"agent-after","agent_type":"clerk","agent_version":"1","archive_path":"p"}}}}"#;
    let r = crate::serve::client()
        .post(format!("{base}/api/graphs/{graph}/events"))
        .header("content-type", "application/x-ndjson")
        .body(format!("{line}\n"))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    match events.next_within(Duration::from_secs(30)).await.expect("a batch") {
        StreamMessage::Batch { seq, nodes, .. } => {
            assert_eq!(seq, view.seq + 3);
            assert!(nodes.iter().any(|n| n.id.contains("agent-after")), "{nodes:?}");
        }
        other => panic!("expected the new records, got {other:?}"),
    }
    // A client that reconnects from before the outage gets the same messages.
    let mut again = Events::open(&format!("{base}/api/graphs/{graph}/stream?since={}", view.seq)).await;
    assert_eq!(again.next_within(Duration::from_secs(5)).await.unwrap(), restarting);
    assert_eq!(again.next_within(Duration::from_secs(5)).await.unwrap(), up);
}

fn booted(from: usize, to: usize) -> String {
    (from..to)
        .map(|i| {
            format!(
                r#"{{"Global":{{"id":"e{i}","context_id":"c","timestamp_ms":{i},"data":{{"AgentBooted":{{"agent_id":"agent-{i}","agent_type":"clerk","agent_version":"1","archive_path":"p"}}}}}}}}"#
            ) + "\n"
        })
        .collect()
}

/// The names of the booted agents' nodes in a graph, waiting until agents `want` are all
/// there (a minute at most).
async fn agents(provex: &Provex, graph: &str, want: std::ops::Range<usize>) -> Vec<String> {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let names = match provex
            .query(
                graph,
                "MATCH (n:AgentRuntimeInstance) WHERE n.name CONTAINS 'agent-' RETURN n.name ORDER BY n.name",
            )
            .await
        {
            Ok(t) => t.rows.iter().map(|r| r[0].as_str().unwrap().to_owned()).collect(),
            Err(_) => Vec::new(),
        };
        let all = want.clone().all(|i| names.iter().any(|n: &String| n.ends_with(&format!("agent-{i}"))));
        if all || std::time::Instant::now() > deadline {
            return names;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ingest_follow_goes_on_after_the_database_is_killed() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("live.jsonl");
    std::fs::write(&file, booted(0, 10)).unwrap();
    let mut follower = std::process::Command::new(assert_cmd::cargo::cargo_bin("provex"))
        .arg("--data-dir")
        .arg(dir.path())
        .args(["ingest", "--graph", "followed", "--follow"])
        .arg(&file)
        .current_dir(common::repo())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // This test's facade uses the follower's server (another Provex owns the data folder).
    let pid_file = dir.path().join("falkordb").join("server.pid");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !pid_file.exists() {
        assert!(std::time::Instant::now() < deadline, "the follower started no server");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let watcher = private(&dir, true, None).await;
    assert!(!watcher.private_server().unwrap().owned());
    assert_eq!(agents(&watcher, "followed", 0..10).await.len(), 10);

    let pid: u32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    // SAFETY: a signal to the server the follower this test started runs.
    assert_eq!(unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) }, 0);
    std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap()
        .write_all(booted(10, 30).as_bytes())
        .unwrap();

    // The follower starts the server again and writes on; this facade finds it at its new port.
    let names = agents(&watcher, "followed", 10..30).await;
    let new_pid: u32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    assert_ne!(new_pid, pid);
    assert!(follower.try_wait().unwrap().is_none(), "the follower is still running");
    for i in 10..30 {
        assert!(names.iter().any(|n| n.ends_with(&format!("agent-{i}"))), "agent-{i} missing from {names:?}");
    }
    follower.kill().unwrap();
    let out = follower.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("went away") && !stderr.contains("failed"), "{stderr}");
}
