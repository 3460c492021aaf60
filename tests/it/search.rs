//! Search across graphs (`provex search`, `GET /api/search`): what ingest writes is found
//! with its graph and node through the index the write path keeps, whatever the source and
//! the write path (file, bulk build, the live events endpoint, the OTLP receiver); a deleted
//! graph's hits go with it; the index is rebuilt from the graphs; a hostile search text gets
//! a clear refusal or no hits, never a server error; the index's graph is no user's.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use provex::facade::{Provex, Quiet};
use provex::ingest::IngestOptions;
use provex::search::GraphHit;

use crate::common;

/// The council's claim about the rezoning vote (examples/council/council-a2ap.jsonl).
const CLAIM_WORDS: &str = "Ordinance 2025-31 rezoning Elm Street mixed use";
/// The council summariser's trace, its root span, and one of its tool spans
/// (examples/council/council-otel.jsonl).
const TRACE: &str = "02f889e7e1e425ea27e356436224b835";
const ROOT_SPAN: &str = "otel:02f889e7e1e425ea27e356436224b835:fbd8927b927da6f4";
const TOOL_SPAN_ID: &str = "725ae81686397672";
/// Words of the summarising prompt (examples/lineage/summarise-prompt.jsonl).
const PROMPT_WORDS: &str = "clerk's assistant summarise transcript residents";

/// `file`: the repository's, or a path of its own.
async fn ingest(provex: &Provex, graph: &str, file: &str, bulk: bool) {
    let opts = IngestOptions { bulk, ..Default::default() };
    let files = [common::repo().join(file)];
    let report =
        provex.ingest(graph, &files, opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet)).await.unwrap();
    assert_eq!(report.rejected, 0, "{file}: {report:?}");
}

/// The hits of `q` in `graph` (the index is shared by every test's graphs).
async fn hits_in(provex: &Provex, q: &str, graph: &str) -> Vec<GraphHit> {
    let hits = provex.search_all(q, provex::search::MAX_HITS).await.unwrap();
    hits.into_iter().filter(|h| h.graph == graph).collect()
}

fn ids(hits: &[GraphHit]) -> Vec<(&str, &str, &str)> {
    hits.iter().map(|h| (h.kind.as_str(), h.id.as_str(), h.matched.as_str())).collect()
}

#[tokio::test]
async fn a_claim_an_agent_a_trace_a_span_and_a_prompt_are_found_with_their_graph_and_node() {
    let (provex, a) = common::open("search_sources_a").await;
    let b = format!("{a}_b");
    let _ = provex.delete_graph(&b).await;
    // Graph a: signed statements (upserts). Graph b: OpenTelemetry traces built with
    // GRAPH.BULK, then prompt lineage upserted into it.
    ingest(&provex, &a, "examples/council/council-a2ap.jsonl", false).await;
    ingest(&provex, &b, "examples/council/council-otel.jsonl", true).await;
    ingest(&provex, &b, "examples/lineage/summarise-prompt.jsonl", true).await;

    let claim = provex
        .query(
            &a,
            "MATCH (s:Statement) WHERE s.claim_text CONTAINS 'rezoning 400 Elm Street' RETURN s.name AS n",
        )
        .await
        .unwrap();
    let claim = claim.rows[0][0].as_str().unwrap().to_owned();
    let found = hits_in(&provex, CLAIM_WORDS, &a).await;
    let hit = found.iter().find(|h| h.id == claim).unwrap_or_else(|| panic!("{:?}", ids(&found)));
    assert_eq!((hit.kind.as_str(), hit.label.as_str(), hit.matched.as_str()), ("claim", "Statement", "text"));
    assert!(hit.snippet.contains("Ordinance 2025-31"), "{}", hit.snippet);
    assert!(hits_in(&provex, CLAIM_WORDS, &b).await.iter().all(|h| h.kind != "claim"));

    // An agent, by its id (any case) and by its name's words.
    let agent = hits_in(&provex, "URN:AGENT:GPT-5", &a).await;
    assert_eq!(ids(&agent)[0], ("agent", "urn:agent:gpt-5", "id"));
    assert!(hits_in(&provex, "gpt", &a).await.iter().any(|h| h.id == "urn:agent:gpt-5"));

    // A trace id opens its root span; a span id its span.
    let trace = hits_in(&provex, TRACE, &b).await;
    assert_eq!(
        trace.iter().find(|h| h.kind == "trace").map(|h| h.id.as_str()),
        Some(ROOT_SPAN),
        "{:?}",
        ids(&trace)
    );
    assert!(hits_in(&provex, TRACE, &a).await.is_empty());
    let span = hits_in(&provex, TOOL_SPAN_ID, &b).await;
    assert_eq!(ids(&span)[0], ("span", format!("otel:{TRACE}:{TOOL_SPAN_ID}").as_str(), "id"));

    // A prompt, by its words.
    let prompt = hits_in(&provex, PROMPT_WORDS, &b).await;
    let hit = prompt.iter().find(|h| h.kind == "prompt").unwrap_or_else(|| panic!("{:?}", ids(&prompt)));
    assert_eq!(hit.label, "Prompt");
    assert!(hit.id.starts_with("prompt:"), "{}", hit.id);
    // The words as they are being typed: the last one a prefix.
    assert!(hits_in(&provex, "clerk summaris", &b).await.iter().any(|h| h.id == hit.id));

    provex.delete_graph(&a).await.unwrap();
    provex.delete_graph(&b).await.unwrap();
}

