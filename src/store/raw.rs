//! Queries on the hot paths, sent as plain `GRAPH.RO_QUERY` / `GRAPH.QUERY` over one
//! multiplexed Redis connection:
//! - traversals, read in FalkorDB's verbose reply format: they return many rows of small
//!   scalars, and for those this is two to three times faster than the compact format with
//!   typed decoding (measured in docs/BENCHMARKS.md). Verbose replies render lists as
//!   text, so queries on this path return scalars and lists of integers ([`ints`]) only;
//! - writes, pipelined: the upserts of one delta go out together and cost one round trip,
//!   not one each (a live ingest writes a small delta every few milliseconds).
//!
//! On a Redis Cluster the connection is the cluster client's (see `cluster.rs`): each
//! query goes to the primary owning its graph, redirects followed.

use redis::Value;

use super::cluster::{is_connection_error, RawConnection};
use super::{Store, QUERY_TIMEOUT_MS};
use crate::error::{Error, Result};

/// One reply row of scalars.
pub type RawRow = Vec<Value>;

pub fn int(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::BulkString(b) => std::str::from_utf8(b).ok()?.parse().ok(),
        _ => None,
    }
}

pub fn string(v: &Value) -> Option<String> {
    match v {
        Value::BulkString(b) => Some(String::from_utf8_lossy(b).into_owned()),
        Value::SimpleString(s) => Some(s.clone()),
        Value::VerbatimString { text, .. } => Some(text.clone()),
        _ => None,
    }
}

/// A list of integers as the verbose reply renders it: `[1, 2, 3]`.
pub fn ints(v: &Value) -> Option<Vec<i64>> {
    let text = match v {
        Value::BulkString(b) => std::str::from_utf8(b).ok()?,
        Value::SimpleString(s) => s.as_str(),
        _ => return None,
    };
    let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?.trim();
    if inner.is_empty() {
        return Some(Vec::new());
    }
    inner.split(',').map(|x| x.trim().parse().ok()).collect()
}

/// A list of ids as a Cypher literal.
pub fn id_list(ids: &[i64]) -> String {
    let mut s = String::with_capacity(ids.len() * 7 + 2);
    s.push('[');
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&id.to_string());
    }
    s.push(']');
    s
}

/// One query of a pipelined write: its Cypher and its parameters as Cypher literals.
pub struct Upsert {
    pub cypher: String,
    pub params: Vec<(String, String)>,
    /// Rows it carries (pipelines are cut to about [`super::BATCH_ROWS`] rows).
    pub rows: usize,
}

impl Upsert {
    pub(super) fn text(&self) -> String {
        with_params(&self.cypher, &self.params)
    }
}

/// `CYPHER k=v … <query>`: FalkorDB's way of passing parameters with the query text.
fn with_params<K: AsRef<str>>(cypher: &str, params: &[(K, String)]) -> String {
    let mut text =
        String::with_capacity(cypher.len() + params.iter().map(|(_, v)| v.len() + 16).sum::<usize>());
    if !params.is_empty() {
        text.push_str("CYPHER ");
        for (k, v) in params {
            text.push_str(k.as_ref());
            text.push('=');
            text.push_str(v);
            text.push(' ');
        }
    }
    text.push_str(cypher);
    text
}

impl Store {
    pub(super) async fn raw_connection(&self) -> Result<RawConnection> {
        if let Some(c) = self.raw.lock().await.as_ref() {
            return Ok(c.clone());
        }
        // The server ends a query at QUERY_TIMEOUT_MS; the connection waits a little longer
        // (redis' default of 500 ms would cut off a large read such as a whole view).
        let wait = std::time::Duration::from_millis(QUERY_TIMEOUT_MS as u64 + 5_000);
        let con = RawConnection::open(self.endpoint().target(), wait)
            .await
            .map_err(|e| Error::Connection { url: self.url(), reason: e.to_string() })?;
        *self.raw.lock().await = Some(con.clone());
        Ok(con)
    }

    /// Runs a read-only query whose parameters are already Cypher literals (built with
    /// [`falkordb::to_cypher_param`] or [`id_list`]), returning its rows; again after the
    /// server came back when it could not reach it.
    pub(crate) async fn raw_ro(
        &self,
        graph: &str,
        cypher: &str,
        params: &[(&str, String)],
    ) -> Result<Vec<RawRow>> {
        super::validate_graph_name(graph)?;
        let text = with_params(cypher, params);
        self.retrying(None, || self.raw_ro_once(graph, &text)).await
    }

