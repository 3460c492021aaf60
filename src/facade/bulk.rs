//! An ingest into a graph that does not exist yet: what is read is spilled to a private
//! temporary file as it comes (see `store::bulk_spill`), and the graph is built from it with
//! GRAPH.BULK one bounded part at a time, whatever the input's size; what GRAPH.BULK cannot
//! carry is upserted from the same file instead. The search index is given each node as it
//! is spilled, at the index's pace (its queue is bounded), so the built graph is never read
//! back for it.

use std::sync::{Arc, Mutex, PoisonError};

use super::{IngestReport, Provex};
use crate::error::{Error, Result};
use crate::model::GraphDelta;
use crate::store::bulk::Limits;
use crate::store::bulk_spill::{Part, Spill};
use crate::store::BulkOutcome;

/// The sizes of a session's bulk builds: the commands' [`Limits`] (the defaults, but for
/// tests that make many small commands of a small input).
#[derive(Debug, Default)]
pub(super) struct Settings {
    limits: Mutex<Option<Limits>>,
}

impl Provex {
    /// Sends GRAPH.BULK commands of at most these sizes from now on (tests of a build made
    /// of many commands; the defaults suit any input).
    #[doc(hidden)]
    pub fn set_bulk_limits(&self, limits: Limits) {
        *self.bulk.limits.lock().unwrap_or_else(PoisonError::into_inner) = Some(limits);
    }

    /// Holds (or lets go) the private server's automatic append-only-file rewrites around a
    /// bulk build: a fork during one can leave FalkorDB answering nothing (see
    /// `store::aof::hold_rewrites`). Whether this session has a private server to ask.
    async fn hold_rewrites(&self, hold: bool) -> bool {
        let Some(server) = self.server.clone() else { return false };
        tokio::task::spawn_blocking(move || server.hold_rewrites(hold)).await.is_ok()
    }

    fn bulk_limits(&self) -> Limits {
        self.bulk.limits.lock().unwrap_or_else(PoisonError::into_inner).unwrap_or_default()
    }
}

/// The rows gathered for a bulk build, spilled as they come.
pub(super) struct Pending {
    /// The spill, created with the first rows; or why it could not be written.
    spill: Option<std::result::Result<Spill, Error>>,
    part: Part,
}

impl Pending {
    /// `max_rows` no longer bounds the build: it bounds the nodes (or edges) of one part of
    /// it held in memory at once (never more than [`Part::default`]).
    pub(super) fn new(max_rows: usize) -> Self {
        let default = Part::default();
        Pending { spill: None, part: Part { rows: default.rows.min(max_rows.max(1) as u64), ..default } }
    }

    /// Whether `next` can join: always, unless the spill failed (the build then reports it).
    pub(super) fn fits(&self, _next: &GraphDelta) -> bool {
        !matches!(self.spill, Some(Err(_)))
    }

    pub(super) fn absorb(&mut self, next: GraphDelta) {
        if next.is_empty() {
            return;
        }
        let dir = std::env::temp_dir();
        let spill = self.spill.get_or_insert_with(|| Spill::in_dir(&dir).map_err(|e| Error::io(&dir, e)));
        if let Ok(s) = spill {
            if let Err(e) = s.add(next) {
                *spill = Err(Error::io(s.dir(), e));
            }
        }
    }
}

impl Provex {
    /// Spills a batch read for a new graph, and hands its nodes to the search index, waiting
    /// while the index's queue is full: the import reads no faster than the index is written,
    /// and the queue holds a bounded part of it, whatever its size.
    pub(super) async fn gather_fresh(&self, graph: &str, pending: &mut Pending, delta: GraphDelta) {
        let items = (self.search.enabled() && delta.node_count() > 0)
            .then(|| crate::search::items::delta_items(graph, &delta));
        pending.absorb(delta);
        if let Some(items) = items {
            self.search.send_bounded(items).await;
        }
    }

    /// After a fresh import that built nothing (stopped, or failed): the search index
    /// forgets the items its nodes were given as they were read.
    pub(super) async fn forget_unbuilt(&self, graph: &str) {
        match self.store.graphs_list().await {
            Ok(graphs) if graphs.iter().any(|g| g == graph) => {}
            Ok(_) => self.forget_in_search(graph).await,
            Err(e) => tracing::warn!(graph, "the search index may keep items of an unbuilt graph: {e}"),
        }
    }

    /// Builds the new graph from what was gathered: with GRAPH.BULK, or with upserts when
    /// the bulk path cannot carry it or fails (a failed build leaves nothing behind, and the
    /// upserts retry while the server is away). Then the views get the rows, part by part.
    pub(super) async fn build_fresh(
        &self,
        graph: &str,
        pending: Pending,
        report: &mut IngestReport,
    ) -> Result<()> {
        let spill = match pending.spill {
            None => return Ok(()),
            Some(spill) => spill?,
        };
        let dir = spill.dir().to_owned();
        let spilled = Arc::new(spill.finish().map_err(|e| Error::io(&dir, e))?);
        if spilled.is_empty() {
            return Ok(());
        }
        let part = pending.part;
        let held = self.hold_rewrites(true).await;
        let built = self.store.bulk_build_spilled(graph, spilled.clone(), self.bulk_limits(), part).await;
        if held {
            self.hold_rewrites(false).await;
        }
        let why = match built {
            Ok(BulkOutcome::Built(stats)) => {
                report.count(stats);
                report.method = "bulk".into();
                None
            }
            Ok(BulkOutcome::Unsupported(why)) => Some(why.to_string()),
            Err(e @ (Error::ConnectionLost { .. } | Error::Connection { .. } | Error::Query(_))) => {
                Some(format!("GRAPH.BULK failed: {e}"))
            }
            Err(e) => return Err(e),
        };
        let upsert = why.is_some();
        if let Some(why) = why {
            tracing::warn!(graph, %why, "building the graph with upserts instead of GRAPH.BULK");
            report.notes.push(format!("written with upserts, not GRAPH.BULK: {why}"));
            report.method = "merge".into();
        }
        // Nodes first, then edges (an edge's upsert finds its endpoints); the ingest
        // acknowledges its whole batch at the end (Store::commit). A built graph is read
        // back only for the live views, when some client looks at it. The search index has
        // its nodes already (`gather_fresh`).
        if !upsert && !self.listened(graph) {
            self.publisher.writes.wrote(graph);
            return Ok(());
        }
        for nodes in [true, false] {
            if !nodes && !upsert && !self.listened(graph) {
                break;
            }
            for group in spilled.groups(nodes, part) {
                let s = spilled.clone();
                let delta = tokio::task::spawn_blocking(move || {
                    if nodes {
                        s.read_nodes(group)
                    } else {
                        s.read_edges(group)
                    }
                })
                .await
                .map_err(|e| Error::Server(format!("reading the spill: {e}")))?
                .map_err(|e| Error::io(&dir, e))?;
                if upsert {
                    let stats = self.store.write_unsynced(graph, &delta).await?;
                    report.count(stats);
                }
                if self.listened(graph) {
                    self.publisher.fan_out(graph, delta, Vec::new());
                }
            }
        }
        // The Runs view's kept row of this graph is stale now, whether or not a view was
        // given the rows.
        if !self.listened(graph) {
            self.publisher.writes.wrote(graph);
        }
        Ok(())
    }
}
