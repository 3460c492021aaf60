//! Each graph's Runs row kept in the database, so that a list after a restart reads no
//! graph, and a written graph's time span is never a scan of its nodes again.
//!
//! One `Run` node per graph in Provex's own graph [`RUNS_GRAPH`] holds:
//! - the graph's time span (`first`, `last`, Unix ms), kept current at write time: every
//!   written delta's least and greatest time is merged in (a minimum and a maximum, so
//!   writers in any order and any number of processes agree). `complete` says the span
//!   covers every node: set by one scan of the graph's times (the first list that sees the
//!   graph), or for a graph this session deleted and writes again from nothing. A write
//!   whose nodes this side does not see (a graph built with GRAPH.BULK) clears it, and the
//!   next list scans again;
//! - `gen`, counted up by every write, and the row's other figures (`row`, JSON) with the
//!   `gen` and the log length (`logged`) they were read at: a row is taken as it is only
//!   while neither moved (a write by another process grows the graph's log).
//!
//! Writes are gathered in memory and merged by a task of their own, many at a time; a list
//! and an ingest's acknowledgement wait for what was gathered before them ([`Summaries::flush`]).
//! Nothing else waits for a merge, so the task gathers for a second ([`GATHER`]): each merge
//! is a write, and an fsync, on the server a live stream writes its own batches to, and a
//! stream's batches (dozens a second) each then waited behind merges made ten times a second.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use falkordb::FalkorValue;
use redis::Value;
use tokio::sync::{mpsc, OnceCell};

use super::row::{text_ms, RunRow, TIME_KEYS};
use crate::error::{Error, Result};
use crate::model::{GraphDelta, PropValue};
use crate::store::raw::{int, string};
use crate::store::reserved::RUNS_GRAPH;
use crate::store::Store;

/// Server-side time limit of the summaries' queries, in milliseconds.
const TIMEOUT_MS: i64 = crate::store::QUERY_TIMEOUT_MS;
/// How long writes are gathered before they are merged (a stream writes many batches a
/// second; a list or an acknowledgement merges at once).
pub const GATHER: Duration = Duration::from_secs(1);

/// The least and greatest time of some nodes, in Unix ms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub first: i64,
    pub last: i64,
}

impl Span {
    fn merge(a: Option<Span>, b: Option<Span>) -> Option<Span> {
        match (a, b) {
            (Some(a), Some(b)) => Some(Span { first: a.first.min(b.first), last: a.last.max(b.last) }),
            (a, b) => a.or(b),
        }
    }
}

/// A stored time as Unix ms (as [`super::row::time_ms`] reads it from the database).
fn prop_ms(v: &PropValue) -> Option<i64> {
    match v {
        PropValue::Int(i) => Some(*i),
        PropValue::Float(f) => f.is_finite().then_some(*f as i64),
        PropValue::Str(s) => text_ms(s),
        PropValue::Bool(_) | PropValue::List(_) => None,
    }
}

/// The least and greatest time a delta's nodes carry ([`TIME_KEYS`]).
pub fn delta_span(delta: &GraphDelta) -> Option<Span> {
    let mut span = None;
    for node in delta.nodes() {
        for key in TIME_KEYS {
            if let Some(t) = node.props.get(*key).and_then(prop_ms) {
                span = Span::merge(span, Some(Span { first: t, last: t }));
            }
        }
    }
    span
}

/// What a graph's writes since the last merge add to its summary.
#[derive(Debug, Clone, Default, PartialEq)]
struct Pending {
    /// The graph was deleted: its summary goes, and what is written after starts a new one
    /// that covers the whole graph.
    reset: bool,
    /// The graph was deleted before an earlier merge and not written since: a summary
    /// made now covers the whole graph (one already there is kept).
    fresh: bool,
    /// Some write's nodes were not seen: the span is no longer known to be whole.
    unknown: bool,
    /// Writes seen (each counts up `gen`; at least one unless only `reset`).
    writes: u64,
    span: Option<Span>,
}

impl Pending {
    /// `self` then `later`.
    fn then(self, later: Pending) -> Pending {
        if later.reset {
            return later;
        }
        Pending {
            reset: self.reset,
            fresh: self.fresh || later.fresh,
            unknown: self.unknown || later.unknown,
            writes: self.writes + later.writes,
            span: Span::merge(self.span, later.span),
        }
    }
}

