//! Provex on a three-shard FalkorDB cluster (`falkor_cluster.rs`): graphs that live on
//! different shards are ingested, read, diffed, logged and listed as on one server, and a
//! graph whose slot moves to another shard mid-session loses nothing.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use provex::facade::{ConnectOptions, Provex, Quiet};
use provex::ingest::IngestOptions;
use provex::store::cluster::key_slot;

use crate::falkor_cluster::{cluster, SHARDS};
use crate::{common, diff};

async fn open_cluster(url: String) -> Provex {
    Provex::open(ConnectOptions { url: Some(url), server: None }).await.expect("connect to the cluster")
}

async fn ingest(provex: &Provex, graph: &str, files: &[PathBuf]) {
    let report = provex
        .ingest(graph, files, IngestOptions::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
    assert_eq!(report.rejected, 0, "{report:?}");
}

/// What a graph holds, read through the compact reader `diff` uses: the same on the cluster
/// as on one server given the same files.
async fn same_graph(cluster: &Provex, graph: &str, single: &Provex, reference: &str) {
    assert_eq!(common::graph_text(cluster, graph).await, common::graph_text(single, reference).await);
    let (a, b) =
        (cluster.graph_snapshot(graph).await.unwrap(), single.graph_snapshot(reference).await.unwrap());
    assert_eq!(a.nodes.len(), b.nodes.len());
    let d = provex::diff::diff(&b, &a);
    assert!(d.is_empty(), "{d:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graphs_on_different_shards_are_ingested_read_diffed_logged_and_listed() {
    let c = cluster();
    let dir = tempfile::tempdir().unwrap();
    let (a_files, b_files, statement_a, statement_b, forged) = diff::two_runs(dir.path());
    // Given every node as a seed, and given one node by a plain URL (found to be a cluster).
    let provex = open_cluster(c.url()).await;
    let by_one_node = open_cluster(c.node_url(2)).await;
    let keys = tempfile::tempdir().unwrap();
    provex.set_log_key_dir(keys.path().to_owned());
    let (graph_a, graph_b) = (c.graph_on(0, "t_cl_runs_a"), c.graph_on(1, "t_cl_runs_b"));
    assert_ne!(key_slot(&graph_a), key_slot(&graph_b));
    ingest(&provex, &graph_a, &a_files).await;
    ingest(&provex, &graph_b, &b_files).await;

    // Each graph is one key, on the shard owning its slot and no other.
    for (graph, shard) in [(&graph_a, 0), (&graph_b, 1)] {
        for i in 0..SHARDS {
            assert_eq!(c.graphs_on(i).contains(graph), i == shard, "{graph} on node {i}");
        }
    }
    // Listed from every shard, through either connection.
    for p in [&provex, &by_one_node] {
        let graphs = p.graphs().await.unwrap();
        assert!(graphs.contains(&graph_a) && graphs.contains(&graph_b), "{graphs:?}");
        assert_eq!(graphs.iter().filter(|g| **g == graph_a).count(), 1);
    }

    // Read as one server reads the same files.
    let (single, reference) = common::open("cl_runs_single").await;
    ingest(&single, &reference, &a_files).await;
    same_graph(&provex, &graph_a, &single, &reference).await;
    same_graph(&by_one_node, &graph_a, &single, &reference).await;
    single.delete_graph(&reference).await.unwrap();

    // Compared across shards: exactly the differences of the two runs.
    let d = provex.diff_graphs(&graph_a, &graph_b).await.unwrap();
    diff::assert_expected(&d, &statement_a, &statement_b, &forged);
    assert_eq!(by_one_node.diff_graphs(&graph_a, &graph_b).await.unwrap(), d);

    // The tamper-evident log (its keys in other slots than the graph's) matches the graph.
    let check = provex.verify_graph_log(&graph_a).await.unwrap();
    assert!(check.checkpoint_matches && check.log_size > 0 && check.nodes_checked > 0, "{check:?}");
    assert_eq!(check.mismatches, vec![]);
    let status = provex.log_status(&graph_b).await.unwrap();
    assert!(status.checkpoint_matches && status.checkpoint_at.is_some(), "{status:?}");

    // The durability barrier ran on every primary: each holds a marker of its own.
    for i in 0..SHARDS {
        let marks: Vec<String> = redis::cmd("KEYS").arg("provex:durable:*").query(&mut c.node(i)).unwrap();
        assert!(!marks.is_empty(), "no barrier on node {i}");
    }

    for g in [&graph_a, &graph_b] {
        provex.delete_graph(g).await.unwrap();
    }
    let graphs = provex.graphs().await.unwrap();
    assert!(!graphs.contains(&graph_a) && !graphs.contains(&graph_b));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graph_whose_slot_moves_to_another_shard_mid_session_loses_nothing() {
    let c = cluster();
    let dir = tempfile::tempdir().unwrap();
    let (files, _, _, _, _) = diff::two_runs(dir.path());
    let provex = open_cluster(c.url()).await;
    let graph = c.graph_on(0, "t_cl_move");
    let slot = key_slot(&graph);
    ingest(&provex, &graph, &files[..1]).await;

    // The move begins: the source still holds the graph and serves its writes.
    let moving = c.begin_move(slot, 2);
    ingest(&provex, &graph, &files[1..2]).await;
    assert!(c.graphs_on(0).contains(&graph));
    // The graph goes over: the source answers ASK, the target takes it with ASKING.
    // The graph is one key; FalkorDB may keep its query telemetry beside it, in the same slot.
    let moved = moving.migrate_keys();
    let telemetry = format!("telemetry{{{graph}}}");
    assert!(moved.contains(&graph) && moved.iter().all(|k| *k == graph || *k == telemetry), "{moved:?}");
    assert!(c.graphs_on(2).contains(&graph) && !c.graphs_on(0).contains(&graph));
    let mid = provex.stats(&graph).await.unwrap();
    assert!(mid.nodes > 0, "{mid:?}");
    ingest(&provex, &graph, &files[2..3]).await;
    // The move ends: from now on the source answers MOVED.
    moving.finish();
    assert_eq!(c.owner(slot), 2);

    let (single, reference) = common::open("cl_move_single").await;
    for f in &files {
        ingest(&single, &reference, std::slice::from_ref(f)).await;
    }
    same_graph(&provex, &graph, &single, &reference).await;
    // And a write after the move lands on the new shard (the same again changes nothing).
    ingest(&provex, &graph, &files[2..3]).await;
    same_graph(&provex, &graph, &single, &reference).await;
    let after = provex.stats(&graph).await.unwrap();
    assert!(after.nodes > mid.nodes, "{mid:?} then {after:?}");
    assert_eq!(provex.graphs().await.unwrap().iter().filter(|g| **g == graph).count(), 1);
    assert!(c.graphs_on(2).contains(&graph) && !c.graphs_on(0).contains(&graph));
    single.delete_graph(&reference).await.unwrap();
    provex.delete_graph(&graph).await.unwrap();
}

/// A fresh import into a graph that lives on a shard other than the first seed's is built
/// with GRAPH.BULK on the primary owning the graph (not refused with MOVED and written with
/// upserts), and the graph is whole: the graph upserts build from the same files.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_import_on_another_shard_is_built_with_graph_bulk_there() {
    let c = cluster();
    let dir = tempfile::tempdir().unwrap();
    let (files, _, _, _, _) = diff::two_runs(dir.path());
    let provex = open_cluster(c.url()).await;
    let graph = c.graph_on(2, "t_cl_bulk");
    let bulks = |i: usize| crate::cluster_replicas::calls(&mut c.node(i), "graph.bulk");
    let before = bulks(2);
    let report = provex
        .ingest(&graph, &files, IngestOptions::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
    // (The signed statements of the run are upserted after the build: "bulk+merge".)
    assert!(report.method.starts_with("bulk") && report.notes.is_empty(), "{report:?}");
    assert!(bulks(2) > before, "no GRAPH.BULK ran on the graph's shard");
    for i in 0..SHARDS {
        assert_eq!(c.graphs_on(i).contains(&graph), i == 2, "{graph} on node {i}");
    }

    let (single, reference) = common::open("cl_bulk_single").await;
    let upserts = IngestOptions { bulk: false, ..Default::default() };
    let r =
        single.ingest(&reference, &files, upserts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet)).await;
    assert_eq!(r.unwrap().method, "merge");
    same_graph(&provex, &graph, &single, &reference).await;
    let check = provex.verify_graph_log(&graph).await.unwrap();
    assert!(check.checkpoint_matches && check.mismatches.is_empty(), "{check:?}");
    single.delete_graph(&reference).await.unwrap();
    provex.delete_graph(&graph).await.unwrap();
}

/// FalkorDB's own commands in cluster mode, as the store relies on them: a graph is one key,
/// served by the shard owning its slot; any other shard answers `MOVED` to it; each shard
/// lists only its own graphs; a hash tag puts two graphs in one slot (`GRAPH.COPY`).
#[test]
fn falkordb_serves_a_graph_on_its_shard_and_redirects_elsewhere() {
    let c = cluster();
    let graph = c.graph_on(0, "t_cl_raw");
    let slot = key_slot(&graph);
    let query = |node: usize, cmd: &str, text: &str| -> redis::RedisResult<redis::Value> {
        redis::cmd(cmd).arg(&graph).arg(text).query(&mut c.node(node))
    };
    query(0, "GRAPH.QUERY", "CREATE (:N {name: 'x'})").unwrap();
    let refused = query(1, "GRAPH.RO_QUERY", "MATCH (n) RETURN count(n)").unwrap_err();
    assert_eq!(refused.kind(), redis::ErrorKind::Server(redis::ServerErrorKind::Moved), "{refused}");
    assert_eq!(refused.redirect_node(), Some((format!("127.0.0.1:{}", c.nodes[0].port).as_str(), slot)));
    let refused = query(2, "GRAPH.QUERY", "CREATE (:N {name: 'y'})").unwrap_err();
    assert_eq!(refused.kind(), redis::ErrorKind::Server(redis::ServerErrorKind::Moved), "{refused}");
    assert!(
        c.graphs_on(0).contains(&graph)
            && !c.graphs_on(1).contains(&graph)
            && !c.graphs_on(2).contains(&graph)
    );

    let copy = format!("{{{graph}}}:copy");
    assert_eq!(key_slot(&copy), slot);
    redis::cmd("GRAPH.COPY").arg(&graph).arg(&copy).exec(&mut c.node(0)).unwrap();
    let rows: redis::Value = redis::cmd("GRAPH.RO_QUERY")
        .arg(&copy)
        .arg("MATCH (n:N) RETURN n.name")
        .query(&mut c.node(0))
        .unwrap();
    assert!(format!("{rows:?}").contains('x'), "{rows:?}");
    for g in [&graph, &copy] {
        redis::cmd("GRAPH.DELETE").arg(g).exec(&mut c.node(0)).unwrap();
    }
}

/// The README's least-privilege user, created with its exact line on every node, is all
/// Provex needs on a cluster too (finding the slots, following redirects, the barrier on
/// each primary).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provex_works_on_a_cluster_as_the_documented_least_privilege_user() {
    let c = cluster();
    let line = provex::store::secret::shared_acl_line().replace(">PASSWORD", ">cluster-pass-1");
    // On every node: primaries and replicas (ACLs are not replicated).
    for i in 0..SHARDS {
        for mut node in [c.node(i), c.replica(i)] {
            let mut cmd = redis::cmd("ACL");
            for word in line.split(' ').skip(1) {
                cmd.arg(word);
            }
            cmd.exec(&mut node).unwrap();
        }
    }
    let url = c.url().replace("redis+cluster://", "redis+cluster://provex-app:cluster-pass-1@");
    let provex = open_cluster(url).await;
    let dir = tempfile::tempdir().unwrap();
    let (files, _, _, _, _) = diff::two_runs(dir.path());
    let graph = c.graph_on(1, "t_cl_acl");
    ingest(&provex, &graph, &files).await;
    assert!(provex.graphs().await.unwrap().contains(&graph));
    assert!(provex.stats(&graph).await.unwrap().nodes > 0);
    assert!(!provex.graph_snapshot(&graph).await.unwrap().nodes.is_empty());
    provex.delete_graph(&graph).await.unwrap();
}
