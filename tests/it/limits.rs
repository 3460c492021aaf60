//! What no client may take from `provex serve`: idle bodies hold no thread and
//! are cut after the idle time, bodies past the cap get 503 with `Retry-After` while `GET`s
//! and event streams still answer, lines in flight share one memory budget, a rejects file
//! keeps excerpts and hashes under a quota, an opened audit bundle refuses `knowledge/update`,
//! hyper's own refusals and a malformed chunk are `{code, message}`, and SIGTERM does not wait
//! for a slow client.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use provex::facade::{self, Quiet};
use provex::ingest::IngestOptions;
use provex::serve::ServeLimits;
use serde_json::{json, Value};

use crate::common;
use crate::raw_http::Raw;
use crate::serve::{client, serve_with, Events, TOKEN};

fn booted(i: usize) -> String {
    format!(
        r#"{{"Global":{{"id":"e{i}","context_id":"c","timestamp_ms":{i},"data":{{"AgentBooted":{{"agent_id":"agent-{i}","agent_type":"clerk","agent_version":"1","archive_path":"p"}}}}}}}}"#
    )
}

/// `provex serve` as a process of its own (on the shared FalkorDB): the child and its base URL.
fn serve_process(args: &[&str]) -> (std::process::Child, String, tempfile::TempDir) {
    use std::io::BufRead;
    let data = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("provex"))
        .args(["--falkordb", common::url(), "serve", "--bind", "127.0.0.1:0", "--token", TOKEN, "--ui"])
        .arg(data.path())
        .args(args)
        .env("PROVEX_DATA_DIR", data.path())
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let base = loop {
        let mut line = String::new();
        assert!(err.read_line(&mut line).unwrap() > 0, "serve ended before listening");
        if let Some(rest) = line.split("serving on ").nth(1) {
            let url = rest.split_whitespace().next().unwrap();
            break url.split('?').next().unwrap().trim_end_matches('/').to_owned();
        }
    };
    // Keep reading its standard error, so that it never blocks on a full pipe.
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    (child, base, data)
}

fn threads(pid: u32) -> usize {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("Threads:").map(|v| v.trim().parse().unwrap()))
        .unwrap()
}

async fn nodes(provex: &provex::facade::Provex, graph: &str) -> u64 {
    provex.stats(graph).await.map(|s| s.nodes).unwrap_or(0)
}

