//! `provex serve` over real HTTP against the shared FalkorDB: the JSON API, errors as
//! `{code, message}`, the token and Host checks, uploads with rejected lines, jobs, and the
//! server-sent stream (positions that never move, sequence numbers, resuming, tidy-up).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use provex::api::{Job, JobState, StreamMessage, View, ViewMode};
use provex::facade::{IngestReport, Provex};
use provex::serve::{self, Running, ServeOptions};
use provex::sources::statements::Trail;
use serde_json::Value;

use crate::common;

/// The token of the servers these tests start when they name none (`client()` sends it).
pub(crate) const TOKEN: &str = "provex-serve-test-token-0123456789";

pub(crate) async fn start(test: &str, token: Option<&str>) -> (Arc<Provex>, String, Running, String) {
    let (provex, graph) = common::open(test).await;
    let provex = Arc::new(provex);
    let (running, base) = serve_on(provex.clone(), token).await;
    (provex, graph, running, base)
}

/// `provex serve` on a free port over `provex` (no UI folder), with `token` (else [`TOKEN`]):
/// the server and its base URL.
pub(crate) async fn serve_on(provex: Arc<Provex>, token: Option<&str>) -> (Running, String) {
    serve_with(provex, token, Default::default()).await
}

/// [`serve_on`] with the given limits on request bodies.
pub(crate) async fn serve_with(
    provex: Arc<Provex>,
    token: Option<&str>,
    limits: serve::ServeLimits,
) -> (Running, String) {
    let opts = ServeOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        token: Some(token.unwrap_or(TOKEN).to_owned()),
        token_dir: None,
        ui: Some(std::env::temp_dir().join("provex-no-ui-here")),
        open: false,
        allow_dirs: Vec::new(),
        limits,
    };
    let running = serve::start(provex, opts).await.expect("serve");
    let base = format!("http://{}", running.addr);
    (running, base)
}

/// A client that sends [`TOKEN`] (as `Authorization: Bearer`) unless a request sets its own.
pub(crate) fn client() -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(reqwest::header::AUTHORIZATION, format!("Bearer {TOKEN}").parse().unwrap());
    reqwest::Client::builder().timeout(Duration::from_secs(60)).default_headers(headers).build().unwrap()
}

/// A client that sends no token.
pub(crate) fn anonymous() -> reqwest::Client {
    reqwest::Client::builder().timeout(Duration::from_secs(60)).build().unwrap()
}

async fn get<T: serde::de::DeserializeOwned>(url: &str) -> T {
    let r = client().get(url).send().await.unwrap();
    assert!(r.status().is_success(), "GET {url}: {} {}", r.status(), r.text().await.unwrap());
    r.json().await.unwrap()
}

async fn post<T: serde::de::DeserializeOwned>(url: &str, body: Value) -> T {
    let r = client().post(url).json(&body).send().await.unwrap();
    assert!(r.status().is_success(), "POST {url}: {} {}", r.status(), r.text().await.unwrap());
    r.json().await.unwrap()
}