    async fn raw_ro_once(&self, graph: &str, text: &str) -> Result<Vec<RawRow>> {
        let mut cmd = redis::cmd("GRAPH.RO_QUERY");
        cmd.arg(graph).arg(text).arg("timeout").arg(QUERY_TIMEOUT_MS);
        let _planned = self.shared(graph).await;
        let reply: redis::RedisResult<Value> = match self.replica_connection().await? {
            // A view or explore on a store reading from replicas (see `replicas.rs`).
            Some(mut replica) => super::replicas::on_replica(&mut replica, cmd, graph).await,
            None => cmd.query_async(&mut self.raw_connection().await?).await,
        };
        let reply = match reply {
            Ok(v) => v,
            Err(e) if is_connection_error(&e) => return Err(self.raw_lost(&e).await),
            Err(e) => return Err(super::missing_graph(Error::Query(e.to_string()), graph)),
        };
        // [header, rows, statistics]; a query with no RETURN has only statistics.
        let Value::Array(mut parts) = reply else {
            return Err(Error::Query(format!("unexpected reply to a graph query: {reply:?}")));
        };
        if parts.len() < 3 {
            return Ok(Vec::new());
        }
        let rows = parts.swap_remove(1);
        let Value::Array(rows) = rows else { return Ok(Vec::new()) };
        Ok(rows
            .into_iter()
            .map(|r| match r {
                Value::Array(values) => values,
                other => vec![other],
            })
            .collect())
    }

    /// Runs write queries in order as pipelines of about [`super::BATCH_ROWS`] rows each:
    /// one round trip per pipeline. The server runs one connection's commands in the order
    /// sent (a client waiting for a graph query sends nothing else through), so nodes
    /// written before edges are there when the edges match them. Pipelines that fail to
    /// reach the server are sent again with backoff; every query is an upsert, so sending
    /// one twice changes nothing.
    pub(crate) async fn raw_write(&self, graph: &str, queries: &[Upsert]) -> Result<()> {
        super::validate_graph_name(graph)?;
        let mut start = 0;
        while start < queries.len() {
            let mut end = start + 1;
            let mut rows = queries[start].rows;
            while end < queries.len() && rows + queries[end].rows <= super::BATCH_ROWS {
                rows += queries[end].rows;
                end += 1;
            }
            self.raw_write_retrying(graph, &queries[start..end]).await?;
            start = end;
        }
        Ok(())
    }

    /// A connection failure on the raw connection: drops it (the next command opens a new
    /// one), marks the durability barrier lost, and gives the error the retry loop retries.
    pub(super) async fn raw_lost(&self, e: &redis::RedisError) -> Error {
        *self.raw.lock().await = None;
        self.replicas.lost().await;
        self.barrier.lost();
        Error::Connection { url: self.url(), reason: e.to_string() }
    }

    async fn raw_write_retrying(&self, graph: &str, queries: &[Upsert]) -> Result<()> {
        let mut pipe = redis::pipe();
        for q in queries {
            pipe.cmd("GRAPH.QUERY").arg(graph).arg(q.text()).arg("timeout").arg(QUERY_TIMEOUT_MS);
        }
        let what = format!("graph {graph}");
        self.retrying(Some(&what), || async {
            let mut con = self.raw_connection().await?;
            let _planned = self.shared(graph).await;
            match pipe.query_async::<Vec<Value>>(&mut con).await {
                Ok(_) => {
                    self.barrier.wrote();
                    Ok(())
                }
                Err(e) if is_connection_error(&e) => Err(self.raw_lost(&e).await),
                Err(e) => {
                    let reason = e.to_string();
                    Err(super::durable::refusal(&reason).unwrap_or(Error::Query(reason)))
                }
            }
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_lists_read_as_the_verbose_reply_renders_them() {
        let text = |s: &str| Value::BulkString(s.as_bytes().to_vec());
        assert_eq!(ints(&text("[1, 22, -3]")), Some(vec![1, 22, -3]));
        assert_eq!(ints(&text("[]")), Some(vec![]));
        assert_eq!(ints(&text("[7]")), Some(vec![7]));
        assert_eq!(ints(&text("[1, x]")), None);
        assert_eq!(ints(&text("1, 2")), None);
        assert_eq!(ints(&Value::Nil), None);
    }
}
