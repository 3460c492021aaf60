//! The facade's layouts: of a graph file, of a whole stored graph, or of a node's
//! neighbourhood, with edges in their stored direction (PROV arrows point from an effect to
//! its causes, so with `Down` an answer is drawn above where it came from).

use std::collections::BTreeMap;
use std::path::Path;

use super::Provex;
use crate::error::{Error, Result};
use crate::layout::{self, GraphEdge, GraphFile, GraphNode, Layout, LayoutGraph, LayoutOptions};
use crate::store::{Subgraph, TraceDirection};

/// A layout with the graph it was made from (the SVG renderer needs both).
pub struct LaidOut {
    pub layout: Layout,
    pub graph: LayoutGraph,
}

impl LaidOut {
    pub fn to_json(&self) -> String {
        self.layout.to_json()
    }

    pub fn to_svg(&self) -> String {
        layout::to_svg(&self.layout, &self.graph)
    }
}

fn lay_out(file: &GraphFile, opts: &LayoutOptions, origin: &Path) -> Result<LaidOut> {
    let graph = file
        .to_layout_graph()
        .map_err(|e| Error::Input { path: origin.to_owned(), reason: e.to_string() })?;
    Ok(LaidOut { layout: layout::full(&graph, opts), graph })
}

/// Lays out a graph file (`{"nodes":[{"id","label"}],"edges":[{"source","target"}]}`, the
/// shape `provex trace --format json` writes), no database needed.
pub fn layout_file(path: &Path, opts: &LayoutOptions) -> Result<LaidOut> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let file = GraphFile::from_json(&text)
        .map_err(|e| Error::Input { path: path.to_owned(), reason: e.to_string() })?;
    lay_out(&file, opts, path)
}

/// A stored subgraph as a layout input: nodes labelled by name, with their base type.
pub fn graph_file(sub: &Subgraph) -> GraphFile {
    GraphFile {
        nodes: sub
            .nodes
            .iter()
            .map(|n| GraphNode {
                id: n.id.clone(),
                label: n.id.clone(),
                base_type: n.base_type.clone(),
                time: None,
            })
            .collect(),
        edges: sub
            .edges
            .iter()
            .map(|e| GraphEdge {
                source: e.source.clone(),
                target: e.target.clone(),
                kind: Some(e.rel.clone()),
            })
            .collect(),
    }
}

impl Provex {
    /// Lays out a stored graph whole, or the neighbourhood of `root` (its ancestors and
    /// descendants to `depth`).
    pub async fn layout(
        &self,
        graph: &str,
        root: Option<(&str, u32)>,
        opts: &LayoutOptions,
    ) -> Result<LaidOut> {
        let sub = match root {
            None => self.dump(graph).await?,
            Some((name, depth)) => {
                let up = self.trace(graph, name, TraceDirection::Up, depth).await?;
                let down = self.trace(graph, name, TraceDirection::Down, depth).await?;
                let mut nodes: BTreeMap<String, _> = BTreeMap::new();
                for n in up.nodes.into_iter().chain(down.nodes) {
                    nodes.entry(n.id.clone()).or_insert(n);
                }
                let mut edges = up.edges;
                edges.extend(down.edges);
                edges.sort();
                edges.dedup();
                Subgraph { nodes: nodes.into_values().collect(), edges }
            }
        };
        lay_out(&graph_file(&sub), opts, Path::new(graph))
    }
}
