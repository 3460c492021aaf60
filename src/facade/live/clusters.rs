//! Cluster views (semantic zoom): a graph larger than the view limit opens as one
//! box per top-level cluster (`layout::cluster`), with member counts and signature statuses;
//! a box opens into its sub-clusters (an agent's tasks) or, once few enough, into its nodes.
//! The counts come from grouped reads (`store::groups`), so a graph of a million nodes
//! opens from a few hundred rows. Counting the nodes of a million-node graph takes under a
//! second, its edges several: a view has the boxes, and the edges between them come from
//! [`Provex::cluster_edges`], counted once per state of the graph (its node and edge counts)
//! and kept.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::boxes::{box_layout_node, box_node, view_edges};
use super::convert::{from_summary, place};
use super::feed::{ClusterFeed, Index};
use super::load::Drawing;
use super::view_layout_options;
use crate::api::{View, ViewEdge, ViewMode};
use crate::error::{Error, Result};
use crate::facade::Provex;
use crate::layout::cluster::{self, Clusters};
use crate::layout::{self, LayoutEdge, LayoutGraph};
use crate::store::members::empty_if_missing;
use crate::store::Store;

/// (graph, cluster opened, node count, edge count): one state of one view of a graph.
type StateKey = (String, String, u64, u64);

/// Edges between clusters by the state of the view they were counted for.
#[derive(Default)]
pub(super) struct EdgeCache(Mutex<HashMap<StateKey, Arc<Vec<ViewEdge>>>>);

/// Graph states kept at most (each holds a few hundred edges).
const CACHED: usize = 64;

/// The view of a set of clusters, laid out like any graph, with the edges between them
/// that are known already (`edges`).
fn clusters_view(
    graph: &str,
    root: Option<&str>,
    c: &Clusters,
    edges: &[ViewEdge],
    limit: u32,
    aspect: Option<f64>,
) -> View {
    let mut g = LayoutGraph::new();
    let mut index = HashMap::new();
    let mut nodes = Vec::new();
    for (i, cl) in c.clusters().iter().enumerate() {
        let v = box_node(cl, i as u32, limit);
        index.insert(cl.key.clone(), g.add_node(box_layout_node(&cl.key)));
        nodes.push(v);
    }
    let mut kept = Vec::new();
    for e in edges {
        let (Some(&s), Some(&t)) = (index.get(&e.source), index.get(&e.target)) else { continue };
        g.add_edge(s, t, LayoutEdge { kind: None });
        kept.push(e.clone());
    }
    let laid = layout::full(&g, &view_layout_options(aspect));
    for (v, p) in nodes.iter_mut().zip(&laid.nodes) {
        place(v, p);
    }
    View {
        graph: graph.to_owned(),
        seq: 0,
        mode: ViewMode::Clusters,
        root: root.map(str::to_owned),
        total_nodes: c.total_members(),
        total_edges: c.total_edges(),
        limit,
        nodes,
        edges: kept,
        columns: None,
    }
}

/// Reads a feed's index of every node and edge, then hands it over (see `feed.rs`).
async fn read_index(store: Arc<Store>, feed: Arc<ClusterFeed>) {
    let started = std::time::Instant::now();
    let mut index = Index::new();
    let mut counted = Clusters::new();
    let nodes =
        empty_if_missing(store.member_rows(&feed.graph, |row| index.add_member(&mut counted, row)).await);
    let read = match nodes {
        Ok(()) => {
            empty_if_missing(store.edge_rows(&feed.graph, |row| index.add_edge(&mut counted, row)).await)
        }
        Err(e) => Err(e),
    };
    match read {
        Ok(()) => {
            tracing::info!(
                "cluster index of {}: {} nodes, {} edges read in {} ms",
                feed.graph,
                counted.total_members(),
                counted.total_edges(),
                started.elapsed().as_millis()
            );
            feed.indexed(index, counted);
        }
        Err(e) => feed.fail(&format!("reading the cluster index: {e}")),
    }
}

impl Provex {
    /// The clusters of a graph (`key` none), or cluster `key` opened: its sub-clusters, or
    /// its nodes when they are at most `limit` (or it is a sub-cluster).
    pub(super) async fn cluster_view(
        &self,
        graph: &str,
        key: Option<&str>,
        limit: u32,
        aspect: Option<f64>,
        totals: (u64, u64),
    ) -> Result<View> {
        let edges = self.live.cluster_edges.get(graph, key.unwrap_or(""), totals);
        let edges = edges.as_deref().map(Vec::as_slice).unwrap_or(&[]);
        let Some(key) = key else {
            let feed = self.top_clusters(graph, limit, aspect, edges).await?;
            let st = feed.state();
            return Ok(st.snapshot(totals, edges));
        };
        let top = key.split(cluster::SEP).next().unwrap_or(key);
        if top == key {
            let groups = self.store.node_groups(graph, true, Some(top)).await?;
            let mine: Vec<_> = groups
                .iter()
                .filter(|g| cluster::top_key(&g.label, g.agent.as_deref(), g.has_context) == top)
                .collect();
            let members: u64 = mine.iter().map(|g| g.count).sum();
            if members > u64::from(limit) {
                let mut c = Clusters::new();
                for ng in mine {
                    let k = cluster::sub_key(&ng.label, ng.agent.as_deref(), ng.context.as_deref());
                    c.add_nodes(&k, &ng.label, ng.status.as_deref(), ng.count);
                }
                return Ok(clusters_view(graph, Some(key), &c, edges, limit, aspect));
            }
        }
        self.members_view(graph, key, limit, aspect).await
    }

