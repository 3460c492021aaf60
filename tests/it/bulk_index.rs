//! A fresh import's nodes reach the search index as they are read, through a queue bounded in
//! bytes: on an import many times the bound the queue never holds more than its bound, every
//! node of the built graph is found afterwards, and a stopped import leaves no items of a graph
//! that was never built.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use provex::facade::{IngestObserver, Provex, Quiet};
use provex::ingest::IngestOptions;

use crate::common;

/// `tasks` tasks of A2A runtime events (four events a task, each with text) in a file of
/// `dir`.
fn events(dir: &tempfile::TempDir, tasks: usize) -> std::path::PathBuf {
    let mut lines = Vec::new();
    for t in 0..tasks {
        let (task, agent) = (format!("task-{t}"), format!("agent-{}", t % 7));
        let meta = format!(r#"{{"agent_id":"{agent}"}}"#);
        let ev = |n: usize, data: String| {
            format!(
                r#"{{"Task":{{"id":"e{t}-{n}","context_id":"ctx-{}","task_id":"{task}","timestamp_ms":{},"data":{data}}}}}"#,
                t % 3,
                1_700_000_000_000u64 + (t * 10 + n) as u64
            )
        };
        lines.push(ev(0, format!(r#"{{"TaskCreated":{{"task_id":"{task}","agent_id":"{agent}"}}}}"#)));
        lines.push(ev(1, format!(r#"{{"MessageReceived":{{"id":"in-{t}","role":"user","content":["Summarise item {t} of the agenda"],"metadata":{meta}}}}}"#)));
        lines.push(ev(2, format!(r#"{{"TaskStatusChanged":{{"task_id":"{task}","old_status":"working","new_status":"completed"}}}}"#)));
        lines.push(ev(3, format!(r#"{{"TaskArtifactGenerated":{{"task_id":"{task}","artifact_id":"summary-{t}","artifact_type":"text/markdown"}}}}"#)));
    }
    let path = dir.path().join("events.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

fn opts(dir: &tempfile::TempDir) -> IngestOptions {
    IngestOptions {
        bulk: true,
        batch_events: 90,
        rejects: Some(dir.path().join("rejected.jsonl")),
        ..Default::default()
    }
}

async fn names(provex: &Provex, graph: &str) -> Vec<String> {
    let table = provex.query(graph, "MATCH (n) RETURN n.name ORDER BY n.name").await.unwrap();
    table.rows.iter().map(|r| r[0].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn a_fresh_import_feeds_the_index_in_bounded_pieces_and_every_node_is_found() {
    let (provex, graph) = common::open("bulk_index_bound").await;
    let dir = tempfile::tempdir().unwrap();
    let file = events(&dir, 400);
    // A bound a small part of what the import's items weigh.
    const BOUND: usize = 24 << 10;
    provex.set_search_queue_bound(BOUND);
    provex.search_flush().await;
    provex.search_queue_high_water();

    let report = provex
        .ingest(&graph, &[file], opts(&dir), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
    assert_eq!((report.method.as_str(), report.events, report.rejected), ("bulk", 1_600, 0), "{report:?}");
    let (bound, high) = provex.search_queue_high_water();
    assert_eq!(bound, BOUND);
    assert!(high > 0, "the import's nodes went through the queue");
    assert!(high <= BOUND, "the queue held {high} bytes, over its bound of {BOUND}");

    // Every node of the built graph has its item, and is found by its name.
    let names = names(&provex, &graph).await;
    assert!(names.len() > 1_000, "{} nodes", names.len());
    // Each item weighs more than 100 bytes: the import is many times the bound.
    assert!(names.len() * 100 > 4 * BOUND);
    assert_eq!(provex.search_items(&graph).await.unwrap(), names.len() as u64);
    for name in names.iter().step_by(37).chain(names.last()) {
        let hits = provex.search_all(name, provex::search::MAX_HITS).await.unwrap();
        assert!(
            hits.iter().any(|h| h.graph == graph && h.id == *name && h.matched == "id"),
            "{name} not found: {hits:?}"
        );
    }
    provex.delete_graph(&graph).await.unwrap();
}

/// Stops the ingest once a batch is written.
struct StopAfterFirst(Arc<AtomicBool>);

impl IngestObserver for StopAfterFirst {
    fn progress(&self, _path: &Path, _offset: u64, _events: u64) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[tokio::test]
async fn a_stopped_fresh_import_leaves_no_items_of_its_graph() {
    let (provex, graph) = common::open("bulk_index_stopped").await;
    let dir = tempfile::tempdir().unwrap();
    let file = events(&dir, 200);
    let cancel = Arc::new(AtomicBool::new(false));
    let report = provex
        .ingest(&graph, &[file], opts(&dir), cancel.clone(), Arc::new(StopAfterFirst(cancel)))
        .await
        .unwrap();
    assert_eq!(report.nodes_written, 0, "{report:?}");
    assert!(!provex.graphs().await.unwrap().contains(&graph), "nothing was built");
    assert_eq!(provex.search_items(&graph).await.unwrap(), 0);
}
