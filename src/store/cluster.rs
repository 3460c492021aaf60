//! FalkorDB in Redis Cluster mode: each graph is one key, so a cluster spreads graphs over
//! its shards and every command on a graph goes to the primary owning the graph's key slot.
//! This module reads the cluster URLs (`redis+cluster://` / `rediss+cluster://` with one or
//! more seed nodes), tells a cluster node from a single server (`CLUSTER INFO`), and gives
//! the store's own connections (see `raw.rs`, `durable.rs`, `log.rs`) one type for both:
//! on a cluster the `redis` crate's cluster client routes each command by its key and
//! follows `MOVED` and `ASK` redirects. The typed client (the `falkordb` crate) finds the
//! cluster by itself from any node it is given.

use std::time::Duration;

use redis::aio::{ConnectionLike, MultiplexedConnection};
use redis::cluster_async::ClusterConnection;
use redis::{Cmd, ErrorKind, Pipeline, RedisFuture, RedisResult, ServerErrorKind, Value};

use crate::error::{Error, Result};

/// The number of key slots of a Redis Cluster.
pub const SLOTS: u16 = 16_384;

/// How long opening a connection to one node may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The key slot of `key` as Redis Cluster computes it: CRC16 (XMODEM) of the key, or of its
/// hash tag (the part between the first `{` and the next `}`, when not empty), modulo
/// [`SLOTS`].
pub fn key_slot(key: &str) -> u16 {
    let bytes = key.as_bytes();
    let hashed = bytes
        .iter()
        .position(|&b| b == b'{')
        .and_then(|open| {
            let close = bytes[open + 1..].iter().position(|&b| b == b'}')?;
            (close > 0).then(|| &bytes[open + 1..open + 1 + close])
        })
        .unwrap_or(bytes);
    crc16::State::<crc16::XMODEM>::calculate(hashed) % SLOTS
}

/// A key `prefix{n}` whose slot lies in one of `ranges` (inclusive): a key a given primary
/// owns (the durability barrier's marker on each primary).
pub(crate) fn key_in(prefix: &str, ranges: &[(u16, u16)]) -> Option<String> {
    // 16,384 slots: a few tens of thousands of tries find any range.
    (0..1_000_000u32).map(|n| format!("{prefix}{{{n}}}")).find(|k| {
        let slot = key_slot(k);
        ranges.iter().any(|&(lo, hi)| (lo..=hi).contains(&slot))
    })
}

/// The nodes a URL names: one `redis://` or `rediss://` URL per seed node, and whether the
/// URL asked for a cluster (`redis+cluster://` / `rediss+cluster://`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Seeds {
    pub(crate) urls: Vec<String>,
    pub(crate) declared: bool,
}

/// Reads `redis+cluster://[user:password@]host:port[,host:port…][/0]` (and `rediss+cluster`)
/// into one URL per node, each with the user, password and query of the whole; any other URL
/// is one seed as it is. `shown` is the URL as messages show it.
pub(crate) fn seeds(url: &str, shown: &str) -> Result<Seeds> {
    let Some((scheme, rest)) = url.split_once("://") else {
        return Ok(Seeds { urls: vec![url.to_owned()], declared: false });
    };
    let base = match scheme.to_ascii_lowercase().as_str() {
        "redis+cluster" => "redis",
        "rediss+cluster" => "rediss",
        _ => return Ok(Seeds { urls: vec![url.to_owned()], declared: false }),
    };
    // The user and password end at the last `@` (a password may hold an unencoded `@`).
    let (userinfo, after) = match rest.rfind('@') {
        Some(at) => (&rest[..=at], &rest[at + 1..]),
        None => ("", rest),
    };
    let end = after.find(['/', '?', '#']).unwrap_or(after.len());
    let (hosts, tail) = after.split_at(end);
    if hosts.is_empty() {
        return Err(Error::Usage(format!("{shown}: the URL names no host")));
    }
    let mut urls = Vec::new();
    for host in hosts.split(',') {
        if host.is_empty() {
            return Err(Error::Usage(format!(
                "{shown}: an empty node in the list; a cluster URL is {scheme}://host:port,host:port"
            )));
        }
        let one = format!("{base}://{userinfo}{host}{tail}");
        super::check_url(&one, shown)?;
        let db =
            url::Url::parse(&one).ok().map(|u| u.path().trim_matches('/').to_owned()).unwrap_or_default();
        if !(db.is_empty() || db == "0") {
            return Err(Error::Usage(format!(
                "{shown}: a Redis Cluster has database 0 only, and the URL names database {db}"
            )));
        }
        urls.push(one);
    }
    Ok(Seeds { urls, declared: true })
}

