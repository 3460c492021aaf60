//! The facade's side of the search across graphs (`src/search/`): the search itself, the
//! index's rebuild, and the session's hold on the index's writer (written deltas reach it
//! through the publisher; an ingest waits for it before acknowledging; a deleted graph's
//! items go with it).

use serde::Serialize;

use super::Provex;
use crate::error::Result;
use crate::search::{self, GraphHit};

/// What a rebuild of the search index did.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ReindexReport {
    /// Each graph rebuilt, with its number of items.
    pub graphs: Vec<(String, u64)>,
}

impl Provex {
    /// Searches every graph through the index (`provex search`): nodes whose id is `q`, then
    /// those whose words match it, best first, at most `limit`.
    pub async fn search_all(&self, q: &str, limit: u32) -> Result<Vec<GraphHit>> {
        search::search_all(&self.store, q, limit).await
    }

    /// Rebuilds the search index from the graphs (one graph, or every graph).
    pub async fn search_reindex(&self, graph: Option<&str>) -> Result<ReindexReport> {
        self.search.flush().await;
        let graphs = match graph {
            Some(g) => {
                crate::store::validate_graph_name(g)?;
                if !self.store.graphs_list().await?.iter().any(|x| x == g) {
                    return Err(crate::error::Error::NotFound { what: "graph", name: g.to_owned() });
                }
                vec![g.to_owned()]
            }
            None => {
                // Items of graphs deleted behind Provex's back go too.
                search::index::ensure_schema(&self.store).await?;
                search::index::remove_graph(&self.store, None).await?;
                self.store.graphs_list().await?
            }
        };
        let mut report = ReindexReport { graphs: Vec::with_capacity(graphs.len()) };
        for g in graphs {
            let n = search::reindex_graph(&self.store, &g).await?;
            report.graphs.push((g, n));
        }
        Ok(report)
    }

    /// Waits until the items of every delta written so far are in the search index.
    pub async fn search_flush(&self) {
        self.search.flush().await;
    }

    /// Turns the indexing of written deltas on or off for this session (on by default; a
    /// benchmark turns it off to measure what it costs).
    pub fn set_search_index(&self, on: bool) {
        self.search.set_enabled(on);
    }

    /// How many writes the search index took in this session (a live stream's batches are
    /// gathered into a few writes a second).
    pub fn search_index_writes(&self) -> u64 {
        self.search.writes()
    }

    /// Bounds the search index's queue to `bytes` of items (tests of an import many times
    /// the bound; the default, [`search::indexer::DEFAULT_QUEUE_BYTES`], suits any input).
    #[doc(hidden)]
    pub fn set_search_queue_bound(&self, bytes: usize) {
        self.search.set_queue_bound(bytes);
    }

    /// The search index's queue: its bound, and the most bytes of items it held at once
    /// since the last call.
    pub fn search_queue_high_water(&self) -> (usize, usize) {
        (self.search.queue_bound(), self.search.take_high_water())
    }

    /// How many items the search index holds for `graph`.
    pub async fn search_items(&self, graph: &str) -> Result<u64> {
        search::index::count(&self.store, graph).await
    }

    /// Removes a deleted graph's items from the search index, after those still queued. The
    /// graph is gone either way: a failure is a warning (`provex search reindex` mends it).
    pub(super) async fn forget_in_search(&self, graph: &str) {
        self.search.flush().await;
        if let Err(e) = search::index::remove_graph(&self.store, Some(graph)).await {
            tracing::warn!(graph, "the search index keeps the deleted graph's items: {e}");
        }
    }
}
