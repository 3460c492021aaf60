//! Sends an encoded delta through `GRAPH.BULK` to build a graph that does not exist yet (on
//! a cluster, to the primary owning the graph's slot), then creates its indexes; a failure removes the partial graph so that the caller can
//! write the same delta through `MERGE` instead.

use std::sync::Arc;
use std::time::Duration;

use redis::Value;

use super::bulk::{encode_each, BulkCommand, Limits, Unsupported};
use super::write::WriteStats;
use super::Store;
use crate::error::{Error, Result};
use crate::model::GraphDelta;

/// How a bulk build ended.
#[derive(Debug)]
pub enum BulkOutcome {
    /// The graph was built: what it holds.
    Built(WriteStats),
    /// The delta holds what GRAPH.BULK cannot carry; nothing was written.
    Unsupported(Unsupported),
}

impl Store {
    /// Builds `graph`, which must not exist, from `delta` with `GRAPH.BULK` in pieces of at
    /// most `limits`, then creates the `name` indexes and waits until they serve. The pieces
    /// are encoded on a blocking thread while the previous one is sent, one piece ahead. On
    /// an error, or what the format cannot carry, the partial graph is deleted (nothing of
    /// the delta is left behind).
    pub async fn bulk_build(
        &self,
        graph: &str,
        delta: Arc<GraphDelta>,
        limits: Limits,
    ) -> Result<BulkOutcome> {
        super::validate_graph_name(graph)?;
        let batch = self.batch();
        let (tx, rx) = tokio::sync::mpsc::channel::<BulkCommand>(1);
        let encoder =
            tokio::task::spawn_blocking(move || encode_each(&delta, limits, |c| tx.blocking_send(c).is_ok()));
        let sent = self.send_bulk(graph, rx).await;
        let encoded = encoder.await.map_err(|e| Error::Server(format!("bulk encoder: {e}")))?;
        let failure = match (sent, encoded) {
            (Ok(commands), Ok((nodes, edges))) => {
                self.ensure_indexes(graph).await?;
                self.wait_for_indexes(graph).await?;
                // Built only once it is on disk (a failure leaves the graph for the caller's
                // upserts to complete: they are idempotent).
                self.commit(batch).await?;
                return Ok(BulkOutcome::Built(WriteStats { nodes, edges, queries: commands as u64 }));
            }
            (Ok(done), Err(unsupported)) => (done, Ok(unsupported)),
            (Err((done, e)), _) => (done, Err(e)),
        };
        let (done, outcome) = failure;
        // A refused first command built nothing (the graph may be someone else's that
        // appeared meanwhile); otherwise remove what was built.
        let built_some =
            done > 0 || matches!(outcome, Err(Error::ConnectionLost { .. } | Error::Connection { .. }));
        if built_some {
            if let Err(cleanup) = self.drop_partial(graph).await {
                tracing::warn!(graph, %cleanup, "could not remove the partial graph of a failed bulk build");
            }
        }
        outcome.map(BulkOutcome::Unsupported)
    }

    /// Waits until every index of the graph serves queries: FalkorDB fills indexes created
    /// on existing nodes in the background, and upserts that follow would scan meanwhile.
    async fn wait_for_indexes(&self, graph: &str) -> Result<()> {
        let deadline = std::time::Instant::now() + Duration::from_secs(600);
        loop {
            let (_, rows) =
                self.run_ro(graph, "CALL db.indexes() YIELD status RETURN status", vec![]).await?;
            let pending = rows
                .iter()
                .filter(
                    |r| !matches!(r.first(), Some(falkordb::FalkorValue::String(s)) if s == "OPERATIONAL"),
                )
                .count();
            if pending == 0 || std::time::Instant::now() > deadline {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Sends the commands in order as they come; returns how many went through, also on an
    /// error.
    async fn send_bulk(
        &self,
        graph: &str,
        mut commands: tokio::sync::mpsc::Receiver<BulkCommand>,
    ) -> std::result::Result<usize, (usize, Error)> {
        let connection =
            |e: redis::RedisError| (0, Error::Connection { url: self.url(), reason: e.to_string() });
        // On a cluster, straight to the primary owning the graph's slot: a bulk build is a
        // stream of large commands that must not queue behind (or hold up) the shared cluster
        // connection. If the slot moves meanwhile, the primary answers MOVED and the caller
        // writes with upserts instead.
        let owner = if self.is_cluster() { self.owner_url(graph).await } else { None };
        let url = owner.unwrap_or_else(|| self.endpoint().url.clone());
        let client = redis::Client::open(url.as_str()).map_err(connection)?;
        // A piece of 128 MiB takes the server a few seconds; leave it plenty.
        let config = redis::AsyncConnectionConfig::new().set_response_timeout(Some(Duration::from_secs(600)));
        let mut con =
            client.get_multiplexed_async_connection_with_config(&config).await.map_err(connection)?;
        let mut done = 0;
        while let Some(c) = commands.recv().await {
            let mut cmd = redis::cmd("GRAPH.BULK");
            cmd.arg(graph);
            if c.begin {
                cmd.arg("BEGIN");
            }
            cmd.arg(c.nodes).arg(c.edges).arg(c.label_blobs.len()).arg(c.type_blobs.len());
            for blob in c.label_blobs.iter().chain(&c.type_blobs) {
                cmd.arg(blob.as_slice());
            }
            let reply: redis::RedisResult<Value> = cmd.query_async(&mut con).await;
            if let Err(e) = reply {
                let reason = e.to_string();
                return Err((
                    done,
                    if e.is_io_error() || e.is_connection_dropped() || e.is_timeout() {
                        self.barrier.lost();
                        Error::ConnectionLost { during: format!("while bulk-building graph {graph}"), reason }
                    } else if let Some(refused) = super::durable::refusal(&reason) {
                        refused
                    } else {
                        Error::Query(format!("GRAPH.BULK on {graph}: {reason}"))
                    },
                ));
            }
            self.barrier.wrote();
            done += 1;
        }
        Ok(done)
    }

    /// Deletes what a failed bulk build left (if the server is reachable again).
    async fn drop_partial(&self, graph: &str) -> Result<()> {
        if self.graphs_list().await?.iter().any(|g| g == graph) {
            self.delete_graph(graph).await?;
        }
        Ok(())
    }
}
