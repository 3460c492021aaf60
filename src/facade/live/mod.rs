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
mod boxes;
mod clusters;
mod convert;
mod feed;
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
use feed::ClusterFeed;
use state::{GraphView, Load};

use super::{DeltaBatch, Provex};
use crate::api::{Columns, StreamMessage, StreamRequest, View};
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
    /// Answer with the nodes and edges as columns (`View::columns`) rather than a record each.
    pub columns: bool,
}

/// Aspect ratio a view is packed to when its client does not say.
pub const DEFAULT_ASPECT: f64 = 1.5;

/// Layout options of a view drawn in a screen area of this aspect ratio.
pub(super) fn view_layout_options(aspect: Option<f64>) -> crate::layout::LayoutOptions {
    let aspect = aspect.filter(|a| a.is_finite() && *a > 0.0).unwrap_or(DEFAULT_ASPECT).clamp(0.1, 10.0);
    crate::layout::LayoutOptions { aspect: Some(aspect), ..Default::default() }
}

/// A delta's destinations: the graph's live view and its cluster feed, where there are.
pub(super) type Routed = (Option<Arc<GraphView>>, Option<Arc<ClusterFeed>>);

/// The live views of all graphs some client looks at.
pub(super) struct LiveViews {
    views: Mutex<HashMap<String, Arc<GraphView>>>,
    backlog_bytes: AtomicUsize,
    /// The edges between clusters, counted once per graph state (see `clusters.rs`).
    cluster_edges: clusters::EdgeCache,
    /// The live top-level clusters of graphs some client looks at as clusters (`feed.rs`).
    feeds: Mutex<HashMap<String, Arc<ClusterFeed>>>,
}

impl Default for LiveViews {
    fn default() -> Self {
        LiveViews {
            views: Mutex::default(),
            backlog_bytes: AtomicUsize::new(DEFAULT_BACKLOG_BYTES),
            cluster_edges: clusters::EdgeCache::default(),
            feeds: Mutex::default(),
        }
    }
}

impl LiveViews {
    /// The map of views. Nothing that can panic runs under this lock, so a poisoned one
    /// still holds a whole map.
    fn map(&self) -> MutexGuard<'_, HashMap<String, Arc<GraphView>>> {
        self.views.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The feeds' map (see [`LiveViews::map`]).
    fn feeds(&self) -> MutexGuard<'_, HashMap<String, Arc<ClusterFeed>>> {
        self.feeds.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The cluster feed of a graph, unless it has none or it broke.
    fn feed(&self, graph: &str) -> Option<Arc<ClusterFeed>> {
        self.feeds().get(graph).filter(|f| !f.is_broken()).cloned()
    }

    /// Keeps a new feed for its graph, unless another came first: returns the one kept and
    /// whether it is this one.
    fn insert_feed(&self, feed: ClusterFeed) -> (Arc<ClusterFeed>, bool) {
        let mut feeds = self.feeds();
        match feeds.get(&feed.graph) {
            Some(f) if !f.is_broken() => (f.clone(), false),
            _ => {
                let feed = Arc::new(feed);
                feeds.insert(feed.graph.clone(), feed.clone());
                (feed, true)
            }
        }
    }

    /// Whether some client looks at this graph (its view or its cluster feed is open).
    pub(super) fn watches(&self, graph: &str) -> bool {
        self.map().contains_key(graph) || self.feeds().contains_key(graph)
    }

    /// Queues a delta for its graph's view and cluster feed, where some client looks at that
    /// graph. The caller holds the delta log's lock, so each gets its deltas in order; it
    /// then calls [`LiveViews::apply`] with what this returns, after releasing that lock.
    pub(super) fn route(&self, batch: &Arc<DeltaBatch>) -> Routed {
        let view = self.map().get(&batch.graph).cloned();
        if let Some(v) = &view {
            v.enqueue(batch.clone());
        }
        let feed = self.feeds().get(&batch.graph).cloned();
        if let Some(f) = &feed {
            f.enqueue(batch.clone());
        }
        (view, feed)
    }

