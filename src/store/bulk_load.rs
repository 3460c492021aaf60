//! Sends an encoded delta or spill through `GRAPH.BULK` to build a graph that does not exist
//! yet (on a cluster, to the primary owning the graph's slot), then creates its indexes; a
//! failure removes the partial graph so that the caller can write the same rows through
//! `MERGE` instead.

use std::sync::Arc;
use std::time::Duration;

use redis::Value;

use super::bulk::{encode_each, BulkCommand, Limits, Unsupported};
use super::bulk_spill::{encode_spilled, Part, Spilled};
use super::write::WriteStats;
use super::Store;
use crate::error::{Error, Result};
use crate::model::GraphDelta;

/// What ends the name of a graph being built.
const PARTIAL_SUFFIX: &str = ".bulk-partial";

/// The name a graph is built under until it is complete: what a crash during the build
/// leaves, and what the next bulk build of the same graph removes first.
pub fn partial_name(graph: &str) -> String {
    if graph.len() + PARTIAL_SUFFIX.len() <= 200 {
        format!("{graph}{PARTIAL_SUFFIX}")
    } else {
        use std::hash::BuildHasher;
        let hash = foldhash::quality::FixedState::with_seed(1).hash_one(graph);
        format!("{}.{hash:016x}{PARTIAL_SUFFIX}", &graph[..160])
    }
}

/// Whether `name` is a graph being built ([`partial_name`]), or what a crashed build left:
/// no list of graphs shows it, so nothing reads it while GRAPH.BULK adds its labels (a read
/// planned beside a write adding a label crashes FalkorDB 4.16, `schemas.rs`).
pub fn is_partial(name: &str) -> bool {
    name.ends_with(PARTIAL_SUFFIX) || name.ends_with(super::schemas::STAGING_SUFFIX)
}

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
    /// most `limits` (see [`Store::bulk_build_with`]).
    pub async fn bulk_build(
        &self,
        graph: &str,
        delta: Arc<GraphDelta>,
        limits: Limits,
    ) -> Result<BulkOutcome> {
        self.bulk_build_with(graph, move |send| Ok(encode_each(&delta, limits, send))).await
    }

    /// Builds `graph`, which must not exist, from a spill (see [`encode_spilled`]), one part
    /// of it in memory at a time.
    pub async fn bulk_build_spilled(
        &self,
        graph: &str,
        spilled: Arc<Spilled>,
        limits: Limits,
        part: Part,
    ) -> Result<BulkOutcome> {
        let dir = spilled.dir().to_owned();
        self.bulk_build_with(graph, move |send| {
            encode_spilled(&spilled, limits, part, send).map_err(|e| Error::io(dir, e))
        })
        .await
    }

    /// Builds `graph`, which must not exist, from what `encode` hands its sender, then
    /// creates the `name` indexes and waits until they serve. The commands are encoded on a
    /// blocking thread while the previous one is sent, one piece ahead. On an error, or what
    /// the format cannot carry, the partial graph is deleted (nothing is left behind).
    async fn bulk_build_with<E>(&self, graph: &str, encode: E) -> Result<BulkOutcome>
    where
        E: FnOnce(&mut dyn FnMut(BulkCommand) -> bool) -> Result<Result<(u64, u64), Unsupported>>
            + Send
            + 'static,
    {
        super::validate_graph_name(graph)?;
        let batch = self.batch();
        // Built under another name and renamed when complete: the graph's own name never
        // shows a partial graph. What a crashed build left under that name goes first.
        let mut building = partial_name(graph);
        self.drop_partial(&building).await?;
        if !self.may_rename(&building, graph).await {
            // A shared server's user set up before builds were renamed into place.
            tracing::warn!(graph, "the server refuses RENAMENX: building under the graph's own name");
            building = graph.to_owned();
        }
        let (tx, rx) = tokio::sync::mpsc::channel::<BulkCommand>(1);
        let encoder = tokio::task::spawn_blocking(move || encode(&mut |c| tx.blocking_send(c).is_ok()));
        let sent = self.send_bulk(&building, rx).await;
        let encoded = encoder.await.map_err(|e| Error::Server(format!("bulk encoder: {e}")))?;
        let failure = match (sent, encoded) {
            (Ok(commands), Ok(Ok((nodes, edges)))) => {
                let done = async {
                    self.ensure_indexes(&building).await?;
                    self.wait_for_indexes(&building).await?;
                    self.rename_built(&building, graph).await
                };
                match done.await {
                    Ok(()) => {
                        // Built only once it is on disk (a failure leaves the graph for the
                        // caller's upserts to complete: they are idempotent).
                        self.commit(batch).await?;
                        return Ok(BulkOutcome::Built(WriteStats { nodes, edges, queries: commands as u64 }));
                    }
                    Err(e) => (commands, Err(e)),
                }
            }
            (Ok(done), Ok(Err(unsupported))) => (done, Ok(unsupported)),
            (Ok(done), Err(e)) => (done, Err(e)),
            (Err((done, e)), _) => (done, Err(e)),
        };
        let (done, outcome) = failure;
        // A refused first command built nothing; otherwise remove what was built.
        let built_some =
            done > 0 || matches!(outcome, Err(Error::ConnectionLost { .. } | Error::Connection { .. }));
        if built_some {
            if let Err(cleanup) = self.drop_partial(&building).await {
                tracing::warn!(graph, %cleanup, "could not remove the partial graph {building} of a failed bulk build");
            }
        }
        outcome.map(BulkOutcome::Unsupported)
    }

    /// Whether the server lets this user rename a key: asked with a key that does not exist
    /// (`building`, just removed), which renames nothing either way. On a cluster the two
    /// names may live in different slots, where no rename is possible.
    async fn may_rename(&self, building: &str, graph: &str) -> bool {
        if self.is_cluster() {
            return false;
        }
        let Ok(mut con) = self.raw_connection().await else { return false };
        let probe: redis::RedisResult<i64> =
            redis::cmd("RENAMENX").arg(building).arg(graph).query_async(&mut con).await;
        match probe {
            // Refused to this user, or across a cluster's slots (the two names hash apart).
            Err(e) => {
                let e = e.to_string().to_ascii_lowercase();
                !e.contains("perm") && !e.contains("crossslot")
            }
            Ok(_) => true,
        }
    }

    /// Gives the built graph its name, unless a graph of that name appeared meanwhile.
    async fn rename_built(&self, building: &str, graph: &str) -> Result<()> {
        if building == graph {
            return Ok(());
        }
        let mut con = self.raw_connection().await?;
        let renamed: redis::RedisResult<i64> =
            redis::cmd("RENAMENX").arg(building).arg(graph).query_async(&mut con).await;
        match renamed {
            Ok(1) => {
                self.barrier.wrote();
                self.gate(graph).forget();
                self.graphs.lock().await.remove(building);
                let mut indexed = self.indexed.lock().await;
                indexed.remove(building);
                indexed.insert(graph.to_owned());
                Ok(())
            }
            Ok(_) => Err(Error::Query(format!(
                "GRAPH.BULK builds new graphs only: {graph} was created while it was being built"
            ))),
            Err(e) => Err(Error::Query(format!("renaming the bulk-built graph to {graph}: {e}"))),
        }
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
        // A piece takes the server a few seconds at most; leave it plenty.
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
            // The first command gives the graph every label first, in the order upserts
            // give them (`schemas.rs`): a blob with no records.
            let labels: Vec<Vec<u8>> = if c.begin { vec![super::bulk::labels_blob()] } else { Vec::new() };
            cmd.arg(c.nodes).arg(c.edges).arg(labels.len() + c.label_blobs.len()).arg(c.type_blobs.len());
            for blob in labels.iter().chain(&c.label_blobs).chain(&c.type_blobs) {
                cmd.arg(blob.as_slice());
            }
            // The command holds its own copy of the blobs from here on.
            let expected = (c.nodes, c.edges);
            drop(c);
            let reply: redis::RedisResult<Value> = cmd.query_async(&mut con).await;
            drop(cmd);
            let reply = match reply {
                Ok(v) => v,
                Err(e) => return Err((done, self.bulk_error(graph, e))),
            };
            self.barrier.wrote();
            done += 1;
            if let Err(why) = created_as_sent(&reply, expected) {
                return Err((done, Error::Query(format!("GRAPH.BULK on {graph}: {why}"))));
            }
        }
        Ok(done)
    }

    /// The error of a `GRAPH.BULK` command the server did not carry out.
    fn bulk_error(&self, graph: &str, e: redis::RedisError) -> Error {
        let reason = e.to_string();
        if e.is_io_error() || e.is_connection_dropped() || e.is_timeout() {
            self.barrier.lost();
            Error::ConnectionLost { during: format!("while bulk-building graph {graph}"), reason }
        } else if let Some(refused) = super::durable::refusal(&reason) {
            refused
        } else {
            Error::Query(format!("GRAPH.BULK on {graph}: {reason}"))
        }
    }

    /// Deletes what a failed bulk build left (if the server is reachable again).
    async fn drop_partial(&self, graph: &str) -> Result<()> {
        if self.graph_keys().await?.iter().any(|g| g == graph) {
            self.delete_graph(graph).await?;
        }
        Ok(())
    }
}

