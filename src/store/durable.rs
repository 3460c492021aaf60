//! The durability barrier: Provex acknowledges a write (an ingest report, a knowledge
//! update, a built graph) only once FalkorDB says it is in its append-only file on disk,
//! and a write the server refuses (a full disk, no memory left) becomes an error naming the
//! cause instead of a success.
//!
//! `WAITAOF` waits for the writes of the connection it is sent on, and the store spreads
//! its writes over several connections. The barrier therefore makes one small write of its
//! own (`INCR` of [`MARK_KEY`]) on its own connection after the batch's writes were
//! answered, then sends `WAITAOF` there: Redis appends to the AOF in the order it runs
//! commands, so once that write is fsynced every write answered before it is too. On a
//! Redis Cluster each primary keeps its own AOF: the barrier does the same on every primary,
//! with a marker key in a slot that primary owns (`provex:durable:{n}`).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex as StdMutex;
use std::time::Duration;

use redis::Value;
use tokio::sync::Mutex;

use super::cluster::{key_in, RawConnection};
use super::Store;
use crate::error::{Error, Result};

/// The key the barrier increments: its own write, after everything it covers.
pub const MARK_KEY: &str = "provex:durable";

/// The start of the barrier's key on each primary of a cluster (then a hash tag).
const CLUSTER_MARK: &str = "provex:durable:";

/// How long the barrier waits for the server's fsync, in milliseconds (the private server
/// fsyncs every write, `appendfsync always`; a shared one with `everysec` within a second).
pub const SYNC_TIMEOUT_MS: u64 = 10_000;

/// How a server makes writes durable, found out on the first barrier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Not asked yet.
    Unknown,
    /// The server's own append-only file (`WAITAOF 1 0`).
    LocalAof,
    /// No local AOF, but replicas that keep one (`WAITAOF 0 1`).
    ReplicaAof,
    /// Neither: writes are acknowledged once the server answered them (a warning says so
    /// once).
    None,
}

/// What the store keeps for the barrier.
pub(crate) struct Barrier {
    /// The barrier's own connection (a blocked `WAITAOF` holds up the commands queued
    /// behind it on a connection, so reads never share it), with the count of lost
    /// connections when it was opened: after a loss it is opened again.
    con: Mutex<Option<(RawConnection, u64)>>,
    /// Writes answered so far, and how many of them a barrier has covered.
    written: AtomicU64,
    synced: AtomicU64,
    /// Connections lost so far: a batch during which one was lost may have lost writes the
    /// server had answered but not yet written to disk.
    losses: AtomicU64,
    mode: StdMutex<Durability>,
    /// The server refused `MULTI` to this user: batches go as plain pipelines (`log.rs`).
    plain: AtomicBool,
}

impl Default for Barrier {
    fn default() -> Self {
        Barrier {
            con: Mutex::new(None),
            written: AtomicU64::new(0),
            synced: AtomicU64::new(0),
            losses: AtomicU64::new(0),
            mode: StdMutex::new(Durability::Unknown),
            plain: AtomicBool::new(false),
        }
    }
}

impl Barrier {
    /// Counts an answered write.
    pub(crate) fn wrote(&self) {
        self.written.fetch_add(1, Ordering::SeqCst);
    }

    /// Whether batches go as plain pipelines, not transactions.
    pub(crate) fn plain(&self) -> bool {
        self.plain.load(Ordering::Relaxed)
    }

    pub(crate) fn set_plain(&self) {
        self.plain.store(true, Ordering::Relaxed);
    }

    /// Counts a lost connection.
    pub(crate) fn lost(&self) {
        self.losses.fetch_add(1, Ordering::SeqCst);
    }
}

/// A batch of writes that is acknowledged as a whole: take it before the first write,
/// give it to [`Store::commit`] after the last.
#[derive(Debug, Clone, Copy)]
#[must_use = "a batch is acknowledged only through Store::commit"]
pub struct WriteBatch {
    losses: u64,
}