async fn wait_job(base: &str, id: &str) -> Job {
    for _ in 0..600 {
        let jobs: Vec<Job> = get(&format!("{base}/api/jobs")).await;
        let job = jobs.into_iter().find(|j| j.id == id).expect("job listed");
        if job.state != JobState::Running {
            return job;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("job {id} did not finish");
}

/// Reads server-sent events from a response: (id, data) pairs.
pub(crate) struct Events {
    resp: reqwest::Response,
    buf: String,
}

impl Events {
    pub(crate) async fn open(url: &str) -> Events {
        let resp = client().get(url).send().await.unwrap();
        assert!(resp.status().is_success(), "{}", resp.status());
        let ct = resp.headers()["content-type"].to_str().unwrap().to_owned();
        assert!(ct.starts_with("text/event-stream"), "{ct}");
        Events { resp, buf: String::new() }
    }

    async fn next(&mut self) -> StreamMessage {
        tokio::time::timeout(Duration::from_secs(30), self.next_msg()).await.expect("a message within 30 s")
    }

    /// The next message, or `None` when none comes within `wait`.
    pub(crate) async fn next_within(&mut self, wait: Duration) -> Option<StreamMessage> {
        tokio::time::timeout(wait, self.next_msg()).await.ok()
    }

    async fn next_msg(&mut self) -> StreamMessage {
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..end + 2).collect();
                let mut id = None;
                let mut data = String::new();
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("id:") {
                        id = Some(v.trim().to_owned());
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.trim_start());
                    }
                }
                if data.is_empty() {
                    continue; // keep-alive comment
                }
                let msg: StreamMessage = serde_json::from_str(&data).unwrap();
                assert_eq!(id, Some(msg.seq().to_string()), "event id is the sequence number");
                return msg;
            }
            let chunk = self.resp.chunk().await.unwrap().expect("stream open");
            self.buf.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn council_demo_through_the_api() {
    let (provex, graph, running, base) = start("serve_council", None).await;
    let job: Job =
        post(&format!("{base}/api/graphs/{graph}/demo"), serde_json::json!({"pace_ms": null})).await;
    let job = wait_job(&base, &job.id).await;
    assert_eq!(job.state, JobState::Done, "{job:?}");

    let view: View = get(&format!("{base}/api/graphs/{graph}/view")).await;
    let stats = provex.stats(&graph).await.unwrap();
    assert_eq!(view.mode, ViewMode::Whole);
    assert_eq!(view.nodes.len() as u64, stats.nodes);
    assert_eq!(view.edges.len() as u64, stats.edges);
    // Every node placed, no two boxes overlapping (the drawing is packed into shelves, so
    // nodes of one layer may share an x range at different heights).
    for (i, a) in view.nodes.iter().enumerate() {
        assert!(a.x.is_finite() && a.y.is_finite() && a.w > 0.0, "{a:?}");
        for b in &view.nodes[i + 1..] {
            let apart_x = (a.x - b.x).abs() >= (a.w + b.w) / 2.0 - 1e-6;
            let apart_y = (a.y - b.y).abs() >= (a.h + b.h) / 2.0 - 1e-6;
            assert!(apart_x || apart_y, "{} and {} overlap", a.id, b.id);
        }
    }
    let mut arrivals: Vec<u32> = view.nodes.iter().map(|n| n.arrival).collect();
    arrivals.sort();
    assert_eq!(arrivals, (0..view.nodes.len() as u32).collect::<Vec<_>>());

    // A statement's trail, with its signature statuses and consensus.
    let statement = view.nodes.iter().find(|n| n.label == "Statement").expect("a statement");
    assert!(statement.text.as_deref().is_some_and(|t| !t.is_empty()), "claims carry their text");
    let trail: Trail =
        get(&format!("{base}/api/graphs/{graph}/trail?statement={}", enc(&statement.id))).await;
    let direct = provex.trail(&graph, &statement.id).await.unwrap();
    assert_eq!(trail, direct);
    // Its transcript, for quotes in context.
    let doc = &trail.evidence[0].document.id;
    let source: Value = get(&format!("{base}/api/graphs/{graph}/source?id={}", enc(doc))).await;
    let text = source["text"].as_str().unwrap();
    let matched = trail
        .evidence
        .iter()
        .find(|e| e.status == provex::sources::statements::EvidenceStatus::Match)
        .unwrap();
    let r = matched.byte_range;
    assert_eq!(
        &text.as_bytes()[r.start as usize..r.end as usize],
        matched.quote.as_deref().unwrap().as_bytes()
    );

    // Search finds claim text, in any case.
    let word = statement.text.as_deref().unwrap().split_whitespace().find(|w| w.len() > 5).unwrap();
    let word = word.trim_matches(|c: char| !c.is_alphanumeric()).to_uppercase();
    let hits: Vec<Value> = get(&format!("{base}/api/graphs/{graph}/search?q={}", enc(&word))).await;
    assert!(hits.iter().any(|h| h["id"] == statement.id.as_str()), "{word}: {hits:?}");

    // An audit bundle of one statement, or of every one, as `provex bundle` writes it.
    let one: Value =
        post(&format!("{base}/api/graphs/{graph}/bundle"), serde_json::json!({"statements": [statement.id]}))
            .await;
    assert_eq!(one["media_type"], "application/ld+json");
    let bundle: Value = serde_json::from_str(one["text"].as_str().unwrap()).unwrap();
    assert_eq!(bundle["provex:statements"], serde_json::json!([statement.id]));
    let all: Value = post(&format!("{base}/api/graphs/{graph}/bundle"), serde_json::json!({})).await;
    let bundle: Value = serde_json::from_str(all["text"].as_str().unwrap()).unwrap();
    assert_eq!(bundle["provex:statements"].as_array().unwrap().len() as u64, stats.labels["Statement"]);
    let r = client()
        .post(format!("{base}/api/graphs/{graph}/bundle"))
        .json(&serde_json::json!({"key": "/no/such/key.json"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400, "a key file that cannot be read");
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "io");

    // Reads that go through the same facade as the CLI.
    let node: Value = get(&format!("{base}/api/graphs/{graph}/node?id={}", enc(&statement.id))).await;
    assert_eq!(node["label"], "Statement");
    let up: Value =
        get(&format!("{base}/api/graphs/{graph}/trace?id={}&dir=up&depth=3", enc(&statement.id))).await;
    assert!(up["nodes"].as_array().unwrap().len() > 1);
    let graphs: Vec<String> = get(&format!("{base}/api/graphs")).await;
    assert!(graphs.contains(&graph));

    // Errors are {code, message} with a fitting status.
    let r = client().get(format!("{base}/api/graphs/{graph}/node?id=nope")).send().await.unwrap();
    assert_eq!(r.status(), 404);
    let e: Value = r.json().await.unwrap();
    assert_eq!(e["code"], "not_found");
    assert!(e["message"].as_str().unwrap().contains("nope"));
    let r = client()
        .post(format!("{base}/api/graphs/{graph}/query"))
        .json(&serde_json::json!({"cypher": "CREATE (n:X) RETURN n"}))
        .send()
        .await
        .unwrap();
    // A write in the read-only console is said in words, not as the server's RO_QUERY text.
    assert_eq!(r.status(), 400);
    let e: Value = r.json().await.unwrap();
    assert_eq!(e["code"], "write_refused", "{e}");
    let message = e["message"].as_str().unwrap();
    assert!(message.contains("would change the graph") && !message.contains("RO_QUERY"), "{message}");
    let r = client().get(format!("{base}/api/graphs/bad%20name/stats")).send().await.unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "usage");
    let r = client().get(format!("{base}/api/nothing")).send().await.unwrap();
    assert_eq!(r.status(), 404);
    // Without a built UI, the root says how to build one.
    let r = client().get(format!("{base}/")).send().await.unwrap();
    assert!(r.text().await.unwrap().contains("npm"));

    running.stop().await;
    provex.delete_graph(&graph).await.unwrap();
}

