//! The full layout pipeline: cycle breaking, layering, dummy nodes, crossing reduction,
//! coordinates, component packing and edge routes, in that order.

use petgraph::visit::EdgeRef as _;

use super::coords;
use super::cycles::feedback_arcs;
use super::fold::{Fold, Span};
use super::graph::{Direction, LayoutGraph, LayoutOptions};
use super::layering::assign_layers;
use super::ordering::{dfs_order, order_by_keys, reduce_crossings};
use super::output::{EdgeRef, EdgeRoute, Layout, NodePos};
use super::proper::Proper;

/// Lays out the whole graph (Sugiyama framework; see the module docs for each step's source).
///
/// Deterministic: the same graph (same node and edge index order) gives the same layout, bit for
/// bit. Connected components are laid out apart and packed side by side, in order of their
/// lowest node index; with [`LayoutOptions::aspect`] that row is then folded into strips
/// (`fold.rs`) to come near the aspect ratio.
pub fn full(g: &LayoutGraph, opts: &LayoutOptions) -> Layout {
    let (layer, placed, reversed) = full_placement(g, opts);
    let (cross_size, _) = sizes(g, opts);
    let fold = choose_fold(&placed, &cross_size, opts);
    let folded = fold_placement(&fold, &placed, &edge_list(g));
    assemble(g, opts, &layer, &folded, &reversed)
}

/// The fold that brings a placement near [`LayoutOptions::aspect`] (the identity without one).
pub(crate) fn choose_fold(p: &Placement, cross_size: &[f64], opts: &LayoutOptions) -> Fold {
    let Some(aspect) = opts.aspect else { return Fold::default() };
    // `Fold` works in (across, along); with time flowing right, across is the screen's height.
    let aspect = match opts.direction {
        Direction::Down => aspect,
        Direction::Right => 1.0 / aspect,
    };
    let nodes: Vec<Span> =
        p.cross.iter().zip(cross_size).map(|(&c, &s)| (c - s / 2.0, c + s / 2.0)).collect();
    let edges: Vec<Span> = p
        .routes
        .iter()
        .filter(|r| !r.is_empty())
        .map(|r| {
            r.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), q| (lo.min(q[0]), hi.max(q[0])))
        })
        .collect();
    let depth = p.layer_centre.iter().zip(&p.layer_thick).map(|(c, t)| c + t / 2.0).fold(0.0, f64::max);
    Fold::choose(&nodes, &edges, depth, aspect, 2.0 * opts.layer_spacing, opts.component_spacing)
}

/// A placement with `fold` applied: nodes go to their strip, and so do the ends of their
/// edges' routes; bends go to their own strip.
pub(crate) fn fold_placement(fold: &Fold, p: &Placement, edges: &[(u32, u32)]) -> Placement {
    if fold.is_identity() {
        return p.clone();
    }
    let mut cross = Vec::with_capacity(p.cross.len());
    let mut along = Vec::with_capacity(p.along.len());
    for (&c, &a) in p.cross.iter().zip(&p.along) {
        let [c, a] = fold.map([c, a]);
        cross.push(c);
        along.push(a);
    }
    let routes = p
        .routes
        .iter()
        .zip(edges)
        .map(|(r, &(u, v))| {
            let last = r.len().saturating_sub(1);
            r.iter()
                .enumerate()
                .map(|(i, &q)| match i {
                    0 => fold.map_in(p.cross[u as usize], q),
                    i if i == last => fold.map_in(p.cross[v as usize], q),
                    _ => fold.map(q),
                })
                .collect()
        })
        .collect();
    Placement {
        cross,
        along,
        routes,
        layer_centre: p.layer_centre.clone(),
        layer_thick: p.layer_thick.clone(),
    }
}

