//! Chaos (issue 26 §1): 100,800 agent events pushed through `POST /api/graphs/{g}/events`
//! in 16 requests while the private FalkorDB is killed with SIGKILL five times; the client
//! sends again any request that got no 2xx. Every request answered 2xx is in the graph
//! right when it is answered, and at the end the graph equals a clean ingest of the same
//! events into a graph on a server nobody kills: labels, properties and edges, nothing
//! doubled.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use provex::facade::{Provex, Quiet};
use provex::ingest::IngestOptions;
use provex::store::supervisor::Health;

use crate::common;
use crate::serve::serve_on;
use crate::supervise::private;
use a2a_events::task_events;

#[path = "../../examples/support/a2a_events.rs"]
mod a2a_events;

const TASKS: usize = 11_200;
const REQUESTS: usize = 16;
const KILLS: usize = 5;

/// The events of tasks `tasks` as NDJSON: the life of an agent task as the A2A event
/// stream records it, nine events each, in seven contexts, some failing.
fn events(tasks: std::ops::Range<usize>) -> String {
    let mut out = String::with_capacity(tasks.len() * 9 * 330);
    for t in tasks {
        task_events(&mut out, t, &format!("ctx-{}", t % 7), true);
    }
    out
}

/// Node and relationship counts by label and type.
async fn counts(provex: &Provex, graph: &str) -> (BTreeMap<String, u64>, BTreeMap<String, u64>) {
    let s = provex.stats(graph).await.expect("stats");
    (s.labels, s.relationships)
}

/// Every node (labels and properties) and edge (its ends' names, type and properties),
/// sorted: two graphs with the same records give the same text, a doubled one shows.
async fn contents(provex: &Provex, graph: &str) -> Vec<String> {
    let nodes = provex.query(graph, "MATCH (n) RETURN labels(n), properties(n)").await.unwrap();
    let edges = provex
        .query(graph, "MATCH (a)-[e]->(b) RETURN a.name, type(e), properties(e), b.name")
        .await
        .unwrap();
    let mut lines: Vec<String> = nodes
        .rows
        .iter()
        .map(|r| format!("{} {}", r[0], canonical(&common::without_log(r[1].clone()))))
        .collect();
    lines.extend(edges.rows.iter().map(|r| format!("{} -[{} {}]-> {}", r[0], r[1], canonical(&r[2]), r[3])));
    lines.sort();
    lines
}

