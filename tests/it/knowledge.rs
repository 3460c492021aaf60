//! Seed 004's knowledge-graph extension (issue 14 §2–3) against a real FalkorDB and a real
//! `provex serve`: storage per formats.md §5, every `knowledge/*` method and error code,
//! JSON-RPC framing (batches, notifications), alignment refusals that write nothing, the
//! token on writes, the subscription's events (after it opened, in order, once, filtered),
//! history kept, and seed 001's GraphQL queries agreeing with `trail` on the council demo.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use provex::sources::knowledge::{statement_id, Alignment, KgStatement};
use serde_json::{json, Value};

use crate::serve::start;

const TOKEN: &str = "knowledge-token-0123456789";

fn st(s: &str, p: &str, o: Value, graph: Option<&str>, certainty: f64) -> Value {
    let object = if o.is_string() && o.as_str().unwrap().starts_with("ex:") {
        json!({"id": o})
    } else {
        json!({"value": o})
    };
    json!({"subject": {"id": s}, "predicate": {"id": p}, "object": object, "graph": graph, "certainty": certainty,
           "provenance": {"sourceAgentId": "agent:tester"}})
}

fn id_of(v: &Value) -> String {
    statement_id(&serde_json::from_value::<KgStatement>(v.clone()).unwrap())
}

struct Rpc {
    base: String,
    graph: String,
    http: reqwest::Client,
}

impl Rpc {
    async fn raw(&self, body: &str, token: bool) -> (u16, Value) {
        let mut r = self
            .http
            .post(format!("{}/a2a/{}", self.base, self.graph))
            .header("content-type", "application/json");
        if token {
            r = r.bearer_auth(TOKEN);
        }
        let resp = r.body(body.to_owned()).send().await.unwrap();
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap();
        (status, if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap() })
    }

    async fn call(&self, method: &str, params: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
        self.raw(&body.to_string(), true).await.1
    }

    async fn triples(&self, args: &str) -> Vec<Value> {
        let q = format!("query {{ triples{args} {{ id subject {{ id }} predicate {{ id }} object {{ id value }} graph certainty provenance }} }}");
        let r = self.call("knowledge/query", json!({"query": q, "queryLanguage": "graphql"})).await;
        r["result"]["data"]["triples"].as_array().unwrap_or_else(|| panic!("{r}")).clone()
    }
}

