//! Views in columns over real HTTP, on the council demo ingested from its files (tasks,
//! signed statements, transcripts): every kind of view a UI opens (whole, clusters, a
//! cluster opened, a neighbourhood) decodes from its columns to exactly the records the
//! per-node form sends, and the whole view is much smaller.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use provex::api::{View, ViewMode};
use provex::facade::{self, Quiet};
use provex::ingest::IngestOptions;

use crate::serve::{client, start};

/// The body of `GET {url}`, and the view it holds.
async fn view_at(url: &str) -> (usize, View) {
    let r = client().get(url).send().await.unwrap();
    assert!(r.status().is_success(), "GET {url}: {}", r.status());
    let body = r.bytes().await.unwrap();
    (body.len(), serde_json::from_slice(&body).unwrap())
}

/// The view at `base?query` asked for both ways: the two agree on everything, the one in
/// columns holds no records itself. Returns the bodies' sizes and the per-node view. A
/// cluster view gains its edges once they are counted (in the background): asked until the
/// per-node view is the same before and after the one in columns.
async fn both_ways(base: &str, query: &str) -> ((usize, usize), View) {
    let (mut records_len, mut records) = view_at(&format!("{base}?{query}")).await;
    let (mut columns_len, mut columns) = view_at(&format!("{base}?{query}&columns=true")).await;
    for _ in 0..100 {
        let (len, after) = view_at(&format!("{base}?{query}")).await;
        if after == records {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        (records_len, records) = (len, after);
        (columns_len, columns) = view_at(&format!("{base}?{query}&columns=true")).await;
    }
    assert!(records.columns.is_none(), "{query}: columns only when asked for");
    assert!(columns.nodes.is_empty() && columns.edges.is_empty(), "{query}: the records are in the columns");
    assert!(columns.columns.is_some(), "{query}");
    assert_eq!(columns.records().unwrap(), (records.nodes.clone(), records.edges.clone()), "{query}");
    let meta =
        |v: &View| (v.graph.clone(), v.seq, v.mode, v.root.clone(), v.total_nodes, v.total_edges, v.limit);
    assert_eq!(meta(&columns), meta(&records), "{query}");
    ((records_len, columns_len), records)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_view_in_columns_is_the_per_node_view() {
    let (provex, graph, running, base) = start("view_columns", None).await;
    let dir = tempfile::tempdir().unwrap();
    let files = facade::write_council_files(dir.path()).unwrap();
    let files: Vec<_> = files.into_iter().filter(|f| f.extension().is_some_and(|e| e == "jsonl")).collect();
    provex
        .ingest(&graph, &files, IngestOptions::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
    let url = format!("{base}/api/graphs/{graph}/view");

    let ((records_len, columns_len), whole) = both_ways(&url, "limit=10000").await;
    assert_eq!(whole.mode, ViewMode::Whole);
    assert!(whole.nodes.len() > 200, "{} nodes", whole.nodes.len());
    assert!(whole.nodes.iter().any(|n| n.standing.is_some()), "statements carry their standing");
    assert!(whole.nodes.iter().any(|n| n.status.is_some()), "signed documents carry their status");
    assert!(whole.edges.iter().any(|e| e.prov.is_some()), "PROV edges carry their relation");
    // Ids once, every other string once, edges by index: well under half the bytes.
    assert!(columns_len * 2 < records_len, "{columns_len} bytes in columns, {records_len} per node");

    let (_, clusters) = both_ways(&url, "limit=30").await;
    assert_eq!(clusters.mode, ViewMode::Clusters);
    assert!(clusters.nodes.iter().all(|n| n.cluster.is_some()), "every box says what it holds");
    let (_, opened) = both_ways(&url, "limit=30&cluster=sources").await;
    assert!(matches!(opened.mode, ViewMode::Members | ViewMode::Clusters), "{:?}", opened.mode);
    assert!(!opened.nodes.is_empty());

    let statement = whole.nodes.iter().find(|n| n.label == "Statement").expect("a statement");
    let root = url_encode(&statement.id);
    let (_, near) = both_ways(&url, &format!("root={root}&depth=2")).await;
    assert_eq!(near.mode, ViewMode::Neighbourhood);
    assert!(near.nodes.len() > 1 && !near.edges.is_empty());
    running.stop().await;
}

fn url_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
