//! Reads from replicas on a Redis Cluster (`read_from=replicas` in the URL, see
//! `cluster_url.rs` and docs/SCALING.md): the read-only queries of views and explore may be
//! served by a replica of the shard owning the graph, and how far each replica is behind its
//! primary is measured and shown.
//!
//! Which reads may go to a replica is decided by the caller, not the store: an operation
//! that only shows a graph runs inside [`replica_reads`]; everything else (every write, and
//! the reads an ingest or the tamper-evident log makes, which must see the writes just
//! made) goes to the primary. Replica reads go through a connection of their own, opened
//! with the `redis` crate's replica routing (`READONLY` on each replica), each
//! `GRAPH.RO_QUERY` routed to a replica of the slot of its graph.
//!
//! The lag is measured as a write made now would see it: the primary's replication offset
//! (`INFO replication`, `master_repl_offset`) is read, then the replica's processed offset
//! (`slave_repl_offset`) until it has reached it; the time until the replica answers so is
//! how far behind it is (a round trip when it already had; a replica too busy to answer is
//! behind too), and the bytes it lacked at first look are kept too.

use std::future::Future;
use std::time::{Duration, Instant};

use redis::cluster_routing::{Route, RoutingInfo, SingleNodeRoutingInfo, SlotAddr};
use redis::{Cmd, Value};
use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;

use super::cluster::{key_slot, RawConnection, Target};
use super::cluster_url::ReadFrom;
use super::{Store, QUERY_TIMEOUT_MS};
use crate::error::{Error, Result};

tokio::task_local! {
    static MAY_READ_A_REPLICA: bool;
}

/// Runs `f` with its read-only graph queries allowed on replicas (when the store reads from
/// replicas at all): for what only shows a graph (views, explore, diffs), never for what
/// writes or checks against what was just written.
pub async fn replica_reads<F: Future>(f: F) -> F::Output {
    MAY_READ_A_REPLICA.scope(true, f).await
}

fn allowed() -> bool {
    MAY_READ_A_REPLICA.try_with(|v| *v).unwrap_or(false)
}

/// How far one replica is behind its primary, measured as the module docs say.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ts_rs::TS)]
pub struct ReplicaLag {
    /// The replica (`host:port`).
    pub replica: String,
    /// Its primary (`host:port`).
    pub primary: String,
    /// Replication bytes it had not yet processed at first look.
    pub bytes_behind: u64,
    /// How long it took until the replica answered with the primary's offset read at first
    /// look reached, in milliseconds (a round trip when it had already); at most about
    /// 5 s, then it is at least that far behind.
    pub behind_ms: u64,
    /// Whether its link to the primary is up (`master_link_status:up`).
    pub link_up: bool,
}

/// The longest a lag measurement waits for a replica to catch up.
pub const LAG_WAIT: Duration = Duration::from_secs(5);

/// The store's replica reads: their connection and the last lag measured.
#[derive(Default)]
pub(crate) struct Replicas {
    con: Mutex<Option<RawConnection>>,
    last: std::sync::Mutex<Option<ReplicaLag>>,
}

impl Replicas {
    pub(crate) async fn lost(&self) {
        *self.con.lock().await = None;
    }
}

impl Store {
    /// Whether this store may serve reads from replicas (`read_from=replicas` on a cluster).
    pub fn reads_from_replicas(&self) -> bool {
        let e = self.endpoint();
        e.cluster && e.read_from == ReadFrom::Replicas
    }

    /// The connection reads go through when they may go to a replica: `None` when this store
    /// does not read from replicas or the running operation did not allow it.
    pub(super) async fn replica_connection(&self) -> Result<Option<RawConnection>> {
        if !(allowed() && self.reads_from_replicas()) {
            return Ok(None);
        }
        self.replica_reader().await.map(Some)
    }

    async fn replica_reader(&self) -> Result<RawConnection> {
        let mut slot = self.replicas.con.lock().await;
        if let Some(c) = slot.as_ref() {
            return Ok(c.clone());
        }
        let endpoint = self.endpoint();
        let wait = Duration::from_millis(QUERY_TIMEOUT_MS as u64 + 5_000);
        let target = Target { url: &endpoint.url, seeds: &endpoint.seeds, cluster: true };
        let con = RawConnection::open_reading_replicas(target, wait)
            .await
            .map_err(|e| Error::Connection { url: self.url(), reason: e.to_string() })?;
        *slot = Some(con.clone());
        Ok(con)
    }

    /// How far the replicas serving reads are behind: of the shard owning `graph`, or of
    /// every shard; the replica furthest behind. `None` when this store does not read from
    /// replicas or the shard has none.
    pub async fn replica_lag(&self, graph: Option<&str>) -> Result<Option<ReplicaLag>> {
        if !self.reads_from_replicas() {
            return Ok(None);
        }
        let mut con = self.replica_reader().await?;
        let shards = con
            .primaries()
            .await
            .map_err(|e| Error::Connection { url: self.url(), reason: e.to_string() })?;
        let slot = graph.map(key_slot);
        let mut worst: Option<ReplicaLag> = None;
        for shard in shards.iter().filter(|s| slot.is_none_or(|slot| s.owns(slot))) {
            for replica in &shard.replicas {
                let lag =
                    measure(&mut con, (shard.host.as_str(), shard.port), (replica.0.as_str(), replica.1))
                        .await
                        .map_err(|e| Error::Connection { url: self.url(), reason: e.to_string() })?;
                if worst
                    .as_ref()
                    .is_none_or(|w| (lag.behind_ms, lag.bytes_behind) > (w.behind_ms, w.bytes_behind))
                {
                    worst = Some(lag);
                }
            }
        }
        if worst.is_some() {
            *self.replicas.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = worst.clone();
        }
        Ok(worst)
    }