/// The server's refusal of a write, when `message` is one: `MISCONF` (it cannot write to
/// disk), `OOM` (no memory left under `maxmemory`), `READONLY` (a replica), `NOPERM` (an
/// ACL user without the command).
pub(crate) fn refusal(message: &str) -> Option<Error> {
    const CODES: [(&str, &str, &str); 6] = [
        ("MISCONF", "MISCONF", "FalkorDB cannot write to disk"),
        ("OOM", "OOM", "FalkorDB is out of memory"),
        ("READONLY", "READONLY", "FalkorDB is a read-only replica"),
        ("ReadOnly", "READONLY", "FalkorDB is a read-only replica"),
        ("NOPERM", "NOPERM", "FalkorDB refused the command to this user"),
        ("NoPerm", "NOPERM", "FalkorDB refused the command to this user"),
    ];
    let m = message.trim();
    let words = || m.split(|c: char| !c.is_ascii_alphanumeric());
    let (token, code, cause) = CODES.iter().find(|(t, _, _)| words().any(|w| w == *t))?;
    // The server's text from its code on, as Redis sent it (the client renders the code
    // quoted, or after a prefix of its own).
    let at = m.find(token).unwrap_or(0);
    let rest = m[at + token.len()..].trim_start_matches(['"', ':', ' ']);
    Some(Error::NotStored(format!("{cause} ({code} {rest})")))
}

impl Store {
    /// Starts a batch of writes.
    pub fn batch(&self) -> WriteBatch {
        WriteBatch { losses: self.barrier.losses.load(Ordering::SeqCst) }
    }