fn enc(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn stream_places_new_nodes_without_moving_old_ones_and_resumes() {
    let (provex, graph, running, base) = start("serve_stream", None).await;
    let view: View = get(&format!("{base}/api/graphs/{graph}/view")).await;
    assert_eq!((view.nodes.len(), view.seq), (0, 0));
    let mut events = Events::open(&format!("{base}/api/graphs/{graph}/stream?since=0")).await;

    let job: Job = post(&format!("{base}/api/graphs/{graph}/demo"), serde_json::json!({"pace_ms": 5})).await;
    let mut seen: HashMap<String, (f64, f64)> = HashMap::new();
    let mut messages = Vec::new();
    let mut statuses = Vec::new();
    let started = std::time::Instant::now();
    loop {
        assert!(started.elapsed() < Duration::from_secs(120), "the demo's stream did not settle");
        let Some(msg) = events.next_within(Duration::from_secs(2)).await else {
            // Quiet: done when the job has ended and the view is at the last message.
            let jobs: Vec<Job> = get(&format!("{base}/api/jobs")).await;
            if jobs.iter().any(|j| j.id == job.id && j.state != JobState::Running) {
                let view: View = get(&format!("{base}/api/graphs/{graph}/view")).await;
                assert_eq!(view.seq, messages.len() as u64);
                // The view is what the stream said, positions included.
                assert_eq!(view.nodes.len(), seen.len());
                for n in &view.nodes {
                    assert_eq!(seen[&n.id], (n.x, n.y), "{}", n.id);
                }
                break;
            }
            continue;
        };
        let StreamMessage::Batch { seq, nodes, edges, verifications, .. } = &msg else {
            panic!("unexpected {msg:?}");
        };
        assert_eq!(*seq, messages.len() as u64 + 1, "sequence numbers have no gaps");
        for n in nodes {
            if let Some(&(x, y)) = seen.get(&n.id) {
                assert_eq!((x, y), (n.x, n.y), "{} moved", n.id);
            }
            seen.insert(n.id.clone(), (n.x, n.y));
        }
        for e in edges {
            assert!(seen.contains_key(&e.source) && seen.contains_key(&e.target), "edge before its nodes");
        }
        statuses.extend(verifications.iter().filter_map(|v| v.signature.clone()));
        messages.push(msg);
    }
    assert!(messages.len() > 10, "a paced demo arrives in many batches");
    assert!(statuses.iter().any(|s| s == "valid"), "verification results are streamed");

    // Reconnecting with the last sequence seen gives exactly what came after it.
    let k = messages.len() as u64 / 2;
    let mut again = Events::open(&format!("{base}/api/graphs/{graph}/stream?since={k}")).await;
    for expected in &messages[k as usize..] {
        assert_eq!(&again.next().await, expected);
    }
    // A sequence number from a view this server never had: reset.
    let mut ahead = Events::open(&format!("{base}/api/graphs/{graph}/stream?since=999999")).await;
    assert!(matches!(ahead.next().await, StreamMessage::Reset { .. }));

    // Tidy-up saved for everyone: its moves arrive on the stream.
    let r = client()
        .post(format!("{base}/api/graphs/{graph}/tidy"))
        .json(&serde_json::json!({"save": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let tidied = r.json::<Value>().await.unwrap();
    assert_eq!(tidied["saved"], true, "{tidied}");
    let msg = again.next().await;
    let StreamMessage::Moves { seq, moves, .. } = msg else { panic!("expected moves, got {msg:?}") };
    assert_eq!(seq, messages.len() as u64 + 1);
    let view: View = get(&format!("{base}/api/graphs/{graph}/view")).await;
    for m in &moves {
        let n = view.nodes.iter().find(|n| n.id == m.id).unwrap();
        assert_eq!((n.x, n.y), (m.x, m.y));
    }

    running.stop().await;
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn upload_keeps_good_lines_and_reports_rejects() {
    let (provex, graph, running, base) = start("serve_upload", None).await;
    let good =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/a2a-run.jsonl")).unwrap();
    let mut lines: Vec<&str> = good.lines().collect();
    lines.insert(3, "{this is not json");
    let body = lines.join("\n") + "\n";
    let r = client()
        .post(format!("{base}/api/graphs/{graph}/upload?name=..%2Frun.jsonl"))
        .body(body)
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    let report: IngestReport = r.json().await.unwrap();
    assert_eq!(report.rejected, 1);
    assert_eq!(report.events as usize, lines.len() - 1);
    let file = &report.files[0];
    assert!(file.path.starts_with(provex.uploads_dir()), "{:?}", file.path);
    let rejects = std::fs::read_to_string(file.rejects_file.as_ref().unwrap()).unwrap();
    let rejected: Vec<Value> = rejects.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rejected.len(), 1, "{rejects}");
    assert_eq!(
        (rejected[0]["line"].as_u64(), rejected[0]["text"].as_str()),
        (Some(4), Some("{this is not json"))
    );
    assert!(provex.stats(&graph).await.unwrap().nodes > 0);

    let r = client()
        .post(format!("{base}/api/graphs/{graph}/upload?name=x&format=xml"))
        .body("x")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert!(r.json::<Value>().await.unwrap()["message"].as_str().unwrap().contains("xml"));
    running.stop().await;
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn follow_job_streams_a_growing_file_until_stopped() {
    let (provex, graph, running, base) = start("serve_follow", None).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.jsonl");
    let lines: Vec<String> =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/a2a-run.jsonl"))
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
    std::fs::write(&path, lines[..5].join("\n") + "\n").unwrap();
    let job: Job = post(
        &format!("{base}/api/graphs/{graph}/follow"),
        serde_json::json!({"path": path, "format": "a2a"}),
    )
    .await;
    assert_eq!(job.state, JobState::Running);
    let count = |v: &View| v.nodes.len();
    let mut first = 0;
    for _ in 0..100 {
        first = count(&get(&format!("{base}/api/graphs/{graph}/view")).await);
        if first > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(first > 0);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let mut grown = first;
    for _ in 0..100 {
        grown = count(&get(&format!("{base}/api/graphs/{graph}/view")).await);
        if grown > first {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(grown > first, "lines appended to a followed file arrive");
    let r = client().delete(format!("{base}/api/jobs/{}", job.id)).send().await.unwrap();
    assert!(r.status().is_success());
    assert_eq!(wait_job(&base, &job.id).await.state, JobState::Stopped);
    let r = client()
        .post(format!("{base}/api/graphs/{graph}/follow"))
        .json(&serde_json::json!({"path": "/no/such/file", "format": null}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "io");
    running.stop().await;
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn token_and_host_are_checked_on_every_request() {
    let token = "s3cret-token-0123456789";
    let (_provex, _graph, running, base) = start("serve_token", Some(token)).await;
    let url = format!("{base}/api/graphs");
    let r = anonymous().get(&url).send().await.unwrap();
    assert_eq!(r.status(), 401);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "unauthorized");
    let r = anonymous().get(&url).bearer_auth("wrong-token-0123456789").send().await.unwrap();
    assert_eq!(r.status(), 401);
    assert!(anonymous().get(&url).bearer_auth(token).send().await.unwrap().status().is_success());
    assert!(anonymous().get(format!("{url}?token={token}")).send().await.unwrap().status().is_success());
    // The UI's files hold no data: the page loads, then asks for the token.
    assert_ne!(anonymous().get(format!("{base}/")).send().await.unwrap().status(), 401);
    assert_eq!(anonymous().get(format!("{base}/api/graphs/x/stream")).send().await.unwrap().status(), 401);
    // A page on another origin reaching loopback through DNS rebinding is refused.
    let r = anonymous().get(&url).bearer_auth(token).header("host", "evil.example").send().await.unwrap();
    assert_eq!(r.status(), 403);
    let health: Value = anonymous()
        .get(format!("{base}/api/health"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["auth"], true);
    running.stop().await;
}

/// What axum would refuse before a handler runs, and routes or methods that do not exist:
/// every one is `{code, message}` with the status its code declares.
#[tokio::test(flavor = "multi_thread")]
async fn every_refusal_is_code_and_message() {
    let (_provex, graph, running, base) = start("serve_refusals", None).await;
    let check = |r: reqwest::Response, status: u16, code: &'static str| async move {
        assert_eq!(r.status(), status);
        let ct = r.headers()["content-type"].to_str().unwrap().to_owned();
        assert_eq!(ct, "application/json");
        let e: Value = r.json().await.unwrap();
        assert_eq!(e["code"], code, "{e}");
        assert!(!e["message"].as_str().unwrap().is_empty());
        e["message"].as_str().unwrap().to_owned()
    };
    let c = client();
    // A missing query parameter.
    let m = check(c.get(format!("{base}/api/graphs/{graph}/node")).send().await.unwrap(), 400, "bad_request")
        .await;
    assert!(m.contains("missing field `id`"), "{m}");
    // A parameter of the wrong type.
    let r = c.get(format!("{base}/api/graphs/{graph}/trace?id=x&depth=deep")).send().await.unwrap();
    check(r, 400, "bad_request").await;
    let r = c.get(format!("{base}/api/graphs/{graph}/trace?id=x&dir=sideways")).send().await.unwrap();
    check(r, 400, "bad_request").await;
    // Malformed JSON, JSON that is not an object, a missing field in the body.
    let q = format!("{base}/api/graphs/{graph}/query");
    let json = |body: &str| c.post(&q).header("content-type", "application/json").body(body.to_owned());
    let m = check(json("{\"cypher\": ").send().await.unwrap(), 400, "bad_request").await;
    assert!(m.contains("not valid JSON"), "{m}");
    check(json("[1, 2]").send().await.unwrap(), 400, "bad_request").await;
    let m = check(json("{}").send().await.unwrap(), 400, "bad_request").await;
    assert!(m.contains("missing field `cypher`"), "{m}");
    // A wrong content type.
    let r = c.post(&q).header("content-type", "text/plain").body("MATCH (n) RETURN n").send().await.unwrap();
    check(r, 415, "unsupported_media_type").await;
    // A body too large.
    let big = format!("{{\"cypher\": \"{}\"}}", "x".repeat(3 << 20));
    // On a connection of its own: the server answers before reading the whole body and
    // closes that connection, which a pooled client could otherwise pick for the next request.
    let once = reqwest::Client::builder().pool_max_idle_per_host(0).build().unwrap();
    let r = once
        .post(&q)
        .bearer_auth(TOKEN)
        .header("content-type", "application/json")
        .body(big)
        .send()
        .await
        .unwrap();
    check(r, 413, "payload_too_large").await;
    // A method the route does not take, and routes that do not exist.
    check(c.put(format!("{base}/api/graphs")).send().await.unwrap(), 405, "method_not_allowed").await;
    check(c.get(format!("{base}/api/graphs/{graph}/tidy")).send().await.unwrap(), 405, "method_not_allowed")
        .await;
    check(c.get(format!("{base}/api/nothing")).send().await.unwrap(), 404, "not_found").await;
    check(c.get(format!("{base}/api/graphs/{graph}/nothing")).send().await.unwrap(), 404, "not_found").await;
    // Desktop-only operations have no route.
    check(c.post(format!("{base}/api/get_settings")).send().await.unwrap(), 404, "not_found").await;
    // A good request still works, with an empty body where the operation takes JSON.
    let r = c.post(format!("{base}/api/graphs/{graph}/tidy")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let tidied = r.json::<Value>().await.unwrap();
    assert_eq!(tidied["saved"], false, "a tidy-up not asked to be saved is the viewer's own: {tidied}");
    running.stop().await;
}

/// `GET /api/diff?a=&b=`: the facade's diff of two graphs; an unknown graph is `not_found`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diff_of_two_graphs_over_http() {
    let (provex, graph, running, base) = start("serve_diff", None).await;
    let graph_b = format!("{graph}_b");
    let _ = provex.delete_graph(&graph_b).await;
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(common::repo().join("examples/a2a-run.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let full = common::file_with(&dir, "full.jsonl", &lines);
    let shorter = common::file_with(&dir, "shorter.jsonl", &lines[..lines.len() - 1]);
    for (g, f) in [(&graph, full), (&graph_b, shorter)] {
        let cancel = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let opts = provex::ingest::IngestOptions::default();
        provex.ingest(g, &[f], opts, cancel, Arc::new(provex::facade::Quiet)).await.unwrap();
    }
    let d: provex::diff::GraphDiff = get(&format!("{base}/api/diff?a={graph}&b={graph_b}")).await;
    assert_eq!(d, provex.diff_graphs(&graph, &graph_b).await.unwrap());
    let removed: Vec<&str> = d.nodes.removed.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(removed, ["message_processing:msg-reply-1", "message:msg-reply-1"]);
    assert_eq!((d.edges.removed.len(), d.nodes.added.len(), d.nodes.changed.len()), (3, 0, 0));
    let r =
        client().get(format!("{base}/api/diff?a={graph}&b=serve_diff_nothing_here")).send().await.unwrap();
    assert_eq!(r.status(), 404);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["code"], "not_found");
    running.stop().await;
    provex.delete_graph(&graph).await.unwrap();
    provex.delete_graph(&graph_b).await.unwrap();
}