/// Whether the server at `url` is a Redis Cluster node: `CLUSTER INFO` answers with its
/// state (a single server refuses it: cluster support disabled). `Err` only when the server
/// cannot be reached.
pub(crate) async fn is_cluster_node(url: &str, shown: &str) -> Result<bool> {
    let client = redis::Client::open(url)
        .map_err(|e| Error::Connection { url: shown.to_owned(), reason: e.to_string() })?;
    let config = redis::AsyncConnectionConfig::new()
        .set_connection_timeout(Some(CONNECT_TIMEOUT))
        .set_response_timeout(Some(CONNECT_TIMEOUT));
    let mut con = client
        .get_multiplexed_async_connection_with_config(&config)
        .await
        .map_err(|e| Error::Connection { url: shown.to_owned(), reason: e.to_string() })?;
    let info: RedisResult<String> = redis::cmd("CLUSTER").arg("INFO").query_async(&mut con).await;
    Ok(info.is_ok_and(|text| text.contains("cluster_state:")))
}

/// One connection of the store's own: to a single server, or to a whole cluster (the
/// `redis` crate's cluster client: a connection per node, commands routed by key, redirects
/// followed). Cheap to clone; clones share the connection.
#[derive(Clone)]
pub(crate) enum RawConnection {
    Single(MultiplexedConnection),
    Cluster(ClusterConnection),
}

/// Where a connection goes: the server's URL, or a cluster's seed nodes.
pub(crate) struct Target<'a> {
    pub(crate) url: &'a str,
    pub(crate) seeds: &'a [String],
    pub(crate) cluster: bool,
}

impl RawConnection {
    /// Opens a connection whose replies may take up to `response` (a cluster's connection
    /// waits that long for each node's reply, redirects included).
    pub(crate) async fn open(target: Target<'_>, response: Duration) -> RedisResult<RawConnection> {
        if target.cluster {
            let client = redis::cluster::ClusterClient::builder(target.seeds.iter().map(String::as_str))
                .connection_timeout(CONNECT_TIMEOUT)
                .response_timeout(response)
                .build()?;
            return Ok(RawConnection::Cluster(client.get_async_connection().await?));
        }
        let client = redis::Client::open(target.url)?;
        let config = redis::AsyncConnectionConfig::new().set_response_timeout(Some(response));
        Ok(RawConnection::Single(client.get_multiplexed_async_connection_with_config(&config).await?))
    }

    /// Each primary with its slot ranges (`CLUSTER SLOTS`); none for a single server.
    pub(crate) async fn primaries(&mut self) -> RedisResult<Vec<Primary>> {
        let RawConnection::Cluster(_) = self else { return Ok(Vec::new()) };
        let reply: Value = redis::cmd("CLUSTER").arg("SLOTS").query_async(self).await?;
        Ok(primary_ranges(reply))
    }
}

/// A cluster primary: its address and the slot ranges it owns (inclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Primary {
    pub(crate) host: String,
    pub(crate) port: u16,
    pub(crate) ranges: Vec<(u16, u16)>,
}

impl Primary {
    pub(crate) fn owns(&self, slot: u16) -> bool {
        self.ranges.iter().any(|&(lo, hi)| (lo..=hi).contains(&slot))
    }
}

