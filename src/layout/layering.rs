//! Layer assignment: which row (or column) each node goes to.
//!
//! Start from the longest-path layering (every node right after its latest predecessor;
//! minimum height), then shorten edges by coordinate descent on the objective of the network
//! simplex layering of Gansner, Koutsofios, North & Vo, "A Technique for Drawing Directed
//! Graphs", IEEE TSE 19(3), 1993 (sum of edge spans). A node's span cost is linear inside the
//! interval its neighbours allow, so each step moves the node to the end of that interval
//! favoured by the majority of its edges, like the "promotion" of Nikolov & Tarassov, "Graph
//! layering by promotion of nodes", Discrete Applied Mathematics 154(5), 2006. We stop after a
//! fixed number of sweeps (`REFINE_SWEEPS`), which keeps the work at O(sweeps · (V + E)); full
//! network simplex is not used because its worst case is too slow at 100,000 nodes.
//!
//! With time alignment on, nodes are taken in order of their time bucket (distinct `time`
//! value; an untimed node inherits the latest bucket of its predecessors), and every bucket starts
//! below all layers used by earlier buckets, unless an edge forces otherwise.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::adjacency::{csr, topological_order};

const REFINE_SWEEPS: usize = 8;

/// Layers of an acyclic graph (`edges` point from earlier to later layers afterwards).
/// `times` is given when layers must follow time buckets.
pub(crate) fn assign_layers(n: usize, edges: &[(u32, u32)], times: Option<&[Option<f64>]>) -> Vec<u32> {
    match times {
        Some(t) => time_layers(n, edges, t),
        None => {
            let order = topological_order(n, edges).expect("layering needs an acyclic graph");
            let mut layer = longest_path(n, edges, &order);
            refine(n, edges, &order, &mut layer);
            layer
        }
    }
}

/// `order` is a topological order of the graph.
fn longest_path(n: usize, edges: &[(u32, u32)], order: &[u32]) -> Vec<u32> {
    let (off, adj) = csr(n, edges.iter().copied());
    let mut layer = vec![0u32; n];
    for &v in order {
        let v = v as usize;
        for &w in &adj[off[v] as usize..off[v + 1] as usize] {
            layer[w as usize] = layer[w as usize].max(layer[v] + 1);
        }
    }
    layer
}

/// Moves nodes to the cheaper end of their feasible interval; never lengthens an edge sum.
fn refine(n: usize, edges: &[(u32, u32)], order: &[u32], layer: &mut [u32]) {
    let (out_off, out_adj) = csr(n, edges.iter().copied());
    let (in_off, in_adj) = csr(n, edges.iter().map(|&(u, v)| (v, u)));
    for sweep in 0..REFINE_SWEEPS {
        let mut moved = false;
        let visit = |v: u32, layer: &mut [u32], moved: &mut bool| {
            let v = v as usize;
            let preds = &in_adj[in_off[v] as usize..in_off[v + 1] as usize];
            let succs = &out_adj[out_off[v] as usize..out_off[v + 1] as usize];
            if preds.len() == succs.len() {
                return;
            }
            let target = if preds.len() > succs.len() {
                preds.iter().map(|&u| layer[u as usize] + 1).max().unwrap_or(0)
            } else {
                succs.iter().map(|&w| layer[w as usize] - 1).min().expect("has successors")
            };
            if target != layer[v] {
                layer[v] = target;
                *moved = true;
            }
        };
        if sweep % 2 == 0 {
            for &v in order.iter().rev() {
                visit(v, layer, &mut moved);
            }
        } else {
            for &v in order {
                visit(v, layer, &mut moved);
            }
        }
        if !moved {
            break;
        }
    }
    let min = layer.iter().copied().min().unwrap_or(0);
    layer.iter_mut().for_each(|l| *l -= min);
}