/// The full layout before conversion to output: layers, placement, reversed-edge flags.
pub(crate) fn full_placement(g: &LayoutGraph, opts: &LayoutOptions) -> (Vec<u32>, Placement, Vec<bool>) {
    let n = g.node_count();
    let edges = edge_list(g);
    let mut reversed = vec![false; edges.len()];
    let (plain_idx, plain): (Vec<usize>, Vec<(u32, u32)>) =
        edges.iter().enumerate().filter(|(_, e)| e.0 != e.1).map(|(i, &e)| (i, e)).unzip();
    let flip = feedback_arcs(n, &plain);
    let oriented: Vec<(u32, u32)> =
        plain.iter().zip(&flip).map(|(&(u, v), &f)| if f { (v, u) } else { (u, v) }).collect();
    for (&i, &f) in plain_idx.iter().zip(&flip) {
        reversed[i] = f;
    }
    let times: Option<Vec<Option<f64>>> =
        opts.align_by_time.then(|| g.node_weights().map(|w| w.time).collect());
    let layer = assign_layers(n, &oriented, times.as_deref());
    let (cross_size, along_size) = sizes(g, opts);
    let placed = place(&cross_size, &along_size, &layer, &edges, opts, true, None, 0.0);
    (layer, placed, reversed)
}

/// Edge endpoints in edge index order.
pub(crate) fn edge_list(g: &LayoutGraph) -> Vec<(u32, u32)> {
    g.edge_references().map(|e| (e.source().index() as u32, e.target().index() as u32)).collect()
}

/// Node extents across and along the layers.
pub(crate) fn sizes(g: &LayoutGraph, opts: &LayoutOptions) -> (Vec<f64>, Vec<f64>) {
    g.node_weights().map(|w| (opts.cross_extent(w), opts.along_extent(w))).unzip()
}

/// Coordinates in (across, along) the layers.
#[derive(Clone)]
pub(crate) struct Placement {
    /// Centre across the layers, per node.
    pub cross: Vec<f64>,
    /// Centre along the layers, per node.
    pub along: Vec<f64>,
    /// Route per edge, source to target, as (across, along) points.
    pub routes: Vec<Vec<[f64; 2]>>,
    /// Centre of each layer along the flow.
    pub layer_centre: Vec<f64>,
    /// Thickness of each layer along the flow (its thickest node).
    pub layer_thick: Vec<f64>,
}

