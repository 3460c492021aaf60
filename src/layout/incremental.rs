//! Incremental layout for streamed provenance events: appended nodes are placed without moving
//! any placed node, and a tidy-up re-lays the graph while keeping the user's mental map.
//!
//! Each layer keeps its occupied intervals in a `BTreeMap` keyed by left edge, so placing a node
//! costs O(log n) map look-ups plus a bounded walk over nearby gaps (`GAP_PROBES` each way);
//! when no gap that close fits, the node goes just past the nearest end of its layer.
//!
//! Tidy-up keeps layers and re-runs crossing reduction and coordinates with each node's sort key
//! anchored to its previous rank (the "mental map" idea of Misue, Eades, Lai & Sugiyama, "Layout
//! Adjustment and the Mental Map", J. Visual Languages & Computing 6(2), 1995; anchoring as in
//! North, "Incremental Layout in DynaDAG", GD 1995). The weakest anchor whose result changes the
//! order of at most 5% of same-layer pairs wins; full anchoring keeps the order exactly.
//!
//! With [`LayoutOptions::aspect`] the drawing is packed (`fold.rs`) when it is loaded and at
//! each tidy-up; appends are placed in the unfolded plane and shown through the same fold, so
//! nothing placed moves. Each row blocks the fold's cuts (a zero-width taken interval, where no
//! node covers the cut already), so no new node straddles two pieces; layers made after a fold
//! are deeper than its shelves, so their rows only take nodes in the last piece (one blocked
//! interval covers the others).

use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasherDefault;

use petgraph::graph::NodeIndex;
use serde::{Deserialize, Serialize};

use super::batch;
use super::error::LayoutError;
use super::fold::Fold;
use super::graph::{LayoutEdge, LayoutGraph, LayoutNode, LayoutOptions};
use super::metrics::{crossings, order_changes, width};
use super::output::Layout;
use super::pipeline::{
    assemble, choose_fold, edge_list, fold_placement, full, full_placement, place, sizes, Placement,
};
use super::slots::{free_slot, IdHasher, IdIndex, Key, WALL};

/// The `taken` entry of a row that blocks every piece but the last (see the module docs); the
/// entries that block cuts count down from the one below it.
const BLOCKER: u32 = u32::MAX;
/// Anchor weights tried by tidy-up, weakest first.
const ANCHORS: [f64; 5] = [0.0, 0.4, 0.7, 0.9, 1.0];
/// Largest share of same-layer pairs a tidy-up may reorder.
pub const MAX_ORDER_CHANGE: f64 = 0.05;

/// An edge to append, by node ids.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EdgeSpec {
    /// Source node id.
    pub source: String,
    /// Target node id.
    pub target: String,
    /// PROV relation type.
    pub kind: Option<String>,
}

impl EdgeSpec {
    /// An untyped edge.
    pub fn new(source: impl Into<String>, target: impl Into<String>) -> Self {
        EdgeSpec { source: source.into(), target: target.into(), kind: None }
    }
}

/// Where an appended node went (`x`, `y` = centre).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Placed {
    /// Node id.
    pub id: String,
    /// Centre x.
    pub x: f64,
    /// Centre y.
    pub y: f64,
    /// Layer index.
    pub layer: u32,
}

/// A node moved by tidy-up, for animation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Move {
    /// Node id.
    pub id: String,
    /// Old centre.
    pub from: [f64; 2],
    /// New centre.
    pub to: [f64; 2],
}

/// How far the incremental drawing has drifted from what a fresh full layout would give.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Drift {
    /// Crossings of the current drawing.
    pub crossings: u64,
    /// Width (extent across layers) of the current drawing.
    pub width: f64,
    /// Crossings of a fresh full layout.
    pub fresh_crossings: u64,
    /// Width of a fresh full layout.
    pub fresh_width: f64,
}

/// One layer: where it sits along the flow and which intervals across it are taken.
#[derive(Debug, Clone)]
struct Row {
    centre: f64,
    thick: f64,
    /// (left edge, node) -> right edge.
    taken: BTreeMap<(Key, u32), f64>,
}

/// A layout that grows as events arrive. See the module docs.
#[derive(Debug, Clone)]
pub struct Incremental {
    opts: LayoutOptions,
    graph: LayoutGraph,
    index: IdIndex,
    layer: Vec<u32>,
    cross: Vec<f64>,
    rows: Vec<Row>,
    routes: Vec<Vec<[f64; 2]>>,
    reversed: Vec<bool>,
    band: f64,
    /// How the drawing is shown, and how many rows there were when it was chosen.
    fold: Fold,
    fold_rows: usize,
}

