//! Live views of graphs for UIs: a graph's nodes with positions from the incremental layout,
//! kept current as deltas arrive, and the graph's stream of numbered messages (new nodes
//! where the layout puts them, changed nodes, new edges, verification results, tidy-up
//! moves) with a backlog for clients that reconnect. `provex serve` and the desktop shell
//! both serve these, so a window and a browser see the same thing.
//!
//! Each graph's view has its own lock (`state`); the map of views is locked only to look a
//! view up. Layouts run outside the delta log's lock, tidy-ups and first layouts on
//! blocking threads holding no lock, so slow work on one graph never stalls another.

mod backlog;
mod clusters;
mod convert;
mod load;
mod state;
#[cfg(test)]
mod tests;
mod tidy;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::broadcast;

use backlog::Since;
pub use backlog::DEFAULT_BACKLOG_BYTES;
use state::{GraphView, Load};

use super::{DeltaBatch, Provex};
use crate::api::{StreamMessage, View};
use crate::error::{Error, Result};

/// Most nodes a view draws whole, unless the client asks otherwise.
pub const DEFAULT_LIMIT: u32 = 50_000;
/// Largest limit a client may ask for.
pub const MAX_LIMIT: u32 = 200_000;

/// What a client asks a view for.
#[derive(Debug, Clone, Default)]
pub struct ViewRequest {
    /// Draw this node's neighbourhood rather than the whole graph.
    pub root: Option<String>,
    /// How far from the root (default 2).
    pub depth: Option<u32>,
    /// Most nodes to draw whole (default [`DEFAULT_LIMIT`]).
    pub limit: Option<u32>,
    /// Width over height of the screen area the view is drawn in (default [`DEFAULT_ASPECT`]):
    /// the drawing is packed to it when the view is first laid out, by whichever client comes
    /// first, and at each tidy-up.
    pub aspect: Option<f64>,
    /// Draw this cluster opened (a key from a cluster view).
    pub cluster: Option<String>,
}

/// Aspect ratio a view is packed to when its client does not say.
pub const DEFAULT_ASPECT: f64 = 1.5;

/// Layout options of a view drawn in a screen area of this aspect ratio.
pub(super) fn view_layout_options(aspect: Option<f64>) -> crate::layout::LayoutOptions {
    let aspect = aspect.filter(|a| a.is_finite() && *a > 0.0).unwrap_or(DEFAULT_ASPECT).clamp(0.1, 10.0);
    crate::layout::LayoutOptions { aspect: Some(aspect), ..Default::default() }
}

/// The live views of all graphs some client looks at.
pub(super) struct LiveViews {
    views: Mutex<HashMap<String, Arc<GraphView>>>,
    backlog_bytes: AtomicUsize,
    /// The edges between clusters, counted once per graph state (see `clusters.rs`).
    cluster_edges: clusters::EdgeCache,
}

impl Default for LiveViews {
    fn default() -> Self {
        LiveViews {
            views: Mutex::default(),
            backlog_bytes: AtomicUsize::new(DEFAULT_BACKLOG_BYTES),
            cluster_edges: clusters::EdgeCache::default(),
        }
    }
}

impl LiveViews {
    /// The map of views. Nothing that can panic runs under this lock, so a poisoned one
    /// still holds a whole map.
    fn map(&self) -> MutexGuard<'_, HashMap<String, Arc<GraphView>>> {
        self.views.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues a delta for its graph's view, if some client looks at that graph. The caller
    /// holds the delta log's lock, so each view gets its deltas in order; it then calls
    /// [`LiveViews::apply`] with what this returns, after releasing that lock.
    pub(super) fn route(&self, batch: &Arc<DeltaBatch>) -> Option<Arc<GraphView>> {
        let view = self.map().get(&batch.graph).cloned()?;
        view.enqueue(batch.clone());
        Some(view)
    }

    /// Applies the deltas queued for a view; a view whose layout fails or panics is
    /// dropped (its clients got a `reset` and load it again).
    pub(super) fn apply(&self, view: &Arc<GraphView>) {
        if !view.drain() {
            self.discard(view);
        }
    }

    /// Drops a view from the map, unless it was replaced already.
    fn discard(&self, view: &Arc<GraphView>) {
        let mut map = self.map();
        if map.get(&view.graph).is_some_and(|v| Arc::ptr_eq(v, view)) {
            map.remove(&view.graph);
        }
    }

    pub(super) fn forget(&self, graph: &str) {
        let view = self.map().remove(graph);
        if let Some(view) = view {
            let mut st = view.state();
            view.fail(&mut st, "graph deleted");
        }
    }

    /// The view of a graph, and whether the caller must load it (it was just made).
    fn get_or_insert(&self, graph: &str) -> (Arc<GraphView>, bool) {
        let mut map = self.map();
        match map.get(graph) {
            Some(v) if !v.is_broken() => (v.clone(), false),
            _ => {
                let v = Arc::new(GraphView::new(graph, self.backlog_bytes.load(Ordering::Relaxed)));
                map.insert(graph.to_owned(), v.clone());
                (v, true)
            }
        }
    }
}

