//! The Runs view's operation: every graph in the database (on a cluster, of every shard)
//! with its sources, size, time span, agents and problem counts, one row each (`row.rs`).
//! A graph's row is kept until the graph is written again: the key it is kept under is the
//! graph's write count in this session (every written delta is published, and publishing
//! counts it) with the length of its tamper-evident log (which writes by other processes
//! grow too); a row older than [`MAX_AGE`] is read again in any case. A caller that passes
//! the list's `version` back waits for the next write before it is answered, so a view
//! stays current without asking over and over.

mod row;

pub use row::{failed_row, queries, read_row, source_of, time_ms, RunRow, RunSource, AGENT_NAMES, TIME_KEYS};

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use super::Provex;
use crate::error::Result;

/// How long each of a row's two queries may take by default.
pub const DEFAULT_LIMIT: Duration = Duration::from_millis(2_000);
/// A kept row is read again after this long even if nothing says its graph changed (a
/// process that writes the graph without logging it).
pub const MAX_AGE: Duration = Duration::from_secs(60);
/// A row that did not answer in time is tried again after this long at the earliest.
pub const RETRY_AFTER: Duration = Duration::from_secs(15);
/// The longest a caller may wait for the next write.
pub const MAX_WAIT: Duration = Duration::from_secs(30);
/// After a write wakes a waiting caller, how long the writes that follow it are let land
/// before the list is read (an ingest writes many batches in a row).
const SETTLE: Duration = Duration::from_millis(150);
/// Graphs read at once when rows must be read.
const CONCURRENT: usize = 4;

/// Every graph's row, and the version of the list: pass it back as `since` to wait for the
/// next write.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ts_rs::TS)]
pub struct RunList {
    pub version: u64,
    pub rows: Vec<RunRow>,
}

/// The writes this session has published, per graph, and their total as a watched version.
pub(crate) struct Writes {
    per_graph: Mutex<HashMap<String, u64>>,
    version: watch::Sender<u64>,
}

impl Default for Writes {
    fn default() -> Self {
        Writes { per_graph: Mutex::default(), version: watch::channel(0).0 }
    }
}

impl Writes {
    /// `graph` was written (or deleted).
    pub(crate) fn wrote(&self, graph: &str) {
        *self
            .per_graph
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(graph.to_owned())
            .or_default() += 1;
        self.version.send_modify(|v| *v += 1);
    }

    fn count(&self, graph: &str) -> u64 {
        self.per_graph.lock().unwrap_or_else(PoisonError::into_inner).get(graph).copied().unwrap_or(0)
    }
}

/// What a kept row was read at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Key {
    writes: u64,
    logged: u64,
}

struct Kept {
    key: Key,
    at: Instant,
    row: RunRow,
}

impl Kept {
    fn fresh(&self, key: Key) -> bool {
        let age = if self.row.unavailable.is_some() { RETRY_AFTER } else { MAX_AGE };
        self.key == key && self.at.elapsed() < age
    }
}

/// The session's part of the Runs view: the write counts and the kept rows.
pub(crate) struct Runs {
    pub(crate) writes: Arc<Writes>,
    kept: Mutex<HashMap<String, Kept>>,
    limit: Mutex<Duration>,
    /// Rows read from the database (not from what was kept), per graph: for tests.
    reads: Mutex<HashMap<String, u64>>,
}

impl Runs {
    pub(crate) fn new(writes: Arc<Writes>) -> Runs {
        Runs { writes, kept: Mutex::default(), limit: Mutex::new(DEFAULT_LIMIT), reads: Mutex::default() }
    }