/// The writes gathered and not yet merged into the stored summaries.
pub(crate) struct Summaries {
    pending: Mutex<HashMap<String, Pending>>,
    /// Graphs this session deleted and has not written since: the first write starts a
    /// summary that covers the whole graph (when it is merged apart from the deletion).
    deleted: Mutex<std::collections::HashSet<String>>,
    /// Wakes the gathering task (which ends when this is dropped).
    wake: mpsc::UnboundedSender<()>,
    woken: Mutex<Option<mpsc::UnboundedReceiver<()>>>,
    /// One merge at a time, so a flush returns only once what it found gathered is stored.
    merging: tokio::sync::Mutex<()>,
    schema: OnceCell<()>,
    /// Merges that wrote to the database since the session began.
    merges: AtomicU64,
}

/// One graph's stored summary.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Stored {
    pub span: Option<Span>,
    pub complete: bool,
    pub gen: i64,
    /// The row's figures and what they were read at.
    pub row: Option<String>,
    pub row_gen: Option<i64>,
    pub logged: Option<i64>,
}

impl Stored {
    /// The kept row, when nothing was written since it was read (`logged`: the graph's log
    /// length now), with the current span.
    pub fn row(&self, logged: u64) -> Option<RunRow> {
        if !self.complete || self.row_gen != Some(self.gen) || self.logged != Some(logged as i64) {
            return None;
        }
        let mut row: RunRow = serde_json::from_str(self.row.as_deref()?).ok()?;
        row.first_ms = self.span.map(|s| s.first);
        row.last_ms = self.span.map(|s| s.last);
        Some(row)
    }
}

/// A row read from its graph, to be stored.
pub(crate) struct Save {
    pub row: RunRow,
    /// The `gen` the row was read at (its summary's before the read, 0 without one).
    pub gen: i64,
    pub logged: u64,
    /// The span was read by a scan of every node (and so the summary is complete).
    pub scanned: bool,
}

fn literal(v: &FalkorValue) -> Result<String> {
    falkordb::to_cypher_param(v).map_err(|e| Error::Query(e.to_string()))
}

fn opt_int(v: Option<i64>) -> FalkorValue {
    v.map_or(FalkorValue::None, FalkorValue::I64)
}