/// Checks the server's answer to one `GRAPH.BULK` command ("N nodes created, M edges
/// created") against what the command declared: a difference is an error, never a graph
/// built with fewer nodes than its edges are numbered against.
fn created_as_sent(reply: &Value, (nodes, edges): (u64, u64)) -> std::result::Result<(), String> {
    let text = match reply {
        Value::BulkString(b) => String::from_utf8_lossy(b).into_owned(),
        Value::SimpleString(s) => s.clone(),
        Value::VerbatimString { text, .. } => text.clone(),
        other => format!("{other:?}"),
    };
    let numbers: Vec<u64> =
        text.split(|c: char| !c.is_ascii_digit()).filter_map(|n| n.parse().ok()).collect();
    if numbers == [nodes, edges] {
        Ok(())
    } else {
        Err(format!("sent {nodes} nodes and {edges} edges, the server answered {text:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_servers_count_must_be_what_was_sent() {
        let reply = |s: &str| Value::BulkString(s.as_bytes().to_vec());
        assert!(created_as_sent(&reply("12 nodes created, 30 edges created"), (12, 30)).is_ok());
        assert!(
            created_as_sent(&Value::SimpleString("0 nodes created, 7 edges created".into()), (0, 7)).is_ok()
        );
        let short = created_as_sent(&reply("11 nodes created, 30 edges created"), (12, 30)).unwrap_err();
        assert!(short.contains("sent 12 nodes and 30 edges"), "{short}");
        assert!(created_as_sent(&reply("OK"), (1, 1)).is_err());
        assert!(created_as_sent(&Value::Nil, (0, 0)).is_err());
    }
}