    /// Forgets a deleted graph's row and wakes the callers waiting for a change.
    pub(crate) fn forget(&self, graph: &str) {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner).remove(graph);
        self.writes.wrote(graph);
    }

    fn kept(&self, graph: &str, key: Key) -> Option<RunRow> {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.get(graph).filter(|k| k.fresh(key)).map(|k| k.row.clone())
    }

    fn keep(&self, key: Key, row: RunRow) {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.insert(row.graph.clone(), Kept { key, at: Instant::now(), row });
    }

    fn limit(&self) -> Duration {
        *self.limit.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Provex {
    /// Every graph's row of the Runs view, in name order. With `since` equal to the current
    /// version, waits up to `wait` (at most [`MAX_WAIT`]) for a graph to be written first. A
    /// graph that cannot be read in time gets a row that says so; only a failure to list
    /// the graphs fails the whole list.
    pub async fn runs(&self, since: Option<u64>, wait: Duration) -> Result<RunList> {
        let mut changes = self.runs.writes.version.subscribe();
        if since.is_some_and(|s| s == *changes.borrow_and_update()) {
            if let Ok(Ok(())) = tokio::time::timeout(wait.min(MAX_WAIT), changes.changed()).await {
                tokio::time::sleep(SETTLE).await;
            }
        }
        // Read before the rows: a write while they are read makes the next call read again.
        let version = *self.runs.writes.version.borrow();
        let graphs = self.graphs().await?;
        let mut rows: Vec<RunRow> = Vec::with_capacity(graphs.len());
        for some in graphs.chunks(CONCURRENT) {
            let reads: Vec<_> = some.iter().map(|g| self.run_row(g)).collect();
            rows.extend(join_all(reads).await);
        }
        self.runs.kept.lock().unwrap_or_else(PoisonError::into_inner).retain(|g, _| graphs.contains(g));
        Ok(RunList { version, rows })
    }

    /// One graph's row: kept, or read (and kept).
    async fn run_row(&self, graph: &str) -> RunRow {
        let logged = match self.store.log_stored(graph).await {
            Ok(n) => n,
            Err(e) => return failed_row(graph, &e),
        };
        let key = Key { writes: self.runs.writes.count(graph), logged };
        if let Some(row) = self.runs.kept(graph, key) {
            return row;
        }
        *self
            .runs
            .reads
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(graph.to_owned())
            .or_default() += 1;
        let row = read_row(&self.store, graph, self.runs.limit()).await;
        self.runs.keep(key, row.clone());
        row
    }

    /// Sets how long each query of a row may take (and forgets the rows kept).
    pub fn set_runs_limit(&self, limit: Duration) {
        *self.runs.limit.lock().unwrap_or_else(PoisonError::into_inner) = limit;
        self.runs.kept.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }

    /// Forgets the rows kept: the next list reads every graph (a cold list, for benchmarks).
    pub fn forget_runs(&self) {
        self.runs.kept.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }

    /// How many times this session has read `graph`'s row from the database rather than
    /// taken the one it kept.
    pub fn runs_read(&self, graph: &str) -> u64 {
        self.runs.reads.lock().unwrap_or_else(PoisonError::into_inner).get(graph).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(unavailable: Option<&str>) -> RunRow {
        let mut r = failed_row("g", &crate::error::Error::Timeout("x".into()));
        r.unavailable = unavailable.map(str::to_owned);
        r
    }

    #[test]
    fn a_kept_row_is_fresh_until_its_key_changes_or_it_is_old() {
        let key = Key { writes: 1, logged: 5 };
        let kept = Kept { key, at: Instant::now(), row: row(None) };
        assert!(kept.fresh(key));
        assert!(!kept.fresh(Key { writes: 2, logged: 5 }));
        assert!(!kept.fresh(Key { writes: 1, logged: 6 }));
        let old = Kept { key, at: Instant::now() - MAX_AGE, row: row(None) };
        assert!(!old.fresh(key));
        let timed_out = Kept { key, at: Instant::now() - RETRY_AFTER, row: row(Some("late")) };
        assert!(!timed_out.fresh(key));
    }

    #[test]
    fn a_write_counts_for_its_graph_and_moves_the_version() {
        let w = Writes::default();
        let rx = w.version.subscribe();
        w.wrote("a");
        w.wrote("a");
        w.wrote("b");
        assert_eq!((w.count("a"), w.count("b"), w.count("c")), (2, 1, 0));
        assert_eq!(*rx.borrow(), 3);
    }
}