fn map(pairs: Vec<(&str, FalkorValue)>) -> FalkorValue {
    FalkorValue::Map(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// `x.first` and `x.last` merged with the row's `r.f` and `r.l`.
const MERGE_SPAN: &str = "x.first = CASE WHEN r.f IS NULL THEN x.first WHEN x.first IS NULL OR r.f < x.first THEN r.f ELSE x.first END, \
     x.last = CASE WHEN r.l IS NULL THEN x.last WHEN x.last IS NULL OR r.l > x.last THEN r.l ELSE x.last END";

impl Default for Summaries {
    fn default() -> Self {
        let (wake, woken) = mpsc::unbounded_channel();
        Summaries {
            pending: Mutex::default(),
            deleted: Mutex::default(),
            wake,
            woken: Mutex::new(Some(woken)),
            merging: tokio::sync::Mutex::default(),
            schema: OnceCell::new(),
            merges: AtomicU64::new(0),
        }
    }
}

impl Summaries {
    fn add(&self, graph: &str, p: Pending) {
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = pending.entry(graph.to_owned()).or_default();
        *entry = std::mem::take(entry).then(p);
        drop(pending);
        let _ = self.wake.send(());
    }

    /// A delta was written to `graph`.
    pub fn wrote(&self, graph: &str, delta: &GraphDelta) {
        self.add(graph, Pending { writes: 1, span: delta_span(delta), ..Pending::default() });
    }

    /// `graph` was written with nodes this side did not see.
    pub fn wrote_unseen(&self, graph: &str) {
        self.add(graph, Pending { writes: 1, unknown: true, ..Pending::default() });
    }

    /// `graph` was deleted.
    pub fn deleted(&self, graph: &str) {
        self.deleted.lock().unwrap_or_else(PoisonError::into_inner).insert(graph.to_owned());
        self.add(graph, Pending { reset: true, ..Pending::default() });
    }

    /// Merges what is gathered now (when called again by the gathering task or a list,
    /// waits for the merge under way first).
    pub async fn flush(&self, store: &Store) {
        let _one = self.merging.lock().await;
        let mut taken = std::mem::take(&mut *self.pending.lock().unwrap_or_else(PoisonError::into_inner));
        if taken.is_empty() {
            return;
        }
        // A graph deleted before an earlier merge, written now: as if deleted in this one.
        {
            let mut deleted = self.deleted.lock().unwrap_or_else(PoisonError::into_inner);
            for (g, p) in taken.iter_mut().filter(|(_, p)| p.writes > 0) {
                if deleted.remove(g) {
                    p.fresh = true;
                }
            }
        }
        if let Err(e) = self.merge(store, &taken).await {
            tracing::warn!("the Runs view's summaries of {} graphs not stored yet: {e}", taken.len());
            // Merged again later, before what was gathered since.
            let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
            for (g, p) in taken {
                let later = pending.remove(&g).unwrap_or_default();
                pending.insert(g, p.then(later));
            }
        }
    }

    /// The gathering task: merges what is written, shortly after it is, until the
    /// summaries are dropped (the task holds them only while it merges).
    pub fn start(summaries: std::sync::Weak<Self>, store: std::sync::Arc<Store>) {
        let Some(s) = summaries.upgrade() else { return };
        let Some(mut woken) = s.woken.lock().unwrap_or_else(PoisonError::into_inner).take() else { return };
        drop(s);
        tokio::spawn(async move {
            while woken.recv().await.is_some() {
                tokio::time::sleep(GATHER).await;
                while woken.try_recv().is_ok() {}
                let Some(s) = summaries.upgrade() else { return };
                s.flush(&store).await;
            }
        });
    }

    async fn ensure_schema(&self, store: &Store) -> Result<()> {
        self.schema
            .get_or_try_init(|| async {
                let q = "CREATE INDEX FOR (x:Run) ON (x.graph)";
                match store.reserved_schema(RUNS_GRAPH, q, TIMEOUT_MS).await {
                    Ok(()) => Ok(()),
                    Err(Error::Query(m)) if m.contains("already indexed") || m.contains("already exists") => {
                        Ok(())
                    }
                    Err(e) => Err(e),
                }
            })
            .await
            .map(|_| ())
    }

    /// Merges that wrote to the database since the session began.
    pub fn merges(&self) -> u64 {
        self.merges.load(Ordering::Relaxed)
    }

    async fn merge(&self, store: &Store, taken: &HashMap<String, Pending>) -> Result<()> {
        self.merges.fetch_add(1, Ordering::Relaxed);
        self.ensure_schema(store).await?;
        let resets: Vec<FalkorValue> =
            taken.iter().filter(|(_, p)| p.reset).map(|(g, _)| FalkorValue::String(g.clone())).collect();
        if !resets.is_empty() {
            let q = "UNWIND $gs AS g MATCH (x:Run {graph: g}) DELETE x";
            let params = [("gs", literal(&FalkorValue::Array(resets))?)];
            store.reserved_query(RUNS_GRAPH, q, &params, true, TIMEOUT_MS).await?;
        }
        let rows: Vec<FalkorValue> = taken
            .iter()
            .filter(|(_, p)| p.writes > 0)
            .map(|(g, p)| {
                map(vec![
                    ("g", FalkorValue::String(g.clone())),
                    ("f", opt_int(p.span.map(|s| s.first))),
                    ("l", opt_int(p.span.map(|s| s.last))),
                    ("fresh", FalkorValue::I64(i64::from((p.reset || p.fresh) && !p.unknown))),
                    ("unknown", FalkorValue::I64(i64::from(p.unknown))),
                    ("n", FalkorValue::I64(p.writes as i64)),
                ])
            })
            .collect();
        if rows.is_empty() {
            return Ok(());
        }
        let q = format!(
            "UNWIND $rows AS r MERGE (x:Run {{graph: r.g}}) ON CREATE SET x.gen = 0, x.complete = r.fresh \
             SET {MERGE_SPAN}, x.gen = x.gen + r.n, \
             x.complete = CASE WHEN r.unknown = 1 THEN 0 ELSE x.complete END"
        );
        let params = [("rows", literal(&FalkorValue::Array(rows))?)];
        store.reserved_query(RUNS_GRAPH, &q, &params, true, TIMEOUT_MS).await?;
        Ok(())
    }

    /// Every stored summary, by graph.
    pub async fn read(&self, store: &Store) -> Result<HashMap<String, Stored>> {
        let q =
            "MATCH (x:Run) RETURN x.graph, x.first, x.last, x.complete, x.gen, x.row, x.row_gen, x.logged";
        let rows = store.reserved_query(RUNS_GRAPH, q, &[], false, TIMEOUT_MS).await?;
        Ok(rows.iter().filter_map(|r| stored(r)).collect())
    }

    /// Stores rows read from their graphs (a row whose graph was written since it was read
    /// keeps only its span), and removes the summaries of graphs that are gone.
    pub async fn save(&self, store: &Store, saves: &[Save], gone: &[String]) -> Result<()> {
        if saves.is_empty() && gone.is_empty() {
            return Ok(());
        }
        self.ensure_schema(store).await?;
        if !gone.is_empty() {
            let gs = gone.iter().map(|g| FalkorValue::String(g.clone())).collect();
            let q = "UNWIND $gs AS g MATCH (x:Run {graph: g}) DELETE x";
            store
                .reserved_query(RUNS_GRAPH, q, &[("gs", literal(&FalkorValue::Array(gs))?)], true, TIMEOUT_MS)
                .await?;
        }
        let mut rows = Vec::with_capacity(saves.len());
        for s in saves {
            let json = serde_json::to_string(&s.row).map_err(|e| Error::Query(e.to_string()))?;
            rows.push(map(vec![
                ("g", FalkorValue::String(s.row.graph.clone())),
                ("f", opt_int(s.row.first_ms.filter(|_| s.scanned))),
                ("l", opt_int(s.row.last_ms.filter(|_| s.scanned))),
                ("scanned", FalkorValue::I64(i64::from(s.scanned))),
                ("gen", FalkorValue::I64(s.gen)),
                ("row", FalkorValue::String(json)),
                ("logged", FalkorValue::I64(s.logged as i64)),
            ]));
        }
        if rows.is_empty() {
            return Ok(());
        }
        let q = format!(
            "UNWIND $rows AS r MERGE (x:Run {{graph: r.g}}) ON CREATE SET x.gen = 0, x.complete = 0 \
             WITH x, r, x.gen = r.gen AS same \
             SET {MERGE_SPAN}, \
             x.complete = CASE WHEN r.scanned = 1 AND same THEN 1 ELSE x.complete END, \
             x.row = CASE WHEN same THEN r.row ELSE x.row END, \
             x.row_gen = CASE WHEN same THEN r.gen ELSE x.row_gen END, \
             x.logged = CASE WHEN same THEN r.logged ELSE x.logged END"
        );
        store
            .reserved_query(
                RUNS_GRAPH,
                &q,
                &[("rows", literal(&FalkorValue::Array(rows))?)],
                true,
                TIMEOUT_MS,
            )
            .await?;
        Ok(())
    }
}

fn stored(r: &[Value]) -> Option<(String, Stored)> {
    let graph = string(r.first()?)?;
    let span = match (r.get(1).and_then(int), r.get(2).and_then(int)) {
        (Some(first), Some(last)) => Some(Span { first, last }),
        _ => None,
    };
    Some((
        graph,
        Stored {
            span,
            complete: r.get(3).and_then(int) == Some(1),
            gen: r.get(4).and_then(int).unwrap_or(0),
            row: r.get(5).and_then(string),
            row_gen: r.get(6).and_then(int),
            logged: r.get(7).and_then(int),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Label, Node};

    #[test]
    fn a_deltas_span_is_its_least_and_greatest_time_of_any_key_and_form() {
        let mut d = GraphDelta::new();
        d.add_node(Node::new(Label::Artifact, "a").with("prov:startTime", 1_760_518_800_500_i64));
        d.add_node(Node::new(Label::Statement, "s").with("created_at", "2025-10-15T09:00:00Z"));
        d.add_node(Node::new(Label::Span, "t").with("timestamp", "not a time"));
        d.add_node(Node::new(Label::Agent, "g"));
        let span = delta_span(&d).unwrap();
        assert_eq!(span, Span { first: 1_760_518_800_000, last: 1_760_518_800_500 });
        assert_eq!(delta_span(&GraphDelta::new()), None);
    }

    #[test]
    fn gathered_writes_merge_and_a_deletion_starts_again() {
        let w = |f, l| Pending { writes: 1, span: Some(Span { first: f, last: l }), ..Pending::default() };
        let p = w(5, 9).then(w(2, 6)).then(Pending { writes: 1, unknown: true, ..Pending::default() });
        assert_eq!(
            p,
            Pending {
                reset: false,
                fresh: false,
                unknown: true,
                writes: 3,
                span: Some(Span { first: 2, last: 9 })
            }
        );
        let reset = Pending { reset: true, ..Pending::default() };
        let p = p.then(reset.clone()).then(w(7, 8));
        assert_eq!(
            p,
            Pending {
                reset: true,
                fresh: false,
                unknown: false,
                writes: 1,
                span: Some(Span { first: 7, last: 8 })
            }
        );
    }

    #[test]
    fn a_stored_row_is_taken_only_while_nothing_was_written_since() {
        let row = RunRow { nodes: 4, ..super::super::row::failed_row("g", &Error::Timeout("x".into())) };
        let row = RunRow { unavailable: None, ..row };
        let s = Stored {
            span: Some(Span { first: 1, last: 2 }),
            complete: true,
            gen: 3,
            row: Some(serde_json::to_string(&row).unwrap()),
            row_gen: Some(3),
            logged: Some(10),
        };
        let back = s.row(10).unwrap();
        assert_eq!((back.nodes, back.first_ms, back.last_ms), (4, Some(1), Some(2)));
        assert!(s.row(11).is_none(), "the log grew");
        assert!(Stored { gen: 4, ..s.clone() }.row(10).is_none(), "written since");
        assert!(Stored { complete: false, ..s }.row(10).is_none(), "span not whole");
    }
}
