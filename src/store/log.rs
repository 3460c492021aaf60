//! Where a graph's tamper-evident log lives (src/tlog/): its RFC 9162 tree as stored
//! hashes (in the order of Go's `tlog` and C2SP tlog-tiles) in one string key beside the
//! graph, `provex:log:<graph>`, and its latest signed checkpoint in
//! `provex:log:<graph>:checkpoint`. An append is one compare-and-append script, so it is
//! whole or absent after a crash, a second writer cannot interleave, and sending it again
//! after a lost reply changes nothing; the leaves of a batch are appended before its nodes
//! are written (in the same pipeline as its first upserts, on one connection, which the
//! server runs in order), and the durability barrier covers both.

use redis::Value;
// The log's hashes as `tlog_tiles` gives them: the store sits below `tlog`, not on it.
use tlog_tiles::Hash;

use super::Store;
use crate::error::{Error, Result};

/// The bytes of one stored hash.
const HASH_BYTES: u64 = std::mem::size_of::<Hash>() as u64;

/// The key of a graph's stored hashes.
pub fn log_key(graph: &str) -> String {
    format!("provex:log:{graph}")
}

/// The key of a graph's latest signed checkpoint.
pub fn checkpoint_key(graph: &str) -> String {
    format!("provex:log:{graph}:checkpoint")
}

/// The key of when a graph's latest checkpoint was signed (Unix ms, as text): a
/// checkpoint's body holds no time, and the explorer says which checkpoint it proves against.
pub fn checkpoint_time_key(graph: &str) -> String {
    format!("provex:log:{graph}:checkpoint:at")
}

/// Appends ARGV[2] at byte ARGV[1]: 1 when appended, 2 when exactly these bytes are there
/// already (a resent append), 0 when the log is not as the writer knew it.
const APPEND: &str = r"
local len = redis.call('STRLEN', KEYS[1])
local at = tonumber(ARGV[1])
if len == at then
  redis.call('APPEND', KEYS[1], ARGV[2])
  return 1
end
local n = string.len(ARGV[2])
if len >= at + n and redis.call('GETRANGE', KEYS[1], at, at + n - 1) == ARGV[2] then
  return 2
end
return 0
";

/// Whether a log append and the `upserts` upserts sent with it go as one transaction
/// (`MULTI`/`EXEC`): on a single server, when there are upserts. FalkorDB runs a graph write
/// on a thread of its own and Redis writes it to the append-only file when it ends, so with
/// `appendfsync always` each command of a plain pipeline costs its own fsync (an append and
/// two upserts: three, each answered after its own). In a transaction the graph writes run in
/// turn on the server's main thread and the whole transaction is written, and fsynced, once
/// (one `fdatasync` where three were counted with `strace` on the private server). Redis loads
/// an append-only file cut inside a transaction without that transaction, so a crash leaves
/// the leaves and the nodes written together or neither. A cluster keeps the plain pipeline:
/// the log's key and the graph's may live on two primaries.
pub(super) fn one_transaction(cluster: bool, upserts: usize) -> bool {
    !cluster && upserts > 0
}

/// A batch's commands: the log append (its reply read, unless `queued` in a transaction,
/// where `EXEC` carries it), then the upserts (replies checked for errors only).
fn push_batch(
    pipe: &mut redis::Pipeline,
    graph: &str,
    at: u64,
    bytes: &[u8],
    upserts: &[super::raw::Upsert],
    queued: bool,
) {
    pipe.cmd("EVAL").arg(APPEND).arg(1).arg(log_key(graph)).arg(at * HASH_BYTES).arg(bytes);
    if queued {
        pipe.ignore();
    }
    for q in upserts {
        let query = pipe.cmd("GRAPH.QUERY").arg(graph).arg(q.text());
        query.arg("timeout").arg(super::QUERY_TIMEOUT_MS).ignore();
    }
}

impl Store {
    pub(super) async fn log_cmd<T: redis::FromRedisValue + Send>(
        &self,
        pipe: &redis::Pipeline,
        write: bool,
    ) -> Result<T> {
        let what = "the log".to_owned();
        self.retrying(write.then_some(what.as_str()), || async {
            let mut con = self.raw_connection().await?;
            match pipe.query_async::<T>(&mut con).await {
                Ok(v) => {
                    if write {
                        self.barrier.wrote();
                    }
                    Ok(v)
                }
                Err(e) if super::cluster::is_connection_error(&e) => Err(self.raw_lost(&e).await),
                Err(e) => {
                    let reason = e.to_string();
                    Err(super::durable::refusal(&reason).unwrap_or(Error::Query(reason)))
                }
            }
        })
        .await
    }

    /// How many hashes a graph's log stores.
    pub async fn log_stored(&self, graph: &str) -> Result<u64> {
        super::validate_graph_name(graph)?;
        let mut pipe = redis::pipe();
        pipe.cmd("STRLEN").arg(log_key(graph));
        let (len,): (u64,) = self.log_cmd(&pipe, false).await?;
        if len % HASH_BYTES != 0 {
            return Err(Error::Query(format!("the log of graph {graph} is damaged: {len} bytes")));
        }
        Ok(len / HASH_BYTES)
    }

