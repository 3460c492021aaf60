//! The search index and the Runs rows kept in the database during a live stream: the
//! stream's small batches reach each in a few gathered writes (the index a few a second, the
//! Runs rows one a second), not one write each nor ten a second (each write is a query and
//! an fsync on the same server as the stream's own writes, which wait behind it), and what
//! the stream wrote is found, and counted in its row, once it ends.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use prost::bytes::Bytes;
use provex::facade::Quiet;
use provex::ingest::IngestOptions;

use crate::common;

const LINES: usize = 24;

fn booted(i: usize) -> String {
    format!(
        r#"{{"Global":{{"id":"evt-g{i}","context_id":"ctx-gather","timestamp_ms":{},"data":{{"AgentBooted":{{"agent_id":"gatherer-{i}","agent_type":"lamplighter","agent_version":"1.0.0","archive_path":"agents/lamplighter@1.0.0"}}}}}}}}"#,
        1_763_798_400_000u64 + i as u64
    ) + "\n"
}

#[tokio::test]
async fn a_live_streams_batches_reach_the_search_index_and_the_runs_rows_in_a_few_gathered_writes() {
    let (provex, graph) = common::open("search_gather").await;
    // One line every 40 ms: each goes out as its own live batch (a batch waits 15 ms at most).
    let (tx, rx) = tokio::sync::mpsc::channel::<std::io::Result<Bytes>>(LINES);
    tokio::spawn(async move {
        for i in 0..LINES {
            tx.send(Ok(Bytes::from(booted(i)))).await.unwrap();
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
    });
    let source = tokio_stream_from(rx);
    let before = provex.search_index_writes();
    let merges_before = provex.runs_summary_merges();
    let report = provex
        .ingest_stream(
            &graph,
            "gather.jsonl".into(),
            source,
            IngestOptions::default(),
            Arc::new(AtomicBool::new(false)),
            Arc::new(Quiet),
        )
        .await
        .unwrap();
    assert_eq!((report.events, report.rejected), (LINES as u64, 0), "{report:?}");
    let writes = provex.search_index_writes() - before;
    let merges = provex.runs_summary_merges() - merges_before;
    // About a second of stream. One index write a batch would be 24: gathered for a quarter
    // of a second, about 4. The Runs rows (a write of one row a graph) gathered for a second:
    // one merge, then the acknowledgement's; merged every 100 ms, they were 8.
    assert!(
        (1..=LINES as u64 / 3).contains(&writes) && (1..=3).contains(&merges),
        "{writes} index writes and {merges} Runs summary merges for {LINES} live batches"
    );
    // Acknowledged: every agent is found.
    for i in [0, LINES / 2, LINES - 1] {
        let hits = provex.search_all(&format!("gatherer-{i}"), 20).await.unwrap();
        assert!(
            hits.iter().any(|h| h.graph == graph && h.id.ends_with(&format!("gatherer-{i}"))),
            "{i}: {hits:?}"
        );
    }
    // And the graph's row, taken from what was merged, holds every event's node.
    let listed = provex.runs(None, Duration::ZERO).await.unwrap();
    let row = listed.rows.iter().find(|r| r.graph == graph).expect("the stream's row");
    assert_eq!(row.nodes, provex.stats(&graph).await.unwrap().nodes, "{row:?}");
    provex.delete_graph(&graph).await.unwrap();
}

fn tokio_stream_from(mut rx: tokio::sync::mpsc::Receiver<std::io::Result<Bytes>>) -> provex::facade::Payload {
    futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx)).boxed()
}