/// `CLUSTER SLOTS` (`[[lo, hi, [host, port, id…], replicas…]…]`) as its primaries, each with
/// its slot ranges, in the order first seen.
fn primary_ranges(reply: Value) -> Vec<Primary> {
    let mut by_node: Vec<Primary> = Vec::new();
    let Value::Array(entries) = reply else { return Vec::new() };
    for entry in entries {
        let Value::Array(parts) = entry else { continue };
        let (Some(Value::Int(lo)), Some(Value::Int(hi)), Some(Value::Array(primary))) =
            (parts.first(), parts.get(1), parts.get(2))
        else {
            continue;
        };
        let host = match primary.first() {
            Some(Value::BulkString(b)) => String::from_utf8_lossy(b).into_owned(),
            Some(Value::SimpleString(s)) => s.clone(),
            _ => String::new(),
        };
        let port = match primary.get(1) {
            Some(Value::Int(p)) => *p as u16,
            _ => 0,
        };
        let range = (*lo as u16, *hi as u16);
        match by_node.iter_mut().find(|p| p.host == host && p.port == port) {
            Some(p) => p.ranges.push(range),
            None => by_node.push(Primary { host, port, ranges: vec![range] }),
        }
    }
    by_node
}

/// A failure to reach the server (worth a retry once it is back): the connection, or a
/// cluster that has no node for a slot yet (it is failing over, or slots are moving).
pub(crate) fn is_connection_error(e: &redis::RedisError) -> bool {
    e.is_io_error()
        || e.is_connection_dropped()
        || e.is_connection_refusal()
        || e.is_timeout()
        || matches!(
            e.kind(),
            ErrorKind::ClusterConnectionNotFound
                | ErrorKind::Server(
                    ServerErrorKind::ClusterDown | ServerErrorKind::MasterDown | ServerErrorKind::TryAgain
                )
        )
}

/// A pipeline the cluster client could not send whole: its keys lie in different slots (a
/// graph's log and its checkpoint), or it met a slot on the move. The client follows an
/// `ASK` redirect with one `ASKING`, which lets only the pipeline's first command in, so a
/// pipeline to a slot being imported fails however often it is sent again.
fn send_one_by_one(e: &redis::RedisError) -> bool {
    matches!(
        e.kind(),
        ErrorKind::Server(
            ServerErrorKind::CrossSlot
                | ServerErrorKind::Ask
                | ServerErrorKind::Moved
                | ServerErrorKind::TryAgain
        )
    )
}