/// Marks a view that is being loaded as failed if its loader stops early (an error, or the
/// caller went away), so callers waiting for it are woken and the next caller loads it anew.
struct Loading<'a> {
    views: &'a LiveViews,
    view: &'a Arc<GraphView>,
    reason: Option<String>,
}

impl Drop for Loading<'_> {
    fn drop(&mut self) {
        if let Some(reason) = self.reason.take() {
            let mut st = self.view.state();
            self.view.fail(&mut st, &reason);
            drop(st);
            self.views.discard(self.view);
        }
    }
}

impl Provex {
    /// The live view of a graph, loaded (and laid out) on first use. Callers that come
    /// while another loads it wait to be told it is ready.
    async fn live_view(&self, graph: &str, aspect: Option<f64>) -> Result<Arc<GraphView>> {
        crate::store::validate_graph_name(graph)?;
        let (view, fresh) = self.live.get_or_insert(graph);
        if !fresh {
            return match view.ready().await {
                Ok(()) => Ok(view),
                Err(reason) => Err(Error::Server(format!("loading the view of {graph} failed: {reason}"))),
            };
        }
        let mut guard =
            Loading { views: &self.live, view: &view, reason: Some("loading was stopped".into()) };
        match self.load_view(graph, &view, aspect).await {
            Ok(()) => {
                guard.reason = None;
                drop(guard);
                view.load.send_replace(Load::Ready);
                Ok(view)
            }
            Err(e) => {
                guard.reason = Some(e.to_string());
                Err(e)
            }
        }
    }

    /// Bytes of recent stream messages kept per graph for clients that reconnect (default
    /// [`DEFAULT_BACKLOG_BYTES`]); the oldest go first, and a client that needs one of them
    /// gets a `reset`. Applies to the views open now and to later ones.
    pub fn set_stream_backlog_bytes(&self, bytes: usize) {
        self.live.backlog_bytes.store(bytes, Ordering::Relaxed);
        let views: Vec<Arc<GraphView>> = self.live.map().values().cloned().collect();
        for v in views {
            v.state().stream.set_budget(bytes);
        }
    }

    /// A drawable view of a graph: the whole graph (kept current by [`Provex::watch`]) when
    /// it has at most `limit` nodes, else its clusters (semantic zoom); the neighbourhood of
    /// `root` when one is asked for, and cluster `cluster` opened when that is.
    pub async fn view(&self, graph: &str, req: ViewRequest) -> Result<View> {
        crate::store::validate_graph_name(graph)?;
        let limit = req.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
        let (total_nodes, total_edges) = match self.store.totals(graph).await {
            Ok(t) => t,
            Err(Error::NotFound { what: "graph", .. }) => (0, 0),
            Err(e) => return Err(e),
        };
        if req.cluster.is_some() || (req.root.is_none() && total_nodes > u64::from(limit)) {
            return self
                .cluster_view(graph, req.cluster.as_deref(), limit, req.aspect, (total_nodes, total_edges))
                .await;
        }
        match req.root {
            None => {
                let view = self.live_view(graph, req.aspect).await?;
                let st = view.state();
                Ok(st.snapshot(limit, total_edges))
            }
            Some(root) => {
                let depth = req.depth.unwrap_or(2);
                self.neighbourhood_view(graph, &root, depth, limit, req.aspect, (total_nodes, total_edges))
                    .await
            }
        }
    }

    /// A graph's stream: the messages after `since` still held (a `reset` first when some
    /// are gone or `since` is from an older view), and a receiver of the ones to come.
    pub async fn watch(
        &self,
        graph: &str,
        since: u64,
    ) -> Result<(Vec<Arc<StreamMessage>>, broadcast::Receiver<Arc<StreamMessage>>)> {
        let view = self.live_view(graph, None).await?;
        let st = view.state();
        let rx = st.stream.subscribe();
        match st.stream.since(since) {
            Since::Messages(backlog) => Ok((backlog, rx)),
            Since::Reset(reset) => Ok((vec![reset], rx)),
        }
    }

    /// Re-lays a graph's view out, keeping the drawing's order as far as it can; the moves
    /// go out on the stream as one `moves` message. Returns how many nodes moved. Runs on a
    /// blocking thread: reads and deltas of every graph go on meanwhile.
    pub async fn tidy(&self, graph: &str) -> Result<usize> {
        let view = self.live_view(graph, None).await?;
        match view.tidy().await? {
            Some(moved) => Ok(moved),
            None => {
                self.live.discard(&view);
                Err(Error::Server(format!("the view of {graph} broke; it is loaded again on next use")))
            }
        }
    }
}
