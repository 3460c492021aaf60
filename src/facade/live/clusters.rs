//! Cluster views (semantic zoom, issue 16): a graph larger than the view limit opens as one
//! box per top-level cluster (`layout::cluster`), with member counts and signature statuses;
//! a box opens into its sub-clusters (an agent's tasks) or, once few enough, into its nodes.
//! The counts come from grouped reads (`store::groups`), so a graph of a million nodes
//! opens from a few hundred rows. Counting the nodes of a million-node graph takes under a
//! second, its edges several: a view has the boxes, and the edges between them come from
//! [`Provex::cluster_edges`], counted once per state of the graph (its node and edge counts)
//! and kept.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::convert::{from_summary, layout_node, place};
use super::view_layout_options;
use crate::api::{ClusterInfo, View, ViewEdge, ViewMode, ViewNode};
use crate::error::Result;
use crate::facade::Provex;
use crate::layout::cluster::{self, Clusters};
use crate::layout::{self, LayoutEdge, LayoutGraph, LayoutNode};

/// (graph, cluster opened, node count, edge count): one state of one view of a graph.
type StateKey = (String, String, u64, u64);

/// Edges between clusters by the state of the view they were counted for.
#[derive(Default)]
pub(super) struct EdgeCache(Mutex<HashMap<StateKey, Arc<Vec<ViewEdge>>>>);

/// Graph states kept at most (each holds a few hundred edges).
const CACHED: usize = 64;

/// Label of the boxes that stand for clusters.
pub const CLUSTER_LABEL: &str = "Cluster";
/// Width and height of a cluster's box, in layout pixels.
const BOX_WIDTH: f64 = 300.0;
const BOX_HEIGHT: f64 = 56.0;

/// "1,234,567"
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The worst signature status among a cluster's members, for its badge: a forged or broken
/// signature anywhere in it shows.
fn worst(statuses: &[(String, u64)]) -> Option<String> {
    const ORDER: [&str; 6] = ["invalid", "malformed", "unknown_key", "untrusted_key", "unsigned", "valid"];
    ORDER.iter().find(|s| statuses.iter().any(|(k, n)| k == *s && *n > 0)).map(|s| (*s).to_owned())
}

/// The edges between clusters as a view draws them.
fn view_edges(c: &Clusters) -> Vec<ViewEdge> {
    c.edges()
        .into_iter()
        .map(|(a, b, count)| ViewEdge {
            source: a.to_owned(),
            target: b.to_owned(),
            rel: format!("{} edges", thousands(count)),
            prov: None,
            a2a: None,
        })
        .collect()
}

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
        let mut labels: Vec<(String, u64)> = cl.labels.iter().map(|(k, v)| (k.clone(), *v)).collect();
        labels.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let statuses: Vec<(String, u64)> = cl.statuses.iter().map(|(k, v)| (k.clone(), *v)).collect();
        let title = cluster::title(&cl.key);
        let opens = if cl.members <= u64::from(limit) || cl.key.contains(cluster::SEP) {
            ViewMode::Members
        } else {
            ViewMode::Clusters
        };
        let mut n = LayoutNode::new(&cl.key, BOX_WIDTH, BOX_HEIGHT);
        n.label = CLUSTER_LABEL.to_owned();
        index.insert(cl.key.clone(), g.add_node(n));
        nodes.push(ViewNode {
            id: cl.key.clone(),
            label: CLUSTER_LABEL.to_owned(),
            base_type: None,
            x: 0.0,
            y: 0.0,
            w: 0.0,
            h: 0.0,
            layer: 0,
            arrival: i as u32,
            agent: None,
            context: None,
            status: worst(&statuses),
            // The count first: a caption cut to the box's width keeps it.
            text: Some(format!("{} · {title}", thousands(cl.members))),
            cluster: Some(ClusterInfo { title, members: cl.members, labels, statuses, opens }),
        });
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
            let mut c = Clusters::new();
            for ng in self.store.node_groups(graph, false, None).await? {
                let key = cluster::top_key(&ng.label, ng.agent.as_deref(), ng.has_context);
                c.add_nodes(&key, &ng.label, ng.status.as_deref(), ng.count);
            }
            let mut v = clusters_view(graph, None, &c, edges, limit, aspect);
            (v.total_nodes, v.total_edges) = totals;
            return Ok(v);
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

    /// The edges between the clusters of a graph (`key` none) or of cluster `key` opened, with
    /// how many member edges each stands for; counted once per state of the graph.
    pub async fn cluster_edges(&self, graph: &str, key: Option<&str>) -> Result<Vec<ViewEdge>> {
        crate::store::validate_graph_name(graph)?;
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
        let mut g = LayoutGraph::new();
        let mut index = HashMap::new();
        let mut nodes = Vec::new();
        for s in summaries {
            index.insert(s.name.clone(), g.add_node(layout_node(&s.name, &s.label, s.base_type.as_deref())));
            let arrival = nodes.len() as u32;
            nodes.push(from_summary(s, arrival));
        }
        let mut edges = Vec::new();
        for e in edge_summaries {
            let (Some(&s), Some(&t)) = (index.get(&e.source), index.get(&e.target)) else { continue };
            g.add_edge(s, t, LayoutEdge { kind: Some(e.rel.clone()) });
            edges.push(ViewEdge { source: e.source, target: e.target, rel: e.rel, prov: e.prov, a2a: e.a2a });
        }
        let laid = layout::full(&g, &view_layout_options(aspect));
        for (v, p) in nodes.iter_mut().zip(&laid.nodes) {
            place(v, p);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_with_separators_and_the_worst_status_shows() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
        let s = |v: &[(&str, u64)]| v.iter().map(|(k, n)| ((*k).to_owned(), *n)).collect::<Vec<_>>();
        assert_eq!(worst(&s(&[("valid", 3), ("invalid", 1)])), Some("invalid".into()));
        assert_eq!(worst(&s(&[("valid", 3), ("invalid", 0)])), Some("valid".into()));
        assert_eq!(worst(&s(&[])), None);
    }
}
