//! Loading a graph's view from the store, and the neighbourhood views drawn for graphs too
//! big to draw whole.

use std::collections::{HashMap, HashSet};

use super::convert::{from_summary, layout_node, place};
use super::state::GraphView;
use super::view_layout_options;
use crate::api::{View, ViewEdge, ViewMode};
use crate::error::{Error, Result};
use crate::facade::Provex;
use crate::layout::{self, Incremental, LayoutGraph};
use crate::store::view::{NodeSummary, AGENT_KEYS, CONTEXT_KEYS, STANDING_KEY, STATUS_KEY, VIEW_TEXT_KEYS};
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
        let mut g = LayoutGraph::with_capacity(nodes.len(), edges.len());
        let mut index = HashMap::with_capacity(nodes.len());
        let mut view_nodes = HashMap::with_capacity(nodes.len());
        let mut arrival = 0u32;
        for s in nodes {
            if index.contains_key(&s.name) {
                continue;
            }
            let ix = g.add_node(layout_node(&s.name, &s.label, s.base_type.as_deref()));
            index.insert(s.name.clone(), ix);
            view_nodes.insert(s.name.clone(), from_summary(s, arrival));
            arrival += 1;
        }
        let mut edge_set = HashSet::with_capacity(edges.len());
        let mut edge_list = Vec::with_capacity(edges.len());
        for e in edges {
            let (Some(&s), Some(&t)) = (index.get(&e.source), index.get(&e.target)) else { continue };
            let v = ViewEdge { source: e.source, target: e.target, rel: e.rel, prov: e.prov, a2a: e.a2a };
            if edge_set.insert(v.clone()) {
                g.add_edge(s, t, layout::LayoutEdge { kind: Some(v.rel.clone()) });
                edge_list.push(v);
            }
        }
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
        let mut seen = HashSet::new();
        let mut g = LayoutGraph::new();
        let mut index = HashMap::new();
        let mut nodes = Vec::new();
        for n in up.nodes.into_iter().chain(down.nodes) {
            if !seen.insert(n.id.clone()) || nodes.len() >= limit as usize {
                continue;
            }
            index.insert(n.id.clone(), g.add_node(layout_node(&n.id, &n.label, n.base_type.as_deref())));
            let prop = |keys: &[&str]| {
                keys.iter().find_map(|k| n.properties.get(*k).and_then(|v| v.as_str().map(str::to_owned)))
            };
            let summary = NodeSummary {
                name: n.id.clone(),
                label: n.label.clone(),
                base_type: n.base_type.clone(),
                agent: prop(&AGENT_KEYS),
                context: prop(&CONTEXT_KEYS),
                status: prop(&[STATUS_KEY]),
                text: prop(&VIEW_TEXT_KEYS),
                standing: prop(&[STANDING_KEY]),
            };
            nodes.push(from_summary(summary, nodes.len() as u32));
        }
        let mut edges = Vec::new();
        let mut edge_set = HashSet::new();
        for e in up.edges.into_iter().chain(down.edges) {
            let (Some(&s), Some(&t)) = (index.get(&e.source), index.get(&e.target)) else { continue };
            let v = ViewEdge { source: e.source, target: e.target, rel: e.rel, prov: e.prov, a2a: e.a2a };
            if edge_set.insert(v.clone()) {
                g.add_edge(s, t, layout::LayoutEdge { kind: Some(v.rel.clone()) });
                edges.push(v);
            }
        }
        let laid = layout::full(&g, &view_layout_options(aspect));
        for (v, p) in nodes.iter_mut().zip(&laid.nodes) {
            place(v, p);
        }
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
        })
    }
}
