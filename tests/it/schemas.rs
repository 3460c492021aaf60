//! A graph gets every label Provex writes with its first write, by upserts or in bulk, and
//! no later write adds one: FalkorDB 4.16 crashes when a read is planned while a write adds
//! a label to the same graph (`src/store/schemas.rs`). The prompt of a question still names
//! only the labels the graph uses; an edge with no kind stays apart from kinded ones.

use std::collections::BTreeSet;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use provex::facade::{Provex, Quiet};
use provex::ingest::IngestOptions;
use provex::model::vocab::{Label, RelType, TgType};

use crate::common;

/// The strings in the first column of `q`'s rows.
async fn column(provex: &Provex, graph: &str, q: &str) -> BTreeSet<String> {
    let table = provex.query(graph, q).await.unwrap();
    table.rows.iter().filter_map(|r| r[0].as_str().map(str::to_owned)).collect()
}

async fn labels(provex: &Provex, graph: &str) -> BTreeSet<String> {
    column(provex, graph, "CALL db.labels() YIELD label RETURN label").await
}

async fn types(provex: &Provex, graph: &str) -> BTreeSet<String> {
    column(provex, graph, "CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType").await
}

fn every_label() -> BTreeSet<String> {
    Label::ALL.iter().map(|l| l.to_string()).chain(TgType::ALL.iter().map(|t| t.to_string())).collect()
}