fn time_layers(n: usize, edges: &[(u32, u32)], times: &[Option<f64>]) -> Vec<u32> {
    let mut distinct: Vec<f64> = times.iter().flatten().copied().collect();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    let bucket_of = |t: f64| distinct.partition_point(|d| d.total_cmp(&t).is_lt()) as u32;
    let (off, adj) = csr(n, edges.iter().copied());
    let mut indeg = vec![0u32; n];
    for &(_, v) in edges {
        indeg[v as usize] += 1;
    }
    let mut key = vec![0u32; n]; // inherited bucket for untimed nodes (max over predecessors)
    let mut layer = vec![0u32; n];
    let mut min_layer = vec![0u32; n]; // from processed predecessors
    let mut heap: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::new();
    let own = |v: usize, inherited: u32| times[v].map(bucket_of).unwrap_or(inherited);
    for (v, &d) in indeg.iter().enumerate() {
        if d == 0 {
            heap.push(Reverse((own(v, 0), v as u32)));
        }
    }
    let mut cur_key: Option<u32> = None;
    let mut max_before: Option<u32> = None; // deepest layer of earlier buckets
    let mut max_current: Option<u32> = None; // deepest layer of the current bucket
    while let Some(Reverse((k, v))) = heap.pop() {
        let v = v as usize;
        if cur_key.is_none_or(|c| k > c) {
            max_before = max_before.max(max_current);
            max_current = None;
            cur_key = Some(k);
        }
        let floor = if Some(k) == cur_key { max_before.map_or(0, |m| m + 1) } else { 0 };
        layer[v] = min_layer[v].max(floor);
        key[v] = k;
        if Some(k) == cur_key {
            max_current = max_current.max(Some(layer[v]));
        }
        for &w in &adj[off[v] as usize..off[v + 1] as usize] {
            let wi = w as usize;
            min_layer[wi] = min_layer[wi].max(layer[v] + 1);
            key[wi] = key[wi].max(k);
            indeg[wi] -= 1;
            if indeg[wi] == 0 {
                heap.push(Reverse((own(wi, key[wi]), w)));
            }
        }
    }
    layer
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span_sum(edges: &[(u32, u32)], layer: &[u32]) -> u32 {
        edges.iter().map(|&(u, v)| layer[v as usize] - layer[u as usize]).sum()
    }

    #[test]
    fn longest_path_then_refine_pulls_sources_down() {
        // 0 -> 1 -> 2 -> 3, and 4 -> 3: node 4 should sit right above 3.
        let e = [(0, 1), (1, 2), (2, 3), (4, 3)];
        let l = assign_layers(5, &e, None);
        assert_eq!(l, vec![0, 1, 2, 3, 2]);
        assert_eq!(span_sum(&e, &l), 4);
    }

    #[test]
    fn refine_never_breaks_edges() {
        let e = [(0, 2), (1, 2), (2, 3), (2, 4), (0, 4), (5, 4), (5, 6)];
        let l = assign_layers(7, &e, None);
        for &(u, v) in &e {
            assert!(l[u as usize] < l[v as usize]);
        }
        assert!(span_sum(&e, &l) <= span_sum(&e, &longest_path(7, &e, &topological_order(7, &e).unwrap())));
    }

    #[test]
    fn time_buckets_order_layers() {
        // Two independent chains; times interleave: a0(1) a1(3), b0(2) b1(4).
        let e = [(0, 1), (2, 3)];
        let t = [Some(1.0), Some(3.0), Some(2.0), Some(4.0)];
        let l = assign_layers(4, &e, Some(&t));
        assert!(l[0] < l[2] && l[2] < l[1] && l[1] < l[3], "{l:?}");
    }

    #[test]
    fn edges_win_over_time() {
        // Edge from a late node to an early one: the edge still points down.
        let e = [(0, 1)];
        let t = [Some(5.0), Some(1.0)];
        let l = assign_layers(2, &e, Some(&t));
        assert!(l[0] < l[1]);
    }
}