    /// How the server makes writes durable (`Unknown` before the first barrier).
    pub fn durability(&self) -> Durability {
        *self.barrier.mode.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Returns once every write answered so far is on disk (see the module's note), or
    /// fails: the server refused a write, it did not confirm in time, or a connection was
    /// lost since `batch` began (a restarted server may have lost answered writes; they
    /// are all upserts, so sending the batch again is safe).
    pub async fn commit(&self, batch: WriteBatch) -> Result<()> {
        let target = self.barrier.written.load(Ordering::SeqCst);
        self.check_losses(batch)?;
        if self.barrier.synced.load(Ordering::SeqCst) >= target {
            return Ok(());
        }
        let mut guard = self.barrier.con.lock().await;
        // A barrier that began after these writes were answered covers them.
        if self.barrier.synced.load(Ordering::SeqCst) >= target {
            return self.check_losses(batch);
        }
        let covers = self.barrier.written.load(Ordering::SeqCst);
        let result = self.sync_on(&mut guard).await;
        if let Err(e) = &result {
            if matches!(e, Error::Connection { .. } | Error::ConnectionLost { .. }) {
                *guard = None;
                self.barrier.lost();
            }
        } else {
            self.barrier.synced.fetch_max(covers, Ordering::SeqCst);
        }
        result?;
        self.check_losses(batch)
    }

    fn check_losses(&self, batch: WriteBatch) -> Result<()> {
        if self.barrier.losses.load(Ordering::SeqCst) != batch.losses {
            return Err(Error::ConnectionLost {
                during: format!("before the writes were confirmed on disk at {}", self.url()),
                reason: "the connection was lost, so writes the server had answered may be lost".into(),
            });
        }
        Ok(())
    }

    async fn sync_on(&self, slot: &mut Option<(RawConnection, u64)>) -> Result<()> {
        if self.durability() == Durability::None {
            return Ok(());
        }
        let losses = self.barrier.losses.load(Ordering::SeqCst);
        let lost = |e: redis::RedisError| Error::Connection { url: self.url(), reason: e.to_string() };
        let mut con = match slot.as_ref() {
            Some((c, opened)) if *opened == losses => c.clone(),
            _ => {
                let wait = Duration::from_millis(SYNC_TIMEOUT_MS + 5_000);
                let c = RawConnection::open(self.endpoint().target(), wait).await.map_err(lost)?;
                *slot = Some((c.clone(), losses));
                c
            }
        };
        // One marker per primary, found again each time: slots move between primaries.
        let marks: Vec<String> = if matches!(con, RawConnection::Cluster(_)) {
            let primaries = con.primaries().await.map_err(|e| {
                if super::cluster::is_connection_error(&e) {
                    lost(e)
                } else {
                    Error::Query(format!("reading the cluster's slots: {e}"))
                }
            })?;
            primaries.iter().filter_map(|p| key_in(CLUSTER_MARK, &p.ranges)).collect()
        } else {
            vec![MARK_KEY.to_owned()]
        };
        for mark in &marks {
            self.sync_one(&mut con, mark).await?;
        }
        Ok(())
    }

    /// The barrier on the server (or cluster primary) holding `mark`.
    async fn sync_one(&self, con: &mut RawConnection, mark: &str) -> Result<()> {
        loop {
            let mode = self.durability();
            let (local, replicas) = match mode {
                Durability::ReplicaAof => (0, 1),
                Durability::None => return Ok(()),
                Durability::Unknown | Durability::LocalAof => (1, 0),
            };
            // One pipeline: on a cluster it goes as a whole to the marker's primary.
            let reply: redis::RedisResult<(i64, Vec<i64>)> = redis::pipe()
                .cmd("INCR")
                .arg(mark)
                .cmd("WAITAOF")
                .arg(local)
                .arg(replicas)
                .arg(SYNC_TIMEOUT_MS)
                .query_async(con)
                .await;
            match reply {
                Ok((_, acks)) => {
                    let (got_local, got_replicas) =
                        (acks.first().copied().unwrap_or(0), acks.get(1).copied().unwrap_or(0));
                    if got_local >= local && got_replicas >= replicas {
                        self.set_durability(if local == 1 {
                            Durability::LocalAof
                        } else {
                            Durability::ReplicaAof
                        });
                        return Ok(());
                    }
                    return Err(Error::NotStored(format!(
                        "FalkorDB did not confirm the write on disk within {SYNC_TIMEOUT_MS} ms (WAITAOF {local} {replicas}: {got_local} local, {got_replicas} replicas)"
                    )));
                }
                Err(e) if super::cluster::is_connection_error(&e) => {
                    return Err(Error::Connection { url: self.url(), reason: e.to_string() });
                }
                Err(e) => {
                    let message = e.to_string();
                    if let Some(refused) = refusal(&message) {
                        return Err(refused);
                    }
                    // No local AOF: replicas that keep one, or nothing durable at all.
                    if mode == Durability::Unknown && message.contains("appendonly") {
                        let next = if self.replica_count(con, mark).await > 0 {
                            Durability::ReplicaAof
                        } else {
                            tracing::warn!(
                                url = %self.url(),
                                "FalkorDB keeps no append-only file (appendonly no) and has no replicas: \
                                 writes are acknowledged when the server answers them, not when they are on disk"
                            );
                            Durability::None
                        };
                        self.set_durability(next);
                        continue;
                    }
                    return Err(Error::Query(format!("confirming the write on disk: {message}")));
                }
            }
        }
    }

    fn set_durability(&self, mode: Durability) {
        *self.barrier.mode.lock().unwrap_or_else(|e| e.into_inner()) = mode;
    }

    /// The connected replicas of the server holding `mark` (`INFO replication`, in a
    /// pipeline after a read of `mark` so that a cluster sends it to that primary; 0 when it
    /// cannot be read).
    async fn replica_count(&self, con: &mut RawConnection, mark: &str) -> u64 {
        let info: redis::RedisResult<(Value, Value)> =
            redis::pipe().cmd("GET").arg(mark).cmd("INFO").arg("replication").query_async(con).await;
        let text = match info {
            Ok((_, Value::BulkString(b))) => String::from_utf8_lossy(&b).into_owned(),
            Ok((_, Value::VerbatimString { text, .. })) => text,
            _ => return 0,
        };
        text.lines()
            .find_map(|l| l.strip_prefix("connected_slaves:"))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_their_cause() {
        let e = refusal("MISCONF Errors writing to the AOF file: No space left on device").unwrap();
        assert_eq!(
            e.to_string(),
            "FalkorDB cannot write to disk (MISCONF Errors writing to the AOF file: No space left on device); \
             nothing more was acknowledged"
        );
        let e = refusal("OOM command not allowed when used memory > 'maxmemory'.").unwrap();
        assert!(e.to_string().starts_with("FalkorDB is out of memory (OOM command not allowed"), "{e}");
        // As the redis crate renders it.
        let e = refusal("\"OOM\": command not allowed when used memory > 'maxmemory'.").unwrap();
        assert!(e.to_string().starts_with("FalkorDB is out of memory (OOM command not allowed"), "{e}");
        assert_eq!(e.code(), crate::api::ErrorCode::NotStored);
        // As the redis crate renders a server error.
        assert!(refusal("An error was signalled by the server - OOM command not allowed").is_some());
        assert!(refusal("errors in query: Invalid input").is_none());
        assert!(refusal("BOOM").is_none());
    }
}
