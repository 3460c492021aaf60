//! A span that failed (status `error`, or an exception event recorded) headlines "failed" in
//! what the explorer draws: the view's nodes (canvas badge, hover card), the live stream's
//! batches, and the Traces list's error count (docs/FORMATS.md "OpenTelemetry traces").

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use provex::api::{StreamMessage, StreamRequest};
use provex::facade::{Provex, Quiet, ViewRequest};
use provex::ingest::IngestOptions;

use crate::common;

/// The merger's tool call (status error, with its exception) and its first chat call (the
/// endpoint answered 503: status error), in the links-and-failure run.
const TOOL: &str = "otel:0de5f47c0b5b8604c0c632f3169d03b9:365a09d7cbdd9572";
const CHAT: &str = "otel:0de5f47c0b5b8604c0c632f3169d03b9:2450e796197e2ece";
/// A span of its own trace that recorded an exception but left its status unset.
const THROWN: &str = "otel:5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a:1111111111111111";

fn thrown_line() -> String {
    serde_json::json!({"resourceSpans": [{"resource": {"attributes": [
        {"key": "service.name", "value": {"stringValue": "thrower"}}]},
      "scopeSpans": [{"spans": [{
        "traceId": "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a", "spanId": "1111111111111111", "name": "parse",
        "startTimeUnixNano": "1795649641000000000", "endTimeUnixNano": "1795649641500000000",
        "events": [{"name": "exception", "timeUnixNano": "1795649641400000000", "attributes": [
            {"key": "exception.type", "value": {"stringValue": "ValueError"}},
            {"key": "exception.message", "value": {"stringValue": "bad input"}}]}],
        "status": {}}]}]}]})
    .to_string()
}

async fn ingest(provex: &Provex, graph: &str, files: &[std::path::PathBuf]) {
    let report = provex
        .ingest(graph, files, IngestOptions::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
    assert_eq!(report.rejected, 0);
}

fn failed(standings: &BTreeMap<String, Option<String>>) -> Vec<&str> {
    standings.iter().filter(|(_, s)| s.as_deref() == Some("failed")).map(|(id, _)| id.as_str()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_span_headlines_failed_in_the_view_the_live_stream_and_the_traces_list() {
    let dir = tempfile::tempdir().unwrap();
    let (provex, graph) = common::open("span_standing").await;
    let data = common::repo().join("tests/data/otel");
    ingest(&provex, &graph, &[data.join("genai-tool-agent.jsonl")]).await;
    let (_, mut rx) = provex.watch(&StreamRequest::whole(&graph, 0), 0).await.unwrap();
    let thrown = common::file_with(&dir, "thrown.jsonl", &[&thrown_line()]);
    ingest(&provex, &graph, &[data.join("links-and-failure.jsonl"), thrown]).await;

    // The live stream's batches carry the standing of the spans they bring.
    let mut live = BTreeMap::new();
    while !(live.contains_key(TOOL) && live.contains_key(CHAT) && live.contains_key(THROWN)) {
        let msg =
            tokio::time::timeout(Duration::from_secs(30), rx.recv()).await.expect("a batch in time").unwrap();
        if let StreamMessage::Batch { nodes, .. } = &*msg {
            for n in nodes.iter().filter(|n| n.id.starts_with("otel:")) {
                live.insert(n.id.clone(), n.standing.clone());
            }
        }
    }
    let mut want = vec![CHAT, TOOL, THROWN];
    want.sort();
    assert_eq!(failed(&live), want);

    // The view read from the store: the same three, and no other span has a standing.
    let view = provex.view(&graph, ViewRequest { limit: Some(10_000), ..Default::default() }).await.unwrap();
    let drawn: BTreeMap<String, Option<String>> = view
        .nodes
        .iter()
        .filter(|n| n.id.starts_with("otel:"))
        .map(|n| (n.id.clone(), n.standing.clone()))
        .collect();
    assert!(drawn.len() > 10, "{drawn:?}");
    assert_eq!(failed(&drawn), want);
    assert!(drawn.values().all(|s| s.is_none() || s.as_deref() == Some("failed")), "{drawn:?}");

    // The Traces list counts the exception as an error of its trace.
    let page = provex.traces(&graph, 0, 100).await.unwrap();
    let errors: BTreeMap<&str, u64> = page.traces.iter().map(|t| (t.trace_id.as_str(), t.errors)).collect();
    assert_eq!(errors.get("5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"), Some(&1), "{errors:?}");
    assert_eq!(errors.get("0de5f47c0b5b8604c0c632f3169d03b9"), Some(&2), "{errors:?}");
    provex.delete_graph(&graph).await.unwrap();
}