impl Incremental {
    /// An empty layout.
    pub fn new(opts: LayoutOptions) -> Self {
        Incremental {
            opts,
            graph: LayoutGraph::new(),
            index: IdIndex::default(),
            layer: Vec::new(),
            cross: Vec::new(),
            rows: Vec::new(),
            routes: Vec::new(),
            reversed: Vec::new(),
            band: 0.0,
            fold: Fold::default(),
            fold_rows: 0,
        }
    }

    /// Starts from a full layout of `g`. Fails on duplicate node ids.
    pub fn from_graph(g: &LayoutGraph, opts: LayoutOptions) -> Result<Self, LayoutError> {
        let mut s = Incremental::new(opts);
        for (i, w) in g.node_weights().enumerate() {
            if s.index.insert(w.id.clone(), i as u32).is_some() {
                return Err(LayoutError::DuplicateNode(w.id.clone()));
            }
        }
        s.graph = g.clone();
        let (layer, placed, reversed) = full_placement(g, &s.opts);
        s.layer = layer;
        s.reversed = reversed;
        s.adopt(placed);
        // Head room so the first appends after a big layout do not pay for regrowth.
        let (nodes, edges) = (g.node_count() / 4 + 1024, g.edge_count() / 4 + 1024);
        s.graph.reserve_nodes(nodes);
        s.graph.reserve_edges(edges);
        s.index.reserve(nodes);
        s.layer.reserve(nodes);
        s.cross.reserve(nodes);
        s.routes.reserve(edges);
        s.reversed.reserve(edges);
        Ok(s)
    }

    /// Takes over a placement of the whole graph (positions, routes, rows).
    fn adopt(&mut self, placed: Placement) {
        let (cross_size, along_size) = sizes(&self.graph, &self.opts);
        self.band = along_size.iter().copied().fold(self.band, f64::max);
        self.rows = placed
            .layer_centre
            .iter()
            .zip(&placed.layer_thick)
            .map(|(&centre, &thick)| Row { centre, thick, taken: BTreeMap::new() })
            .collect();
        for (v, (&size, &c)) in cross_size.iter().zip(&placed.cross).enumerate() {
            let half = size / 2.0;
            self.rows[self.layer[v] as usize].taken.insert((Key(c - half), v as u32), c + half);
        }
        self.fold = choose_fold(&placed, &cross_size, &self.opts);
        self.fold_rows = self.rows.len();
        for row in &mut self.rows {
            for (j, &cut) in self.fold.cuts().iter().enumerate() {
                let covered =
                    row.taken.range(..=(Key(cut), u32::MAX)).next_back().is_some_and(|(_, &r)| r > cut);
                if !covered {
                    row.taken.insert((Key(cut), BLOCKER - 1 - j as u32), cut);
                }
            }
        }
        self.cross = placed.cross;
        self.routes = placed.routes;
    }

    /// The graph laid out so far.
    pub fn graph(&self) -> &LayoutGraph {
        &self.graph
    }

    /// The current drawing.
    pub fn layout(&self) -> Layout {
        let folded = fold_placement(&self.fold, &self.placement(), &edge_list(&self.graph));
        assemble(&self.graph, &self.opts, &self.layer, &folded, &self.reversed)
    }

    /// The current drawing before folding.
    fn unfolded(&self) -> Layout {
        assemble(&self.graph, &self.opts, &self.layer, &self.placement(), &self.reversed)
    }

    fn placement(&self) -> Placement {
        Placement {
            cross: self.cross.clone(),
            along: self.layer.iter().map(|&l| self.rows[l as usize].centre).collect(),
            routes: self.routes.clone(),
            layer_centre: Vec::new(),
            layer_thick: Vec::new(),
        }
    }

