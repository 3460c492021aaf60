//! Whole-graph reads in FalkorDB's compact reply format, decoded straight into JSON. The
//! typed client spent seconds decoding the 100,000-row replies of `provex diff` that the
//! server made in a tenth of that (docs/BENCHMARKS.md, "Diff"). Each read gets a
//! connection of its own (so the reads of one diff run side by side) and its reply is read
//! by [`super::resp`]; over TLS and on a Redis Cluster, by the `redis` crate and [`decode`].

use redis::Value as Resp;
use serde_json::{Map, Number, Value};

use super::cluster::RawConnection;
use super::resp::{kind, Failure};
use super::{Store, QUERY_TIMEOUT_MS};
use crate::error::{Error, Result};

fn text(v: &Resp) -> Option<&str> {
    match v {
        Resp::BulkString(b) => std::str::from_utf8(b).ok(),
        Resp::SimpleString(s) => Some(s),
        Resp::VerbatimString { text, .. } => Some(text),
        _ => None,
    }
}

fn float(f: f64) -> Value {
    Number::from_f64(f).map(Value::Number).unwrap_or(Value::Null)
}

fn owned_text(v: Resp) -> Option<String> {
    match v {
        Resp::BulkString(b) => {
            Some(String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
        }
        Resp::SimpleString(s) => Some(s),
        Resp::VerbatimString { text, .. } => Some(text),
        _ => None,
    }
}

/// The `[type, value]` pair of a compact value.
fn split(v: Resp) -> Option<(i64, Resp)> {
    let Resp::Array(pair) = v else { return None };
    let mut it = pair.into_iter();
    match (it.next(), it.next()) {
        (Some(Resp::Int(t)), Some(x)) => Some((t, x)),
        _ => None,
    }
}

/// A compact map's entries, in the order sent.
fn entries(x: Resp) -> impl Iterator<Item = (String, Value)> {
    let flat = match x {
        Resp::Array(flat) => flat,
        _ => Vec::new(),
    };
    let mut it = flat.into_iter();
    std::iter::from_fn(move || loop {
        let (k, v) = (it.next()?, it.next()?);
        if let Some(k) = owned_text(k) {
            return Some((k, decode(v)));
        }
    })
}

/// One compact value (`[type, value]`) as JSON: the same JSON the typed client's values give
/// through [`super::value::to_json`] for the scalars, lists and maps that properties hold.
/// Graph entities (nodes, edges, paths) are not read this way; they come back as text.
pub fn decode(v: Resp) -> Value {
    let Some((t, x)) = split(v) else { return Value::Null };
    match t {
        kind::NULL => Value::Null,
        kind::STRING => owned_text(x).map(Value::String).unwrap_or(Value::Null),
        kind::INTEGER => match x {
            Resp::Int(i) => Value::from(i),
            other => text(&other).and_then(|s| s.parse::<i64>().ok()).map(Value::from).unwrap_or(Value::Null),
        },
        kind::BOOLEAN => match x {
            Resp::Int(i) => Value::Bool(i != 0),
            other => Value::Bool(text(&other) == Some("true")),
        },
        kind::DOUBLE => match x {
            Resp::Double(f) => float(f),
            other => text(&other).and_then(|s| s.parse::<f64>().ok()).map(float).unwrap_or(Value::Null),
        },
        kind::ARRAY => match x {
            Resp::Array(items) => Value::Array(items.into_iter().map(decode).collect()),
            _ => Value::Array(Vec::new()),
        },
        kind::MAP => Value::Object(entries(x).collect::<Map<String, Value>>()),
        // Types properties do not hold: read as the stream reader reads them.
        _ => match x {
            Resp::Nil => Value::Null,
            Resp::Int(i) => Value::from(i),
            other => match owned_text(other.clone()) {
                Some(s) => Value::String(s),
                None => Value::String(format!("{other:?}")),
            },
        },
    }
}

impl Store {
    /// Runs a read-only query on a connection of its own and returns its rows, each column
    /// decoded from the compact format to JSON.
    pub(crate) async fn compact_ro(&self, graph: &str, cypher: &str) -> Result<Vec<Vec<Value>>> {
        super::validate_graph_name(graph)?;
        self.retrying(None, || self.compact_ro_once(graph, cypher)).await
    }

    async fn compact_ro_once(&self, graph: &str, cypher: &str) -> Result<Vec<Vec<Value>>> {
        let _planned = self.shared(graph).await;
        if let Some(mut replica) = self.replica_connection().await? {
            // A replica of the owning shard (see `replicas.rs`), through the cluster client.
            let mut cmd = redis::cmd("GRAPH.RO_QUERY");
            cmd.arg(graph).arg(cypher).arg("--compact").arg("timeout").arg(QUERY_TIMEOUT_MS);
            return match super::replicas::on_replica(&mut replica, cmd, graph).await {
                Ok(reply) => rows_of(reply),
                Err(e) if super::cluster::is_connection_error(&e) => Err(self.raw_lost(&e).await),
                Err(e) => Err(super::missing_graph(Error::Query(e.to_string()), graph)),
            };
        }
        if self.is_cluster() {
            // The fast reader straight to the primary owning the graph; the cluster client
            // when it cannot (TLS, or the slot moved meanwhile: MOVED or ASK).
            if let Some(url) = self.owner_url(graph).await {
                match self.compact_fast(url, graph, cypher).await? {
                    Ok(Some(rows)) => return Ok(rows),
                    Ok(None) | Err(Failure::Connection(_)) => {}
                    Err(Failure::Server(m)) if m.starts_with("MOVED") || m.starts_with("ASK") => {}
                    Err(Failure::Server(m)) => return Err(super::missing_graph(Error::Query(m), graph)),
                }
            }
            return rows_of(self.compact_ro_redis(graph, cypher).await?);
        }
        let reply = match self.compact_fast(self.endpoint().url.clone(), graph, cypher).await? {
            Ok(Some(rows)) => return Ok(rows),
            Ok(None) => self.compact_ro_redis(graph, cypher).await?,
            Err(Failure::Connection(reason)) => return Err(Error::Connection { url: self.url(), reason }),
            Err(Failure::Server(message)) => return Err(super::missing_graph(Error::Query(message), graph)),
        };
        rows_of(reply)
    }

    /// The URL of the cluster primary owning `graph` now (the store's URL with its host and
    /// port), if the cluster says.
    pub(super) async fn owner_url(&self, graph: &str) -> Option<String> {
        let mut con = self.raw_connection().await.ok()?;
        let slot = super::cluster::key_slot(graph);
        let owner = con.primaries().await.ok()?.into_iter().find(|p| p.owns(slot))?;
        let mut url = url::Url::parse(&self.endpoint().url).ok()?;
        url.set_host(Some(&owner.host)).ok()?;
        url.set_port(Some(owner.port)).ok()?;
        Some(url.into())
    }

    /// The query through [`super::resp`] on a connection of its own to `url` (`Ok(None)`:
    /// a connection it does not make, TLS).
    async fn compact_fast(
        &self,
        url: String,
        graph: &str,
        cypher: &str,
    ) -> Result<std::result::Result<Option<Vec<Vec<Value>>>, Failure>> {
        let args = [graph.to_owned(), cypher.to_owned()];
        let wait = std::time::Duration::from_millis(QUERY_TIMEOUT_MS as u64 + 5_000);
        tokio::task::spawn_blocking(move || {
            let timeout = QUERY_TIMEOUT_MS.to_string();
            let cmd: [&[u8]; 6] = [
                b"GRAPH.RO_QUERY",
                args[0].as_bytes(),
                args[1].as_bytes(),
                b"--compact",
                b"timeout",
                timeout.as_bytes(),
            ];
            super::resp::compact_query(&url, &cmd, wait)
        })
        .await
        .map_err(|e| Error::Server(format!("graph reader: {e}")))
    }

    /// The same query through the `redis` crate, for connections [`super::resp`] does not
    /// make: TLS (a connection of its own), and a cluster's primary owning the graph (the
    /// store's cluster connection, which routes it there).
    async fn compact_ro_redis(&self, graph: &str, cypher: &str) -> Result<Resp> {
        let mut con = if self.is_cluster() {
            self.raw_connection().await?
        } else {
            let wait = std::time::Duration::from_millis(QUERY_TIMEOUT_MS as u64 + 5_000);
            RawConnection::open(self.endpoint().target(), wait)
                .await
                .map_err(|e| Error::Connection { url: self.url(), reason: e.to_string() })?
        };
        let reply = redis::cmd("GRAPH.RO_QUERY")
            .arg(graph)
            .arg(cypher)
            .arg("--compact")
            .arg("timeout")
            .arg(QUERY_TIMEOUT_MS)
            .query_async(&mut con)
            .await;
        match reply {
            Ok(reply) => Ok(reply),
            Err(e) if self.is_cluster() && super::cluster::is_connection_error(&e) => {
                Err(self.raw_lost(&e).await)
            }
            Err(e) if super::cluster::is_connection_error(&e) => {
                Err(Error::Connection { url: self.url(), reason: e.to_string() })
            }
            Err(e) => Err(super::missing_graph(Error::Query(e.to_string()), graph)),
        }
    }
}

/// The rows of a compact reply (`[header, rows, statistics]`), each column decoded to JSON.
fn rows_of(reply: Resp) -> Result<Vec<Vec<Value>>> {
    let Resp::Array(mut parts) = reply else {
        return Err(Error::Query(format!("unexpected reply to a graph query: {reply:?}")));
    };
    if parts.len() < 3 {
        return Ok(Vec::new());
    }
    let Resp::Array(rows) = parts.swap_remove(1) else { return Ok(Vec::new()) };
    Ok(rows
        .into_iter()
        .map(|r| match r {
            Resp::Array(values) => values.into_iter().map(decode).collect(),
            other => vec![decode(other)],
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pair(t: i64, v: Resp) -> Resp {
        Resp::Array(vec![Resp::Int(t), v])
    }
    fn s(x: &str) -> Resp {
        Resp::BulkString(x.as_bytes().to_vec())
    }

    #[test]
    fn scalars_lists_and_maps_decode_as_the_typed_client_gives_them() {
        assert_eq!(decode(pair(kind::NULL, Resp::Nil)), Value::Null);
        assert_eq!(decode(pair(kind::STRING, s("a\"b"))), json!("a\"b"));
        assert_eq!(decode(pair(kind::INTEGER, Resp::Int(-7))), json!(-7));
        assert_eq!(decode(pair(kind::BOOLEAN, s("true"))), json!(true));
        assert_eq!(decode(pair(kind::BOOLEAN, s("false"))), json!(false));
        assert_eq!(decode(pair(kind::DOUBLE, s("0.5"))), json!(0.5));
        assert_eq!(decode(pair(kind::DOUBLE, s("2"))), json!(2.0));
        assert_ne!(decode(pair(kind::DOUBLE, s("2"))), json!(2), "a double stays a double");
        let list = pair(
            kind::ARRAY,
            Resp::Array(vec![pair(kind::INTEGER, Resp::Int(1)), pair(kind::STRING, s("x"))]),
        );
        assert_eq!(decode(list.clone()), json!([1, "x"]));
        let map = pair(
            kind::MAP,
            Resp::Array(vec![s("k"), pair(kind::INTEGER, Resp::Int(3)), s("l"), list.clone()]),
        );
        assert_eq!(decode(map), json!({"k": 3, "l": [1, "x"]}));
        assert_eq!(decode(Resp::Nil), Value::Null);
    }
}