    /// Applies the deltas queued for a view and a feed; a view whose layout fails or panics
    /// is dropped (its clients got a `reset` and load it again).
    pub(super) fn apply(&self, (view, feed): Routed) {
        if let Some(view) = view {
            if !view.drain() {
                self.discard(&view);
            }
        }
        if let Some(feed) = feed {
            feed.drain();
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
        let feed = self.feeds().remove(graph);
        if let Some(feed) = feed {
            feed.fail("graph deleted");
        }
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

/// Tells the clients of every open view and cluster feed when the database goes away and
/// comes back (`health`: the store's), as long as `live` is in use.
pub(super) fn announce_health(
    live: &Arc<LiveViews>,
    mut health: broadcast::Receiver<crate::store::supervisor::Health>,
) {
    let live = Arc::downgrade(live);
    tokio::spawn(async move {
        loop {
            let now = match health.recv().await {
                Ok(h) => h,
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return,
            };
            let Some(live) = live.upgrade() else { return };
            live.announce(&now);
        }
    });
}

impl LiveViews {
    /// Puts the database's state on every open stream, numbered like its other messages
    /// so a client that reconnects gets it too.
    pub(super) fn announce(&self, health: &crate::store::supervisor::Health) {
        use crate::store::supervisor::Health;
        let message = match health {
            Health::Up { .. } => "the database is back",
            Health::Restarting { reason } | Health::Failed { reason } => reason.as_str(),
        };
        let views: Vec<Arc<GraphView>> = self.map().values().cloned().collect();
        for v in views {
            v.state().stream.publish_database(health.state(), message);
        }
        let feeds: Vec<Arc<ClusterFeed>> = self.feeds().values().cloned().collect();
        for f in feeds {
            f.state().stream.publish_database(health.state(), message);
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
        let feeds: Vec<Arc<ClusterFeed>> = self.live.feeds().values().cloned().collect();
        for f in feeds {
            f.state().stream.set_budget(bytes);
        }
    }

    /// A drawable view of a graph: the whole graph (kept current by [`Provex::watch`]) when
    /// it has at most `limit` nodes, else its clusters (semantic zoom); the neighbourhood of
    /// `root` when one is asked for, and cluster `cluster` opened when that is.
    pub async fn view(&self, graph: &str, req: ViewRequest) -> Result<View> {
        let columns = req.columns;
        let view = self.view_of(graph, req).await?;
        Ok(if columns { view.into_columns() } else { view })
    }

    /// [`Provex::view`]; the whole view in the form asked for, the others as records.
    async fn view_of(&self, graph: &str, req: ViewRequest) -> Result<View> {
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
                let live = self.live_view(graph, req.aspect).await?;
                let (mut view, revision) = live.state().snapshot(limit, total_edges, req.columns);
                // Columns just built are encoded here, outside the view's lock, and kept for
                // the next request if the drawing has not changed meanwhile.
                if let Some(built @ Columns::Built(_)) = &view.columns {
                    let json =
                        built.to_json().map_err(|e| Error::Server(format!("encoding the view: {e}")))?;
                    live.state().keep_columns(revision, limit, total_edges, json.clone());
                    view.columns = Some(Columns::Json(json));
                }
                Ok(view)
            }
            Some(root) => {
                let depth = req.depth.unwrap_or(2);
                self.neighbourhood_view(graph, &root, depth, limit, req.aspect, (total_nodes, total_edges))
                    .await
            }
        }
    }

    /// A graph's stream (`req.clusters`: its cluster view's): the messages after `since`
    /// still held (a `reset` first when some are gone or `since` is from an older view), and
    /// a receiver of the ones to come.
    pub async fn watch(
        &self,
        req: &StreamRequest,
        since: u64,
    ) -> Result<(Vec<Arc<StreamMessage>>, broadcast::Receiver<Arc<StreamMessage>>)> {
        let graph = req.graph.as_str();
        let held = |stream: &backlog::Backlog| {
            let rx = stream.subscribe();
            match stream.since(since) {
                Since::Messages(backlog) => (backlog, rx),
                Since::Reset(reset) => (vec![reset], rx),
            }
        };
        if req.clusters.unwrap_or(false) {
            let feed = self.cluster_feed(graph).await?;
            let st = feed.state();
            return Ok(held(&st.stream));
        }
        let view = self.live_view(graph, None).await?;
        let st = view.state();
        Ok(held(&st.stream))
    }

    /// Re-lays a graph's view out, keeping the drawing's order as far as it can; the moves
    /// go out on the stream as one `moves` message, and are returned. Runs on a blocking
    /// thread: reads and deltas of every graph go on meanwhile.
    pub async fn tidy(&self, graph: &str) -> Result<Vec<crate::api::NodeMove>> {
        let view = self.live_view(graph, None).await?;
        match view.tidy().await? {
            Some(moved) => Ok(moved),
            None => {
                self.live.discard(&view);
                Err(Error::Server(format!("the view of {graph} broke; it is loaded again on next use")))
            }
        }
    }

    /// The moves a tidy-up of a graph's view would make, for one viewer to try: the layout
    /// every viewer is served, and the graph's stream, are left as they are.
    pub async fn tidy_preview(&self, graph: &str) -> Result<Vec<crate::api::NodeMove>> {
        let view = self.live_view(graph, None).await?;
        view.tidy_preview().await
    }
}