fn code(v: &Value) -> i64 {
    v["error"]["code"].as_i64().unwrap_or_else(|| panic!("not an error: {v}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn updates_are_stored_as_prov_and_history_stays() {
    let (provex, graph, running, base) = start("kg_store", Some(TOKEN)).await;
    let rpc = Rpc { base, graph: graph.clone(), http: reqwest::Client::new() };
    let a = st("ex:Riverton", "ex:hasMayor", json!("ex:Whitfield"), Some("ex:council"), 0.9);
    let b = st("ex:Riverton", "ex:population", json!(48210), Some("ex:council"), 0.8);
    let r = rpc
        .call("knowledge/update", json!({"mutations": [{"op": "add", "statement": a}, {"op": "add", "statement": b}],
            "sourceAgentId": "agent:summariser", "justification": "from the minutes", "taskId": "task-1", "sessionId": "s-1"}))
        .await;
    assert_eq!(r["result"]["success"], true, "{r}");
    assert_eq!(r["result"]["verificationStatus"], "Verified");
    assert_eq!(r["result"]["statementsAffected"], 2);
    let ids: Vec<String> = serde_json::from_value(r["result"]["affectedIds"].clone()).unwrap();
    assert_eq!(ids, [id_of(&a), id_of(&b)]);
    assert!(ids[0].starts_with("kg:") && ids[0].len() == 3 + 64);

    // In FalkorDB: statements, resources, the update as an activity of the agent.
    let q = |c: &str| {
        let (provex, graph, c) = (provex.clone(), graph.clone(), c.to_owned());
        async move { provex.query(&graph, &c).await.unwrap().rows }
    };
    assert_eq!(q("MATCH (s:KGStatement) RETURN count(s)").await[0][0], 2);
    let res = q("MATCH (s:KGStatement)-[:HAS_SUBJECT]->(r:KGResource) RETURN DISTINCT r.name").await;
    assert_eq!(res[0][0], "ex:Riverton");
    assert_eq!(
        q("MATCH (:KGStatement)-[:HAS_OBJECT]->(r:KGResource) RETURN r.name").await[0][0],
        "ex:Whitfield"
    );
    let u = q("MATCH (s:KGStatement)-[:WAS_GENERATED_BY]->(u:KnowledgeUpdate)-[:WAS_ASSOCIATED_WITH]->(a:Agent) \
               RETURN DISTINCT u.`kg:justification`, u.`kg:taskId`, u.`kg:sessionId`, u.`kg:verificationStatus`, a.name, u.`prov:base_type`")
        .await;
    assert_eq!(u.len(), 1);
    assert_eq!(
        u[0],
        vec![
            json!("from the minutes"),
            json!("task-1"),
            json!("s-1"),
            json!("Verified"),
            json!("agent:summariser"),
            json!("ProvActivity")
        ]
    );
    assert_eq!(
        q("MATCH (s:KGStatement {`kg:predicate`: 'ex:population'}) RETURN s.`kg:objectValue`").await[0][0],
        48210
    );

    // Back through GraphQL: both, literal value typed.
    let t = rpc.triples("(subject: \"ex:Riverton\")").await;
    assert_eq!(t.len(), 2);
    assert!(t.iter().any(|x| x["object"]["value"] == 48210));
    assert_eq!(rpc.triples("(minCertainty: 0.85)").await.len(), 1);
    let r =
        rpc.call("knowledge/query", json!({"query": "{ triples { id } }", "requiredCertainty": 0.85})).await;
    assert_eq!(
        r["result"]["data"]["triples"].as_array().unwrap().len(),
        1,
        "requiredCertainty filters as minCertainty"
    );

    // Adding the same triple again is the same node.
    rpc.call(
        "knowledge/update",
        json!({"mutations": [{"op": "add", "statement": a}], "sourceAgentId": "agent:checker"}),
    )
    .await;
    assert_eq!(q("MATCH (s:KGStatement) RETURN count(s)").await[0][0], 2);

    // Replace: the old mayor is kept, invalidated; triples shows the current one only.
    let c = st("ex:Riverton", "ex:hasMayor", json!("ex:Ortega"), Some("ex:council"), 0.95);
    let r = rpc
        .call("knowledge/update", json!({"mutations": [{"op": "replace", "statement": c}], "sourceAgentId": "agent:checker", "justification": "election"}))
        .await;
    assert_eq!(r["result"]["statementsAffected"], 2, "{r}");
    let mayors = rpc.triples("(predicate: \"ex:hasMayor\")").await;
    assert_eq!(mayors.len(), 1);
    assert_eq!(mayors[0]["object"]["id"], "ex:Ortega");
    let old = q(&format!("MATCH (s:KGStatement {{name: '{}'}})-[:WAS_INVALIDATED_BY]->(u:KnowledgeUpdate) RETURN u.`kg:justification`", id_of(&a))).await;
    assert_eq!(old[0][0], "election");

    // Remove: kept and invalidated; removing it again affects nothing.
    let r = rpc
        .call(
            "knowledge/update",
            json!({"mutations": [{"op": "remove", "statement": b}], "sourceAgentId": "agent:checker"}),
        )
        .await;
    assert_eq!(r["result"]["statementsAffected"], 1);
    let r = rpc
        .call(
            "knowledge/update",
            json!({"mutations": [{"op": "remove", "statement": b}], "sourceAgentId": "agent:checker"}),
        )
        .await;
    assert_eq!(r["result"]["statementsAffected"], 0);
    assert_eq!(rpc.triples("").await.len(), 1);
    assert_eq!(q("MATCH (s:KGStatement) RETURN count(s)").await[0][0], 3, "history is kept");

    // The resource's history, as the explorer shows it.
    let h = provex.kg_resource(&graph, "ex:Riverton").await.unwrap();
    assert_eq!(h.statements.len(), 3);
    assert!(h.statements[0].current, "current first");
    let first_mayor = h.statements.iter().find(|s| s.id == id_of(&a)).unwrap();
    let changes: Vec<(&str, Option<&str>)> =
        first_mayor.changes.iter().map(|c| (c.change.as_str(), c.source_agent_id.as_deref())).collect();
    assert_eq!(
        changes,
        [
            ("added", Some("agent:summariser")),
            ("added", Some("agent:checker")),
            ("removed", Some("agent:checker"))
        ]
    );
    assert!(provex.kg_resource(&graph, "ex:Nowhere").await.is_err());
    running.stop().await;
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_rpc_framing_errors_and_the_token() {
    let (provex, graph, running, base) = start("kg_rpc", Some(TOKEN)).await;
    let http = reqwest::Client::new();
    let rpc = Rpc { base: base.clone(), graph: graph.clone(), http: http.clone() };

    // The agent card, public.
    let card: Value = http
        .get(format!("{base}/a2a/{graph}/.well-known/agent.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(card["url"], format!("{base}/a2a/{graph}"));
    assert_eq!(card["capabilities"]["knowledgeGraph"], true);
    assert_eq!(card["capabilities"]["streaming"], true);
    assert_eq!(card["capabilities"]["knowledgeGraphQueryLanguages"], json!(["graphql"]));
    for k in ["name", "description", "version", "skills", "defaultInputModes", "defaultOutputModes"] {
        assert!(!card[k].is_null(), "{k}");
    }
    assert!(!card["skills"].as_array().unwrap().is_empty());

    // JSON-RPC's own codes.
    assert_eq!(code(&rpc.raw("{not json", true).await.1), -32700);
    assert_eq!(code(&rpc.raw("[]", true).await.1), -32600);
    assert_eq!(code(&rpc.raw(r#"{"jsonrpc":"2.0","method":5,"id":1}"#, true).await.1), -32600);
    let r = rpc.call("knowledge/forget", json!({})).await;
    assert_eq!((code(&r), r["id"].clone()), (-32601, json!(7)));
    assert_eq!(code(&rpc.call("knowledge/update", json!({"mutations": "all"})).await), -32602);
    let bad =
        json!({"subject": {"id": "ex:a"}, "predicate": {"id": "ex:p"}, "object": {"id": "ex:b", "value": 1}});
    let r = rpc.call("knowledge/update", json!({"mutations": [{"op": "add", "statement": bad}]})).await;
    assert_eq!(code(&r), -32602);
    assert!(r["error"]["message"].as_str().unwrap().contains("exactly one"), "{r}");
    assert_eq!(
        code(
            &rpc.call("knowledge/query", json!({"query": "{ triples { id } }", "queryLanguage": "sparql"}))
                .await
        ),
        -32602
    );
    // Seed 004's: a query that fails.
    let r = rpc.call("knowledge/query", json!({"query": "{ nosuchfield }"})).await;
    assert_eq!(code(&r), -32010);
    assert!(r["error"]["data"]["errors"].is_array());

    // The token: refused without it (and nothing written), taken from the header or metadata.
    let add = json!({"jsonrpc": "2.0", "id": 1, "method": "knowledge/update",
        "params": {"mutations": [{"op": "add", "statement": st("ex:a", "ex:p", json!("ex:b"), None, 0.5)}]}});
    let (status, r) = rpc.raw(&add.to_string(), false).await;
    assert_eq!((status, code(&r)), (401, -32011));
    assert!(rpc.triples("").await.is_empty());
    let mut with_meta = add.clone();
    with_meta["params"]["metadata"] = json!({"token": TOKEN});
    let (status, r) = rpc.raw(&with_meta.to_string(), false).await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(rpc.triples("").await.len(), 1);

    // Batches: one answer per request with an id, none for notifications.
    let batch = json!([
        {"jsonrpc": "2.0", "id": "q", "method": "knowledge/query", "params": {"query": "{ triples { id } }"}},
        {"jsonrpc": "2.0", "method": "knowledge/query", "params": {"query": "{ triples { id } }"}},
        {"jsonrpc": "2.0", "id": "x", "method": "nope"},
        5
    ]);
    let (_, r) = rpc.raw(&batch.to_string(), true).await;
    let r = r.as_array().unwrap();
    assert_eq!(r.len(), 3, "{r:?}");
    assert_eq!(r[0]["id"], "q");
    assert_eq!(r[0]["result"]["data"]["triples"].as_array().unwrap().len(), 1);
    assert_eq!((r[1]["id"].clone(), code(&r[1])), (json!("x"), -32601));
    assert_eq!(code(&r[2]), -32600);
    let (status, _) = rpc
        .raw(r#"{"jsonrpc":"2.0","method":"knowledge/query","params":{"query":"{ triples { id } }"}}"#, true)
        .await;
    assert_eq!(status, 204, "a notification gets no response");

    // Alignment: each rule refuses with -32013, names itself, and writes nothing.
    let rules = Alignment::parse(
        "forbiddenPredicates: [ex:secret]\nallowedSubjectPrefixes: ['ex:']\nminCertainty: 0.6\n\
         justificationRequired: true\nallowedSourceAgents: [agent:good]\n",
    )
    .unwrap();
    provex.set_alignment(Some(rules));
    let ok = |s: Value| json!({"mutations": [{"op": "add", "statement": s}], "sourceAgentId": "agent:good", "justification": "because"});
    let before = rpc.triples("").await.len();
    for (params, rule) in [
        (
            json!({"mutations": [{"op": "add", "statement": st("ex:a", "ex:q", json!(1), None, 0.9)}], "sourceAgentId": "agent:bad", "justification": "j"}),
            "allowedSourceAgents",
        ),
        (
            json!({"mutations": [{"op": "add", "statement": st("ex:a", "ex:q", json!(1), None, 0.9)}], "sourceAgentId": "agent:good"}),
            "justificationRequired",
        ),
        (ok(st("ex:a", "ex:secret", json!(1), None, 0.9)), "forbiddenPredicates"),
        (ok(st("urn:other", "ex:q", json!(1), None, 0.9)), "allowedSubjectPrefixes"),
        (ok(st("ex:a", "ex:q", json!(1), None, 0.3)), "minCertainty"),
    ] {
        let r = rpc.call("knowledge/update", params).await;
        assert_eq!(code(&r), -32013, "{rule}: {r}");
        assert_eq!(r["error"]["data"]["rule"], rule);
        assert_eq!(r["error"]["data"]["verificationStatus"], "Rejected - Alignment Violation");
        assert!(r["error"]["message"].as_str().unwrap().contains(rule));
    }
    assert_eq!(rpc.triples("").await.len(), before, "nothing written");
    let r = rpc.call("knowledge/update", ok(st("ex:a", "ex:q", json!(1), None, 0.9))).await;
    assert_eq!(r["result"]["verificationStatus"], "Verified", "{r}");
    provex.set_alignment(None);

    // Subscribe: a document that is not a subscription is refused with 400 / -32012.
    let (status, r) = rpc
        .raw(&json!({"jsonrpc": "2.0", "id": 3, "method": "knowledge/subscribe", "params": {"subscriptionQuery": "{ triples { id } }"}}).to_string(), true)
        .await;
    assert_eq!((status, code(&r)), (400, -32012));
    running.stop().await;
    provex.delete_graph(&graph).await.unwrap();
}

/// Reads SSE `data:` payloads as JSON.
async fn next_event(resp: &mut reqwest::Response, buf: &mut String, wait: Duration) -> Option<Value> {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        if let Some(end) = buf.find("\n\n") {
            let block: String = buf.drain(..end + 2).collect();
            let data: String =
                block.lines().filter_map(|l| l.strip_prefix("data:")).map(str::trim_start).collect();
            if data.is_empty() {
                continue;
            }
            return Some(serde_json::from_str(&data).unwrap());
        }
        match tokio::time::timeout_at(deadline, resp.chunk()).await {
            Ok(Ok(Some(c))) => buf.push_str(std::str::from_utf8(&c).unwrap()),
            _ => return None,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscription_sees_exactly_the_changes_after_it_opened() {
    let (provex, graph, running, base) = start("kg_sub", Some(TOKEN)).await;
    let http = reqwest::Client::new();
    let rpc = Rpc { base: base.clone(), graph: graph.clone(), http: http.clone() };
    let add = |s: Value| json!({"mutations": [{"op": "add", "statement": s}], "sourceAgentId": "agent:a"});
    // Before it opens: not seen.
    rpc.call("knowledge/update", add(st("ex:x", "ex:p", json!(0), None, 0.5))).await;
    let sub = json!({"jsonrpc": "2.0", "id": "sub-1", "method": "knowledge/subscribe",
        "params": {"subscriptionQuery": "subscription S($s: ID) { triples(subject: $s) { op changeId } }", "variables": {"s": "ex:x"}}});
    let mut resp =
        http.post(format!("{base}/a2a/{graph}")).bearer_auth(TOKEN).json(&sub).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert!(resp.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
    tokio::time::sleep(Duration::from_millis(200)).await;
    // Another graph, another subject: filtered out. Then three changes in order.
    let other = Rpc { base: base.clone(), graph: format!("{graph}_other"), http: http.clone() };
    other.call("knowledge/update", add(st("ex:x", "ex:p", json!(9), None, 0.5))).await;
    rpc.call("knowledge/update", add(st("ex:y", "ex:p", json!(1), None, 0.5))).await;
    for n in 1..=3 {
        rpc.call("knowledge/update", add(st("ex:x", "ex:p", json!(n), None, 0.5))).await;
    }
    rpc.call(
        "knowledge/update",
        json!({"mutations": [{"op": "remove", "statement": st("ex:x", "ex:p", json!(1), None, 0.5)}]}),
    )
    .await;
    let mut buf = String::new();
    let mut got = Vec::new();
    while let Some(e) = next_event(&mut resp, &mut buf, Duration::from_secs(3)).await {
        got.push(e);
    }
    let seen: Vec<(String, Value)> = got
        .iter()
        .map(|e| {
            (
                e["result"]["op"].as_str().unwrap().to_owned(),
                e["result"]["statement"]["object"]["value"].clone(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("add".into(), json!(1)),
            ("add".into(), json!(2)),
            ("add".into(), json!(3)),
            ("remove".into(), json!(1))
        ],
        "{got:?}"
    );
    for e in &got {
        assert_eq!(e["jsonrpc"], "2.0");
        assert_eq!(e["id"], "sub-1");
        assert!(uuid::Uuid::parse_str(e["result"]["changeId"].as_str().unwrap()).is_ok());
        assert!(e["result"]["timestamp"].as_str().unwrap().ends_with('Z'));
    }
    running.stop().await;
    provex.delete_graph(&graph).await.unwrap();
    let _ = provex.delete_graph(&format!("{graph}_other")).await;
}

/// Seed 001 §5.1 over the council demo agrees with `trail`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seed_001_graphql_agrees_with_the_trail() {
    let (provex, graph, running, base) = start("kg_gql", Some(TOKEN)).await;
    provex.demo_council(&graph, None, Arc::new(AtomicBool::new(false))).await.unwrap();
    let http = reqwest::Client::new();
    let gql = |q: String| {
        let (http, base, graph) = (http.clone(), base.clone(), graph.clone());
        async move {
            let r = http
                .post(format!("{base}/graphql?graph={graph}"))
                .bearer_auth(TOKEN)
                .json(&json!({"query": q}))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 200);
            r.json::<Value>().await.unwrap()
        }
    };
    let r = gql("{ statementsAbout(topic: \"ZONING\") { id claimText confidence consensusScore verified standing signature generatedBy { id reputation } \
                 evidence { id text byteStart byteEnd timestampStart document { id title } citedBy { id } } verifications { verdict verifier { id } counted } } }"
        .into())
    .await;
    let found = r["data"]["statementsAbout"].as_array().unwrap_or_else(|| panic!("{r}"));
    assert!(!found.is_empty());
    for s in found {
        let id = s["id"].as_str().unwrap();
        let t = provex.trail(&graph, id).await.unwrap();
        let quotes: Vec<String> = t.evidence.iter().filter_map(|e| e.quote.clone()).collect();
        assert!(
            t.claim.text.to_lowercase().contains("zoning")
                || quotes.iter().any(|q| q.to_lowercase().contains("zoning")),
            "{id} is about zoning"
        );
        assert_eq!(s["claimText"], t.claim.text);
        assert_eq!(s["consensusScore"].as_f64().unwrap(), t.consensus);
        assert_eq!(s["verified"], t.verified);
        assert_eq!(s["standing"], t.standing.as_str());
        assert_eq!(s["generatedBy"]["id"], t.agent);
        assert_eq!(s["evidence"].as_array().unwrap().len(), t.evidence.len());
        assert_eq!(s["verifications"].as_array().unwrap().len(), t.verifications.len());
        for (g, e) in s["evidence"].as_array().unwrap().iter().zip(&t.evidence) {
            assert_eq!(g["id"], e.chunk_id);
            assert_eq!(g["byteStart"].as_u64().unwrap(), e.byte_range.start);
            assert!(g["citedBy"].as_array().unwrap().iter().any(|c| c["id"] == id));
        }
    }
    // The parking-study claim: `verified` by consensus as the format defines it, and its
    // standing, the headline, the invalid signature.
    let parking =
        gql("{ statementsAbout(topic: \"parking study\") { verified standing signature } }".into()).await;
    assert_eq!(
        parking["data"]["statementsAbout"],
        json!([{"verified": true, "standing": "invalid_signature", "signature": "invalid"}]),
        "{parking}"
    );
    // Every statement matches the empty topic; consensusOn keeps those at or above minScore.
    let all = gql("{ statementsAbout(topic: \"\") { id consensusScore } }".into()).await;
    let all = all["data"]["statementsAbout"].as_array().unwrap().clone();
    let stats = provex.query(&graph, "MATCH (s:Statement) RETURN count(s)").await.unwrap();
    assert_eq!(all.len() as i64, stats.rows[0][0].as_i64().unwrap());
    let high = gql("{ consensusOn(topic: \"\", minScore: 0.8) { id consensusScore } }".into()).await;
    let high = high["data"]["consensusOn"].as_array().unwrap().clone();
    assert_eq!(high.len(), all.iter().filter(|s| s["consensusScore"].as_f64().unwrap() >= 0.8).count());
    assert!(high.len() < all.len(), "some statements are below 0.8");
    // evidenceChain and agentReputation.
    let sid = found[0]["id"].as_str().unwrap();
    let chain = gql(format!("{{ evidenceChain(statementId: \"{sid}\") {{ id text }} }}")).await;
    assert_eq!(
        chain["data"]["evidenceChain"],
        found[0]["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| json!({"id": e["id"], "text": e["text"]}))
            .collect::<Value>()
    );
    let agent = found[0]["generatedBy"]["id"].as_str().unwrap();
    let rep = gql(format!("{{ agentReputation(agentId: \"{agent}\") }}")).await;
    assert_eq!(rep["data"]["agentReputation"], found[0]["generatedBy"]["reputation"]);
    assert!(gql("{ agentReputation(agentId: \"urn:agent:nobody\") }".into()).await["errors"].is_array());
    // A topic full of Cypher is just text.
    let r = gql("{ statementsAbout(topic: \"') MATCH (n) DETACH DELETE n //\") { id } }".into()).await;
    assert_eq!(r["data"]["statementsAbout"], json!([]));
    assert_eq!(provex.query(&graph, "MATCH (s:Statement) RETURN count(s)").await.unwrap().rows, stats.rows);
    // Limits: too deep a query is a GraphQL error, quickly.
    let deep = "{ statementsAbout(topic: \"\") { verifications { statement { verifications { statement { verifications { statement { verifications { statement { verifications { statement { id } } } } } } } } } } } }";
    let started = std::time::Instant::now();
    let r = gql(deep.into()).await;
    assert!(r["errors"][0]["message"].as_str().unwrap().to_lowercase().contains("nested too deep"), "{r}");
    assert!(started.elapsed() < Duration::from_secs(5));
    // Lists nested under lists (each statement's agent's statements …) meet the complexity
    // limit long before the depth limit.
    let fan = "{ statementsAbout(topic: \"\") { generatedBy { statements { generatedBy { statements { generatedBy { statements { id } } } } } } } }";
    let r = gql(fan.into()).await;
    assert!(r["errors"][0]["message"].as_str().unwrap_or("").to_lowercase().contains("complex"), "{r}");
    assert!(r["data"].is_null());
    // GraphiQL's schema query (graphql-js's, `ofType` nine deep) answers, picked by
    // operationName from a document of two; an introspection fan-out is still refused.
    let standard = "query Other { __typename } \
        query IntrospectionQuery { __schema { queryType { name } subscriptionType { name } types { ...FullType } } }
        fragment FullType on __Type { kind name fields(includeDeprecated: true) { name args { ...InputValue } type { ...TypeRef } }
          inputFields { ...InputValue } interfaces { ...TypeRef } possibleTypes { ...TypeRef } }
        fragment InputValue on __InputValue { name type { ...TypeRef } defaultValue }
        fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType {
          kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } } }";
    let r = http
        .post(format!("{base}/graphql?graph={graph}"))
        .bearer_auth(TOKEN)
        .json(&json!({"query": standard, "operationName": "IntrospectionQuery"}))
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    let types = r["data"]["__schema"]["types"].as_array().unwrap_or_else(|| panic!("{r}"));
    for t in ["Statement", "Agent", "Chunk", "KGStatement", "KnowledgeGraphChangeEvent"] {
        assert!(types.iter().any(|x| x["name"] == t), "{t} in the schema");
    }
    let mut fan = String::from("name");
    for i in 0..10 {
        fan = if i % 2 == 0 { format!("fields {{ {fan} }}") } else { format!("type {{ {fan} }}") };
    }
    let r = gql(format!("{{ __type(name: \"Statement\") {{ {fan} }} }}")).await;
    assert!(r["errors"][0]["message"].as_str().unwrap_or("").to_lowercase().contains("deep"), "{r}");
    // The token applies; a browser gets the query page.
    let r = http
        .post(format!("{base}/graphql?graph={graph}"))
        .json(&json!({"query": "{ __typename }"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);
    let r = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(format!("{base}/graphql?graph={graph}"))
        .header("accept", "text/html")
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["location"], format!("/graphql.html?graph={graph}"));
    running.stop().await;
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_age_seconds_leaves_out_older_statements() {
    let (provex, graph, running, base) = start("kg_age", Some(TOKEN)).await;
    let rpc = Rpc { base, graph: graph.clone(), http: reqwest::Client::new() };
    let old = st("ex:Riverton", "ex:hasMayor", json!("ex:Whitfield"), None, 0.9);
    let young = st("ex:Riverton", "ex:population", json!(48210), None, 0.9);
    let add = |s: &Value| json!({"mutations": [{"op": "add", "statement": s}], "sourceAgentId": "agent:a"});
    assert_eq!(rpc.call("knowledge/update", add(&old)).await["result"]["success"], true);
    tokio::time::sleep(Duration::from_millis(2100)).await;
    assert_eq!(rpc.call("knowledge/update", add(&young)).await["result"]["success"], true);
    let ask = |age: Value| {
        let rpc = &rpc;
        async move {
            let r = rpc
                .call("knowledge/query", json!({"query": "{ triples { id } }", "maxAgeSeconds": age}))
                .await;
            let ids: Vec<String> = r["result"]["data"]["triples"]
                .as_array()
                .unwrap_or_else(|| panic!("{r}"))
                .iter()
                .map(|t| t["id"].as_str().unwrap().to_owned())
                .collect();
            (ids, r["result"]["queryMetadata"]["maxAgeSeconds"].clone())
        }
    };
    let (ids, echoed) = ask(json!(1)).await;
    assert_eq!(ids, [id_of(&young)], "only the statement added within the last second");
    assert_eq!(echoed, 1);
    assert_eq!(ask(json!(3600)).await.0.len(), 2);
    assert_eq!(ask(Value::Null).await.0.len(), 2, "no bound without maxAgeSeconds");
    // Adding the old triple again makes it young.
    rpc.call("knowledge/update", add(&old)).await;
    assert_eq!(ask(json!(1)).await.0.len(), 2);
    // A negative age is invalid params.
    let r = rpc.call("knowledge/query", json!({"query": "{ triples { id } }", "maxAgeSeconds": -5})).await;
    assert_eq!(code(&r), -32602, "{r}");

    // Seed 001's statements by their generatedAtTime: the council demo's are from its meeting.
    provex.demo_council(&graph, None, Arc::new(AtomicBool::new(false))).await.unwrap();
    let about = |age: Value| {
        let rpc = &rpc;
        async move {
            let r = rpc
                .call("knowledge/query", json!({"query": "{ statementsAbout(topic: \"\") { id } consensusOn(topic: \"\", minScore: 0) { id } }", "maxAgeSeconds": age}))
                .await;
            let n = |k: &str| r["result"]["data"][k].as_array().unwrap_or_else(|| panic!("{r}")).len();
            (n("statementsAbout"), n("consensusOn"))
        }
    };
    let (all, agreed) = about(Value::Null).await;
    assert!(all > 0 && agreed == all);
    assert_eq!(about(json!(60)).await, (0, 0), "the meeting was long ago");
    assert_eq!(about(json!(u32::MAX)).await, (all, all));
    running.stop().await;
    provex.delete_graph(&graph).await.unwrap();
}

/// The next `knowledge` message on a graph's stream (skipping the update's batch).
async fn next_knowledge(
    rx: &mut tokio::sync::broadcast::Receiver<Arc<provex::api::StreamMessage>>,
) -> (u64, Vec<provex::api::KnowledgeChange>) {
    let wait = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let provex::api::StreamMessage::Knowledge { seq, changes, .. } = &*rx.recv().await.unwrap() {
                return (*seq, changes.clone());
            }
        }
    });
    wait.await.expect("a knowledge message")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graphs_stream_carries_the_subscriptions_changes() {
    use provex::api::StreamRequest;
    use provex::facade::ViewRequest;
    let (provex, graph) = crate::common::open("kg_stream").await;
    let provex = Arc::new(provex);
    let update = |muts: Value| {
        serde_json::from_value::<provex::sources::knowledge::UpdateParams>(
            json!({"mutations": muts, "sourceAgentId": "agent:a"}),
        )
        .unwrap()
    };
    let mayor = st("ex:Riverton", "ex:hasMayor", json!("ex:Whitfield"), None, 0.9);
    provex.kg_update(&graph, &update(json!([{"op": "add", "statement": mayor}]))).await.unwrap();
    // A window on the whole view and one on the cluster view, and a knowledge/subscribe.
    let view = provex.view(&graph, ViewRequest::default()).await.unwrap();
    let (_, mut whole) = provex.watch(&StreamRequest::whole(&graph, view.seq), view.seq).await.unwrap();
    let clusters = provex.view(&graph, ViewRequest { limit: Some(1), ..Default::default() }).await.unwrap();
    let (_, mut boxes) =
        provex.watch(&StreamRequest::clusters(&graph, clusters.seq), clusters.seq).await.unwrap();
    let mut sub = provex.kg_subscribe();

    let ortega = st("ex:Riverton", "ex:hasMayor", json!("ex:Ortega"), None, 0.95);
    let pop = st("ex:Riverton", "ex:population", json!(48210), None, 0.8);
    provex
        .kg_update(
            &graph,
            &update(json!([{"op": "replace", "statement": ortega}, {"op": "add", "statement": pop}])),
        )
        .await
        .unwrap();
    let (seq, changes) = next_knowledge(&mut whole).await;
    assert!(seq > view.seq);
    let (_, in_boxes) = next_knowledge(&mut boxes).await;
    assert_eq!(in_boxes, changes, "the cluster view's stream carries the same changes");
    // Exactly what knowledge/subscribe sends, in the same order, with who they name.
    let mut sent = Vec::new();
    for _ in 0..2 {
        sent.push(serde_json::to_value(&sub.recv().await.unwrap().event).unwrap());
    }
    assert_eq!(changes.iter().map(|c| c.event.clone()).collect::<Vec<_>>(), sent);
    assert_eq!(changes.iter().map(|c| c.op.as_str()).collect::<Vec<_>>(), ["replace", "add"]);
    assert_eq!(changes[0].statement, id_of(&ortega));
    assert_eq!(
        (changes[0].subject.as_str(), changes[0].object.as_deref()),
        ("ex:Riverton", Some("ex:Ortega"))
    );
    assert_eq!(changes[1].object, None, "a literal object names no resource");
    assert_eq!(changes[0].event["changeMetadata"]["replaced"], json!([id_of(&mayor)]));
    // Removing what is already gone sends no change; the next removal does.
    provex.kg_update(&graph, &update(json!([{"op": "remove", "statement": mayor}]))).await.unwrap();
    provex.kg_update(&graph, &update(json!([{"op": "remove", "statement": pop}]))).await.unwrap();
    let (later, removed) = next_knowledge(&mut whole).await;
    assert!(later > seq);
    assert_eq!(
        (removed.len(), removed[0].op.as_str(), removed[0].statement.clone()),
        (1, "remove", id_of(&pop))
    );
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graphql_subscriptions_stream_over_sse() {
    let (provex, graph, running, base) = start("kg_gql_sse", Some(TOKEN)).await;
    let rpc = Rpc { base: base.clone(), graph: graph.clone(), http: reqwest::Client::new() };
    let http = reqwest::Client::new();
    let open = |query: &str, accept: &str| {
        http.post(format!("{base}/graphql?graph={graph}"))
            .bearer_auth(TOKEN)
            .header("accept", accept)
            .json(&json!({"query": query, "operationName": "Watch"}))
            .send()
    };
    let doc = "query Other { __typename } subscription Watch { triples(subject: \"ex:Riverton\") { op changeId statement { predicate { id } object { id value } } } }";
    let mut resp = open(doc, "text/event-stream").await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert!(resp.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
    let add = |s: &Value| json!({"mutations": [{"op": "add", "statement": s}], "sourceAgentId": "agent:a"});
    // Another subject first (filtered out), then two about Riverton.
    rpc.call("knowledge/update", add(&st("ex:Elm", "ex:zonedAs", json!("ex:Mixed"), None, 0.9))).await;
    rpc.call("knowledge/update", add(&st("ex:Riverton", "ex:hasMayor", json!("ex:Whitfield"), None, 0.9)))
        .await;
    rpc.call("knowledge/update", add(&st("ex:Riverton", "ex:population", json!(48210), None, 0.8))).await;
    let mut buf = String::new();
    let mut seen = Vec::new();
    for _ in 0..2 {
        let e = next_event(&mut resp, &mut buf, Duration::from_secs(10)).await.expect("an event");
        assert!(e.get("errors").is_none(), "{e}");
        seen.push(e["data"]["triples"]["statement"]["predicate"]["id"].as_str().unwrap().to_owned());
        assert_eq!(e["data"]["triples"]["op"], "add");
    }
    assert_eq!(seen, ["ex:hasMayor", "ex:population"]);
    drop(resp);

    // Without Accept: text/event-stream a subscription is refused, saying how to stream it.
    let r = open(doc, "application/json").await.unwrap();
    assert_eq!(r.status().as_u16(), 406);
    let body: Value = r.json().await.unwrap();
    assert!(body["errors"][0]["message"].as_str().unwrap().contains("text/event-stream"), "{body}");
    // A subscription that fails validation: one result with its errors, then complete.
    let bad = open("subscription Watch { triples { nosuchfield } }", "text/event-stream").await.unwrap();
    let text = tokio::time::timeout(Duration::from_secs(10), bad.text()).await.unwrap().unwrap();
    let (next, complete) = (text.find("event: next"), text.find("event: complete"));
    assert!(next.is_some() && complete.is_some() && next < complete, "{text}");
    assert!(text.contains("nosuchfield"), "{text}");
    assert_eq!(text.matches("event: next").count(), 1, "{text}");
    running.stop().await;
    provex.delete_graph(&graph).await.unwrap();
}