#[tokio::test]
async fn deleting_a_graph_removes_its_hits_and_reindex_rebuilds_them() {
    let (provex, graph) = common::open("search_delete").await;
    ingest(&provex, &graph, "examples/a2a-run.jsonl", true).await;
    let agent = "agent_instance:5f0c1a2e-8d4b-4c1e-9a77-0b1f3c2d4e01";
    let items = provex.search_items(&graph).await.unwrap();
    let nodes = provex.stats(&graph).await.unwrap().nodes;
    assert_eq!(items, nodes, "one item per node");
    let before = hits_in(&provex, "planner", &graph).await;
    assert!(!before.is_empty());
    assert_eq!(ids(&hits_in(&provex, agent, &graph).await)[0], ("agent", agent, "id"));
    // Its UUID alone, in any case (with the other nodes named after the same id).
    let uuid = agent.rsplit(':').next().unwrap().to_uppercase();
    let by_uuid = hits_in(&provex, &uuid, &graph).await;
    assert!(ids(&by_uuid).contains(&("agent", agent, "id")), "{:?}", ids(&by_uuid));
    assert!(by_uuid.iter().all(|h| h.id.ends_with(&uuid.to_lowercase())), "{:?}", ids(&by_uuid));

    // Written with the index off: nothing found until it is rebuilt.
    let (quiet, other) = common::open("search_reindex").await;
    quiet.set_search_index(false);
    ingest(&quiet, &other, "examples/a2a-run.jsonl", false).await;
    assert!(hits_in(&quiet, "planner", &other).await.is_empty());
    let report = quiet.search_reindex(Some(&other)).await.unwrap();
    assert_eq!(report.graphs, [(other.clone(), nodes)]);
    let rebuilt = hits_in(&quiet, "planner", &other).await;
    // (A list's text reads back as the store renders it: the words are the same, the snippet may not be.)
    let strip = |h: &[GraphHit]| h.iter().map(|h| (h.id.clone(), h.kind.clone())).collect::<Vec<_>>();
    let mut x = strip(&before);
    let mut y = strip(&rebuilt);
    x.sort();
    y.sort();
    assert_eq!(x, y, "a rebuilt graph is found as an indexed one");
    // Rebuilding again changes nothing.
    quiet.search_reindex(Some(&other)).await.unwrap();
    assert_eq!(quiet.search_items(&other).await.unwrap(), nodes);

    provex.delete_graph(&graph).await.unwrap();
    assert_eq!(provex.search_items(&graph).await.unwrap(), 0);
    assert!(hits_in(&provex, "planner", &graph).await.is_empty());
    assert!(hits_in(&provex, agent, &graph).await.is_empty());
    // The other graph keeps its hits.
    assert!(!hits_in(&provex, "planner", &other).await.is_empty());
    quiet.delete_graph(&other).await.unwrap();
    let missing = quiet.search_reindex(Some(&other)).await.unwrap_err();
    assert!(matches!(missing, provex::Error::NotFound { .. }), "{missing:?}");
}

