//! Loading a graph's view from the store, and the neighbourhood views drawn for graphs too
//! big to draw whole.

use std::collections::{HashMap, HashSet};

use super::convert::{from_summary, layout_node, place};
use super::state::GraphView;
use super::view_layout_options;
use crate::api::ViewNode;
use crate::api::{View, ViewEdge, ViewMode};
use crate::error::{Error, Result};
use crate::facade::Provex;
use crate::layout::{self, Incremental, LayoutEdge, LayoutGraph};
use crate::store::canvas_reads::NodeSummary;
use crate::store::TraceDirection;

impl Provex {
    /// Reads a graph and lays it out (on a blocking thread, holding no lock), then hands
    /// the view its drawing and applies the deltas that arrived meanwhile.
    pub(super) async fn load_view(&self, graph: &str, view: &GraphView, aspect: Option<f64>) -> Result<()> {
        let (nodes, edges) = match self.store.view_nodes(graph).await {
            Ok(nodes) => (nodes, self.store.view_edges(graph).await?),
            // A graph nobody wrote yet: an empty view that fills as it is written.
            Err(Error::NotFound { what: "graph", .. }) => (Vec::new(), Vec::new()),
            Err(e) => return Err(e),
        };
        let started = std::time::Instant::now();
        let mut d = Drawing::with_capacity(nodes.len(), edges.len());
        let mut view_nodes = HashMap::with_capacity(nodes.len());
        let mut arrival = 0u32;
        for s in nodes {
            if d.node(&s.name, &s.label, s.base_type.as_deref()) {
                view_nodes.insert(s.name.clone(), from_summary(s, arrival));
                arrival += 1;
            }
        }
        d.edges(edges);
        let Drawing { g, edge_set, edges: edge_list, .. } = d;
        let layout = tokio::task::spawn_blocking(move || {
            Incremental::from_graph(&g, view_layout_options(aspect)).map_err(|e| Error::Server(e.to_string()))
        })
        .await
        .map_err(|e| Error::Server(format!("layout thread: {e}")))??;
        for p in layout.layout().nodes {
            if let Some(v) = view_nodes.get_mut(&p.id) {
                place(v, &p);
            }
        }
        tracing::debug!(
            graph,
            nodes = view_nodes.len(),
            ms = started.elapsed().as_millis() as u64,
            "view laid out"
        );
        let mut st = view.state();
        if st.broken {
            return Err(Error::Server(format!("the view of {graph} was dropped while it was loaded")));
        }
        st.changed();
        st.layout = Some(layout);
        st.nodes = view_nodes;
        st.edges = edge_set;
        st.edge_list = edge_list;
        st.next_arrival = arrival;
        drop(st);
        if view.drain() {
            Ok(())
        } else {
            Err(Error::Server(format!("the view of {graph} broke while it was loaded")))
        }
    }

    pub(super) async fn neighbourhood_view(
        &self,
        graph: &str,
        root: &str,
        depth: u32,
        limit: u32,
        aspect: Option<f64>,
        (total_nodes, total_edges): (u64, u64),
    ) -> Result<View> {
        let depth = depth.clamp(1, 10);
        let up = self.trace(graph, root, TraceDirection::Up, depth).await?;
        let down = self.trace(graph, root, TraceDirection::Down, depth).await?;
        let mut d = Drawing::with_capacity(0, 0);
        let mut nodes = Vec::new();
        for n in up.nodes.into_iter().chain(down.nodes) {
            if nodes.len() >= limit as usize || !d.node(&n.id, &n.label, n.base_type.as_deref()) {
                continue;
            }
            let prop = |keys: &[&str]| {
                keys.iter().find_map(|k| n.properties.get(*k).and_then(|v| v.as_str().map(str::to_owned)))
            };
            let summary = NodeSummary::from_props(n.id.clone(), n.label.clone(), n.base_type.clone(), prop);
            nodes.push(from_summary(summary, nodes.len() as u32));
        }
        d.edges(up.edges.into_iter().chain(down.edges));
        let edges = d.lay_out(&mut nodes, aspect);
        Ok(View {
            graph: graph.to_owned(),
            seq: 0,
            mode: ViewMode::Neighbourhood,
            root: Some(root.to_owned()),
            total_nodes,
            total_edges,
            limit,
            nodes,
            edges,
            columns: None,
        })
    }
}

/// A view being drawn: its nodes as a layout graph (each name once), and the edges whose two
/// ends are among them (each `ViewEdge` once), in the order given. The full view, a
/// neighbourhood and a cluster's members are all assembled through it.
pub(super) struct Drawing {
    pub(super) g: LayoutGraph,
    index: HashMap<String, petgraph::graph::NodeIndex>,
    pub(super) edge_set: HashSet<ViewEdge>,
    pub(super) edges: Vec<ViewEdge>,
}

impl Drawing {
    pub(super) fn with_capacity(nodes: usize, edges: usize) -> Drawing {
        Drawing {
            g: LayoutGraph::with_capacity(nodes, edges),
            index: HashMap::with_capacity(nodes),
            edge_set: HashSet::with_capacity(edges),
            edges: Vec::with_capacity(edges),
        }
    }

    /// Adds a node; `false` (and nothing added) when one of that name is in already.
    pub(super) fn node(&mut self, name: &str, label: &str, base_type: Option<&str>) -> bool {
        if self.index.contains_key(name) {
            return false;
        }
        let ix = self.g.add_node(layout_node(name, label, base_type));
        self.index.insert(name.to_owned(), ix);
        true
    }

    /// Adds an edge if both its ends are in and it is not in already.
    pub(super) fn edge(&mut self, v: ViewEdge) {
        let (Some(&s), Some(&t)) = (self.index.get(&v.source), self.index.get(&v.target)) else { return };
        if self.edge_set.insert(v.clone()) {
            self.g.add_edge(s, t, LayoutEdge { kind: Some(v.rel.clone()) });
            self.edges.push(v);
        }
    }

    /// Adds the stored edges whose two ends are in (each once).
    pub(super) fn edges(&mut self, edges: impl IntoIterator<Item = impl Into<ViewEdge>>) {
        for e in edges {
            self.edge(e.into());
        }
    }

    /// Lays the drawing out whole and places `nodes` (in the order they were added); its edges.
    pub(super) fn lay_out(self, nodes: &mut [ViewNode], aspect: Option<f64>) -> Vec<ViewEdge> {
        let laid = layout::full(&self.g, &view_layout_options(aspect));
        for (v, p) in nodes.iter_mut().zip(&laid.nodes) {
            place(v, p);
        }
        self.edges
    }
}