impl ConnectionLike for RawConnection {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            RawConnection::Single(c) => c.req_packed_command(cmd),
            RawConnection::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    /// A pipeline goes to a cluster in one round trip, or, when it cannot (see
    /// [`send_one_by_one`]), one command at a time, in order: each command follows its own
    /// redirect. The store's pipelines are upserts and reads, so a command the first try ran
    /// may run again.
    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            RawConnection::Single(c) => c.req_packed_commands(pipeline, offset, count),
            RawConnection::Cluster(c) => Box::pin(async move {
                match c.req_packed_commands(pipeline, offset, count).await {
                    Err(e) if send_one_by_one(&e) && !pipeline.is_transaction() && offset == 0 => {
                        let mut replies = Vec::with_capacity(pipeline.len());
                        for cmd in pipeline.cmd_iter() {
                            replies.push(c.req_packed_command(cmd).await?);
                        }
                        Ok(replies)
                    }
                    other => other,
                }
            }),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            RawConnection::Single(c) => c.get_db(),
            RawConnection::Cluster(c) => c.get_db(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_slots_are_redis_clusters() {
        // The examples of the Redis Cluster specification and `CLUSTER KEYSLOT`.
        assert_eq!(key_slot("123456789"), 0x31C3 % SLOTS);
        assert_eq!(key_slot("foo"), 12182);
        assert_eq!(key_slot("bar"), 5061);
        assert_eq!(key_slot("{user1000}.following"), key_slot("user1000"));
        assert_eq!(key_slot("{user1000}.followers"), key_slot("{user1000}.following"));
        // An empty tag hashes the whole key; only the first `{` counts.
        assert_eq!(key_slot("foo{}{bar}"), crc16::State::<crc16::XMODEM>::calculate(b"foo{}{bar}") % SLOTS);
        assert_eq!(key_slot("foo{{bar}}zap"), key_slot("{bar"));
    }

    #[test]
    fn a_key_is_found_in_any_slot_range() {
        for ranges in
            [vec![(0, 0)], vec![(16_383, 16_383)], vec![(5_461, 10_922)], vec![(3, 3), (9_000, 9_001)]]
        {
            let key = key_in("provex:durable:", &ranges).unwrap();
            let slot = key_slot(&key);
            assert!(ranges.iter().any(|&(lo, hi)| (lo..=hi).contains(&slot)), "{key} {slot} {ranges:?}");
        }
    }

    #[test]
    fn cluster_urls_name_one_url_per_node() {
        let s = |u: &str| seeds(u, &super::super::redact(u)).map_err(|e| e.to_string());
        assert_eq!(
            s("redis+cluster://h1:7000,h2:7001"),
            Ok(Seeds { urls: vec!["redis://h1:7000".into(), "redis://h2:7001".into()], declared: true })
        );
        assert_eq!(
            s("rediss+cluster://ann:p%40ss@[::1]:7000,db.example/0?protocol=resp3"),
            Ok(Seeds {
                urls: vec![
                    "rediss://ann:p%40ss@[::1]:7000/0?protocol=resp3".into(),
                    "rediss://ann:p%40ss@db.example/0?protocol=resp3".into()
                ],
                declared: true
            })
        );
        assert_eq!(s("REDIS+CLUSTER://h:1"), Ok(Seeds { urls: vec!["redis://h:1".into()], declared: true }));
        assert_eq!(s("redis://h:1"), Ok(Seeds { urls: vec!["redis://h:1".into()], declared: false }));
        assert_eq!(s("redis+cluster://"), Err("redis+cluster://: the URL names no host".into()));
        assert_eq!(
            s("redis+cluster://u:pw@h1:1,,h2:2"),
            Err("redis+cluster://***@h1:1,,h2:2: an empty node in the list; a cluster URL is redis+cluster://host:port,host:port".into())
        );
        assert_eq!(
            s("redis+cluster://u:pw@h1:1,h2:x"),
            Err("redis+cluster://***@h1:1,h2:x: not a URL (invalid port number); a FalkorDB URL is redis://host:port".into())
        );
        assert_eq!(
            s("redis+cluster://h1:1,h2:2/3"),
            Err("redis+cluster://h1:1,h2:2/3: a Redis Cluster has database 0 only, and the URL names database 3".into())
        );
    }

    #[test]
    fn cluster_slots_give_each_primarys_ranges() {
        let node = |host: &str, port: i64| {
            Value::Array(vec![
                Value::BulkString(host.as_bytes().to_vec()),
                Value::Int(port),
                Value::BulkString(b"id".to_vec()),
            ])
        };
        let reply = Value::Array(vec![
            Value::Array(vec![
                Value::Int(0),
                Value::Int(99),
                node("127.0.0.1", 7000),
                node("127.0.0.1", 7100),
            ]),
            Value::Array(vec![Value::Int(100), Value::Int(16_383), node("127.0.0.1", 7001)]),
            Value::Array(vec![Value::Int(200), Value::Int(200), node("127.0.0.1", 7000)]),
        ]);
        let primaries = primary_ranges(reply);
        let ranges: Vec<_> = primaries.iter().map(|p| (p.port, p.ranges.clone())).collect();
        assert_eq!(ranges, vec![(7000, vec![(0, 99), (200, 200)]), (7001, vec![(100, 16_383)])]);
        assert!(primaries[0].host == "127.0.0.1" && primaries[0].owns(200) && !primaries[0].owns(100));
        assert_eq!(primary_ranges(Value::Nil), vec![]);
    }
}