/// Regression: 530 idle `/events` bodies took 515 threads, and `GET /` and new event streams
/// timed out until they closed. Now a body that sends nothing holds no thread, bodies past the
/// cap are answered 503 with `Retry-After` at once, the server keeps answering, and an idle
/// body is cut after the idle time with 408, its whole lines kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_bodies_hold_no_thread_and_past_the_cap_get_503() {
    let (provex, graph) = common::open("limits_idle").await;
    const BODIES: usize = 150;
    let (mut child, base, _data) =
        tokio::task::block_in_place(|| serve_process(&["--max-bodies", "150", "--body-timeout", "15"]));
    // Warm up the runtime's threads.
    client().get(format!("{base}/api/health")).send().await.unwrap();
    let before = threads(child.id());
    let mut idle: Vec<Raw> = tokio::task::block_in_place(|| {
        (0..BODIES)
            .map(|i| {
                let mut r = Raw::events(&base, &graph);
                r.chunk(&format!("{}\n", booted(i)));
                r
            })
            .collect()
    });
    // Past the blocking pool's keep-alive (10 s): what is left is what the bodies hold.
    tokio::time::sleep(Duration::from_secs(11)).await;
    let grown = threads(child.id()).saturating_sub(before);
    eprintln!("{BODIES} idle bodies: {grown} more threads");
    assert!(grown < BODIES / 3, "{BODIES} idle bodies took {grown} threads");
    // Past the cap: 503 with Retry-After, at once.
    let mut extra = tokio::task::block_in_place(|| Raw::events(&base, &graph));
    let a = tokio::task::block_in_place(|| extra.answer());
    assert_eq!(a.status, 503, "{} {}", a.head, a.body);
    assert!(a.head.to_ascii_lowercase().contains("retry-after: 1"), "{}", a.head);
    assert_eq!(a.json()["code"], "busy");
    assert!(
        a.json()["message"].as_str().unwrap().contains(&format!("{BODIES} request bodies")),
        "{}",
        a.body
    );
    // The server still answers reads and opens event streams.
    let t = Instant::now();
    let health = client().get(format!("{base}/api/health")).timeout(Duration::from_secs(2)).send().await;
    assert!(health.unwrap().status().is_success());
    let _stream = tokio::time::timeout(
        Duration::from_secs(2),
        Events::open(&format!("{base}/api/graphs/{graph}/stream?since=0")),
    )
    .await
    .expect("a new event stream opens while the bodies are idle");
    assert!(t.elapsed() < Duration::from_secs(3));
    // After the idle time each body is cut with 408, its whole line kept.
    let a = tokio::task::block_in_place(|| idle[0].answer());
    assert_eq!(a.status, 408, "{} {}", a.head, a.body);
    let e = a.json();
    assert_eq!(e["code"], "timeout");
    let m = e["message"].as_str().unwrap();
    assert!(
        m.contains("sent nothing for 15 s") && m.contains("the 1 whole lines before it were read"),
        "{m}"
    );
    for r in idle.iter_mut().skip(1) {
        let a = tokio::task::block_in_place(|| r.answer());
        assert_eq!(a.status, 408);
    }
    // Every whole line of the bodies is in the graph.
    let boots = provex.query(&graph, "MATCH (b:AgentBoot) RETURN count(b)").await.unwrap();
    assert_eq!(boots.rows[0][0].as_i64(), Some(BODIES as i64));
    // The slots are free again.
    let mut again = tokio::task::block_in_place(|| Raw::events(&base, &graph));
    let a = tokio::task::block_in_place(|| {
        again.chunk(&format!("{}\n", booted(99)));
        again.write("0\r\n\r\n");
        again.answer()
    });
    assert_eq!(a.status, 200, "{}", a.body);
    let _ = child.kill();
    let _ = child.wait();
    provex.delete_graph(&graph).await.unwrap();
}

/// Regression: eight concurrent 63 MiB lines took 2.8 GB. Unfinished lines share one budget:
/// a body whose line does not fit ends with 503 naming it (the lines before it kept), and a
/// line over the length cap is rejected while the body goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_in_flight_share_one_budget_and_long_lines_are_rejected() {
    let (provex, graph) = common::open("limits_budget").await;
    let provex = Arc::new(provex);
    let limits = ServeLimits { line_budget_bytes: 3 << 19, max_line_bytes: 1 << 20, ..Default::default() };
    let (_running, base) = serve_with(provex.clone(), None, limits).await;
    let long_value = "v".repeat(700 << 10);
    let long = format!(
        r#"{{"Global":{{"id":"long","context_id":"c","timestamp_ms":1,"data":{{"AgentBooted":{{"agent_id":"agent-long","agent_type":"{long_value}","agent_version":"1","archive_path":"p"}}}}}}}}"#
    );
    let (first, second) = tokio::task::block_in_place(|| {
        // A holds 700 KiB of an unfinished line.
        let mut a = Raw::events(&base, &graph);
        a.chunk(&format!("{}\n", booted(1)));
        a.chunk(&long[..long.len() - 10]);
        std::thread::sleep(Duration::from_millis(500));
        // B's own 700 KiB do not fit beside it.
        let mut b = Raw::events(&base, &graph);
        b.chunk(&format!("{}\n", booted(2)));
        for piece in long.as_bytes()[..long.len() - 10].chunks(64 << 10) {
            if !b.try_chunk(std::str::from_utf8(piece).unwrap()) {
                break; // answered already
            }
        }
        let second = b.answer();
        a.chunk(&format!("{}\n", &long[long.len() - 10..]));
        a.write("0\r\n\r\n");
        (a.answer(), second)
    });
    assert_eq!(second.status, 503, "{}", second.body);
    assert!(second.head.to_ascii_lowercase().contains("retry-after"), "{}", second.head);
    let m = second.json()["message"].as_str().unwrap().to_owned();
    assert!(
        m.contains("line 2") && m.contains("(1.5 MiB") && m.contains("the 1 whole lines before it"),
        "{m}"
    );
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!((first.json()["events"].as_u64(), first.json()["rejected"].as_u64()), (Some(2), Some(0)));
    let names =
        provex.query(&graph, "MATCH (b:AgentBoot) RETURN b.`a2a:agent_id` AS a ORDER BY a").await.unwrap();
    let names: Vec<&str> = names.rows.iter().map(|r| r[0].as_str().unwrap()).collect();
    assert_eq!(names, ["agent-1", "agent-2", "agent-long"], "B's line before the refused one is kept");

    // Over the length cap: rejected, the lines around it kept (only the cap is ever held).
    let huge = "x".repeat(5 << 20);
    let a = tokio::task::block_in_place(|| {
        let mut c = Raw::events(&base, &graph);
        c.chunk(&format!("{}\n", booted(3)));
        for piece in huge.as_bytes().chunks(256 << 10) {
            c.chunk(std::str::from_utf8(piece).unwrap());
        }
        c.chunk(&format!("\n{}\n", booted(4)));
        c.write("0\r\n\r\n");
        c.answer()
    });
    assert_eq!(a.status, 200, "{}", a.body);
    let r = a.json();
    assert_eq!((r["events"].as_u64(), r["rejected"].as_u64()), (Some(2), Some(1)), "{r}");
    let rejects = std::fs::read_to_string(r["files"][0]["rejects_file"].as_str().unwrap()).unwrap();
    let row: Value = serde_json::from_str(rejects.lines().next().unwrap()).unwrap();
    assert_eq!(row["line"], 2);
    assert_eq!(row["bytes"], 5 << 20);
    assert_eq!(row["reason"], format!("line is {} bytes, over the limit of {}", 5 << 20, 1 << 20));
    assert!(rejects.len() < 4096, "{}", rejects.len());
    provex.delete_graph(&graph).await.unwrap();
}

