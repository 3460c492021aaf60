//! GRAPH.BULK against a real server: a new graph built in bulk is the graph the upserts make
//! from the same input (labels, types and every property), also when the input is built
//! from its spill in many parts or holds what the bulk format cannot carry; random graphs
//! survive encode → GRAPH.BULK → read back; a failed or crashed build leaves nothing under
//! the graph's name; a node or an edge seen in every batch is read back from the spill one
//! segment at a time.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use proptest::prelude::*;
use provex::facade::{Provex, Quiet};
use provex::ingest::IngestOptions;
use provex::model::vocab::{EdgeKind, Label, ProvRelation, RelType};
use provex::model::{Edge, GraphDelta, Node, NodeRef, PropValue};
use provex::store::bulk::Limits;
use provex::store::bulk_spill::{Part, Spill};
use provex::store::{partial_name, BulkOutcome, Store};

use crate::common::{self, everything};

async fn ingest(
    provex: &Provex,
    graph: &str,
    files: &[std::path::PathBuf],
    opts: IngestOptions,
) -> provex::facade::IngestReport {
    provex.ingest(graph, files, opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet)).await.unwrap()
}

fn inputs() -> Vec<std::path::PathBuf> {
    let root = common::repo();
    vec![root.join("examples/a2a-run.jsonl"), root.join("examples/council/council-events.jsonl")]
}

fn opts(bulk: bool, rejects: &tempfile::TempDir) -> IngestOptions {
    IngestOptions { bulk, rejects: Some(rejects.path().join("rejected.jsonl")), ..Default::default() }
}

#[tokio::test]
async fn a_new_graph_built_in_bulk_is_the_graph_upserts_make() {
    let (provex, graph) = common::open("bulk_same").await;
    let merged = format!("{graph}_merge");
    let _ = provex.delete_graph(&merged).await;
    let dir = tempfile::tempdir().unwrap();

    let bulk = ingest(&provex, &graph, &inputs(), opts(true, &dir)).await;
    let upserts = ingest(&provex, &merged, &inputs(), opts(false, &dir)).await;
    assert_eq!(bulk.method, "bulk");
    assert_eq!(upserts.method, "merge");
    assert!(bulk.notes.is_empty(), "{:?}", bulk.notes);
    let (a, b) = (everything(&provex, &graph).await, everything(&provex, &merged).await);
    assert!(a.len() > 300, "{} rows", a.len());
    assert_eq!(a, b);
    assert_eq!(bulk.events, upserts.events);

    // The bulk-built graph has the name indexes, and a second ingest upserts into it.
    let indexes = provex.query(&graph, "CALL db.indexes() YIELD label RETURN label").await.unwrap();
    let labelled: Vec<String> = indexes.rows.iter().map(|r| r[0].as_str().unwrap().to_owned()).collect();
    assert_eq!(labelled.len(), Label::ALL.len(), "{labelled:?}");
    let again = ingest(&provex, &graph, &inputs(), opts(true, &dir)).await;
    assert_eq!(again.method, "merge");
    assert_eq!(everything(&provex, &graph).await, b, "upserting the same input again changes nothing");
}

