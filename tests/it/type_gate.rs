//! A write that gives a graph a relationship type while other queries of that graph are
//! being planned: FalkorDB 4.16 dies of it (SIGSEGV in `_GraphContext_GetLabelID`, from
//! `QueryGraph_ResolveUnknownRelIDs`) when a query naming a type the graph lacks is planned
//! as the type is added. The store adds each type alone while no query of the graph from this
//! process runs (`src/store/gate.rs`): the server receives the type only after a read under
//! way has been answered, and one store writing every type into graphs it keeps deleting while
//! another store of the same process reads them by type goes on without a stall.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use provex::error::Error;
use provex::model::vocab::{EdgeKind, Label, RelType};
use provex::model::{Edge, GraphDelta, Node, NodeRef};
use provex::store::server::{PrivateServer, ServerOptions};
use provex::store::Store;

use crate::common;

/// How long the writer goes on. The race itself is rare per type added (one server died after
/// about 20,000 in a loop of raw queries): the order below is what shows the gate at work.
const RUN: Duration = Duration::from_secs(3);
const GRAPHS: usize = 3;

fn one_edge(rel: RelType) -> GraphDelta {
    let mut d = GraphDelta::new();
    d.add_node(Node::new(Label::Artifact, "a"));
    d.add_node(Node::new(Label::Artifact, "b"));
    d.add_edge(Edge::new(
        rel,
        EdgeKind::Plain,
        NodeRef::new(Label::Artifact, "a"),
        NodeRef::new(Label::Artifact, "b"),
    ));
    d
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn types_added_while_the_graph_is_read_by_type_neither_stall_nor_bring_the_server_down() {
    let data = tempfile::tempdir().unwrap();
    let opts = ServerOptions { data_dir: data.path().to_owned(), persist: false, port: None };
    let server = PrivateServer::start(&opts).unwrap();
    let writer = Store::connect(&server.url()).await.unwrap();
    let reader = Arc::new(Store::connect(&server.url()).await.unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let reads = Arc::new(AtomicU64::new(0));
    let mut readers = Vec::new();
    for k in 0..3usize {
        let (reader, stop, reads) = (reader.clone(), stop.clone(), reads.clone());
        readers.push(tokio::spawn(async move {
            let mut n = k;
            while !stop.load(Ordering::Relaxed) {
                n = n.wrapping_mul(31).wrapping_add(17);
                let rel = RelType::ALL[n % RelType::ALL.len()];
                let graph = format!("race{}", n % GRAPHS);
                let q = format!("MATCH ()-[e:`{rel}`]->() RETURN count(e)");
                match reader.query(&graph, &q).await {
                    Ok(_) | Err(Error::NotFound { .. }) => {}
                    Err(e) => return Err(format!("a read of {graph} failed: {e}")),
                }
                reads.fetch_add(1, Ordering::Relaxed);
            }
            Ok(())
        }));
    }
    let started = Instant::now();
    let mut added = 0;
    'writing: for round in 0.. {
        let graph = format!("race{}", round % GRAPHS);
        let _ = writer.delete_graph(&graph).await;
        for rel in RelType::ALL {
            if started.elapsed() > RUN {
                break 'writing;
            }
            writer
                .write(&graph, &one_edge(*rel))
                .await
                .unwrap_or_else(|e| panic!("writing {rel} to {graph}: {e}"));
            added += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        r.await.unwrap().unwrap();
    }
    let reads = reads.load(Ordering::Relaxed);
    eprintln!(
        "type gate: {added} types added, {reads} reads by type, in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert!(added > 100 && reads > 500, "too little happened to test anything: {added} types, {reads} reads");
    // The server is alive; a graph holds the types its edges use, and no node beyond the two
    // written.
    let graph = "race0";
    writer.write(graph, &one_edge(RelType::ALL[0])).await.unwrap();
    let t = reader.query(graph, "MATCH (n) RETURN count(n)").await.unwrap();
    assert_eq!(t.rows[0][0], 2);
    let used = reader.query(graph, "MATCH ()-[e]->() RETURN count(DISTINCT type(e))").await.unwrap();
    let types = reader
        .query(graph, "CALL db.relationshipTypes() YIELD relationshipType RETURN count(relationshipType)")
        .await
        .unwrap();
    assert_eq!(used.rows[0][0], types.rows[0][0]);
}

fn unix_secs(t: std::time::SystemTime) -> f64 {
    t.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_type_reaches_the_server_only_after_the_reads_under_way_are_answered() {
    let data = tempfile::tempdir().unwrap();
    let opts = ServerOptions { data_dir: data.path().to_owned(), persist: false, port: None };
    let server = PrivateServer::start(&opts).unwrap();
    let store = Arc::new(Store::connect(&server.url()).await.unwrap());
    let graph = "gated";
    store.write(graph, &one_edge(RelType::Used)).await.unwrap();
    let seen = common::monitor(&server.admin_url().unwrap());
    // A read of the graph that takes a while.
    let read = tokio::spawn({
        let store = store.clone();
        async move {
            let started = Instant::now();
            let q = "MATCH (n) WITH count(n) AS c UNWIND range(1, 4000000) AS x RETURN count(x) + c";
            store.query(graph, q).await.unwrap();
            (started.elapsed(), std::time::SystemTime::now())
        }
    });
    tokio::time::sleep(Duration::from_millis(150)).await;
    // A write of a type the graph lacks, while the read is under way.
    store.write(graph, &one_edge(RelType::WasDerivedFrom)).await.unwrap();
    let (took, answered) = read.await.unwrap();
    assert!(took > Duration::from_millis(400), "the read was too quick to test anything: {took:?}");
    // The server's time of the query that added the type (MONITOR: `<unix time> [db addr] …`).
    let mut added = None;
    for _ in 0..200 {
        let lines = seen.lock().unwrap().clone();
        added = lines.lines().find(|l| l.contains("WAS_DERIVED_FROM")).map(str::to_owned);
        if added.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let added = added.expect("MONITOR shows the write of the new type");
    let at: f64 = added.split_whitespace().next().unwrap().parse().unwrap();
    // The read's answer is timed when this task wakes, which on a busy machine can be a few
    // milliseconds after the store let the write go; without the gate the type comes about
    // `took - 150 ms` (over 250 ms) early, so 100 ms of slack still tells the two apart.
    assert!(
        at >= unix_secs(answered) - 0.1,
        "the type reached the server {:.3} s before the read under way was answered (read took {took:?})",
        unix_secs(answered) - at
    );
    assert!(added.contains("DETACH DELETE"), "the type came alone, first: {added}");
    // The edge is there, and the node that carried the type is gone.
    let t = store.query(graph, "MATCH (n) RETURN count(n)").await.unwrap();
    assert_eq!(t.rows[0][0], 2);
    let t = store.query(graph, "MATCH ()-[e:WAS_DERIVED_FROM]->() RETURN count(e)").await.unwrap();
    assert_eq!(t.rows[0][0], 1);
}
