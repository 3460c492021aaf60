//! Inputs nested or chained deep enough to overflow a recursive reader's stack, sent to a
//! real `provex serve` (its handlers run on this runtime's worker threads, 2 MiB of stack as
//! in the shipped server) and to the CLI: a GraphQL argument 2,000 and 100,000 levels deep by
//! every entry point (GET and POST `/graphql`, `knowledge/query`, `knowledge/subscribe`, a
//! subscription over SSE), a chain of 20,000 fragments, variables 100 deep, and a lineage
//! file that closes a cycle after 16,385 prompts. Each is refused with a clear error and the
//! server keeps answering (an overflow aborts the whole process, this test binary included).

use std::time::Duration;

use serde_json::{json, Value};

use crate::common;
use crate::serve::{start, TOKEN};

/// A client that sends the test servers' token.
fn client() -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(reqwest::header::AUTHORIZATION, format!("Bearer {TOKEN}").parse().unwrap());
    reqwest::Client::builder().timeout(Duration::from_secs(120)).default_headers(headers).build().unwrap()
}

fn deep_topic(depth: usize) -> String {
    format!("{}\"x\"{}", "[".repeat(depth), "]".repeat(depth))
}

/// The server still answers a plain query.
async fn still_answers(base: &str, graph: &str) {
    let r = client()
        .get(format!("{base}/graphql?graph={graph}&query=%7B__typename%7D"))
        .send()
        .await
        .expect("the server is still up");
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["data"]["__typename"], "Query", "{v}");
}