async fn ingest(provex: &Provex, graph: &str, file: &str, bulk: bool, dir: &tempfile::TempDir) {
    let opts = IngestOptions { bulk, rejects: Some(dir.path().join("rejected.jsonl")), ..Default::default() };
    let files = [common::repo().join(file)];
    provex.ingest(graph, &files, opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet)).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_write_adds_every_label_and_no_later_write_adds_one() {
    let dir = tempfile::tempdir().unwrap();
    for bulk in [false, true] {
        let (provex, graph) = common::open(&format!("schemas_{bulk}")).await;
        ingest(&provex, &graph, "examples/a2a-run.jsonl", bulk, &dir).await;
        let l = labels(&provex, &graph).await;
        assert!(l.is_superset(&every_label()), "bulk {bulk}: missing {:?}", every_label().difference(&l));
        // Types come with the edges that use them (each one slows untyped edge reads).
        let used_types = column(&provex, &graph, "MATCH ()-[e]->() RETURN DISTINCT type(e)").await;
        assert_eq!(types(&provex, &graph).await, used_types, "bulk {bulk}");
        // The node that carried the labels is gone: the graph is the A2A run's.
        let used = column(&provex, &graph, "MATCH (n) UNWIND labels(n) AS l RETURN DISTINCT l").await;
        assert!(!used.contains("Answer") && !used.contains("Statement"), "{used:?}");
        // Another source into the same graph: no label appears.
        ingest(&provex, &graph, "examples/council/council-a2ap.jsonl", false, &dir).await;
        assert!(column(&provex, &graph, "MATCH (n:Statement) RETURN n.name").await.len() > 1);
        assert_eq!(labels(&provex, &graph).await, l, "bulk {bulk}");
        provex.delete_graph(&graph).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_questions_schema_names_the_labels_the_graph_uses() {
    let (provex, graph) = common::open("schemas_ask").await;
    provex.demo_council(&graph, None, Arc::new(AtomicBool::new(false))).await.unwrap();
    let schema = provex.graph_schema(&graph).await.unwrap();
    let used = column(&provex, &graph, "MATCH (n) UNWIND labels(n) AS l RETURN DISTINCT l").await;
    let used_types = column(&provex, &graph, "MATCH ()-[e]->() RETURN DISTINCT type(e)").await;
    assert_eq!(schema.labels.iter().cloned().collect::<BTreeSet<_>>(), used);
    assert_eq!(schema.relationships.iter().cloned().collect::<BTreeSet<_>>(), used_types);
    assert!(used.len() < labels(&provex, &graph).await.len(), "the graph holds labels it does not use");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_graph_appears_whole_and_one_made_elsewhere_gets_what_it_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let (provex, graph) = common::open("schemas_staged").await;
    ingest(&provex, &graph, "examples/a2a-run.jsonl", false, &dir).await;
    // Made under a name of its own and renamed: nothing of that is left on the server.
    let keys = common::server_graphs().await;
    assert!(keys.contains(&graph));
    assert!(!keys.iter().any(|k| k.starts_with(&graph) && k != &graph), "{keys:?}");

    // A graph another client made, with a label of its own: Provex adds what it lacks and
    // keeps what it holds.
    let (_, other) = common::open("schemas_elsewhere").await;
    let client = redis::Client::open(common::admin_url()).unwrap();
    let mut con = client.get_multiplexed_async_connection().await.unwrap();
    let _: redis::Value = redis::cmd("GRAPH.QUERY")
        .arg(&other)
        .arg("CREATE (:Mine {name: 'kept'})")
        .query_async(&mut con)
        .await
        .unwrap();
    ingest(&provex, &other, "examples/a2a-run.jsonl", false, &dir).await;
    let l = labels(&provex, &other).await;
    assert!(l.is_superset(&every_label()) && l.contains("Mine"), "{l:?}");
    let kept = column(&provex, &other, "MATCH (n:Mine) RETURN n.name").await;
    assert_eq!(kept.into_iter().collect::<Vec<_>>(), ["kept"]);
    for g in [graph, other] {
        provex.delete_graph(&g).await.unwrap();
    }
}

/// A `MERGE` with no kind finds an edge of any kind once the graph has the type: an edge with
/// no kind stays apart from a kinded edge of its type between the same nodes, whichever comes
/// first, and writing either again changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edge_with_no_kind_stays_apart_from_kinded_ones_written_before_or_after() {
    use provex::model::vocab::{EdgeKind, ProvRelation};
    use provex::model::{Edge, GraphDelta, Node, NodeRef};
    let (provex, graph) = common::open("schemas_plain").await;
    let store = provex::store::Store::connect(common::url()).await.unwrap();
    let (a, b) = (NodeRef::new(Label::Artifact, "a"), NodeRef::new(Label::Artifact, "b"));
    let mut nodes = GraphDelta::new();
    nodes.add_node(Node::new(Label::Artifact, "a"));
    nodes.add_node(Node::new(Label::Artifact, "b"));
    store.write(&graph, &nodes).await.unwrap();
    let edge = |kind: EdgeKind, w: i64| {
        let mut e = Edge::new(RelType::Cites, kind, a.clone(), b.clone());
        e.props.insert("w".into(), w.into());
        let mut d = GraphDelta::new();
        d.add_edge(e);
        d
    };
    let used = EdgeKind::Prov(ProvRelation::Used);
    let edges = || async {
        let t = provex
            .query(&graph, "MATCH (:Artifact {name: 'a'})-[e:CITES]->(:Artifact {name: 'b'}) RETURN e.`prov:base_type`, e.w ORDER BY e.w")
            .await
            .unwrap();
        t.rows.iter().map(|r| format!("{} {}", r[0], r[1])).collect::<Vec<_>>()
    };
    store.write(&graph, &edge(used, 1)).await.unwrap();
    store.write(&graph, &edge(EdgeKind::Plain, 2)).await.unwrap();
    assert_eq!(edges().await, ["\"USED\" 1", "null 2"]);
    // Again, in one delta and in the other order: the same two edges, each with its own w.
    let mut both = edge(EdgeKind::Plain, 2);
    both.extend(edge(used, 1));
    store.write(&graph, &both).await.unwrap();
    store.write(&graph, &edge(EdgeKind::Plain, 3)).await.unwrap();
    assert_eq!(edges().await, ["\"USED\" 1", "null 3"]);
    provex.delete_graph(&graph).await.unwrap();
}
