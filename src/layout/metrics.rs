//! Quality measures of a finished layout: edge crossings, drawing width, and how many node pairs
//! changed their left/right order between two layouts (the mental-map cost of a tidy-up).
//!
//! Crossings are counted the same way for every tool in the benchmark: layers are the distinct
//! node-centre coordinates along the flow; each edge is the polyline source centre → bend points
//! → target centre, read off at every layer it spans; two edges cross between consecutive
//! layers when their order at the one layer is strictly opposite to their order at the next.

use std::collections::HashMap;

use super::graph::Direction;
use super::output::Layout;

fn axes(d: Direction) -> (usize, usize) {
    match d {
        Direction::Down => (0, 1),
        Direction::Right => (1, 0),
    }
}

/// Edge crossings between consecutive layers, read along the edge polylines.
pub fn crossings(l: &Layout) -> u64 {
    let (c, a) = axes(l.direction);
    let centre = |i: usize| -> [f64; 2] { [l.nodes[i].x, l.nodes[i].y] };
    let mut levels: Vec<f64> = l.nodes.iter().map(|n| [n.x, n.y][a]).collect();
    levels.sort_by(f64::total_cmp);
    levels.dedup_by(|x, y| (*x - *y).abs() < 1e-6);
    if levels.len() < 2 {
        return 0;
    }
    let level_of = |v: f64| levels.partition_point(|&x| x < v - 1e-6);
    let index: HashMap<&str, usize> = l.nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect();
    let mut gaps: Vec<Vec<(f64, f64)>> = vec![Vec::new(); levels.len() - 1];
    let mut pts: Vec<[f64; 2]> = Vec::new();
    let mut at: Vec<f64> = Vec::new();
    for e in &l.edges {
        let (Some(&s), Some(&t)) = (index.get(e.source.as_str()), index.get(e.target.as_str())) else {
            continue;
        };
        pts.clear();
        pts.push(centre(s));
        pts.extend_from_slice(&e.points);
        pts.push(centre(t));
        let (i0, i1) = {
            let (x, y) = (level_of(pts[0][a]), level_of(pts[pts.len() - 1][a]));
            (x.min(y), x.max(y))
        };
        at.clear();
        at.extend((i0..=i1).map(|k| cross_at(&pts, levels[k], c, a)));
        for k in i0..i1 {
            gaps[k].push((at[k - i0], at[k - i0 + 1]));
        }
    }
    gaps.iter_mut().map(|g| opposite_pairs(g)).sum()
}

/// Across-coordinate where the polyline first reaches `level` along the flow.
fn cross_at(pts: &[[f64; 2]], level: f64, c: usize, a: usize) -> f64 {
    for w in pts.windows(2) {
        let (p, q) = (w[0], w[1]);
        let (lo, hi) = if p[a] <= q[a] { (p[a], q[a]) } else { (q[a], p[a]) };
        if lo - 1e-9 <= level && level <= hi + 1e-9 {
            if (q[a] - p[a]).abs() < 1e-12 {
                return p[c];
            }
            let t = ((level - p[a]) / (q[a] - p[a])).clamp(0.0, 1.0);
            return p[c] + t * (q[c] - p[c]);
        }
    }
    pts[0][c]
}

/// Pairs whose order at the first coordinate is strictly opposite to the second.
fn opposite_pairs(segs: &mut [(f64, f64)]) -> u64 {
    segs.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1)));
    let mut seconds: Vec<f64> = segs.iter().map(|s| s.1).collect();
    let mut buf = vec![0.0; seconds.len()];
    inversions(&mut seconds, &mut buf)
}

/// Strict inversions (i < j, v[i] > v[j]) by merge sort; sorts `v`.
fn inversions(v: &mut [f64], buf: &mut [f64]) -> u64 {
    let n = v.len();
    if n < 2 {
        return 0;
    }
    let mid = n / 2;
    let mut count = {
        let (l, r) = v.split_at_mut(mid);
        let (bl, br) = buf.split_at_mut(mid);
        inversions(l, bl) + inversions(r, br)
    };
    let (mut i, mut j, mut k) = (0, mid, 0);
    while i < mid && j < n {
        if v[j] < v[i] {
            count += (mid - i) as u64;
            buf[k] = v[j];
            j += 1;
        } else {
            buf[k] = v[i];
            i += 1;
        }
        k += 1;
    }
    buf[k..k + mid - i].copy_from_slice(&v[i..mid]);
    k += mid - i;
    buf[k..k + n - j].copy_from_slice(&v[j..n]);
    v.copy_from_slice(&buf[..n]);
    count
}

/// Extent of the drawing across the layers (width when time flows down), boxes included.
pub fn width(l: &Layout) -> f64 {
    let (c, _) = axes(l.direction);
    let (lo, hi) = l.nodes.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), n| {
        let half = [n.width, n.height][c] / 2.0;
        let x = [n.x, n.y][c];
        (lo.min(x - half), hi.max(x + half))
    });
    if lo.is_finite() {
        hi - lo
    } else {
        0.0
    }
}

/// Same-layer node pairs whose left/right order differs between `before` and `after`:
/// returns (changed, total) over nodes present in both with the same layer in both.
pub fn order_changes(before: &Layout, after: &Layout) -> (u64, u64) {
    let (c, _) = axes(after.direction);
    let old: HashMap<&str, (u32, f64)> =
        before.nodes.iter().map(|n| (n.id.as_str(), (n.layer, [n.x, n.y][c]))).collect();
    let mut by_layer: std::collections::BTreeMap<u32, Vec<(f64, f64)>> = Default::default();
    for n in &after.nodes {
        if let Some(&(layer, was)) = old.get(n.id.as_str()) {
            if layer == n.layer {
                by_layer.entry(layer).or_default().push((was, [n.x, n.y][c]));
            }
        }
    }
    let (mut changed, mut total) = (0, 0);
    for mut pairs in by_layer.into_values() {
        let k = pairs.len() as u64;
        total += k * (k.saturating_sub(1)) / 2;
        changed += opposite_pairs(&mut pairs);
    }
    (changed, total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inversion_count_is_strict() {
        let mut v = vec![3.0, 1.0, 2.0, 2.0, 0.0];
        let mut b = vec![0.0; 5];
        // (3,1) (3,2) (3,2) (3,0) (1,0) (2,0) (2,0); the equal pair (2,2) is not an inversion
        assert_eq!(inversions(&mut v, &mut b), 7);
        let mut segs = vec![(0.0, 1.0), (1.0, 0.0), (2.0, 0.0)];
        assert_eq!(opposite_pairs(&mut segs), 2);
    }
}