    /// The live top-level clusters of a graph: its feed, made from grouped reads (and its
    /// index read in the background) when it has none. `edges`: those known between them.
    async fn top_clusters(
        &self,
        graph: &str,
        limit: u32,
        aspect: Option<f64>,
        edges: &[ViewEdge],
    ) -> Result<Arc<ClusterFeed>> {
        if let Some(feed) = self.live.feed(graph) {
            return Ok(feed);
        }
        let mut c = Clusters::new();
        match self.store.node_groups(graph, false, None).await {
            Ok(groups) => {
                for ng in groups {
                    let key = cluster::top_key(&ng.label, ng.agent.as_deref(), ng.has_context);
                    c.add_nodes(&key, &ng.label, ng.status.as_deref(), ng.count);
                }
            }
            Err(Error::NotFound { what: "graph", .. }) => {}
            Err(e) => return Err(e),
        }
        let opts = view_layout_options(aspect);
        let backlog = self.live.backlog_bytes.load(std::sync::atomic::Ordering::Relaxed);
        let (edges, limit, graph_name) = (edges.to_vec(), limit, graph.to_owned());
        let feed = tokio::task::spawn_blocking(move || {
            ClusterFeed::new(&graph_name, c, &edges, limit, opts, backlog)
        })
        .await
        .map_err(|e| Error::Server(format!("layout thread: {e}")))?
        .map_err(|e| Error::Server(format!("cluster layout of {graph}: {e}")))?;
        let (feed, mine) = self.live.insert_feed(feed);
        if mine {
            tokio::spawn(read_index(self.store.clone(), feed.clone()));
        }
        Ok(feed)
    }

    /// The cluster feed of a graph, made as its cluster view would make it.
    pub(super) async fn cluster_feed(&self, graph: &str) -> Result<Arc<ClusterFeed>> {
        crate::store::validate_graph_name(graph)?;
        self.top_clusters(graph, super::DEFAULT_LIMIT, None, &[]).await
    }

    /// The edges between the clusters of a graph (`key` none) or of cluster `key` opened, with
    /// how many member edges each stands for; counted once per state of the graph.
    pub async fn cluster_edges(&self, graph: &str, key: Option<&str>) -> Result<Vec<ViewEdge>> {
        crate::store::validate_graph_name(graph)?;
        if key.is_none() {
            if let Some(feed) = self.live.feed(graph) {
                let st = feed.state();
                if st.index.is_some() {
                    return Ok(view_edges(&st.clusters));
                }
            }
        }
        let totals = self.store.totals(graph).await?;
        if let Some(hit) = self.live.cluster_edges.get(graph, key.unwrap_or(""), totals) {
            return Ok(hit.as_ref().clone());
        }
        let mut c = Clusters::new();
        match key {
            None => {
                for eg in self.store.edge_groups(graph, false, None).await? {
                    c.add_edges(&eg.from.top_key(), &eg.to.top_key(), eg.count);
                }
            }
            Some(key) => {
                let top = key.split(cluster::SEP).next().unwrap_or(key);
                if top == key {
                    for eg in self.store.edge_groups(graph, true, Some(top)).await? {
                        if eg.from.top_key() == top && eg.to.top_key() == top {
                            c.add_edges(&eg.from.sub_key(), &eg.to.sub_key(), eg.count);
                        }
                    }
                }
            }
        }
        let edges = view_edges(&c);
        self.live.cluster_edges.put(graph, key.unwrap_or(""), totals, Arc::new(edges.clone()));
        Ok(edges)
    }

    /// The nodes of one cluster (at most `limit`) and the edges between them, laid out.
    async fn members_view(&self, graph: &str, key: &str, limit: u32, aspect: Option<f64>) -> Result<View> {
        let (summaries, edge_summaries, matched) = self.store.cluster_members(graph, key, limit).await?;
        let mut d = Drawing::with_capacity(summaries.len(), edge_summaries.len());
        let mut nodes = Vec::new();
        for s in summaries {
            if d.node(&s.name, &s.label, s.base_type.as_deref()) {
                let arrival = nodes.len() as u32;
                nodes.push(from_summary(s, arrival));
            }
        }
        d.edges(edge_summaries);
        let edges = d.lay_out(&mut nodes, aspect);
        Ok(View {
            graph: graph.to_owned(),
            seq: 0,
            mode: ViewMode::Members,
            root: Some(key.to_owned()),
            // The cluster's nodes, of which the first `limit` are drawn.
            total_nodes: matched,
            total_edges: edges.len() as u64,
            limit,
            nodes,
            edges,
            columns: None,
        })
    }
}

impl EdgeCache {
    fn get(&self, graph: &str, key: &str, totals: (u64, u64)) -> Option<Arc<Vec<ViewEdge>>> {
        let map = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        map.get(&(graph.to_owned(), key.to_owned(), totals.0, totals.1)).cloned()
    }

    fn put(&self, graph: &str, key: &str, totals: (u64, u64), edges: Arc<Vec<ViewEdge>>) {
        let mut map = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // Older states of this graph and cluster are of no more use.
        map.retain(|k, _| !(k.0 == graph && k.1 == key));
        if map.len() >= CACHED {
            map.clear();
        }
        map.insert((graph.to_owned(), key.to_owned(), totals.0, totals.1), edges);
    }
}