    /// The lag measured last (by [`Store::replica_lag`]), without asking the cluster.
    pub fn last_replica_lag(&self) -> Option<ReplicaLag> {
        self.replicas.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }
}

/// Sends `cmd` on `graph` to a replica of the shard owning it (its primary when it has none;
/// redirects followed), on a connection opened with replica routing.
pub(super) async fn on_replica(con: &mut RawConnection, cmd: Cmd, graph: &str) -> redis::RedisResult<Value> {
    let route = RoutingInfo::SingleNode(SingleNodeRoutingInfo::SpecificNode(Route::with_key(
        graph,
        SlotAddr::ReplicaOptional,
    )));
    con.route(cmd, route).await
}

/// `INFO replication` of one node, as `field:value` lines.
async fn replication(con: &mut RawConnection, node: (&str, u16)) -> redis::RedisResult<String> {
    let route =
        RoutingInfo::SingleNode(SingleNodeRoutingInfo::ByAddress { host: node.0.to_owned(), port: node.1 });
    let mut cmd = redis::cmd("INFO");
    cmd.arg("replication");
    let reply = con.route(cmd, route).await?;
    Ok(match reply {
        Value::BulkString(b) => String::from_utf8_lossy(&b).into_owned(),
        Value::VerbatimString { text, .. } => text,
        Value::SimpleString(s) => s,
        _ => String::new(),
    })
}

/// The value of `field` in an `INFO` reply.
pub(crate) fn info_field<'a>(info: &'a str, field: &str) -> Option<&'a str> {
    info.lines().find_map(|l| l.strip_prefix(field)?.strip_prefix(':')).map(str::trim)
}

async fn measure(
    con: &mut RawConnection,
    primary: (&str, u16),
    replica: (&str, u16),
) -> redis::RedisResult<ReplicaLag> {
    let target: u64 = info_field(&replication(con, primary).await?, "master_repl_offset")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let start = Instant::now();
    let mut first = None;
    loop {
        let info = replication(con, replica).await?;
        let at: u64 = info_field(&info, "slave_repl_offset").and_then(|v| v.parse().ok()).unwrap_or(0);
        let link_up = info_field(&info, "master_link_status") == Some("up");
        let bytes_behind = *first.get_or_insert(target.saturating_sub(at));
        // Until a reply shows the offset reached: a replica too busy to answer is behind too.
        let waited = start.elapsed();
        if at >= target || waited >= LAG_WAIT || !link_up {
            let behind_ms = waited.as_millis() as u64;
            return Ok(ReplicaLag {
                replica: format!("{}:{}", replica.0, replica.1),
                primary: format!("{}:{}", primary.0, primary.1),
                bytes_behind,
                behind_ms,
                link_up,
            });
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The lag in words, as the CLI and the status bar say it.
pub fn lag_text(lag: &ReplicaLag) -> String {
    if !lag.link_up {
        return format!("reading from replica {}: its link to primary {} is down", lag.replica, lag.primary);
    }
    format!(
        "reading from replica {}, {:.1} s ({} bytes) behind primary {}",
        lag.replica,
        lag.behind_ms as f64 / 1000.0,
        lag.bytes_behind,
        lag.primary
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_fields_are_read_by_name() {
        let info = "# Replication\r\nrole:slave\r\nmaster_link_status:up\r\nslave_repl_offset:1234\r\nmaster_repl_offset:1300\r\n";
        assert_eq!(info_field(info, "slave_repl_offset"), Some("1234"));
        assert_eq!(info_field(info, "master_repl_offset"), Some("1300"));
        assert_eq!(info_field(info, "master_link_status"), Some("up"));
        assert_eq!(info_field(info, "master_link"), None);
    }

    #[tokio::test]
    async fn replica_reads_are_allowed_only_inside_their_scope() {
        assert!(!allowed());
        assert!(replica_reads(async { allowed() }).await);
        assert!(!allowed());
    }

    #[test]
    fn the_lag_is_said_in_seconds_and_bytes() {
        let lag = ReplicaLag {
            replica: "10.0.0.2:6379".into(),
            primary: "10.0.0.1:6379".into(),
            bytes_behind: 512,
            behind_ms: 230,
            link_up: true,
        };
        assert_eq!(
            lag_text(&lag),
            "reading from replica 10.0.0.2:6379, 0.2 s (512 bytes) behind primary 10.0.0.1:6379"
        );
        let down = ReplicaLag { link_up: false, ..lag };
        assert!(lag_text(&down).contains("link to primary 10.0.0.1:6379 is down"));
    }
}