#[tokio::test]
async fn a_new_graphs_items_are_added_once_however_often_its_nodes_are_written_again() {
    let (provex, graph) = common::open("search_fresh").await;
    let other = format!("{graph}_upserted");
    let _ = provex.delete_graph(&other).await;
    // New to the index: built with GRAPH.BULK, and one written with upserts, batch by batch.
    ingest(&provex, &graph, "examples/council/council-otel.jsonl", true).await;
    ingest(&provex, &other, "examples/council/council-otel.jsonl", false).await;
    let items = provex.search_items(&graph).await.unwrap();
    assert!(items > 0);
    assert_eq!(provex.search_items(&other).await.unwrap(), items, "bulk and upserts index alike");
    // The same nodes again, in this session and in another: no item twice.
    ingest(&provex, &graph, "examples/council/council-otel.jsonl", true).await;
    let again = common::open("search_fresh_again").await.0;
    ingest(&again, &other, "examples/council/council-otel.jsonl", false).await;
    assert_eq!(provex.search_items(&graph).await.unwrap(), items);
    assert_eq!(provex.search_items(&other).await.unwrap(), items);
    // A trace's item still stands for its root span, once.
    for g in [&graph, &other] {
        let trace = hits_in(&provex, TRACE, g).await;
        let traces: Vec<&str> = trace.iter().filter(|h| h.kind == "trace").map(|h| h.id.as_str()).collect();
        assert_eq!(traces, [ROOT_SPAN], "{g}: {:?}", ids(&trace));
    }
    provex.delete_graph(&graph).await.unwrap();
    provex.delete_graph(&other).await.unwrap();
}

/// The council's trace split in two requests, every span but the root, then the root: each
/// request alone, and both as one file.
fn root_last(dir: &tempfile::TempDir) -> [String; 3] {
    let text = std::fs::read_to_string(common::repo().join("examples/council/council-otel.jsonl")).unwrap();
    let whole: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    let spans = whole["resourceSpans"][0]["scopeSpans"][0]["spans"].as_array().unwrap().clone();
    let (root, rest): (Vec<_>, Vec<_>) = spans.into_iter().partition(|s| s.get("parentSpanId").is_none());
    assert_eq!(root.len(), 1);
    let part = |spans: Vec<serde_json::Value>| {
        let mut v = whole.clone();
        v["resourceSpans"][0]["scopeSpans"][0]["spans"] = serde_json::Value::Array(spans);
        v.to_string()
    };
    let (rest, root) = (part(rest), part(root));
    let path = |name: &str, lines: &[&str]| common::file_with(dir, name, lines).to_str().unwrap().to_owned();
    [path("rest.jsonl", &[&rest]), path("root.jsonl", &[&root]), path("root-last.jsonl", &[&rest, &root])]
}

#[tokio::test]
async fn a_trace_id_finds_its_root_span_once_it_arrives_and_an_id_alone_finds_its_node() {
    let (provex, graph) = common::open("search_root_last").await;
    let bulk = format!("{graph}_bulk");
    let _ = provex.delete_graph(&bulk).await;
    let dir = tempfile::tempdir().unwrap();
    let [rest, root, both] = root_last(&dir);
    let traces = |hits: Vec<GraphHit>| -> Vec<String> {
        hits.into_iter().filter(|h| h.kind == "trace").map(|h| h.id).collect()
    };
    // Upserted request by request: before its root, a trace is found by one of its spans.
    ingest(&provex, &graph, &rest, false).await;
    let before = traces(hits_in(&provex, TRACE, &graph).await);
    assert_eq!(before.len(), 1, "{before:?}");
    assert!(before[0].starts_with(&format!("otel:{TRACE}:")), "{before:?}");
    ingest(&provex, &graph, &root, false).await;
    assert_eq!(traces(hits_in(&provex, TRACE, &graph).await), [ROOT_SPAN]);
    // Built at once: the same.
    ingest(&provex, &bulk, &both, true).await;
    assert_eq!(traces(hits_in(&provex, TRACE, &bulk).await), [ROOT_SPAN]);
    assert_eq!(
        provex.search_items(&bulk).await.unwrap(),
        provex.stats(&bulk).await.unwrap().nodes,
        "an item a node"
    );

    // A message's hash alone finds the message; its name's words are no ids.
    let msg =
        provex.query(&bulk, "MATCH (m:Message) RETURN m.name ORDER BY m.name LIMIT 1").await.unwrap().rows[0]
            [0]
        .as_str()
        .unwrap()
        .to_owned();
    let hash = msg.rsplit(':').next().unwrap().to_uppercase();
    let found = hits_in(&provex, &hash, &bulk).await;
    assert_eq!(ids(&found)[0], ("message", msg.as_str(), "id"));
    provex.delete_graph(&graph).await.unwrap();
    provex.delete_graph(&bulk).await.unwrap();
}