fn graphql_error(v: &Value) -> String {
    assert!(v.get("data").is_none_or(Value::is_null), "no data for a refused request: {v}");
    v["errors"][0]["message"].as_str().unwrap_or_else(|| panic!("no error: {v}")).to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_graphql_is_refused_by_every_entry_point_and_the_server_stays_up() {
    let (provex, graph, running, base) = start("deep_graphql", None).await;
    let http = client();
    for depth in [2_000, 100_000] {
        let query = format!("{{ statementsAbout(topic: {}) {{ id }} }}", deep_topic(depth));
        // GET (the 100,000-deep one is longer than a request line may be).
        if depth == 2_000 {
            let r = http
                .get(format!("{base}/graphql"))
                .query(&[("graph", graph.as_str()), ("query", query.as_str())])
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200);
            let msg = graphql_error(&r.json().await.unwrap());
            assert!(msg.contains("nests more than 64 levels") && msg.contains("line 1"), "{msg}");
            still_answers(&base, &graph).await;
        }
        // POST, as a query and as a subscription asked to stream.
        for (q, accept) in [
            (query.clone(), "application/json"),
            (
                format!("subscription {{ triples(subject: {}) {{ op }} }}", deep_topic(depth)),
                "text/event-stream",
            ),
        ] {
            let r = http
                .post(format!("{base}/graphql?graph={graph}"))
                .header("accept", accept)
                .json(&json!({"query": q}))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200);
            let msg = graphql_error(&r.json().await.unwrap());
            assert!(msg.contains("nests more than 64 levels"), "{msg}");
            still_answers(&base, &graph).await;
        }
        // knowledge/query and knowledge/subscribe at /a2a/{graph}.
        let rpc = |method: &str, params: Value| json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let r = http
            .post(format!("{base}/a2a/{graph}"))
            .json(&rpc("knowledge/query", json!({"query": query, "queryLanguage": "graphql"})))
            .send()
            .await
            .unwrap();
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["error"]["code"], -32010, "{v}");
        assert!(v["error"]["message"].as_str().unwrap().contains("nests more than 64 levels"), "{v}");
        still_answers(&base, &graph).await;
        let sub = format!("subscription {{ triples(subject: {}) {{ op }} }}", deep_topic(depth));
        let r = http
            .post(format!("{base}/a2a/{graph}"))
            .json(&rpc("knowledge/subscribe", json!({"subscriptionQuery": sub})))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400);
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["error"]["code"], -32012, "{v}");
        assert!(v["error"]["message"].as_str().unwrap().contains("nests more than 64 levels"), "{v}");
        still_answers(&base, &graph).await;
    }

    // A chain of 20,000 fragments: each spread is a level of the parser's and validation's
    // recursion although the text nests two deep.
    let mut chain = String::from("{ ...f0 }\n");
    for i in 0..20_000 {
        chain.push_str(&format!("fragment f{i} on Query {{ ...f{} }}\n", i + 1));
    }
    chain.push_str("fragment f20000 on Query { __typename }\n");
    for (path, body) in [
        (format!("/graphql?graph={graph}"), json!({"query": chain})),
        (
            format!("/a2a/{graph}"),
            json!({"jsonrpc": "2.0", "id": 2, "method": "knowledge/query", "params": {"query": chain}}),
        ),
    ] {
        let v: Value =
            http.post(format!("{base}{path}")).json(&body).send().await.unwrap().json().await.unwrap();
        let text = v.to_string();
        assert!(text.contains("through its fragments"), "{path}: {text}");
        still_answers(&base, &graph).await;
    }

    // Variables: serde_json refuses JSON past 128 levels; below that, past 64 is refused too.
    let mut deep = json!("x");
    for _ in 0..100 {
        deep = json!([deep]);
    }
    let v: Value = http
        .post(format!("{base}/graphql?graph={graph}"))
        .json(&json!({"query": "query($t: String!) { statementsAbout(topic: $t) { id } }", "variables": {"t": deep}}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(graphql_error(&v).contains("variables nest more than 64"), "{v}");
    still_answers(&base, &graph).await;

    running.stop().await;
    let _ = provex.delete_graph(&graph).await; // nothing was written
}

/// A lineage file: a chain of `n` prompts (LineageOutput records), then a record that gives
/// the second prompt a second parent, the last one: an edge that closes a cycle through all.
pub fn long_cycle(n: usize) -> String {
    use uuid::Uuid;
    let id = |i: usize| Uuid::new_v5(&Uuid::NAMESPACE_URL, format!("deep-cycle/{i}").as_bytes());
    let lineage = id(usize::MAX);
    let session = id(usize::MAX - 1);
    let at = |i: usize| {
        (chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z").unwrap()
            + chrono::Duration::seconds(i as i64))
        .with_timezone(&chrono::Utc)
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    };
    let record = |i: usize, parent: Option<usize>| {
        let mut r = json!({
            "lineage_node": {
                "id": id(i), "session_id": session, "timestamp": at(i), "content": format!("prompt {i}"),
                "lineage_id": lineage, "lineage_version": {"major": 1, "minor": 0, "patch": i},
                "chain_position": i + 1, "is_root": i == 0, "is_head": false, "lineage_tracked_at": at(i)
            },
            "lineage_id": lineage, "chain_position": i + 1, "chain_depth": i + 1, "confidence": 1.0,
            "constraints_applied": [], "timestamp": at(i)
        });
        if let Some(p) = parent {
            r["evolution_edge"] = json!({
                "id": Uuid::new_v5(&Uuid::NAMESPACE_URL, format!("deep-cycle/edge/{p}/{i}").as_bytes()),
                "from": id(p), "to": id(i), "edge_type": "refines", "evolution_type": "refines",
                "similarity_score": 0.9, "created_at": at(i)
            });
        }
        r.to_string()
    };
    let mut out = String::new();
    for i in 0..n {
        out.push_str(&record(i, i.checked_sub(1)));
        out.push('\n');
    }
    out.push_str(&record(1, Some(n - 1)));
    out.push('\n');
    out
}

/// The cycle file through the CLI (which aborted with a stack overflow, exit 134) and
/// uploaded to a running server (which went down): the closing record is rejected as a cycle
/// and the 16,385 prompts before it are kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cycle_closed_after_16385_prompts_is_rejected_and_the_rest_kept() {
    const N: usize = 16_385;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cycle.jsonl");
    std::fs::write(&file, long_cycle(N)).unwrap();
    let rejects = dir.path().join("rejects.jsonl");

    let graph = format!("t_deep_cycle_cli_{}", std::process::id());
    let cli = tokio::task::spawn_blocking({
        let (file, rejects, graph) = (file.clone(), rejects.clone(), graph.clone());
        move || {
            assert_cmd::Command::cargo_bin("provex")
                .unwrap()
                .arg("--falkordb")
                .arg(common::url())
                .env_remove("PROVEX_EMBEDDINGS_URL")
                .args(["ingest", "--format", "lineage", "--graph", &graph, "--rejects"])
                .arg(&rejects)
                .arg(&file)
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&cli.stderr);
    assert_eq!(cli.status.code(), Some(1), "one record rejected, no crash: {stderr}");
    let rejected = std::fs::read_to_string(&rejects).unwrap();
    assert_eq!(rejected.lines().count(), 1, "{rejected}");
    let r: Value = serde_json::from_str(rejected.lines().next().unwrap()).unwrap();
    assert_eq!(r["line"], N as u64 + 1, "{r}");
    assert!(r.to_string().contains("would close a cycle"), "{r}");
    let (provex, _) = common::open("deep_cycle_count").await;
    let count = provex.query(&graph, "MATCH (p:Prompt) RETURN count(p)").await.unwrap();
    assert_eq!(count.rows[0][0].as_i64(), Some(N as i64), "every prompt before the cycle is kept");
    provex.delete_graph(&graph).await.unwrap();

    let (provex, graph, running, base) = start("deep_cycle_upload", None).await;
    let r = client()
        .post(format!("{base}/api/graphs/{graph}/upload?name=cycle.jsonl&format=lineage"))
        .body(std::fs::read(&file).unwrap())
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    let report: Value = r.json().await.unwrap();
    assert_eq!(
        (report["rejected"].as_u64(), report["events"].as_u64()),
        (Some(1), Some(N as u64)),
        "{report}"
    );
    still_answers(&base, &graph).await;
    running.stop().await;
    provex.delete_graph(&graph).await.unwrap();
}

/// A request's list items are bounded over all its fields: over 10,001 statements, two
/// aliases of `triples` (10,000 each, the budget exactly) are answered, three are refused
/// with the budget's message before the third reads (the complexity limit let 499 through).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aliases_past_the_request_budget_are_refused() {
    let (provex, graph, running, base) = start("graphql_budget", None).await;
    let http = client();
    let total = 10_001;
    for start in (0..total).step_by(1000) {
        let muts: Vec<Value> = (start..(start + 1000).min(total))
            .map(|i| {
                json!({"op": "add", "statement": {"subject": {"id": format!("ex:s{i}")}, "predicate": {"id": "ex:p"},
                       "object": {"value": i}, "certainty": 0.9, "provenance": {"sourceAgentId": "agent:t"}}})
            })
            .collect();
        let body =
            json!({"jsonrpc": "2.0", "id": 1, "method": "knowledge/update", "params": {"mutations": muts}});
        let v: Value =
            http.post(format!("{base}/a2a/{graph}")).json(&body).send().await.unwrap().json().await.unwrap();
        assert!(v.get("result").is_some(), "{v}");
    }
    let ask = |n: usize| {
        let q = format!(
            "{{ {} }}",
            (0..n).map(|i| format!("t{i}: triples {{ id }}")).collect::<Vec<_>>().join(" ")
        );
        let (http, url) = (http.clone(), format!("{base}/graphql?graph={graph}"));
        async move {
            http.post(url).json(&json!({"query": q})).send().await.unwrap().json::<Value>().await.unwrap()
        }
    };
    let two = ask(2).await;
    assert!(two.get("errors").is_none(), "{}", &two.to_string()[..300.min(two.to_string().len())]);
    assert_eq!(two["data"]["t1"].as_array().map(Vec::len), Some(10_000));
    let three = ask(3).await;
    let errors = three["errors"].as_array().expect("the third alias is refused");
    let msg = errors[0]["message"].as_str().unwrap();
    assert!(msg.contains("past its budget (20000 list items"), "{msg}");
    assert_eq!(errors.len(), 1, "one alias past the budget: {msg}");
    still_answers(&base, &graph).await;
    running.stop().await;
    provex.delete_graph(&graph).await.unwrap();
}