/// Places nodes whose layers are already fixed. Edges may point either way between layers (an
/// edge from a later to an earlier layer is routed backwards) or join nodes of one layer (drawn
/// straight). `init_keys` gives the starting order (otherwise depth-first); `anchor` in [0, 1]
/// limits how far crossing reduction may move nodes away from that order.
#[allow(clippy::too_many_arguments)]
pub(crate) fn place(
    cross_size: &[f64],
    along_size: &[f64],
    layer: &[u32],
    edges: &[(u32, u32)],
    opts: &LayoutOptions,
    split_components: bool,
    init_keys: Option<&[f64]>,
    anchor: f64,
) -> Placement {
    let n = layer.len();
    let comp = if split_components { components(n, edges) } else { vec![0u32; n] };
    let n_comp = comp.iter().copied().max().map_or(0, |m| m as usize + 1);
    let mut comp_nodes: Vec<Vec<u32>> = vec![Vec::new(); n_comp];
    let mut local = vec![0u32; n];
    for v in 0..n {
        let c = comp[v] as usize;
        local[v] = comp_nodes[c].len() as u32;
        comp_nodes[c].push(v as u32);
    }
    let mut comp_edges: Vec<Vec<usize>> = vec![Vec::new(); n_comp];
    for (i, &(u, v)) in edges.iter().enumerate() {
        if u != v {
            comp_edges[comp[u as usize] as usize].push(i);
        }
    }
    let mut cross = vec![0.0f64; n];
    let mut bends: Vec<Vec<(f64, u32)>> = vec![Vec::new(); edges.len()]; // (across, layer) of dummies
    let mut offset = 0.0f64;
    for c in 0..n_comp {
        let nodes = &comp_nodes[c];
        let base = nodes.iter().map(|&v| layer[v as usize]).min().unwrap_or(0);
        let l_layer: Vec<u32> = nodes.iter().map(|&v| layer[v as usize] - base).collect();
        let l_size: Vec<f64> = nodes.iter().map(|&v| cross_size[v as usize]).collect();
        let l_edges: Vec<(u32, u32)> =
            comp_edges[c].iter().map(|&i| (local[edges[i].0 as usize], local[edges[i].1 as usize])).collect();
        let mut p = Proper::build(&l_layer, &l_size, &l_edges);
        initial_order(&mut p, nodes, l_edges.len(), init_keys);
        reduce_crossings(&mut p, anchor);
        let x = coords::assign(&p, opts.node_spacing, opts.node_spacing / 2.0);
        let lo = (0..p.len()).map(|v| x[v] - p.size[v] / 2.0).fold(f64::INFINITY, f64::min);
        let hi = (0..p.len()).map(|v| x[v] + p.size[v] / 2.0).fold(f64::NEG_INFINITY, f64::max);
        let shift = offset - lo;
        for (lv, &v) in nodes.iter().enumerate() {
            cross[v as usize] = x[lv] + shift;
        }
        for (e, &i) in comp_edges[c].iter().enumerate() {
            let ch = p.chain(e);
            if ch.len() > 2 {
                bends[i] = ch[1..ch.len() - 1]
                    .iter()
                    .map(|&d| (x[d as usize] + shift, p.layer[d as usize] + base))
                    .collect();
            }
        }
        offset = hi + shift + opts.component_spacing;
    }
    let (thick, centre) = layer_bands(layer, along_size, opts.layer_spacing);
    let along: Vec<f64> = layer.iter().map(|&l| centre[l as usize]).collect();
    let drawn = Drawn {
        cross: &cross,
        along: &along,
        cross_size,
        along_size,
        layer,
        centre: &centre,
        bends: &bends,
        node_spacing: opts.node_spacing,
    };
    let routes =
        edges.iter().enumerate().map(|(i, &(u, v))| drawn.route(i, u as usize, v as usize)).collect();
    Placement { cross, along, routes, layer_centre: centre, layer_thick: thick }
}

/// A component's starting order: by the keys given (dummies of a long edge between its ends'
/// keys), or depth-first.
fn initial_order(p: &mut Proper, nodes: &[u32], n_edges: usize, init_keys: Option<&[f64]>) {
    let Some(keys) = init_keys else {
        dfs_order(p);
        return;
    };
    let mut k = vec![0.0f64; p.len()];
    for (lv, &v) in nodes.iter().enumerate() {
        k[lv] = keys[v as usize];
    }
    for e in 0..n_edges {
        let ch = p.chain(e);
        if ch.len() > 2 {
            let (a, b) = (k[ch[0] as usize], k[ch[ch.len() - 1] as usize]);
            let steps = (ch.len() - 1) as f64;
            for (j, &d) in ch.iter().enumerate().take(ch.len() - 1).skip(1) {
                k[d as usize] = a + (b - a) * j as f64 / steps;
            }
        }
    }
    order_by_keys(p, &k);
}

/// Along the layers: each layer as thick as its thickest node; (thickness, centre) per layer.
fn layer_bands(layer: &[u32], along_size: &[f64], layer_spacing: f64) -> (Vec<f64>, Vec<f64>) {
    let depth = layer.iter().copied().max().map_or(0, |m| m as usize + 1);
    let mut thick = vec![0.0f64; depth];
    for (v, &l) in layer.iter().enumerate() {
        thick[l as usize] = thick[l as usize].max(along_size[v]);
    }
    let mut centre = vec![0.0f64; depth];
    let mut at = 0.0;
    for l in 0..depth {
        centre[l] = at + thick[l] / 2.0;
        at += thick[l] + layer_spacing;
    }
    (thick, centre)
}