/// Regression: the rejects file grew 6× the input for `\x01` lines and 132 MB per 63 MiB
/// line. A row keeps a 1 KiB excerpt, the length and the SHA-256; the file stops at its quota
/// and its last line, and the report, say how many rows were left out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rejects_file_keeps_excerpts_under_a_quota() {
    let (provex, graph) = common::open("limits_rejects").await;
    let provex = Arc::new(provex);
    let (_running, base) = serve_with(provex.clone(), None, ServeLimits::default()).await;
    let control = "\u{1}".repeat(4096);
    let big = "\u{1}".repeat(8 << 20);
    let a = tokio::task::block_in_place(|| {
        let mut r = Raw::events(&base, &graph);
        r.chunk(&format!("{}\n{big}\n", booted(0)));
        let block: String = (0..100).map(|_| format!("{control}\n")).collect();
        for _ in 0..40 {
            r.chunk(&block);
        }
        r.chunk(&format!("{}\n", booted(1)));
        r.write("0\r\n\r\n");
        r.answer()
    });
    assert_eq!(a.status, 200, "{}", a.body);
    let r = a.json();
    assert_eq!((r["events"].as_u64(), r["rejected"].as_u64()), (Some(2), Some(4001)), "{r}");
    let file = &r["files"][0];
    let unwritten = file["rejects_unwritten"].as_u64().unwrap();
    assert!(unwritten > 0, "{file}");
    let path = file["rejects_file"].as_str().unwrap();
    let size = std::fs::metadata(path).unwrap().len();
    assert!(size <= (16 << 20) + 1024, "{size}");
    let text = std::fs::read_to_string(path).unwrap();
    let rows: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let first = &rows[0];
    assert_eq!((first["file"].as_str().is_some(), first["line"].as_u64()), (true, Some(2)));
    assert_eq!(first["bytes"], 8 << 20);
    assert_eq!(first["text"].as_str().unwrap().len(), 1024);
    assert!(first["sha256"].as_str().unwrap().starts_with("sha256:"));
    assert!(first["reason"].as_str().unwrap().contains("malformed JSON"), "{first}");
    let last = rows.last().unwrap();
    assert_eq!(last["unwritten"].as_u64(), Some(unwritten));
    assert_eq!(rows.len() as u64 - 1 + unwritten, 4001);
    assert!(last["reason"].as_str().unwrap().contains("quota"), "{last}");
    provex.delete_graph(&graph).await.unwrap();
}

