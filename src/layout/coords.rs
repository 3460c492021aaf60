//! Coordinate assignment across the layers, after Brandes & Köpf, "Fast and Simple Horizontal
//! Coordinate Assignment", Graph Drawing 2001 (LNCS 2265).
//!
//! Four alignments (top/bottom × left/right) each put nodes into vertical blocks along median
//! neighbours, avoiding type-1 conflicts (a non-inner segment crossing an inner segment between
//! two dummies), so long edges come out straight. Blocks are then compacted with node sizes
//! taken into account: we use the block-graph longest-path compaction (two passes, as in the
//! correction by Brandes, Walter & Zink, "Erratum: Fast and Simple Horizontal Coordinate
//! Assignment", 2020), which is iterative and so safe at 100,000 nodes. The four results are
//! aligned to the narrowest and combined by the average of the two median values per node, which
//! keeps every pair of neighbours at least their separation apart.

use std::collections::HashSet;

use super::proper::Proper;

/// Centre coordinate across the layers for every node of `p` (dummies included).
/// `node_gap` separates two real nodes, `dummy_gap` two dummies (half of each for a mix).
pub(crate) fn assign(p: &Proper, node_gap: f64, dummy_gap: f64) -> Vec<f64> {
    let n = p.len();
    if n == 0 {
        return Vec::new();
    }
    let conflicts = type1_conflicts(p);
    let gap = |a: u32, b: u32| -> f64 {
        let g = match (p.is_dummy(a), p.is_dummy(b)) {
            (false, false) => node_gap,
            (true, true) => dummy_gap,
            _ => (node_gap + dummy_gap) / 2.0,
        };
        (p.size[a as usize] + p.size[b as usize]) / 2.0 + g
    };
    let mut runs: Vec<Vec<f64>> = Vec::with_capacity(4);
    for (top_down, left) in [(true, true), (true, false), (false, true), (false, false)] {
        let mut order: Vec<Vec<u32>> =
            if top_down { p.layers.clone() } else { p.layers.iter().rev().cloned().collect() };
        if !left {
            order.iter_mut().for_each(|l| l.reverse());
        }
        let mut pos = vec![0u32; n];
        for layer in &order {
            for (i, &v) in layer.iter().enumerate() {
                pos[v as usize] = i as u32;
            }
        }
        let (root, _align) = vertical_alignment(p, &order, &pos, top_down, &conflicts);
        let mut x = compact(n, &order, &root, &gap);
        if !left {
            x.iter_mut().for_each(|c| *c = -*c);
        }
        runs.push(x);
    }
    balance(p, &runs)
}

/// Marks non-inner segments that cross inner segments (Brandes & Köpf, Alg. 1).
fn type1_conflicts(p: &Proper) -> HashSet<(u32, u32)> {
    let mut marked = HashSet::new();
    for i in 0..p.layers.len().saturating_sub(1) {
        let upper_len = p.layers[i].len();
        let lower = &p.layers[i + 1];
        let (mut k0, mut l) = (0u32, 0usize);
        for (l1, &v) in lower.iter().enumerate() {
            let inner = if p.is_dummy(v) { p.ups(v).iter().copied().find(|&u| p.is_dummy(u)) } else { None };
            if l1 + 1 == lower.len() || inner.is_some() {
                let k1 = inner.map_or(upper_len as u32 - 1, |u| p.pos[u as usize]);
                while l <= l1 {
                    let w = lower[l];
                    for &u in p.ups(w) {
                        let k = p.pos[u as usize];
                        if (k < k0 || k > k1) && !(p.is_dummy(u) && p.is_dummy(w)) {
                            marked.insert((u, w));
                        }
                    }
                    l += 1;
                }
                k0 = k1;
            }
        }
    }
    marked
}

/// Builds blocks along median neighbours (Brandes & Köpf, Alg. 2) for one of the four
/// directions; `order` is already mirrored for that direction. Returns (root, align).
fn vertical_alignment(
    p: &Proper,
    order: &[Vec<u32>],
    pos: &[u32],
    top_down: bool,
    conflicts: &HashSet<(u32, u32)>,
) -> (Vec<u32>, Vec<u32>) {
    let n = p.len();
    let mut root: Vec<u32> = (0..n as u32).collect();
    let mut align: Vec<u32> = (0..n as u32).collect();
    let mut ns: Vec<u32> = Vec::new();
    for layer in order.iter().skip(1) {
        let mut r: i64 = -1;
        for &v in layer {
            ns.clear();
            ns.extend_from_slice(if top_down { p.ups(v) } else { p.downs(v) });
            if ns.is_empty() {
                continue;
            }
            ns.sort_by_key(|&u| pos[u as usize]);
            let d = ns.len();
            for m in [(d - 1) / 2, d / 2] {
                if align[v as usize] != v {
                    break;
                }
                let u = ns[m];
                let edge = if top_down { (u, v) } else { (v, u) };
                if !conflicts.contains(&edge) && r < pos[u as usize] as i64 {
                    align[u as usize] = v;
                    root[v as usize] = root[u as usize];
                    align[v as usize] = root[v as usize];
                    r = pos[u as usize] as i64;
                }
                if d % 2 == 1 {
                    break;
                }
            }
        }
    }
    (root, align)
}

