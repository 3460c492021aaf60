//! GRAPH.BULK against a real server: a new graph built in bulk is the graph the upserts make
//! from the same input (labels, types and every property), also when the input is split
//! between the two paths or holds what the bulk format cannot carry; and random graphs
//! survive encode → GRAPH.BULK → read back.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use proptest::prelude::*;
use provex::facade::{Provex, Quiet};
use provex::ingest::IngestOptions;
use provex::model::vocab::{EdgeKind, Label, ProvRelation, RelType};
use provex::model::{Edge, GraphDelta, Node, NodeRef, PropValue};
use provex::store::bulk::Limits;
use provex::store::{BulkOutcome, Store};

use crate::common;

/// Every node with its labels and properties, and every edge with its endpoints' labels
/// and names, its type and properties, as sorted lines of JSON.
async fn everything(provex: &Provex, graph: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for q in [
        "MATCH (n) RETURN labels(n) AS l, properties(n) AS p",
        "MATCH (a)-[e]->(b) RETURN labels(a) AS la, a.name AS a, type(e) AS t, properties(e) AS p, \
         labels(b) AS lb, b.name AS b",
    ] {
        let table = provex.query(graph, q).await.unwrap();
        lines.extend(
            table
                .rows
                .iter()
                .map(|r| serde_json::to_string(&common::without_log(serde_json::json!(r))).unwrap()),
        );
    }
    lines.sort();
    lines
}

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
async fn an_input_over_the_memory_bound_is_built_then_upserted() {
    let (provex, graph) = common::open("bulk_split").await;
    let merged = format!("{graph}_merge");
    let _ = provex.delete_graph(&merged).await;
    let dir = tempfile::tempdir().unwrap();
    let small = IngestOptions { bulk_max_rows: 300, batch_events: 50, ..opts(true, &dir) };
    let split = ingest(&provex, &graph, &inputs(), small).await;
    assert_eq!(split.method, "bulk+merge");
    ingest(&provex, &merged, &inputs(), opts(false, &dir)).await;
    assert_eq!(everything(&provex, &graph).await, everything(&provex, &merged).await);
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
