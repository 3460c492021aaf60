//! The Runs view's operation: every graph in the database (on a cluster, of every shard)
//! with its sources, size, time span, agents and problem counts, one row each (`row.rs`).
//! A graph's row is kept until the graph is written again: the key it is kept under is the
//! graph's write count in this session (every written delta is published, and publishing
//! counts it) with the length of its tamper-evident log (which writes by other processes
//! grow too); a row older than [`MAX_AGE`] is read again in any case. A caller that passes
//! the list's `version` back waits for the next write before it is answered, so a view
//! stays current without asking over and over.
//!
//! Rows are also kept in the database (`summary.rs`): a list after a restart takes them
//! from there while their graph is unchanged, and a graph's time span is kept current at
//! write time, so a graph written since is read with the first query alone.

mod row;
mod summary;

pub use row::{
    failed_row, queries, read_counts, read_row, read_times, source_of, text_ms, time_ms, RunRow, RunSource,
    AGENT_NAMES, TIME_KEYS,
};
pub use summary::{delta_span, Span};

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use super::Provex;
use crate::error::Result;
use crate::model::GraphDelta;
use crate::store::Store;
use summary::{Save, Stored, Summaries};

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
    /// The writes' parts of the rows kept in the database.
    summaries: Arc<Summaries>,
}

impl Default for Writes {
    fn default() -> Self {
        Writes { per_graph: Mutex::default(), version: watch::channel(0).0, summaries: Arc::default() }
    }
}

impl Writes {
    /// `delta` was written to `graph`.
    pub(crate) fn wrote_delta(&self, graph: &str, delta: &GraphDelta) {
        self.summaries.wrote(graph, delta);
        self.count_write(graph);
    }

    /// `graph` was written with nodes that were not seen here (a graph built with
    /// GRAPH.BULK): its time span is read again by the next list.
    pub(crate) fn wrote(&self, graph: &str) {
        self.summaries.wrote_unseen(graph);
        self.count_write(graph);
    }

    fn count_write(&self, graph: &str) {
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
    /// Rows read from their graphs (not from what was kept), per graph: for tests.
    reads: Mutex<HashMap<String, u64>>,
    /// Time spans read by a scan of every node, per graph: for tests.
    scans: Mutex<HashMap<String, u64>>,
}

impl Runs {
    /// Starts the task that stores the writes' parts of the rows (on the current runtime).
    pub(crate) fn new(writes: Arc<Writes>, store: Arc<Store>) -> Runs {
        Summaries::start(Arc::downgrade(&writes.summaries), store);
        Runs {
            writes,
            kept: Mutex::default(),
            limit: Mutex::new(DEFAULT_LIMIT),
            reads: Mutex::default(),
            scans: Mutex::default(),
        }
    }

    /// Forgets a deleted graph's row and wakes the callers waiting for a change.
    pub(crate) fn forget(&self, graph: &str) {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner).remove(graph);
        self.writes.summaries.deleted(graph);
        self.writes.count_write(graph);
    }

    fn counted(counter: &Mutex<HashMap<String, u64>>, graph: &str) {
        *counter.lock().unwrap_or_else(PoisonError::into_inner).entry(graph.to_owned()).or_default() += 1;
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
        // This session's writes reach the stored rows before they are read.
        self.runs.writes.summaries.flush(&self.store).await;
        let graphs = self.graphs().await?;
        let stored = match self.runs.writes.summaries.read(&self.store).await {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!("the Runs view's stored rows could not be read; reading every graph: {e}");
                HashMap::new()
            }
        };
        let mut rows: Vec<RunRow> = Vec::with_capacity(graphs.len());
        let mut saves: Vec<Save> = Vec::new();
        for some in graphs.chunks(CONCURRENT) {
            let reads: Vec<_> = some.iter().map(|g| self.run_row(g, stored.get(g))).collect();
            for (row, save) in join_all(reads).await {
                rows.push(row);
                saves.extend(save);
            }
        }
        let gone: Vec<String> = stored.keys().filter(|g| !graphs.contains(g)).cloned().collect();
        if let Err(e) = self.runs.writes.summaries.save(&self.store, &saves, &gone).await {
            tracing::warn!("the Runs view's rows were not stored: {e}");
        }
        self.runs.kept.lock().unwrap_or_else(PoisonError::into_inner).retain(|g, _| graphs.contains(g));
        Ok(RunList { version, rows })
    }

    /// One graph's row: kept in this session, stored in the database while nothing was
    /// written since, or read (the span from the stored summary when it is whole), and
    /// then kept (and what is to be stored).
    async fn run_row(&self, graph: &str, stored: Option<&Stored>) -> (RunRow, Option<Save>) {
        let logged = match self.store.log_stored(graph).await {
            Ok(n) => n,
            Err(e) => return (failed_row(graph, &e), None),
        };
        let key = Key { writes: self.runs.writes.count(graph), logged };
        if let Some(row) = self.runs.kept(graph, key) {
            return (row, None);
        }
        if let Some(row) = stored.and_then(|s| s.row(logged)) {
            self.runs.keep(key, row.clone());
            return (row, None);
        }
        Runs::counted(&self.runs.reads, graph);
        let limit = self.runs.limit();
        let mut row = read_counts(&self.store, graph, limit).await;
        let whole = stored.filter(|s| s.complete);
        let mut scanned = false;
        if row.unavailable.is_none() {
            match whole {
                Some(s) => {
                    row.first_ms = s.span.map(|s| s.first);
                    row.last_ms = s.span.map(|s| s.last);
                }
                None => {
                    Runs::counted(&self.runs.scans, graph);
                    read_times(&self.store, &mut row, limit).await;
                    scanned = true;
                }
            }
        }
        self.runs.keep(key, row.clone());
        let save = row.unavailable.is_none().then(|| Save {
            row: row.clone(),
            gen: stored.map_or(0, |s| s.gen),
            logged,
            scanned,
        });
        (row, save)
    }

    /// Waits until this session's writes so far are in the rows kept in the database (an
    /// ingest does before it acknowledges).
    pub async fn runs_flush(&self) {
        self.runs.writes.summaries.flush(&self.store).await;
    }

    /// One graph's row read in full from the graph (both queries: the time span by a scan),
    /// nothing kept or stored: what a kept or stored row must equal.
    pub async fn runs_scanned(&self, graph: &str) -> RunRow {
        read_row(&self.store, graph, self.runs.limit()).await
    }

    /// How many times this session has read `graph`'s time span by a scan of its nodes.
    pub fn runs_scans(&self, graph: &str) -> u64 {
        self.runs.scans.lock().unwrap_or_else(PoisonError::into_inner).get(graph).copied().unwrap_or(0)
    }

    /// Sets how long each query of a row may take (and forgets the rows kept).
    pub fn set_runs_limit(&self, limit: Duration) {
        *self.runs.limit.lock().unwrap_or_else(PoisonError::into_inner) = limit;
        self.runs.kept.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }

    /// Forgets the rows kept in this session: the next list takes them from the database, or
    /// reads the graphs written since (a list as after a restart, for benchmarks).
    pub fn forget_runs(&self) {
        self.runs.kept.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }

    /// How many times this session has merged its writes into the Runs rows kept in the
    /// database (a live stream's batches are gathered into one merge a second).
    pub fn runs_summary_merges(&self) -> u64 {
        self.runs.writes.summaries.merges()
    }

    /// How many times this session has read `graph`'s row from the graph rather than taken
    /// the one it kept or the one stored.
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