/// JSON with object keys in order. Nodes are compared without the log's bookkeeping: a
/// request sent again is received again, so its records are new leaves of the log.
fn canonical(v: &serde_json::Value) -> String {
    let sorted: BTreeMap<&String, &serde_json::Value> =
        v.as_object().map(|m| m.iter().collect()).unwrap_or_default();
    serde_json::to_string(&sorted).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_events_survive_five_sigkills_of_the_database() {
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let provex = Arc::new(private(&dir, true, None).await);
    let (_running, base) = serve_on(provex.clone(), None).await;
    // The clean ingest: the same events, request by request, on a server nobody kills.
    let (clean, reference) = common::open("chaos_reference").await;
    let graph = "chaos";
    let per = TASKS / REQUESTS;
    let bodies: Vec<String> = (0..REQUESTS).map(|i| events(i * per..(i + 1) * per)).collect();
    // The clean ingest first: the first request's events, the second's, then the rest. Every
    // request holds the same kinds of tasks, so the counts after request i are the first's
    // plus i times what the second added.
    let ingest = |name: &str, parts: std::ops::Range<usize>| {
        let file = dir.path().join(name);
        std::fs::write(&file, bodies[parts].concat()).unwrap();
        let (clean, reference) = (&clean, &reference);
        async move {
            let opts = IngestOptions { bulk: false, ..Default::default() };
            let stop = Arc::new(AtomicBool::new(false));
            clean.ingest(reference, &[file], opts, stop, Arc::new(Quiet)).await
        }
    };
    ingest("first.jsonl", 0..1).await.unwrap();
    let first = counts(&clean, &reference).await;
    ingest("second.jsonl", 1..2).await.unwrap();
    let second = counts(&clean, &reference).await;
    ingest("rest.jsonl", 2..REQUESTS).await.unwrap();
    let after = |i: usize| {
        let grow = |a: &BTreeMap<String, u64>, b: &BTreeMap<String, u64>| -> BTreeMap<String, u64> {
            b.iter().map(|(k, v)| (k.clone(), a[k] + (v - a[k]) * i as u64)).collect()
        };
        (grow(&first.0, &second.0), grow(&first.1, &second.1))
    };
    assert_eq!(after(REQUESTS - 1), counts(&clean, &reference).await, "the requests hold alike tasks");
    eprintln!("chaos: clean ingest done in {:.1} s", started.elapsed().as_secs_f64());

    // The killer: during requests 1, 4, 7, 10 and 13, a SIGKILL some milliseconds in, then
    // a wait until the supervisor has the server back.
    let current = Arc::new(AtomicUsize::new(usize::MAX));
    let done = Arc::new(AtomicBool::new(false));
    let killer = {
        let (provex, current, done) = (provex.clone(), current.clone(), done.clone());
        std::thread::spawn(move || {
            let mut killed = Vec::new();
            for k in 0..KILLS {
                let at = 1 + 3 * k;
                while current.load(Ordering::SeqCst) < at && !done.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(1));
                }
                if done.load(Ordering::SeqCst) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20 + 45 * k as u64));
                let sup = provex.private_server().expect("private");
                let pid = sup.pid().expect("running");
                // SAFETY: a signal to the server this test's facade started.
                assert_eq!(unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) }, 0);
                killed.push(pid);
                let at = Instant::now();
                let deadline = at + Duration::from_secs(60);
                while !(sup.pid().is_some_and(|p| p != pid) && matches!(sup.health(), Health::Up { .. })) {
                    assert!(Instant::now() < deadline, "the server did not come back");
                    std::thread::sleep(Duration::from_millis(5));
                }
                eprintln!("chaos: kill {k} (pid {pid}): up again after {:.1} s", at.elapsed().as_secs_f64());
            }
            killed
        })
    };

    let client = crate::serve::client();
    let mut resent = 0;
    let mut sent_events = 0u64;
    for (i, body) in bodies.iter().enumerate() {
        current.store(i, Ordering::SeqCst);
        let mut tries = 0;
        let report: serde_json::Value = loop {
            tries += 1;
            assert!(tries <= 20, "request {i} never got a 2xx");
            let r = client
                .post(format!("{base}/api/graphs/{graph}/events"))
                .header("content-type", "application/x-ndjson")
                .body(body.clone())
                .send()
                .await;
            match r {
                Ok(r) if r.status().is_success() => break r.json().await.unwrap(),
                Ok(r) => eprintln!("request {i}: {} {}", r.status(), r.text().await.unwrap_or_default()),
                Err(e) => eprintln!("request {i}: {e}"),
            }
            resent += 1;
        };
        assert_eq!(report["rejected"], 0, "{report}");
        sent_events += report["events"].as_u64().unwrap();
        // Everything acknowledged is there, right when it is acknowledged.
        assert_eq!(counts(&provex, graph).await, after(i), "right after request {i}'s 2xx");
    }
    done.store(true, Ordering::SeqCst);
    let killed = killer.join().expect("killer");
    assert_eq!(killed.len(), KILLS, "killed {killed:?}");
    assert_eq!(sent_events, (TASKS * 9) as u64);

    eprintln!("chaos: requests done at {:.1} s", started.elapsed().as_secs_f64());
    // The two servers read at once: these reads are the longest part of the test.
    let (got, want) = tokio::join!(contents(&provex, graph), contents(&clean, &reference));
    assert_eq!(got.len(), want.len());
    let first_difference = got.iter().zip(&want).find(|(a, b)| a != b);
    assert!(first_difference.is_none(), "{first_difference:?}");
    eprintln!(
        "chaos: {sent_events} events in {REQUESTS} requests, {KILLS} kills ({killed:?}), {resent} requests sent again, {} records compared, {:.1} s",
        got.len(),
        started.elapsed().as_secs_f64()
    );
    let _ = clean.delete_graph(&reference).await;
}

/// The cause of the edges and nodes the chaos test saw go missing: FalkorDB logged each
/// write as its query text, and a start after a SIGKILL replayed those `MATCH … MERGE`
/// queries far slower than they first ran (one request: 21 s; four: 240 s), rolling back the
/// ones that hit the time limit. Four requests came back with 2,357 of 2,800 tasks and 804
/// of 2,800 `WAS_CREATED_BY` edges. The log now holds each write's effects: a start gives
/// back exactly the graph that was acknowledged, and the log holds no query text to replay.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_after_a_sigkill_gives_back_every_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let provex = private(&dir, true, None).await;
    let graph = "replayed";
    let file = dir.path().join("events.jsonl");
    std::fs::write(&file, events(0..TASKS / REQUESTS)).unwrap();
    let opts = IngestOptions { bulk: false, ..Default::default() };
    let stop = Arc::new(AtomicBool::new(false));
    provex.ingest(graph, &[file], opts, stop, Arc::new(Quiet)).await.expect("ingest");
    let before = contents(&provex, graph).await;

    let log: String = std::fs::read_dir(dir.path().join("falkordb/appendonlydir"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".incr.aof"))
        .map(|e| String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned())
        .collect();
    assert!(log.contains("GRAPH.EFFECT"), "the log holds no effects");
    assert!(!log.contains("MERGE ("), "the log holds query text a start would replay as new queries");

    let sup = provex.private_server().unwrap();
    let dead = crate::supervise::kill_server(&provex);
    let deadline = Instant::now() + Duration::from_secs(300);
    while !(sup.pid().is_some_and(|p| p != dead) && matches!(sup.health(), Health::Up { .. })) {
        assert!(Instant::now() < deadline, "the server did not come back");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let after = contents(&provex, graph).await;
    assert_eq!(after.len(), before.len());
    let first_difference = after.iter().zip(&before).find(|(a, b)| a != b);
    assert!(first_difference.is_none(), "{first_difference:?}");
}
