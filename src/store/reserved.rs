//! Graphs Provex keeps for itself beside the users' graphs (the cross-graph search index,
//! `provex:search`): their names are refused as a graph name given from outside, they are
//! left out of every list of graphs, and only Provex's own modules query them, through
//! [`Store::reserved_query`] (and [`Store::reserved_schema`] for what adds labels or indexes).

use redis::Value;

use super::cluster::is_connection_error;
use super::raw::RawRow;
use super::Store;
use crate::error::{Error, Result};

/// The graph of the cross-graph search index (`src/search/`).
pub const SEARCH_GRAPH: &str = "provex:search";

/// The graph of the Runs view's rows kept in the database (`src/facade/runs/summary.rs`).
pub const RUNS_GRAPH: &str = "provex:runs";

/// Every graph name Provex keeps for itself.
pub const RESERVED_GRAPHS: &[&str] = &[SEARCH_GRAPH, RUNS_GRAPH];

/// Whether `name` is one of Provex's own graphs.
pub fn is_reserved(name: &str) -> bool {
    RESERVED_GRAPHS.contains(&name)
}

impl Store {
    /// Runs a query on one of Provex's own graphs (`graph` must be one of
    /// [`RESERVED_GRAPHS`]), its parameters already Cypher literals, with a server-side time
    /// limit of `timeout_ms`; a write is retried while the server is away. A read of the
    /// graph before it exists gives no rows.
    pub(crate) async fn reserved_query(
        &self,
        graph: &'static str,
        cypher: &str,
        params: &[(&str, String)],
        write: bool,
        timeout_ms: i64,
    ) -> Result<Vec<RawRow>> {
        let _planned = self.shared(graph).await;
        self.reserved_ungated(graph, cypher, params, write, timeout_ms).await
    }

    /// [`Store::reserved_query`] of a write that adds a label or an index (the first makes
    /// the graph), holding the graph's gate exclusively (`gate.rs`): no other query of it
    /// from this process is planned meanwhile.
    pub(crate) async fn reserved_schema(
        &self,
        graph: &'static str,
        cypher: &str,
        timeout_ms: i64,
    ) -> Result<()> {
        let _only = self.gate(graph).exclusive().await;
        self.reserved_ungated(graph, cypher, &[], true, timeout_ms).await.map(|_| ())
    }

    async fn reserved_ungated(
        &self,
        graph: &'static str,
        cypher: &str,
        params: &[(&str, String)],
        write: bool,
        timeout_ms: i64,
    ) -> Result<Vec<RawRow>> {
        if !is_reserved(graph) {
            return Err(Error::Usage(format!("{graph} is not one of Provex's own graphs")));
        }
        let mut text = String::new();
        if !params.is_empty() {
            text.push_str("CYPHER ");
            for (k, v) in params {
                text.push_str(k);
                text.push('=');
                text.push_str(v);
                text.push(' ');
            }
        }
        text.push_str(cypher);
        let what = format!("graph {graph}");
        let text = &text;
        self.retrying(write.then_some(what.as_str()), || async move {
            let mut con = self.raw_connection().await?;
            let reply: redis::RedisResult<Value> =
                redis::cmd(if write { "GRAPH.QUERY" } else { "GRAPH.RO_QUERY" })
                    .arg(graph)
                    .arg(text)
                    .arg("timeout")
                    .arg(timeout_ms)
                    .query_async(&mut con)
                    .await;
            let reply = match reply {
                Ok(v) => v,
                Err(e) if is_connection_error(&e) => return Err(self.raw_lost(&e).await),
                Err(e) if !write && e.to_string().contains("empty key") => return Ok(Vec::new()),
                Err(e) => {
                    let reason = e.to_string();
                    return Err(super::durable::refusal(&reason).unwrap_or(Error::Query(reason)));
                }
            };
            if write {
                self.barrier.wrote();
            }
            Ok(rows(reply))
        })
        .await
    }
}

/// The rows of a verbose graph reply (`[header, rows, statistics]`; none without RETURN).
fn rows(reply: Value) -> Vec<RawRow> {
    let Value::Array(mut parts) = reply else { return Vec::new() };
    if parts.len() < 3 {
        return Vec::new();
    }
    let Value::Array(rows) = parts.swap_remove(1) else { return Vec::new() };
    rows.into_iter()
        .map(|r| match r {
            Value::Array(values) => values,
            other => vec![other],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_graph_is_reserved_and_a_users_graph_is_not() {
        assert!(is_reserved(SEARCH_GRAPH));
        assert!(is_reserved(RUNS_GRAPH));
        assert!(!is_reserved("provex:searches"));
        assert!(!is_reserved("run-1"));
        assert!(super::super::validate_graph_name(SEARCH_GRAPH).is_err());
    }
}