/// Regression: `knowledge/update` into a graph opened from an audit bundle succeeded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn knowledge_update_into_an_opened_bundle_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let files = facade::write_council_files(dir.path()).unwrap();
    let files: Vec<_> = files.into_iter().filter(|f| f.extension().is_some_and(|e| e == "jsonl")).collect();
    let (provex, graph) = common::open("limits_bundle").await;
    let provex = Arc::new(provex);
    let stop = || Arc::new(AtomicBool::new(false));
    provex.ingest(&graph, &files, IngestOptions::default(), stop(), Arc::new(Quiet)).await.unwrap();
    let path = dir.path().join("council.bundle.jsonld");
    std::fs::write(&path, provex.bundle(&graph, &[], None).await.unwrap()).unwrap();
    let opened = format!("{graph}_opened");
    let _ = provex.delete_graph(&opened).await;
    provex.ingest(&opened, &[path], IngestOptions::default(), stop(), Arc::new(Quiet)).await.unwrap();
    let (_running, base) = serve_with(provex.clone(), None, ServeLimits::default()).await;
    let before = provex.stats(&opened).await.unwrap();
    let update = json!({"jsonrpc": "2.0", "id": 1, "method": "knowledge/update", "params": {"mutations": [
        {"op": "add", "statement": {"subject": {"id": "ex:a"}, "predicate": {"id": "ex:p"}, "object": {"value": 1}}}
    ]}});
    let r: Value = client()
        .post(format!("{base}/a2a/{opened}"))
        .json(&update)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(r["error"]["code"], -32011, "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("read-only"), "{r}");
    assert_eq!(provex.stats(&opened).await.unwrap(), before, "nothing written");
    // As `/events` refuses it.
    let e = client()
        .post(format!("{base}/api/graphs/{opened}/events"))
        .body(booted(1) + "\n")
        .send()
        .await
        .unwrap();
    assert_eq!(e.status(), 400);
    // The same update into an ordinary graph goes in.
    let r: Value = client()
        .post(format!("{base}/a2a/{graph}"))
        .json(&update)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(r.get("result").is_some(), "{r}");
    provex.delete_graph(&opened).await.unwrap();
    provex.delete_graph(&graph).await.unwrap();
}

/// Regression: hyper's own 414, 431 and 400 had empty bodies, and a malformed chunk size was
/// answered 200 with 0 lines.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_requests_are_answered_in_json() {
    let (provex, graph) = common::open("limits_hyper").await;
    let provex = Arc::new(provex);
    let (_running, base) = serve_with(provex.clone(), None, ServeLimits::default()).await;
    let addr = base.trim_start_matches("http://").to_owned();
    let ask = |request: String| {
        tokio::task::block_in_place(|| {
            let mut r = Raw::open(&base);
            r.write(&request);
            r.answer()
        })
    };
    let long_uri = format!("GET /api/health?x={} HTTP/1.1\r\nHost: {addr}\r\n\r\n", "a".repeat(70_000));
    let many: String = (0..200).map(|i| format!("X-H{i}: v\r\n")).collect();
    let cases = [
        (long_uri, 414, "uri_too_long"),
        (format!("GET /api/health HTTP/1.1\r\nHost: {addr}\r\n{many}\r\n"), 431, "headers_too_large"),
        ("GET /\u{1} HTTP/1.1\r\n\r\n".to_owned(), 400, "bad_request"),
    ];
    for (request, status, code) in cases {
        let a = ask(request);
        assert_eq!(a.status, status, "{}", a.head);
        assert!(a.head.to_ascii_lowercase().contains("content-type: application/json"), "{}", a.head);
        assert_eq!(a.json()["code"], code);
        assert!(!a.json()["message"].as_str().unwrap().is_empty());
    }
    // A bad chunk size is an error of the body, not its end.
    let a = tokio::task::block_in_place(|| {
        let mut r = Raw::events(&base, &graph);
        r.chunk(&format!("{}\n", booted(1)));
        r.write("zz\r\nnot a chunk\r\n");
        r.answer()
    });
    assert_eq!(a.status, 400, "{} {}", a.head, a.body);
    let e = a.json();
    assert_eq!(e["code"], "bad_request");
    assert!(e["message"].as_str().unwrap().contains("the 1 whole lines before it"), "{e}");
    assert!(nodes(&provex, &graph).await > 0, "the whole line before it is kept");
    provex.delete_graph(&graph).await.unwrap();
}