/// Where the nodes and the long edges' bends ended up, for routing the edges.
struct Drawn<'a> {
    cross: &'a [f64],
    along: &'a [f64],
    cross_size: &'a [f64],
    along_size: &'a [f64],
    layer: &'a [u32],
    centre: &'a [f64],
    /// (across, layer) of each edge's dummies.
    bends: &'a [Vec<(f64, u32)>],
    node_spacing: f64,
}

impl Drawn<'_> {
    /// Edge `i`'s route from `u` to `v`: a loop beside a node joined to itself, a straight line
    /// within a layer, otherwise through its bends (backwards for an edge that points up).
    fn route(&self, i: usize, u: usize, v: usize) -> Vec<[f64; 2]> {
        let Drawn { cross, along, cross_size, along_size, layer, centre, bends, .. } = *self;
        if u == v {
            let (c, a, hw, ha) = (cross[u], along[u], cross_size[u] / 2.0, along_size[u] / 4.0);
            let out = c + hw + self.node_spacing / 2.0;
            return vec![[c + hw, a - ha], [out, a - ha], [out, a + ha], [c + hw, a + ha]];
        }
        if layer[u] == layer[v] {
            let s = if cross[u] <= cross[v] { 1.0 } else { -1.0 };
            return vec![
                [cross[u] + s * cross_size[u] / 2.0, along[u]],
                [cross[v] - s * cross_size[v] / 2.0, along[v]],
            ];
        }
        let down = layer[u] < layer[v];
        let s = if down { 1.0 } else { -1.0 };
        let mut pts = Vec::with_capacity(bends[i].len() + 2);
        pts.push([cross[u], along[u] + s * along_size[u] / 2.0]);
        let mid = bends[i].iter().map(|&(c, l)| [c, centre[l as usize]]);
        if down {
            pts.extend(mid);
        } else {
            pts.extend(mid.rev());
        }
        pts.push([cross[v], along[v] - s * along_size[v] / 2.0]);
        pts
    }
}

/// Weakly connected components, numbered by their lowest node index.
fn components(n: usize, edges: &[(u32, u32)]) -> Vec<u32> {
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn find(parent: &mut [u32], mut v: u32) -> u32 {
        while parent[v as usize] != v {
            let up = parent[parent[v as usize] as usize];
            parent[v as usize] = up;
            v = up;
        }
        v
    }
    for &(u, v) in edges {
        let (a, b) = (find(&mut parent, u), find(&mut parent, v));
        if a != b {
            // keep the lower index as root so numbering follows the lowest member
            let (lo, hi) = if a < b { (a, b) } else { (b, a) };
            parent[hi as usize] = lo;
        }
    }
    let mut id = vec![u32::MAX; n];
    let mut next = 0;
    let mut comp = vec![0u32; n];
    for v in 0..n as u32 {
        let r = find(&mut parent, v) as usize;
        if id[r] == u32::MAX {
            id[r] = next;
            next += 1;
        }
        comp[v as usize] = id[r];
    }
    comp
}

/// Turns a placement into the output data, mapping (across, along) to (x, y).
pub(crate) fn assemble(
    g: &LayoutGraph,
    opts: &LayoutOptions,
    layer: &[u32],
    placed: &Placement,
    reversed: &[bool],
) -> Layout {
    let nodes = g
        .node_weights()
        .enumerate()
        .map(|(v, w)| {
            let [x, y] = opts.to_xy(placed.cross[v], placed.along[v]);
            NodePos { id: w.id.clone(), x, y, width: w.width, height: w.height, layer: layer[v] }
        })
        .collect();
    let mut edges = Vec::with_capacity(g.edge_count());
    let mut rev = Vec::new();
    for (i, e) in g.edge_references().enumerate() {
        let source = g[e.source()].id.clone();
        let target = g[e.target()].id.clone();
        if reversed[i] {
            rev.push(EdgeRef { source: source.clone(), target: target.clone() });
        }
        edges.push(EdgeRoute {
            source,
            target,
            points: placed.routes[i].iter().map(|&[c, a]| opts.to_xy(c, a)).collect(),
        });
    }
    Layout { nodes, edges, reversed: rev, direction: opts.direction }
}