    /// Appends a batch of nodes and edges (edges may join new and already placed nodes) and
    /// places the new nodes; nothing placed before moves. A new node goes to the layer after its
    /// latest placed parent (or just above its earliest placed child, or layer 0), at the
    /// barycentre of its placed neighbours, in the nearest free slot. Nothing changes on error.
    pub fn append(
        &mut self,
        nodes: Vec<LayoutNode>,
        edges: Vec<EdgeSpec>,
    ) -> Result<Vec<Placed>, LayoutError> {
        let base = self.graph.node_count();
        let ends = self.batch_ends(&nodes, &edges)?;
        let k = nodes.len();
        let adj = batch::adjacency(&ends, base, k);
        self.layer.resize(base + k, 0);
        self.cross.resize(base + k, 0.0);
        for n in nodes {
            self.index.insert(n.id.clone(), self.graph.node_count() as u32);
            self.graph.add_node(n);
        }
        let mut placed_mark = vec![false; k];
        for i in batch::parents_first(&adj, base, k) {
            let is_placed = |u: u32| (u as usize) < base || placed_mark[u as usize - base];
            let (mut parent_layer, mut child_layer) = (None::<u32>, None::<u32>);
            let (mut sum, mut count) = (0.0f64, 0usize);
            for &(_, u, child) in batch::around(&adj, i).iter().filter(|a| is_placed(a.1)) {
                let l = self.layer[u as usize];
                if child {
                    child_layer = Some(child_layer.map_or(l, |m| m.min(l)));
                } else {
                    parent_layer = parent_layer.max(Some(l));
                }
                sum += self.cross[u as usize];
                count += 1;
            }
            let layer = match (parent_layer, child_layer) {
                (Some(p), _) => p + 1,
                (None, Some(c)) => c.saturating_sub(1),
                (None, None) => 0,
            };
            self.place_node(base as u32 + i, layer, (count > 0).then(|| sum / count as f64));
            placed_mark[i as usize] = true;
        }
        for (&(s, t), e) in ends.iter().zip(edges) {
            self.graph.add_edge(
                NodeIndex::new(s as usize),
                NodeIndex::new(t as usize),
                LayoutEdge { kind: e.kind },
            );
            self.reversed.push(self.layer[s as usize] > self.layer[t as usize]);
            self.routes.push(self.straight_route(s as usize, t as usize));
        }
        Ok((base..base + k).map(|v| self.placed(v)).collect())
    }

    /// The node indices of a batch's edge ends (new nodes numbered from the graph's count on),
    /// after checking that no node is there twice and every end is known.
    fn batch_ends(&self, nodes: &[LayoutNode], edges: &[EdgeSpec]) -> Result<Vec<(u32, u32)>, LayoutError> {
        let base = self.graph.node_count();
        // Small batches (the streaming case) are searched linearly, larger ones through a map.
        let small = nodes.len() <= 16;
        let mut fresh: HashMap<&str, u32, BuildHasherDefault<IdHasher>> = HashMap::default();
        for (i, n) in nodes.iter().enumerate() {
            let twice = if small {
                nodes[..i].iter().any(|m| m.id == n.id)
            } else {
                fresh.insert(n.id.as_str(), (base + i) as u32).is_some()
            };
            if twice || self.index.contains_key(&n.id) {
                return Err(LayoutError::DuplicateNode(n.id.clone()));
            }
        }
        let lookup = |id: &str| {
            if small {
                let in_batch = nodes.iter().position(|m| m.id == id);
                in_batch.map(|i| (base + i) as u32).or_else(|| self.index.get(id).copied())
            } else {
                fresh.get(id).or_else(|| self.index.get(id)).copied()
            }
        };
        let mut ends = Vec::with_capacity(edges.len());
        for (i, e) in edges.iter().enumerate() {
            let missing = |id: &str| LayoutError::UnknownNode {
                edge: i,
                source_id: e.source.clone(),
                target_id: e.target.clone(),
                missing: id.to_string(),
            };
            let s = lookup(&e.source).ok_or_else(|| missing(&e.source))?;
            let t = lookup(&e.target).ok_or_else(|| missing(&e.target))?;
            ends.push((s, t));
        }
        Ok(ends)
    }

    /// Where node `v` is drawn.
    fn placed(&self, v: usize) -> Placed {
        let [c, a] = self.fold.map([self.cross[v], self.rows[self.layer[v] as usize].centre]);
        let [x, y] = self.opts.to_xy(c, a);
        Placed { id: self.graph[NodeIndex::new(v)].id.clone(), x, y, layer: self.layer[v] }
    }

    /// Puts node `v` in `layer` at the free slot nearest `wanted` (or at the layer's right end).
    fn place_node(&mut self, v: u32, layer: u32, wanted: Option<f64>) {
        let w = &self.graph[NodeIndex::new(v as usize)];
        let (wc, wa) = (self.opts.cross_extent(w), self.opts.along_extent(w));
        self.band = self.band.max(wa);
        while self.rows.len() <= layer as usize {
            let centre = match self.rows.last() {
                Some(r) => r.centre + r.thick / 2.0 + self.opts.layer_spacing + self.band / 2.0,
                None => self.band / 2.0,
            };
            let mut taken = BTreeMap::new();
            if let Some(last) = self.fold.last_start().filter(|_| self.rows.len() >= self.fold_rows) {
                taken.insert((Key(WALL), BLOCKER), last);
            }
            self.rows.push(Row { centre, thick: self.band, taken });
        }
        let gap = self.opts.node_spacing;
        let row = &mut self.rows[layer as usize];
        let half = wc / 2.0;
        let c = match wanted {
            None => row.taken.iter().next_back().map_or(half, |(_, &right)| right + gap + half),
            Some(wanted) => free_slot(&row.taken, wanted, half, gap),
        };
        row.taken.insert((Key(c - half), v), c + half);
        self.layer[v as usize] = layer;
        self.cross[v as usize] = c;
    }