#[tokio::test]
async fn an_input_of_many_parts_is_built_in_bulk_as_the_upserts_make_it() {
    let (provex, graph) = common::open("bulk_split").await;
    let merged = format!("{graph}_merge");
    let _ = provex.delete_graph(&merged).await;
    let dir = tempfile::tempdir().unwrap();
    // Parts of at most 300 nodes (or edges) in memory: the build reads many of them, and
    // no bound sends the rest through upserts.
    // Agents, contexts and tasks recur across batches and parts with more properties each
    // time; a message names its task before the task's own event.
    let mut lines = Vec::new();
    for t in 0..300 {
        let (task, agent) = (format!("task-{t}"), format!("agent-{}", t % 7));
        let meta = format!(r#"{{"agent_id":"{agent}"}}"#);
        let ev = |n: usize, data: String| {
            format!(
                r#"{{"Task":{{"id":"e{t}-{n}","context_id":"ctx-{}","task_id":"{task}","timestamp_ms":{},"data":{data}}}}}"#,
                t % 3,
                1_700_000_000_000u64 + (t * 10 + n) as u64
            )
        };
        lines.push(ev(0, format!(r#"{{"MessageReceived":{{"id":"in-{t}","role":"user","content":["item {t}"],"metadata":{meta}}}}}"#)));
        lines.push(ev(1, format!(r#"{{"TaskCreated":{{"task_id":"{task}","agent_id":"{agent}"}}}}"#)));
        lines.push(ev(2, format!(r#"{{"TaskStatusChanged":{{"task_id":"{task}","old_status":"working","new_status":"completed"}}}}"#)));
        lines.push(ev(3, format!(r#"{{"TaskArtifactGenerated":{{"task_id":"{task}","artifact_id":"summary-{t}","artifact_type":"text/markdown"}}}}"#)));
    }
    let file = common::file_with(&dir, "many.jsonl", &lines.iter().map(String::as_str).collect::<Vec<_>>());
    let small = IngestOptions { bulk_max_rows: 200, batch_events: 50, ..opts(true, &dir) };
    let split = ingest(&provex, &graph, std::slice::from_ref(&file), small).await;
    assert_eq!(split.method, "bulk");
    assert_eq!(split.events, 1200);
    assert!(split.nodes_written > 1000, "{split:?}");
    ingest(&provex, &merged, &[file], opts(false, &dir)).await;
    let (a, b) = (everything(&provex, &graph).await, everything(&provex, &merged).await);
    assert!(a.len() > 2000, "{} rows", a.len());
    assert_eq!(a, b);
    let graphs = common::server_graphs().await;
    assert!(!graphs.contains(&partial_name(&graph)), "{graphs:?}");
}

/// Spills the batches and builds `graph` from the spill in parts of at most `rows`.
async fn build_spilled(
    store: &Store,
    graph: &str,
    batches: &[GraphDelta],
    rows: u64,
    limits: Limits,
) -> BulkOutcome {
    let dir = tempfile::tempdir().unwrap();
    let mut spill = Spill::in_dir(dir.path()).unwrap();
    for b in batches {
        spill.add(b.clone()).unwrap();
    }
    let spilled = Arc::new(spill.finish().unwrap());
    let part = Part { bytes: 4096, rows };
    let outcome = store.bulk_build_spilled(graph, spilled, limits, part).await.unwrap();
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing left in the spill's folder");
    outcome
}

#[test]
fn batches_built_from_a_spill_are_the_graph_their_upserts_make() {
    // Nodes seen in several batches with different properties, edges seen before their
    // endpoints and seen twice, edges without endpoints, parts of 1 to 12 rows.
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (provex, base) = rt.block_on(common::open("bulk_spill"));
    let store = rt.block_on(Store::connect(common::url())).unwrap();
    let case = std::sync::atomic::AtomicU32::new(0);
    let config = ProptestConfig { cases: 24, ..ProptestConfig::default() };
    proptest!(config, |(batches in proptest::collection::vec(delta_strategy(), 1..5), rows in 1u64..12, tiny in any::<bool>())| {
        let case = case.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (bulk, merged) = (format!("{base}_{case}_b"), format!("{base}_{case}_m"));
        rt.block_on(async {
            let _ = provex.delete_graph(&bulk).await;
            let _ = provex.delete_graph(&merged).await;
            let limits = if tiny { Limits { max_blob: 300, max_command: 700 } } else { Limits::default() };
            let outcome = build_spilled(&store, &bulk, &batches, rows, limits).await;
            assert!(matches!(outcome, BulkOutcome::Built(_)), "{outcome:?}");
            // What the in-memory build made of them: the batches merged into one delta (an
            // edge seen before its endpoints still finds them).
            let mut whole = GraphDelta::new();
            for b in &batches {
                whole.extend(b.clone());
            }
            store.write(&merged, &whole).await.unwrap();
            let (a, b) = (everything(&provex, &bulk).await, everything(&provex, &merged).await);
            let graphs = common::server_graphs().await;
            let _ = provex.delete_graph(&bulk).await;
            let _ = provex.delete_graph(&merged).await;
            prop_assert_eq!(a, b);
            prop_assert!(!graphs.contains(&partial_name(&bulk)));
            Ok(())
        })?;
    });
}

#[tokio::test]
async fn a_failed_build_leaves_nothing_and_a_crashed_one_is_cleared_by_the_next() {
    let (provex, graph) = common::open("bulk_failed").await;
    let store = Store::connect(common::url()).await.unwrap();
    let mut d = GraphDelta::new();
    for i in 0..400 {
        d.add_node(Node::new(Label::Artifact, format!("n{i}")).with("text", "some words"));
    }
    // GRAPH.BULK cannot carry a NUL in a node's name (a NUL in a property's value is stored
    // as U+FFFD, as the upserts store it); the last node fails after the others were sent.
    d.add_node(Node::new(Label::Artifact, "bad\0name"));
    let tiny = Limits { max_blob: 300, max_command: 700 };
    let outcome = build_spilled(&store, &graph, &[d], 50, tiny).await;
    assert!(matches!(outcome, BulkOutcome::Unsupported(_)), "{outcome:?}");
    let graphs = common::server_graphs().await;
    assert!(!graphs.contains(&graph) && !graphs.contains(&partial_name(&graph)), "{graphs:?}");

    // What a crash during a build leaves is under the other name, never the graph's; the
    // next build of the graph removes it.
    let mut left = GraphDelta::new();
    left.add_node(Node::new(Label::Artifact, "half"));
    store.write(&partial_name(&graph), &left).await.unwrap();
    // It is on the server, and in no list of graphs (nothing reads it, nobody opens it).
    assert!(common::server_graphs().await.contains(&partial_name(&graph)));
    assert!(!provex.graphs().await.unwrap().contains(&partial_name(&graph)));
    let mut good = GraphDelta::new();
    good.add_node(Node::new(Label::Artifact, "whole"));
    let outcome = build_spilled(&store, &graph, &[good], 50, Limits::default()).await;
    assert!(matches!(outcome, BulkOutcome::Built(_)), "{outcome:?}");
    let graphs = common::server_graphs().await;
    assert!(!graphs.contains(&partial_name(&graph)), "{graphs:?}");
    let names = provex.query(&graph, "MATCH (n) RETURN n.name").await.unwrap();
    assert_eq!(names.rows.len(), 1);
    assert_eq!(names.rows[0][0].as_str(), Some("whole"));
}

#[tokio::test]
async fn a_record_neither_path_can_store_is_rejected_and_the_rest_built_in_bulk() {
    let (provex, graph) = common::open("bulk_nul").await;
    let dir = tempfile::tempdir().unwrap();
    let booted = |id: &str, agent: &str| {
        format!(
            r#"{{"Global":{{"id":"{id}","context_id":"ctx-1","timestamp_ms":1763798400000,"data":{{"AgentBooted":{{"agent_id":"{agent}","agent_type":"planner","agent_version":"1","archive_path":"p"}}}}}}}}"#
        )
    };
    let lines = [booted("evt-1", "a1"), booted("evt-2", "a\\u0000b"), booted("evt-3", "a\\\\u0000b")];
    let file = common::file_with(&dir, "nul.jsonl", &lines.iter().map(String::as_str).collect::<Vec<_>>());
    let report = ingest(&provex, &graph, &[file], opts(true, &dir)).await;
    assert_eq!((report.events, report.rejected), (2, 1), "{report:?}");
    assert_eq!(report.method, "bulk");
    let rejected = std::fs::read_to_string(dir.path().join("rejected.jsonl")).unwrap();
    assert!(rejected.contains("NUL character"), "{rejected}");
    assert!(rejected.contains("evt-2"), "{rejected}");
    let count = |needle: &'static str| {
        let provex = &provex;
        let graph = &graph;
        async move {
            let q = format!("MATCH (n) WHERE n.name CONTAINS '{needle}' RETURN count(n)");
            provex.query(graph, &q).await.unwrap().rows[0][0].as_i64().unwrap()
        }
    };
    let (good, text) = (count("a1").await, count("u0000").await);
    assert!(good > 0);
    assert_eq!(text, good, "an escaped backslash before u0000 is text, not NUL: its record is kept");
}

/// A random delta over a few labels, names, types and property values of every kind.
fn delta_strategy() -> impl Strategy<Value = GraphDelta> {
    let value = prop_oneof![
        any::<bool>().prop_map(PropValue::Bool),
        any::<i64>().prop_map(PropValue::Int),
        (-1e12f64..1e12).prop_map(PropValue::Float),
        "[a-zé 😀]{0,12}".prop_map(PropValue::Str),
        proptest::collection::vec(any::<i32>().prop_map(|i| PropValue::Int(i as i64)), 0..4)
            .prop_map(PropValue::List),
    ];
    let labels = [Label::Artifact, Label::Agent, Label::A2ATask];
    let keys = ["alpha", "beta", "gamma"];
    let node = (0usize..3, 0u8..6, proptest::collection::vec((0usize..3, value.clone()), 0..3));
    let kinds =
        [EdgeKind::Plain, EdgeKind::Prov(ProvRelation::Used), EdgeKind::Prov(ProvRelation::WasDerivedFrom)];
    let rels = [RelType::Cites, RelType::WasUsedBy];
    let edge = (0usize..3, 0u8..6, 0usize..3, 0u8..6, 0usize..2, 0usize..3, proptest::option::of(value));
    (proptest::collection::vec(node, 1..40), proptest::collection::vec(edge, 0..60)).prop_map(
        move |(nodes, edges)| {
            let mut d = GraphDelta::new();
            for (l, n, props) in nodes {
                let mut node = Node::new(labels[l], format!("n{n}"));
                for (k, v) in props {
                    node.props.insert(keys[k].into(), v);
                }
                d.add_node(node);
            }
            for (sl, s, tl, t, r, k, v) in edges {
                let mut e = Edge::new(
                    rels[r],
                    kinds[k],
                    NodeRef::new(labels[sl], format!("n{s}")),
                    NodeRef::new(labels[tl], format!("n{t}")),
                );
                if let Some(v) = v {
                    e.props.insert("weight".into(), v);
                }
                d.add_edge(e);
            }
            d
        },
    )
}

#[test]
fn random_graphs_survive_encode_bulk_and_read_back() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (provex, base) = rt.block_on(common::open("bulk_prop"));
    let store = rt.block_on(Store::connect(common::url())).unwrap();
    let case = std::sync::atomic::AtomicU32::new(0);
    let config = ProptestConfig { cases: 24, ..ProptestConfig::default() };
    proptest!(config, |(delta in delta_strategy(), tiny in any::<bool>())| {
        let case = case.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (bulk, merged) = (format!("{base}_{case}_b"), format!("{base}_{case}_m"));
        rt.block_on(async {
            let _ = provex.delete_graph(&bulk).await;
            let _ = provex.delete_graph(&merged).await;
            let limits = if tiny { Limits { max_blob: 300, max_command: 700 } } else { Limits::default() };
            let outcome = store.bulk_build(&bulk, Arc::new(delta.clone()), limits).await.unwrap();
            assert!(matches!(outcome, BulkOutcome::Built(_)), "{outcome:?}");
            store.write(&merged, &delta).await.unwrap();
            let (a, b) = (everything(&provex, &bulk).await, everything(&provex, &merged).await);
            let _ = provex.delete_graph(&bulk).await;
            let _ = provex.delete_graph(&merged).await;
            prop_assert_eq!(a, b);
            Ok(())
        })?;
    });
}

#[tokio::test]
async fn a_refused_build_leaves_an_existing_graph_alone() {
    let (provex, graph) = common::open("bulk_exists").await;
    let store = Store::connect(common::url()).await.unwrap();
    let mut first = GraphDelta::new();
    first.add_node(Node::new(Label::Artifact, "kept"));
    store.write(&graph, &first).await.unwrap();
    let mut second = GraphDelta::new();
    second.add_node(Node::new(Label::Artifact, "other"));
    let err = store.bulk_build(&graph, Arc::new(second), Limits::default()).await.unwrap_err();
    assert!(err.to_string().contains("GRAPH.BULK"), "{err}");
    let names = provex.query(&graph, "MATCH (n) RETURN n.name").await.unwrap();
    assert_eq!(names.rows.len(), 1);
    assert_eq!(names.rows[0][0].as_str(), Some("kept"));
}

/// How often the server ran `CONFIG SET`, and its automatic-rewrite percentage now (through
/// the owner's administrative user: `MONITOR` leaves administrative commands out).
async fn rewrite_settings(admin: &str) -> (u64, String) {
    let mut con = redis::Client::open(admin).unwrap().get_multiplexed_async_connection().await.unwrap();
    let stats: String = redis::cmd("INFO").arg("commandstats").query_async(&mut con).await.unwrap();
    let calls = stats
        .lines()
        .find_map(|l| l.strip_prefix("cmdstat_config|set:calls="))
        .map_or(0, |rest| rest.split(',').next().unwrap().parse().unwrap());
    let got: Vec<String> = redis::cmd("CONFIG")
        .arg("GET")
        .arg("auto-aof-rewrite-percentage")
        .query_async(&mut con)
        .await
        .unwrap();
    (calls, got[1].clone())
}

/// A fork for an append-only-file rewrite while GRAPH.BULK commands arrive can leave
/// FalkorDB answering nothing at all (a 180,000-event fresh import hung that way): a bulk
/// build on the private server holds automatic rewrites while it runs (one `CONFIG SET`
/// before, one after), and lets them go again; an ingest with upserts leaves them alone.
#[tokio::test]
async fn a_bulk_build_holds_the_private_servers_rewrites_while_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let provex = crate::supervise::private(&dir, true, None).await;
    let admin = provex.private_server().unwrap().admin_url().expect("this process owns the server");
    provex.set_bulk_limits(Limits { max_blob: 300, max_command: 700 });
    let (before, percentage) = rewrite_settings(&admin).await;
    assert_eq!(percentage, "100");
    let report = ingest(&provex, "held", &inputs(), opts(true, &dir)).await;
    assert_eq!(report.method, "bulk");
    let (after, percentage) = rewrite_settings(&admin).await;
    assert_eq!(after, before + 2, "held, then let go");
    assert_eq!(percentage, "100", "rewrites are automatic again");
    let report = ingest(&provex, "held", &inputs(), opts(true, &dir)).await;
    assert_eq!(report.method, "merge");
    assert_eq!(rewrite_settings(&admin).await.0, after, "upserts hold nothing");
}

#[test]
fn a_node_and_an_edge_in_every_batch_are_read_back_one_segment_at_a_time() {
    // A node and an edge seen in each of 2,000 batches, with 1 KB of text each time: their
    // partitions are 2 MB, read back merged (the last batch's values win) while no more than
    // one segment of the file is in memory at once.
    // (A segment is 64 KiB.)
    let dir = tempfile::tempdir().unwrap();
    let mut spill = Spill::in_dir(dir.path()).unwrap();
    let (a, b) = (NodeRef::new(Label::Agent, "hot"), NodeRef::new(Label::Artifact, "t"));
    for i in 0..2_000 {
        let mut d = GraphDelta::new();
        d.add_node(Node::new(Label::Agent, "hot").with("text", format!("{i:04}{}", "x".repeat(1_000))));
        d.add_node(Node::new(Label::Artifact, format!("cold-{i}")));
        let e = Edge::new(RelType::WasAssociatedWith, EdgeKind::Plain, b.clone(), a.clone());
        d.add_edge(e.with("seen", i as i64));
        spill.add(d).unwrap();
    }
    let spilled = spill.finish().unwrap();
    let mut nodes = GraphDelta::new();
    for g in spilled.groups(true, Part::default()) {
        nodes.extend(spilled.read_nodes(g).unwrap());
    }
    assert_eq!(nodes.node_count(), 2_001);
    let hot = nodes.nodes().find(|n| n.name == "hot").unwrap();
    assert!(matches!(hot.props.get("text"), Some(PropValue::Str(s)) if s.starts_with("1999")));
    let mut edges = GraphDelta::new();
    for g in spilled.groups(false, Part::default()) {
        edges.extend(spilled.read_edges(g).unwrap());
    }
    let e: Vec<&Edge> = edges.edges().collect();
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].props.get("seen"), Some(&PropValue::Int(1_999)));
    assert!(spilled.most_read() > 0);
    assert!(spilled.most_read() < (64 << 10) + 2_000, "{} bytes read at once", spilled.most_read());
}