/// Every node's hits: by its name, and by the words of its text (its first three).
async fn every_hit(provex: &Provex, graph: &str) -> Vec<Vec<(String, String, String, String, String)>> {
    let table = provex.query(graph, "MATCH (n) RETURN n.name ORDER BY n.name").await.unwrap();
    let mut out = Vec::new();
    for row in &table.rows {
        let name = row[0].as_str().unwrap();
        let hits = hits_in(provex, name, graph).await;
        let words: Vec<String> = hits
            .iter()
            .flat_map(|h| h.snippet.split_whitespace())
            .filter(|w| w.len() > 3 && w.chars().all(char::is_alphanumeric))
            .take(3)
            .map(str::to_owned)
            .collect();
        let mut all = hits;
        if !words.is_empty() {
            all.extend(hits_in(provex, &words.join(" "), graph).await);
        }
        out.push(all.into_iter().map(|h| (h.id, h.kind, h.label, h.snippet, h.matched)).collect());
    }
    out
}

#[tokio::test]
async fn a_fresh_imports_items_are_found_as_a_rebuild_of_the_index_finds_them() {
    let (provex, graph) = common::open("search_created_as_rebuilt").await;
    // New to the index: its items are created (`search::index::create`).
    ingest(&provex, &graph, "examples/council/council-otel.jsonl", true).await;
    let created = every_hit(&provex, &graph).await;
    assert!(created.iter().all(|h| !h.is_empty()), "every node is found by its name");
    assert!(created.iter().flatten().any(|h| h.4 == "text"), "and some by their words");
    // Rebuilt: the same items merged from the stored nodes.
    let report = provex.search_reindex(Some(&graph)).await.unwrap();
    assert_eq!(report.graphs.len(), 1);
    assert_eq!(every_hit(&provex, &graph).await, created);
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test]
async fn a_hostile_search_gets_a_clear_refusal_or_no_hits_never_a_server_error() {
    let (provex, graph) = common::open("search_hostile").await;
    ingest(&provex, &graph, "examples/a2a-run.jsonl", true).await;
    for q in [
        "'}) DETACH DELETE n //",
        "\") MATCH (n) DELETE n //",
        "*",
        "-planner",
        "planner | writer",
        "@text:{planner}",
        "%planner%",
        "\\",
        "(((((",
        "[1 2]",
        "` CALL db.idx.fulltext.drop('Item') //",
        "$q",
        "\u{0}",
        "İİİ",
        "a",
    ] {
        match provex.search_all(q, 20).await {
            Ok(_) => {}
            Err(e) => panic!("{q:?}: {e:?}"),
        }
    }
    // Syntax characters are no words: the words around them still match.
    assert!(!hits_in(&provex, "-planner", &graph).await.is_empty());
    let too_long = "x".repeat(10_000);
    let e = provex.search_all(&too_long, 20).await.unwrap_err();
    assert!(matches!(e, provex::Error::Usage(_)), "{e:?}");
    assert!(e.to_string().contains("at most 256"), "{e}");
    let many = (0..40).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ");
    assert!(matches!(provex.search_all(&many, 20).await, Err(provex::Error::Usage(_))));
    // The index is intact after all that.
    assert!(!hits_in(&provex, "planner", &graph).await.is_empty());
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test]
async fn the_index_graph_is_listed_nowhere_and_no_user_may_touch_it() {
    let (provex, graph) = common::open("search_hidden").await;
    ingest(&provex, &graph, "examples/a2a-run.jsonl", true).await;
    let reserved = provex::store::reserved::SEARCH_GRAPH;
    assert!(provex.graphs().await.unwrap().contains(&graph));
    assert!(!provex.graphs().await.unwrap().iter().any(|g| g == reserved));
    for e in [
        provex.delete_graph(reserved).await.unwrap_err(),
        provex.query(reserved, "MATCH (i) RETURN i").await.unwrap_err(),
        provex.stats(reserved).await.unwrap_err(),
    ] {
        assert!(matches!(e, provex::Error::Usage(ref m) if m.contains("Provex's own use")), "{e:?}");
    }
    let ingested = provex
        .ingest(
            reserved,
            &[common::repo().join("examples/a2a-run.jsonl")],
            IngestOptions::default(),
            Arc::new(AtomicBool::new(false)),
            Arc::new(Quiet),
        )
        .await
        .unwrap_err();
    assert!(matches!(ingested, provex::Error::Usage(_)), "{ingested:?}");
    // Still there and working.
    assert!(!hits_in(&provex, "planner", &graph).await.is_empty());
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test]
async fn the_live_events_endpoint_and_the_otlp_receiver_keep_the_index_current() {
    let (provex, graph, _running, base) = crate::serve::start("search_http", None).await;
    let client = crate::serve::client();
    let line = r#"{"Global":{"id":"evt-s1","context_id":"ctx-search","timestamp_ms":1763798400000,"data":{"AgentBooted":{"agent_id":"searchable-agent-7","agent_type":"cartographer","agent_version":"1.0.0","archive_path":"agents/cartographer@1.0.0"}}}}"#;
    let r = client
        .post(format!("{base}/api/graphs/{graph}/events"))
        .header("content-type", "application/x-ndjson")
        .body(format!("{line}\n"))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    // Acknowledged: found at once.
    let hits: Vec<GraphHit> =
        client.get(format!("{base}/api/search?q=cartographer")).send().await.unwrap().json().await.unwrap();
    assert!(hits.iter().any(|h| h.graph == graph), "{hits:?}");

    let otlp = serde_json::json!({"resourceSpans": [{"resource": {"attributes": [
        {"key": "service.name", "value": {"stringValue": "searcher"}}]},
      "scopeSpans": [{"spans": [{
        "traceId": "5eac45eac45eac45eac45eac45eac45e", "spanId": "5eac45eac45eac45", "name": "chat lighthouse",
        "startTimeUnixNano": "1795649641000000000", "endTimeUnixNano": "1795649641500000000",
        "status": {}}]}]}]});
    let r = client
        .post(format!("{base}/otlp/{graph}/v1/traces"))
        .header("content-type", "application/json")
        .body(otlp.to_string())
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    // The receiver answers before the index has its items: they follow right after.
    provex.search_flush().await;
    let hits: Vec<GraphHit> = client
        .get(format!("{base}/api/search?q=5EAC45EAC45EAC45EAC45EAC45EAC45E"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mine: Vec<&GraphHit> = hits.iter().filter(|h| h.graph == graph).collect();
    assert_eq!(mine.len(), 1, "{hits:?}");
    assert_eq!(
        (mine[0].kind.as_str(), mine[0].id.as_str()),
        ("trace", "otel:5eac45eac45eac45eac45eac45eac45e:5eac45eac45eac45")
    );

    // A hostile text over HTTP: 400 with the usage code, or 200 with no hits.
    let r = client.get(format!("{base}/api/search")).query(&[("q", "y".repeat(300))]).send().await.unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::BAD_REQUEST);
    let body: serde_json::Value = r.json().await.unwrap();
    assert_eq!(body["code"], "usage", "{body}");
    let r = client
        .get(format!("{base}/api/search"))
        .query(&[("q", "'}) MATCH (n) DETACH DELETE n //")])
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    provex.delete_graph(&graph).await.unwrap();
}