/// Regression: SIGTERM waited for a slow client. `provex serve` with a body that sends
/// nothing attached exits within its grace period.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_does_not_wait_for_a_slow_client() {
    let (provex, graph) = common::open("limits_sigterm").await;
    let (mut child, base, _data) = tokio::task::block_in_place(|| serve_process(&[]));
    let mut slow = tokio::task::block_in_place(|| {
        let mut r = Raw::events(&base, &graph);
        r.chunk(&format!("{}\n", booted(1)));
        r.chunk(&booted(2)[..20]);
        r
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    let t = Instant::now();
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let status = tokio::task::block_in_place(|| loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if t.elapsed() > Duration::from_secs(15) {
            let _ = child.kill();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    });
    let took = t.elapsed();
    assert!(status.is_some(), "provex serve still running 15 s after SIGTERM");
    assert!(took < Duration::from_secs(6), "SIGTERM took {took:?}");
    slow.write("");
    let _ = provex.delete_graph(&graph).await;
}

/// Work for a client that went away stops: an upload whose client disconnects while its file
/// is ingested is cancelled, and the graph stops growing short of the whole file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ingest_whose_client_went_away_stops() {
    let (provex, graph) = common::open("limits_gone").await;
    let provex = Arc::new(provex);
    let (_running, base) = serve_with(provex.clone(), None, ServeLimits::default()).await;
    // The graph exists, so the upload is written batch by batch (not built at the end).
    let r = client()
        .post(format!("{base}/api/graphs/{graph}/events"))
        .body(booted(0) + "\n")
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    const N: usize = 150_000;
    let body: String = (1..=N).map(|i| booted(i) + "\n").collect();
    let up = tokio::task::block_in_place(|| {
        let mut r = Raw::open(&base);
        let addr = r.addr.clone();
        r.write(&format!(
            "POST /api/graphs/{graph}/upload?name=gone.jsonl HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\n\r\n",
            body.len()
        ));
        r.write(&body);
        r
    });
    let boots = |provex: Arc<provex::facade::Provex>, graph: String| async move {
        let t = provex.query(&graph, "MATCH (b:AgentBoot) RETURN count(b)").await.unwrap();
        t.rows[0][0].as_i64().unwrap()
    };
    let start = Instant::now();
    while boots(provex.clone(), graph.clone()).await < 5_000 {
        assert!(start.elapsed() < Duration::from_secs(120), "the upload's ingest never started");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    up.sock.shutdown(std::net::Shutdown::Both).unwrap();
    drop(up);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after = boots(provex.clone(), graph.clone()).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let later = boots(provex.clone(), graph.clone()).await;
    assert_eq!(after, later, "the graph kept growing after the client went away");
    assert!(later < N as i64, "the whole file was ingested for a client that was gone ({later})");
    provex.delete_graph(&graph).await.unwrap();
}

/// A live pusher that has nothing to say for longer than the idle time keeps its request
/// open by sending an empty line now and then (README, "Pushing events live"): empty lines
/// count as activity, are no records and are not rejected.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_pusher_keeps_its_body_open_with_empty_lines() {
    let (provex, graph) = common::open("limits_keepalive").await;
    let provex = Arc::new(provex);
    let limits = ServeLimits { body_idle: Duration::from_millis(1500), ..ServeLimits::default() };
    let (_running, base) = serve_with(provex.clone(), None, limits).await;
    let answer = tokio::task::block_in_place(|| {
        let mut r = Raw::events(&base, &graph);
        r.chunk(&format!("{}\n", booted(1)));
        // Four times the idle time, with an empty line every half of it.
        for _ in 0..8 {
            std::thread::sleep(Duration::from_millis(750));
            assert!(r.try_chunk("\n"), "the server cut a body that kept sending empty lines");
        }
        r.chunk(&format!("{}\n", booted(2)));
        r.write("0\r\n\r\n");
        r.answer()
    });
    assert_eq!(answer.status, 200, "{} {}", answer.head, answer.body);
    let report = answer.json();
    assert_eq!(report["events"], 2, "{report}");
    assert_eq!(report["rejected"], 0, "{report}");
    assert!(nodes(&provex, &graph).await >= 2, "both agents are in the graph");
    provex.delete_graph(&graph).await.unwrap();
}
