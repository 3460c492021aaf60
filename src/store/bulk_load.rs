//! Sends an encoded delta through `GRAPH.BULK` to build a graph that does not exist yet,
//! then creates its indexes; a failure removes the partial graph so that the caller can
//! write the same delta through `MERGE` instead.

use std::time::Duration;

use redis::Value;

use super::bulk::{encode, Limits, Unsupported};
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
    /// most `limits`, then creates the `name` indexes. On an error the partial graph is
    /// deleted and the error returned (nothing of the delta is left behind).
    pub async fn bulk_build(&self, graph: &str, delta: &GraphDelta, limits: Limits) -> Result<BulkOutcome> {
        super::validate_graph_name(graph)?;
        let encoded = match encode(delta, limits) {
            Ok(e) => e,
            Err(u) => return Ok(BulkOutcome::Unsupported(u)),
        };
        if let Err((done, e)) = self.send_bulk(graph, &encoded.commands).await {
            // A refused first command built nothing (the graph may be someone else's that
            // appeared meanwhile); otherwise remove what was built.
            let built_some = done > 0 || matches!(e, Error::ConnectionLost { .. } | Error::Connection { .. });
            if built_some {
                if let Err(cleanup) = self.drop_partial(graph).await {
                    tracing::warn!(graph, %cleanup, "could not remove the partial graph of a failed bulk build");
                }
            }
            return Err(e);
        }
        self.ensure_indexes(graph).await?;
        Ok(BulkOutcome::Built(WriteStats {
            nodes: encoded.nodes,
            edges: encoded.edges,
            queries: encoded.commands.len() as u64,
        }))
    }

    /// Sends the commands in order; on an error, also says how many went through.
    async fn send_bulk(
        &self,
        graph: &str,
        commands: &[super::bulk::BulkCommand],
    ) -> std::result::Result<(), (usize, Error)> {
        let connection =
            |e: redis::RedisError| (0, Error::Connection { url: self.url.clone(), reason: e.to_string() });
        let client = redis::Client::open(self.info_url.as_str()).map_err(connection)?;
        // A piece of 128 MiB takes the server a few seconds; leave it plenty.
        let config = redis::AsyncConnectionConfig::new().set_response_timeout(Some(Duration::from_secs(600)));
        let mut con =
            client.get_multiplexed_async_connection_with_config(&config).await.map_err(connection)?;
        for (done, c) in commands.iter().enumerate() {
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
                        Error::ConnectionLost { during: format!("while bulk-building graph {graph}"), reason }
                    } else {
                        Error::Query(format!("GRAPH.BULK on {graph}: {reason}"))
                    },
                ));
            }
        }
        Ok(())
    }

    /// Deletes what a failed bulk build left (if the server is reachable again).
    async fn drop_partial(&self, graph: &str) -> Result<()> {
        if self.graphs_list().await?.iter().any(|g| g == graph) {
            self.delete_graph(graph).await?;
        }
        Ok(())
    }
}
