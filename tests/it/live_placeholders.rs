//! A watcher of the live stream sees a placeholder go when it is folded into the node it
//! stood for: an OpenTelemetry span whose parent is already stored names that parent as a
//! bare `Span` placeholder (docs/FORMATS.md "OpenTelemetry traces"); the store folds it into
//! the parent, and the watching canvas, and a reload, end with the parent as the store has
//! it, never the placeholder.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use provex::api::{StreamMessage, StreamRequest};
use provex::facade::{Provex, Quiet, ViewRequest};
use provex::ingest::IngestOptions;

use crate::common;

/// The travel planner's agent span, the parent of every other span of its run.
const PARENT: &str = "otel:627b306e5be3eeb508df6cd777947580:7b6068a767acc6f7";

async fn ingest(provex: &Provex, graph: &str, file: std::path::PathBuf) {
    let report = provex
        .ingest(graph, &[file], IngestOptions::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
    assert_eq!(report.rejected, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watcher_sees_the_placeholder_of_a_stored_parent_go() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        std::fs::read_to_string(common::repo().join("tests/data/otel/genai-tool-agent.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // The request with the agent span (and its last chat call) first; then the one with its
    // first chat call and the tool call, which name the agent span as their parent.
    assert!(lines[1].contains("7b6068a767acc6f7") && lines[1].contains("invoke_agent"));
    let parent_first = common::file_with(&dir, "parent.jsonl", &[lines[1]]);
    let children = common::file_with(&dir, "children.jsonl", &[lines[0]]);
    let (provex, graph) = common::open("live_placeholders").await;
    ingest(&provex, &graph, parent_first).await;

    let view = provex.view(&graph, ViewRequest { limit: Some(10_000), ..Default::default() }).await.unwrap();
    let mut watched: BTreeMap<String, String> =
        view.nodes.iter().map(|n| (n.id.clone(), n.label.clone())).collect();
    assert_eq!(watched.get(PARENT).map(String::as_str), Some("AgentInvocation"));
    let (held, mut rx) = provex.watch(&StreamRequest::whole(&graph, view.seq), view.seq).await.unwrap();
    assert!(held.is_empty(), "{held:?}");
    ingest(&provex, &graph, children).await;

    // What a reload draws now (the live view's own copy).
    let reloaded =
        provex.view(&graph, ViewRequest { limit: Some(10_000), ..Default::default() }).await.unwrap();
    let want: BTreeMap<String, String> =
        reloaded.nodes.iter().map(|n| (n.id.clone(), n.label.clone())).collect();
    assert_eq!(want.get(PARENT).map(String::as_str), Some("AgentInvocation"));
    assert_eq!(want.len(), reloaded.nodes.len(), "one node a name");
    // The watcher applies every batch until it holds every node a reload draws, then the
    // rest of what came (the fold is published after the write).
    let mut seen_parent_as = Vec::new();
    loop {
        let msg = match tokio::time::timeout(Duration::from_secs(3), rx.recv()).await {
            Ok(m) => m.unwrap(),
            Err(_) => break,
        };
        if let StreamMessage::Batch { nodes, .. } = &*msg {
            for n in nodes {
                if n.id == PARENT {
                    seen_parent_as.push(n.label.clone());
                }
                watched.insert(n.id.clone(), n.label.clone());
            }
        }
    }
    assert!(want.keys().all(|k| watched.contains_key(k)), "{watched:?}");
    assert_eq!(
        watched.get(PARENT).map(String::as_str),
        Some("AgentInvocation"),
        "the parent as a watcher draws it: {seen_parent_as:?}"
    );
    assert_eq!(watched, want);
    // The store holds no placeholder: the parent is one node.
    let t =
        provex.query(&graph, &format!("MATCH (n {{name: '{PARENT}'}}) RETURN labels(n)[0]")).await.unwrap();
    assert_eq!(t.rows, vec![vec![serde_json::json!("AgentInvocation")]]);
    provex.delete_graph(&graph).await.unwrap();
}
