//! An ingest into a graph that does not exist yet: what is read is gathered in memory
//! (deduplicated as the upserts would merge it) and the graph is built in one go with
//! GRAPH.BULK; what does not fit, or what GRAPH.BULK cannot carry, is upserted as usual.

use super::{IngestReport, Provex};
use crate::error::{Error, Result};
use crate::model::GraphDelta;
use crate::store::bulk::Limits;
use crate::store::BulkOutcome;

/// The rows gathered for a bulk build, up to a bound.
pub(super) struct Pending {
    delta: GraphDelta,
    max_rows: usize,
}

impl Pending {
    pub(super) fn new(max_rows: usize) -> Self {
        Pending { delta: GraphDelta::new(), max_rows }
    }

    fn rows(d: &GraphDelta) -> usize {
        d.node_count() + d.edge_count()
    }

    /// Whether `next` can join without passing the bound (counted before deduplication).
    pub(super) fn fits(&self, next: &GraphDelta) -> bool {
        Self::rows(&self.delta) + Self::rows(next) <= self.max_rows
    }

    pub(super) fn absorb(&mut self, next: GraphDelta) {
        self.delta.extend(next);
    }
}

impl Provex {
    /// Builds the new graph from what was gathered: with GRAPH.BULK, or with upserts when
    /// the bulk path cannot carry it or fails (a failed build leaves nothing behind, and the
    /// upserts retry while the server is away). Then the views get the whole delta.
    pub(super) async fn build_fresh(
        &self,
        graph: &str,
        pending: Pending,
        report: &mut IngestReport,
    ) -> Result<()> {
        if pending.delta.is_empty() {
            return Ok(());
        }
        let delta = std::sync::Arc::new(pending.delta);
        let why = match self.store.bulk_build(graph, delta.clone(), Limits::default()).await {
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
        if let Some(why) = why {
            tracing::warn!(graph, %why, "building the graph with upserts instead of GRAPH.BULK");
            report.notes.push(format!("written with upserts, not GRAPH.BULK: {why}"));
            // The ingest acknowledges its whole batch at the end (Store::commit).
            let stats = self.store.write_unsynced(graph, &delta).await?;
            report.count(stats);
            report.method = "merge".into();
        }
        // The encoder has let go of its share by now.
        let delta = std::sync::Arc::try_unwrap(delta).unwrap_or_else(|shared| (*shared).clone());
        self.publish(graph, delta);
        Ok(())
    }
}
