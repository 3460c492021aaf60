//! The Runs view's operation on a real FalkorDB: one row per graph with its sources, size,
//! time span, agents and problem counts; a graph that does not answer in time gets a row
//! saying so; a kept row is read again once its graph is written (by this session or by
//! another process), and a caller waiting on the list's version is answered by the write.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use provex::facade::runs::{RunRow, RunSource};
use provex::facade::{ConnectOptions, Provex, Quiet};
use provex::ingest::IngestOptions;
use provex::model::{GraphDelta, Label, Node};

use crate::common;

async fn ingest(provex: &Provex, graph: &str, files: &[PathBuf]) {
    let report = provex
        .ingest(graph, files, IngestOptions::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
    assert_eq!(report.rejected, 0, "{files:?}");
}

fn example(path: &str) -> PathBuf {
    common::repo().join("examples").join(path)
}

async fn row(provex: &Provex, graph: &str) -> RunRow {
    let list = provex.runs(None, Duration::ZERO).await.unwrap();
    list.rows.into_iter().find(|r| r.graph == graph).unwrap_or_else(|| panic!("no row for {graph}"))
}

/// Each row's node and edge counts are FalkorDB's own (as `stats` counts them by label).
async fn assert_sizes(provex: &Provex, r: &RunRow) {
    let stats = provex.stats(&r.graph).await.unwrap();
    assert_eq!((r.nodes, r.edges), (stats.nodes, stats.edges), "{}", r.graph);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_graph_has_a_row_with_its_sources_size_time_span_agents_and_problems() {
    let (provex, base) = common::open("runs_rows").await;
    let (demo, a2a, prov, lineage) =
        (format!("{base}_demo"), format!("{base}_a2a"), format!("{base}_prov"), format!("{base}_lin"));
    for g in [&demo, &a2a, &prov, &lineage] {
        let _ = provex.delete_graph(g).await;
    }
    provex.demo_council(&demo, None, Arc::new(AtomicBool::new(false))).await.unwrap();
    ingest(&provex, &a2a, &[example("a2a-run.jsonl")]).await;
    ingest(&provex, &prov, &[example("prov/primer.json")]).await;
    ingest(&provex, &lineage, &[example("lineage/summarise-prompt.jsonl")]).await;

    // The runtime's run: three agents booted, one tool call that failed, 19.5 s of events.
    let r = row(&provex, &a2a).await;
    assert_sizes(&provex, &r).await;
    assert_eq!(r.sources, vec![RunSource::RuntimeEvents]);
    assert_eq!((r.first_ms, r.last_ms), (Some(1_763_798_400_000), Some(1_763_798_419_500)));
    assert_eq!((r.invalid_signatures, r.challenged_claims, r.failed_tools), (0, 0, 1));
    assert_eq!(r.agent_names, vec!["planner", "researcher", "writer"]);
    assert_eq!(r.unavailable, None);

    // The council demo: every source it streams, its forged verification and altered claim,
    // and the two claims its verifiers challenge (three CHALLENGED verdicts, one of them the
    // forged verification, which does not count).
    let r = row(&provex, &demo).await;
    assert_sizes(&provex, &r).await;
    assert_eq!(
        r.sources,
        vec![
            RunSource::RuntimeEvents,
            RunSource::SignedStatements,
            RunSource::ReasoningTraces,
            RunSource::OpenTelemetry
        ]
    );
    assert_eq!((r.invalid_signatures, r.challenged_claims, r.failed_tools), (2, 2, 0), "{r:?}");
    assert!(r.agents >= 3 && r.agent_names.len() <= 5, "{r:?}");
    assert!(r.first_ms.is_some() && r.first_ms < r.last_ms, "{r:?}");

    let r = row(&provex, &prov).await;
    assert_sizes(&provex, &r).await;
    assert_eq!(r.sources, vec![RunSource::Prov]);
    assert_eq!((r.invalid_signatures, r.challenged_claims, r.failed_tools), (0, 0, 0));

    let r = row(&provex, &lineage).await;
    assert_sizes(&provex, &r).await;
    assert_eq!(r.sources, vec![RunSource::PromptLineage]);
    assert!(r.first_ms.is_some(), "{r:?}");

    for g in [&demo, &a2a, &prov, &lineage] {
        provex.delete_graph(g).await.unwrap();
    }
    let list = provex.runs(None, Duration::ZERO).await.unwrap();
    assert!(list.rows.iter().all(|r| r.graph != a2a), "a deleted graph has no row");
}

/// A graph of `n` nodes, each with a time, written directly.
async fn big_graph(provex: &Provex, graph: &str, n: usize) {
    let mut delta = GraphDelta::new();
    for i in 0..n {
        delta.add_node(Node::new(Label::Artifact, format!("artifact:{i}")).with("prov:startTime", i as i64));
    }
    provex.write(graph, delta).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graph_that_does_not_answer_in_time_gets_a_row_saying_so_and_the_list_goes_on() {
    let (provex, base) = common::open("runs_timeout").await;
    let (big, small) = (format!("{base}_big"), format!("{base}_small"));
    let _ = provex.delete_graph(&small).await;
    big_graph(&provex, &big, 60_000).await;
    ingest(&provex, &small, &[example("a2a-run.jsonl")]).await;

    provex.set_runs_limit(Duration::from_millis(1));
    let list = provex.runs(None, Duration::ZERO).await.expect("one slow graph does not fail the list");
    let r = list.rows.iter().find(|r| r.graph == big).unwrap();
    let said = r.unavailable.as_deref().unwrap_or_default();
    assert!(said.contains("did not answer within 1 ms"), "{r:?}");
    assert!(list.rows.iter().any(|r| r.graph == small));

    // With time enough, the same graph answers in full.
    provex.set_runs_limit(Duration::from_secs(10));
    let r = row(&provex, &big).await;
    assert_eq!(
        (r.nodes, r.first_ms, r.last_ms, r.unavailable.as_deref()),
        (60_000, Some(0), Some(59_999), None)
    );
    assert_eq!(row(&provex, &small).await.unavailable, None);
    provex.delete_graph(&big).await.unwrap();
    provex.delete_graph(&small).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kept_row_is_read_again_only_when_its_graph_is_written() {
    let (provex, base) = common::open("runs_cache").await;
    let (a, b) = (format!("{base}_a"), format!("{base}_b"));
    let _ = provex.delete_graph(&b).await;
    ingest(&provex, &a, &[example("a2a-run.jsonl")]).await;
    ingest(&provex, &b, &[example("prov/primer.json")]).await;

    let first = row(&provex, &a).await;
    let (read_a, read_b) = (provex.runs_read(&a), provex.runs_read(&b));
    assert_eq!((read_a, read_b), (1, 1));
    // Nothing written: both rows are the kept ones.
    assert_eq!(row(&provex, &a).await, first);
    assert_eq!((provex.runs_read(&a), provex.runs_read(&b)), (1, 1));

    // A caller waiting on the list's version is answered by the next write, with it.
    let version = provex.runs(None, Duration::ZERO).await.unwrap().version;
    let provex = Arc::new(provex);
    let waiting = {
        let provex = provex.clone();
        tokio::spawn(async move {
            let t = Instant::now();
            (provex.runs(Some(version), Duration::from_secs(20)).await.unwrap(), t.elapsed())
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!waiting.is_finished(), "nothing was written yet");
    ingest(&provex, &a, &[example("council/council-events.jsonl")]).await;
    let (list, took) = waiting.await.unwrap();
    assert!(list.version > version && took < Duration::from_secs(15), "{took:?}");
    let grown = list.rows.iter().find(|r| r.graph == a).unwrap();
    assert!(grown.nodes > first.nodes, "{grown:?} after {first:?}");
    assert_eq!((provex.runs_read(&a), provex.runs_read(&b)), (2, 1), "only the written graph is read again");

    // Another process writing the graph (it grows the graph's log) makes it read again too.
    let other =
        Provex::open(ConnectOptions { url: Some(common::url().to_owned()), server: None }).await.unwrap();
    ingest(&other, &b, &[example("lineage/summarise-prompt.jsonl")]).await;
    let r = row(&provex, &b).await;
    assert_eq!(provex.runs_read(&b), 2);
    assert_eq!(r.sources, vec![RunSource::PromptLineage, RunSource::Prov]);

    provex.delete_graph(&a).await.unwrap();
    provex.delete_graph(&b).await.unwrap();
    assert!(provex
        .runs(None, Duration::ZERO)
        .await
        .unwrap()
        .rows
        .iter()
        .all(|r| r.graph != a && r.graph != b));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_time_span_kept_at_write_time_equals_a_scan_after_a_bulk_import_a_live_stream_and_a_second_ingest(
) {
    let (provex, base) = common::open("runs_summary").await;
    let g = format!("{base}_mixed");
    let _ = provex.delete_graph(&g).await;
    // A fresh graph, built with GRAPH.BULK: its nodes are not seen here, so the first list
    // reads its span by a scan (once).
    ingest(&provex, &g, &[example("a2a-run.jsonl")]).await;
    let first = row(&provex, &g).await;
    assert_eq!(first, provex.runs_scanned(&g).await);
    assert_eq!((provex.runs_read(&g), provex.runs_scans(&g)), (1, 1));

    // A live stream's nodes, earlier and later than any in the graph, then a second ingest.
    let mut delta = GraphDelta::new();
    delta.add_node(Node::new(Label::Artifact, "artifact:early").with("prov:startTime", 1_000_i64));
    delta.add_node(Node::new(Label::Artifact, "artifact:late").with("prov:endTime", "2031-01-01T00:00:00Z"));
    provex.write(&g, delta).await.unwrap();
    ingest(&provex, &g, &[example("council/council-events.jsonl")]).await;
    let r = row(&provex, &g).await;
    assert_eq!(r, provex.runs_scanned(&g).await, "the kept row is the graph read in full");
    assert_eq!((r.first_ms, r.last_ms), (Some(1_000), Some(1_924_992_000_000)));
    assert!(r.nodes > first.nodes, "{r:?}");
    assert_eq!(
        (provex.runs_read(&g), provex.runs_scans(&g)),
        (2, 1),
        "the counts are read again, the span is not scanned again"
    );

    // Deleted and written again from nothing: the span is the new nodes' alone, unscanned.
    provex.delete_graph(&g).await.unwrap();
    let mut delta = GraphDelta::new();
    delta.add_node(Node::new(Label::Artifact, "artifact:again").with("prov:startTime", 5_000_i64));
    provex.write(&g, delta).await.unwrap();
    let r = row(&provex, &g).await;
    assert_eq!((r.nodes, r.first_ms, r.last_ms), (1, Some(5_000), Some(5_000)));
    assert_eq!(r, provex.runs_scanned(&g).await);
    assert_eq!(provex.runs_scans(&g), 1);
    provex.delete_graph(&g).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_after_a_restart_reads_no_graph_unchanged_since_and_no_span_again() {
    let (provex, base) = common::open("runs_restart").await;
    let (a, b) = (format!("{base}_a"), format!("{base}_b"));
    for g in [&a, &b] {
        let _ = provex.delete_graph(g).await;
    }
    ingest(&provex, &a, &[example("a2a-run.jsonl")]).await;
    ingest(&provex, &b, &[example("prov/primer.json")]).await;
    let before = provex.runs(None, Duration::ZERO).await.unwrap();
    let find =
        |list: &provex::facade::runs::RunList, g: &str| list.rows.iter().find(|r| r.graph == g).cloned();

    // A new session (as after a restart) takes both rows from the database.
    let again =
        Provex::open(ConnectOptions { url: Some(common::url().to_owned()), server: None }).await.unwrap();
    let after = again.runs(None, Duration::ZERO).await.unwrap();
    for g in [&a, &b] {
        assert_eq!(find(&after, g), find(&before, g), "{g}");
        assert!(find(&after, g).is_some());
        assert_eq!(again.runs_read(g), 0, "{g} was read again");
    }

    // The rows are kept in a graph no user sees or touches.
    let kept = provex::store::reserved::RUNS_GRAPH;
    assert!(!again.graphs().await.unwrap().iter().any(|g| g == kept));
    assert!(after.rows.iter().all(|r| r.graph != kept));
    let e = again.delete_graph(kept).await.unwrap_err();
    assert!(matches!(e, provex::Error::Usage(ref m) if m.contains("Provex's own use")), "{e:?}");

    // The first session writes a graph: the second reads its counts, never its span.
    ingest(&provex, &a, &[example("council/council-events.jsonl")]).await;
    let r = row(&again, &a).await;
    assert_eq!(r, again.runs_scanned(&a).await);
    assert!(r.nodes > find(&before, &a).unwrap().nodes);
    assert_eq!((again.runs_read(&a), again.runs_scans(&a), again.runs_read(&b)), (1, 0, 0));

    for g in [&a, &b] {
        provex.delete_graph(g).await.unwrap();
    }
}
