//! Reads from replicas on the three-shard cluster with a replica per shard
//! (`falkor_cluster.rs`): with `read_from=replicas`, what only shows a graph (a view, a diff,
//! explore) is served by the replica of the graph's shard, writes and the log's checks go to
//! the primary, and how far the replica is behind is measured and shown.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use provex::api::ops::Args;
use provex::facade::{Call, ConnectOptions, Provex, Quiet};
use provex::ingest::IngestOptions;
use serde_json::json;

use crate::diff;
use crate::falkor_cluster::cluster;

/// How often `command` (lower case) ran on a node (`INFO commandstats`).
pub fn calls(con: &mut redis::Connection, command: &str) -> u64 {
    let info: String = redis::cmd("INFO").arg("commandstats").query(con).unwrap();
    // Module commands keep their case: `cmdstat_graph.RO_QUERY`.
    let prefix = format!("cmdstat_{command}:calls=").to_ascii_lowercase();
    info.lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix(&prefix).map(str::to_owned))
        .map_or(0, |rest| rest.split(',').next().unwrap().parse().unwrap())
}

/// The replication offset a node has reached.
fn offset(con: &mut redis::Connection, field: &str) -> u64 {
    let info: String = redis::cmd("INFO").arg("replication").query(con).unwrap();
    info.lines().find_map(|l| l.strip_prefix(field)?.strip_prefix(':')).unwrap().trim().parse().unwrap()
}

/// Waits until the replica of `shard` has everything its primary sent.
fn caught_up(shard: usize) {
    let c = cluster();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while offset(&mut c.replica(shard), "slave_repl_offset")
        < offset(&mut c.node(shard), "master_repl_offset")
    {
        assert!(std::time::Instant::now() < deadline, "the replica of shard {shard} never caught up");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_read_from_the_replica_writes_go_to_the_primary_and_the_lag_is_shown() {
    let c = cluster();
    let dir = tempfile::tempdir().unwrap();
    let (a_files, b_files, ..) = diff::two_runs(dir.path());
    let url = format!("{}?read_from=replicas", c.url());
    let provex = Arc::new(Provex::open(ConnectOptions { url: Some(url), server: None }).await.unwrap());
    let plain = Provex::open(ConnectOptions { url: Some(c.url()), server: None }).await.unwrap();
    let (graph, other) = (c.graph_on(1, "t_cl_replica_a"), c.graph_on(1, "t_cl_replica_b"));

    // Writes go to the primary: an ingest through the replica-reading store lands there.
    let primary_writes = calls(&mut c.node(1), "graph.query");
    for (g, files) in [(&graph, &a_files), (&other, &b_files)] {
        let report = provex
            .ingest(g, files, IngestOptions::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
            .await
            .unwrap();
        assert_eq!(report.rejected, 0, "{report:?}");
    }
    assert!(calls(&mut c.node(1), "graph.query") > primary_writes);
    assert!(c.graphs_on(1).contains(&graph));
    caught_up(1);

    // Explore and a diff through the operations a UI calls are served by the replica, and
    // show what the primary holds.
    let on_primary = plain.view(&graph, Default::default()).await.unwrap();
    let id = on_primary.nodes.iter().find(|n| n.label == "Agent").unwrap_or(&on_primary.nodes[0]).id.clone();
    let replica_reads = calls(&mut c.replica(1), "graph.ro_query");
    let call = Call::http(&provex, false);
    let near: serde_json::Value = serde_json::from_str(
        &call.run("neighbours", Args::Json(json!({ "graph": graph, "id": id }))).await.unwrap(),
    )
    .unwrap();
    let served = calls(&mut c.replica(1), "graph.ro_query") - replica_reads;
    assert!(served > 0, "the neighbours were read from the primary");
    assert_eq!(near, serde_json::to_value(plain.neighbours(&graph, &id).await.unwrap()).unwrap());
    assert!(!near["nodes"].as_array().unwrap().is_empty());
    let diff: serde_json::Value =
        serde_json::from_str(&call.run("diff", Args::Json(json!({ "a": graph, "b": other }))).await.unwrap())
            .unwrap();
    assert!(calls(&mut c.replica(1), "graph.ro_query") > replica_reads + served, "the diff read the primary");
    assert_eq!(diff, serde_json::to_value(plain.diff_graphs(&graph, &other).await.unwrap()).unwrap());

    // Outside an operation that only shows a graph, reads stay on the primary (an ingest's
    // own reads, the log's checks).
    let before = calls(&mut c.replica(1), "graph.ro_query");
    provex.log_status(&graph).await.unwrap();
    call.run("log_status", Args::Json(json!({ "graph": graph }))).await.unwrap();
    assert_eq!(calls(&mut c.replica(1), "graph.ro_query"), before);

    // The lag: none once caught up, in `stats` and in what a UI learns at start.
    let stats = provex.stats(&graph).await.unwrap();
    let lag = stats.replica.expect("stats say how far the replica is behind");
    assert_eq!(lag.replica, format!("127.0.0.1:{}", c.replicas[1].port));
    assert_eq!(lag.primary, format!("127.0.0.1:{}", c.nodes[1].port));
    assert!(lag.link_up && lag.behind_ms < provex::store::replicas::LAG_WAIT.as_millis() as u64, "{lag:?}");
    assert!(provex.health(false).replica.is_some());
    assert_eq!(plain.stats(&graph).await.unwrap().replica, None);

    // A replica held still (DEBUG SLEEP) while the primary takes a write is measured behind.
    let mut sleeper = c.replica(1);
    let held =
        std::thread::spawn(move || redis::cmd("DEBUG").arg("SLEEP").arg(3).exec(&mut sleeper).unwrap());
    tokio::time::sleep(Duration::from_millis(300)).await;
    redis::cmd("GRAPH.QUERY")
        .arg(&graph)
        .arg("MERGE (:ReplicaProbe {name: 'probe'})")
        .exec(&mut c.node(1))
        .unwrap();
    let behind = provex.stats(&graph).await.unwrap().replica.unwrap();
    held.join().unwrap();
    assert!(behind.behind_ms >= 1_000, "{behind:?}");
    assert!(behind.link_up, "{behind:?}");
    let text = provex::store::replicas::lag_text(&behind);
    assert!(
        text.contains(&format!("replica 127.0.0.1:{}", c.replicas[1].port)) && text.contains(" s ("),
        "{text}"
    );

    for g in [&graph, &other] {
        provex.delete_graph(g).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reading_from_replicas_needs_a_cluster() {
    let url = format!("{}?read_from=replicas", crate::common::url());
    let refused = Provex::open(ConnectOptions { url: Some(url), server: None }).await.err().unwrap();
    assert!(refused.to_string().contains("read_from=replicas needs a Redis Cluster"), "{refused}");
}