    /// A straight route between two placed nodes, from box edge to box edge.
    fn straight_route(&self, s: usize, t: usize) -> Vec<[f64; 2]> {
        let n = |v: usize| &self.graph[NodeIndex::new(v)];
        let along = |v: usize| self.rows[self.layer[v] as usize].centre;
        if s == t {
            let (c, a) = (self.cross[s], along(s));
            let (hw, ha) = (self.opts.cross_extent(n(s)) / 2.0, self.opts.along_extent(n(s)) / 4.0);
            let out = c + hw + self.opts.node_spacing / 2.0;
            return vec![[c + hw, a - ha], [out, a - ha], [out, a + ha], [c + hw, a + ha]];
        }
        if self.layer[s] == self.layer[t] {
            let sg = if self.cross[s] <= self.cross[t] { 1.0 } else { -1.0 };
            return vec![
                [self.cross[s] + sg * self.opts.cross_extent(n(s)) / 2.0, along(s)],
                [self.cross[t] - sg * self.opts.cross_extent(n(t)) / 2.0, along(t)],
            ];
        }
        let sg = if self.layer[s] < self.layer[t] { 1.0 } else { -1.0 };
        vec![
            [self.cross[s], along(s) + sg * self.opts.along_extent(n(s)) / 2.0],
            [self.cross[t], along(t) - sg * self.opts.along_extent(n(t)) / 2.0],
        ]
    }

    /// Crossings and width now, against a fresh full layout of the same graph.
    pub fn drift(&self) -> Drift {
        let now = self.layout();
        let fresh = full(&self.graph, &self.opts);
        Drift {
            crossings: crossings(&now),
            width: width(&now),
            fresh_crossings: crossings(&fresh),
            fresh_width: width(&fresh),
        }
    }

    /// Re-lays the graph with layers kept and order anchored to the current one (at most 5% of
    /// same-layer pairs change order), adopts it, and returns every node that moved.
    pub fn tidy_up(&mut self) -> Vec<Move> {
        let shown = self.layout();
        let before = self.unfolded();
        let (cross_size, along_size) = sizes(&self.graph, &self.opts);
        let edges = edge_list(&self.graph);
        let mut chosen = None;
        for anchor in ANCHORS {
            let placed = place(
                &cross_size,
                &along_size,
                &self.layer,
                &edges,
                &self.opts,
                false,
                Some(&self.cross),
                anchor,
            );
            let after = assemble(&self.graph, &self.opts, &self.layer, &placed, &self.reversed);
            let (changed, total) = order_changes(&before, &after);
            if changed as f64 <= MAX_ORDER_CHANGE * total as f64 || anchor >= 1.0 {
                chosen = Some((placed, after));
                break;
            }
        }
        let (placed, _) = chosen.expect("the full anchor always qualifies");
        self.adopt(placed);
        let after = self.layout();
        shown
            .nodes
            .iter()
            .zip(&after.nodes)
            .filter(|(b, a)| b.x != a.x || b.y != a.y)
            .map(|(b, a)| Move { id: b.id.clone(), from: [b.x, b.y], to: [a.x, a.y] })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn append_builds_layers_from_parents() {
        let mut inc = Incremental::new(LayoutOptions::default());
        let a = inc.append(vec![LayoutNode::new("a", 40.0, 20.0)], vec![]).unwrap();
        assert_eq!(a[0].layer, 0);
        let b = inc
            .append(
                vec![LayoutNode::new("c", 40.0, 20.0), LayoutNode::new("b", 40.0, 20.0)],
                vec![EdgeSpec::new("b", "c"), EdgeSpec::new("a", "b")],
            )
            .unwrap();
        assert_eq!((b[0].id.as_str(), b[0].layer), ("c", 2));
        assert_eq!((b[1].id.as_str(), b[1].layer), ("b", 1));
        assert!(matches!(
            inc.append(vec![], vec![EdgeSpec::new("a", "nope")]),
            Err(LayoutError::UnknownNode { .. })
        ));
        assert!(matches!(
            inc.append(vec![LayoutNode::new("a", 1.0, 1.0)], vec![]),
            Err(LayoutError::DuplicateNode(_))
        ));
        assert_eq!(inc.graph().node_count(), 3);
    }
}