/// Places blocks as far left as their left neighbours allow, then pulls each block right up to
/// its right neighbours (longest path over the block graph, both ways).
fn compact(n: usize, order: &[Vec<u32>], root: &[u32], gap: &dyn Fn(u32, u32) -> f64) -> Vec<f64> {
    let mut edges: Vec<(u32, u32, f64)> = Vec::with_capacity(n);
    for layer in order {
        for w in layer.windows(2) {
            edges.push((root[w[0] as usize], root[w[1] as usize], gap(w[0], w[1])));
        }
    }
    edges.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(b.2.total_cmp(&a.2)));
    edges.dedup_by(|later, first| later.0 == first.0 && later.1 == first.1);
    let mut out_off = vec![0u32; n + 1];
    let mut in_off = vec![0u32; n + 1];
    for &(a, b, _) in &edges {
        out_off[a as usize + 1] += 1;
        in_off[b as usize + 1] += 1;
    }
    for i in 0..n {
        out_off[i + 1] += out_off[i];
        in_off[i + 1] += in_off[i];
    }
    let mut in_list = vec![(0u32, 0.0f64); edges.len()];
    let mut fill = in_off.clone();
    for &(a, b, g) in &edges {
        in_list[fill[b as usize] as usize] = (a, g);
        fill[b as usize] += 1;
    }
    // Kahn over blocks (edges are sorted by source, so out-lists are contiguous).
    let mut indeg: Vec<u32> = (0..n).map(|v| in_off[v + 1] - in_off[v]).collect();
    let mut topo: Vec<u32> =
        (0..n as u32).filter(|&v| root[v as usize] == v && indeg[v as usize] == 0).collect();
    let mut head = 0;
    while head < topo.len() {
        let b = topo[head] as usize;
        head += 1;
        for e in &edges[out_off[b] as usize..out_off[b + 1] as usize] {
            indeg[e.1 as usize] -= 1;
            if indeg[e.1 as usize] == 0 {
                topo.push(e.1);
            }
        }
    }
    let mut x = vec![0.0f64; n];
    for &b in &topo {
        let b = b as usize;
        let mut best = 0.0f64;
        for &(a, g) in &in_list[in_off[b] as usize..in_off[b + 1] as usize] {
            best = best.max(x[a as usize] + g);
        }
        x[b] = best;
    }
    for &b in topo.iter().rev() {
        let b = b as usize;
        let outs = &edges[out_off[b] as usize..out_off[b + 1] as usize];
        if let Some(limit) = outs.iter().map(|e| x[e.1 as usize] - e.2).min_by(f64::total_cmp) {
            if limit > x[b] {
                x[b] = limit;
            }
        }
    }
    (0..n).map(|v| x[root[v] as usize]).collect()
}

/// Aligns the four runs to the narrowest one and takes the mean of the two medians per node.
fn balance(p: &Proper, runs: &[Vec<f64>]) -> Vec<f64> {
    let n = p.len();
    let bounds: Vec<(f64, f64)> = runs
        .iter()
        .map(|x| {
            (0..n).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                let h = p.size[v] / 2.0;
                (lo.min(x[v] - h), hi.max(x[v] + h))
            })
        })
        .collect();
    let narrowest = (0..runs.len())
        .min_by(|&a, &b| {
            let wa = bounds[a].1 - bounds[a].0;
            let wb = bounds[b].1 - bounds[b].0;
            wa.total_cmp(&wb).then(a.cmp(&b))
        })
        .expect("four runs");
    let shift: Vec<f64> =
        (0..runs.len())
            .map(|k| {
                if k % 2 == 0 {
                    bounds[narrowest].0 - bounds[k].0
                } else {
                    bounds[narrowest].1 - bounds[k].1
                }
            })
            .collect();
    (0..n)
        .map(|v| {
            let mut xs = [0.0f64; 4];
            for k in 0..4 {
                xs[k] = runs[k][v] + shift[k];
            }
            xs.sort_by(f64::total_cmp);
            (xs[1] + xs[2]) / 2.0
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_separation(p: &Proper, x: &[f64], gap: f64) {
        for layer in &p.layers {
            for w in layer.windows(2) {
                let (a, b) = (w[0] as usize, w[1] as usize);
                assert!(x[b] - x[a] >= (p.size[a] + p.size[b]) / 2.0 + gap.min(5.0) - 1e-9);
            }
        }
    }

    #[test]
    fn chain_is_straight() {
        let p = Proper::build(&[0, 1, 2], &[30.0, 50.0, 10.0], &[(0, 1), (1, 2)]);
        let x = assign(&p, 20.0, 5.0);
        assert_eq!(x[0], x[1]);
        assert_eq!(x[1], x[2]);
    }

    #[test]
    fn long_edge_is_straight_and_nodes_are_separated() {
        // a -> b -> c -> d and a -> d: the dummies of a->d align vertically.
        let edges = [(0, 1), (1, 2), (2, 3), (0, 3), (4, 2)];
        let p = Proper::build(&[0, 1, 2, 3, 1], &[40.0, 80.0, 20.0, 40.0, 60.0], &edges);
        let x = assign(&p, 20.0, 5.0);
        let chain = p.chain(3);
        assert_eq!(x[chain[1] as usize], x[chain[2] as usize]);
        check_separation(&p, &x, 5.0);
    }

    #[test]
    fn parent_sits_between_two_children() {
        let p = Proper::build(&[0, 1, 1], &[20.0, 20.0, 20.0], &[(0, 1), (0, 2)]);
        let x = assign(&p, 20.0, 5.0);
        assert!((x[0] - (x[1] + x[2]) / 2.0).abs() < 1e-9);
    }
}