    /// The stored hashes at these indexes, in one round trip.
    pub async fn log_read(&self, graph: &str, indexes: &[u64]) -> Result<Vec<Hash>> {
        super::validate_graph_name(graph)?;
        if indexes.is_empty() {
            return Ok(Vec::new());
        }
        let key = log_key(graph);
        let mut pipe = redis::pipe();
        for i in indexes {
            pipe.cmd("GETRANGE").arg(&key).arg(i * HASH_BYTES).arg(i * HASH_BYTES + HASH_BYTES - 1);
        }
        let parts: Vec<Vec<u8>> = self.log_cmd(&pipe, false).await?;
        parts
            .into_iter()
            .zip(indexes)
            .map(|(b, i)| {
                b.try_into()
                    .map(Hash)
                    .map_err(|_| Error::Query(format!("the log of graph {graph} has no stored hash {i}")))
            })
            .collect()
    }

    /// Appends stored hashes at hash index `at` (where the writer knows the log ends):
    /// `false`, and nothing appended, when the log does not end there (another writer
    /// appended, or a server without an append-only file came back empty).
    pub async fn log_append(&self, graph: &str, at: u64, bytes: &[u8]) -> Result<bool> {
        self.log_append_with(graph, at, bytes, &[]).await
    }

    /// [`Store::log_append`], then `upserts` on the graph in the same pipeline (their replies
    /// are checked for errors, not read): the upserts run whether or not the append was
    /// refused. On a single server the pipeline is one transaction (see [`one_transaction`]).
    pub(super) async fn log_append_with(
        &self,
        graph: &str,
        at: u64,
        bytes: &[u8],
        upserts: &[super::raw::Upsert],
    ) -> Result<bool> {
        super::validate_graph_name(graph)?;
        // The upserts are queries of the graph: planned under its gate (`gate.rs`).
        let _planned = if upserts.is_empty() { None } else { Some(self.shared(graph).await) };
        if one_transaction(self.is_cluster(), upserts.len()) && !self.barrier.plain() {
            match self.log_append_in_transaction(graph, at, bytes, upserts).await {
                // A user that may not send `MULTI` (a shared server's, granted the commands of
                // an older Provex): the commands ran one by one all the same and are sent again
                // as a plain pipeline, which changes nothing (see `APPEND`).
                Err(Error::NotStored(m)) if m.contains("NOPERM") && m.contains("'multi'") => {
                    tracing::warn!(url = %self.url(), "FalkorDB refused MULTI to this user: each write of a batch is fsynced on its own");
                    self.barrier.set_plain();
                }
                other => return other,
            }
        }
        let mut pipe = redis::pipe();
        push_batch(&mut pipe, graph, at, bytes, upserts, false);
        let (done,): (i64,) = self.log_cmd(&pipe, true).await?;
        Ok(done != 0)
    }

    /// The append and the upserts between `MULTI` and `EXEC`, sent as one plain pipeline:
    /// `EXEC`'s reply holds each command's, an error among them is the batch's error.
    async fn log_append_in_transaction(
        &self,
        graph: &str,
        at: u64,
        bytes: &[u8],
        upserts: &[super::raw::Upsert],
    ) -> Result<bool> {
        let mut pipe = redis::pipe();
        pipe.cmd("MULTI").ignore();
        push_batch(&mut pipe, graph, at, bytes, upserts, true);
        pipe.cmd("EXEC");
        let (replies,): (Vec<Value>,) = self.log_cmd(&pipe, true).await?;
        if let Some(Value::ServerError(e)) = replies.iter().find(|v| matches!(v, Value::ServerError(_))) {
            let reason = format!("{}: {}", e.code(), e.details().unwrap_or_default());
            return Err(super::durable::refusal(&reason).unwrap_or(Error::Query(reason)));
        }
        match replies.first() {
            Some(Value::Int(done)) => Ok(*done != 0),
            other => Err(Error::Query(format!("unexpected reply to the log append: {other:?}"))),
        }
    }

    /// Keeps a graph's latest signed checkpoint.
    pub async fn log_set_checkpoint(&self, graph: &str, note: &[u8]) -> Result<()> {
        super::validate_graph_name(graph)?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        let mut pipe = redis::pipe();
        // The time first: a note is never kept with an older note's time.
        pipe.cmd("SET").arg(checkpoint_time_key(graph)).arg(now).ignore();
        pipe.cmd("SET").arg(checkpoint_key(graph)).arg(note);
        let _: Value = self.log_cmd(&pipe, true).await?;
        Ok(())
    }

    /// A graph's latest signed checkpoint and when it was signed (Unix ms; `None` for a
    /// checkpoint kept before its time was), if it has one.
    pub async fn log_checkpoint_signed_at(&self, graph: &str) -> Result<Option<(Vec<u8>, Option<i64>)>> {
        super::validate_graph_name(graph)?;
        let mut pipe = redis::pipe();
        pipe.cmd("GET").arg(checkpoint_key(graph));
        pipe.cmd("GET").arg(checkpoint_time_key(graph));
        let (note, at): (Option<Vec<u8>>, Option<i64>) = self.log_cmd(&pipe, false).await?;
        Ok(note.map(|n| (n, at)))
    }

    /// A graph's latest signed checkpoint, if it has one.
    pub async fn log_checkpoint(&self, graph: &str) -> Result<Option<Vec<u8>>> {
        super::validate_graph_name(graph)?;
        let mut pipe = redis::pipe();
        pipe.cmd("GET").arg(checkpoint_key(graph));
        let (note,): (Option<Vec<u8>>,) = self.log_cmd(&pipe, false).await?;
        Ok(note)
    }
}
