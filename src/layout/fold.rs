//! Folding a wide drawing to the screen's shape (issue 16): a layered drawing of many
//! components, or of one component with wide layers, is one long strip; cut across the layers
//! and stacked like lines of text, it fills a viewport of the wanted aspect ratio.
//!
//! A fold is a piecewise translation of the (across, along) plane: strip `k` is the part of the
//! unfolded drawing with `starts[k] <= across < starts[k + 1]` (by node centre), moved left by
//! `starts[k]` and down the flow by `k * pitch`. Every strip keeps the drawing's full depth, so
//! two nodes of one strip keep their offsets and two nodes of different strips lie in disjoint
//! bands along the flow: a fold of a drawing without overlaps has none either, wherever the
//! cuts fall. Cuts are put where the fewest edges and nodes cross them (a cut between two
//! components crosses nothing), near the widths that give the wanted aspect ratio.

/// How strips are cut and stacked. The identity fold has no strips.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Fold {
    /// Left end (across the layers) of each strip, in unfolded coordinates, ascending.
    starts: Vec<f64>,
    /// Distance along the flow from one strip to the next.
    pitch: f64,
}

/// Ends of an interval across the layers: a node box, or the span of an edge's route.
pub(crate) type Span = (f64, f64);

/// Weight of a node cut in two against an edge cut in two, when choosing where to cut.
const NODE_CUT_COST: usize = 4;

impl Fold {
    /// Whether this fold moves anything.
    pub(crate) fn is_identity(&self) -> bool {
        self.starts.len() < 2
    }

    /// The strip a point at `across` (unfolded) belongs to.
    pub(crate) fn strip(&self, across: f64) -> usize {
        if self.is_identity() {
            return 0;
        }
        self.starts[1..].partition_point(|&s| s <= across)
    }

    /// Left end of the last strip: rows made after the fold may only hold nodes past it (they
    /// are deeper than the strips are thick).
    pub(crate) fn last_start(&self) -> Option<f64> {
        (!self.is_identity()).then(|| self.starts[self.starts.len() - 1])
    }

    /// Where an unfolded point goes: into the strip of `strip_of` (an across coordinate).
    pub(crate) fn map_in(&self, strip_of: f64, [across, along]: [f64; 2]) -> [f64; 2] {
        if self.is_identity() {
            return [across, along];
        }
        let k = self.strip(strip_of);
        [across - self.starts[k] + self.starts[0], along + k as f64 * self.pitch]
    }

    /// Where an unfolded point goes (its own strip).
    pub(crate) fn map(&self, p: [f64; 2]) -> [f64; 2] {
        self.map_in(p[0], p)
    }

    /// Chooses a fold for a drawing whose nodes span `nodes` across the layers, whose edges
    /// span `edges`, and which is `depth` thick along the flow, so that the folded drawing's
    /// width over its height is near `aspect`. `gap` separates two strips. Returns the identity
    /// when folding would not bring the shape nearer `aspect`.
    pub(crate) fn choose(nodes: &[Span], edges: &[Span], depth: f64, aspect: f64, gap: f64) -> Fold {
        let sized = aspect > 0.0 && depth > 0.0; // false for NaN too
        if nodes.is_empty() || !sized {
            return Fold::default();
        }
        let lo = nodes.iter().map(|s| s.0).fold(f64::INFINITY, f64::min);
        let hi = nodes.iter().map(|s| s.1).fold(f64::NEG_INFINITY, f64::max);
        let width = hi - lo;
        let pitch = depth + gap;
        let score = |w: f64, strips: usize| ((w / (strips as f64 * pitch - gap)) / aspect).ln().abs();
        let mut best = (score(width, 1), Fold::default());
        let ideal = (width / (aspect * pitch)).sqrt();
        if !ideal.is_finite() || ideal < 1.5 {
            return best.1;
        }
        let cutter = Cutter::new(nodes, edges);
        let from = (ideal.floor() as usize).saturating_sub(1).max(2);
        for k in from..=ideal.ceil() as usize + 1 {
            let mut starts = vec![lo];
            let target = width / k as f64;
            for _ in 1..k {
                let prev = starts[starts.len() - 1];
                match cutter.best_cut(prev + target, target / 4.0, prev + target / 2.0, hi) {
                    Some(c) => starts.push(c),
                    None => break,
                }
            }
            let fold = Fold { starts, pitch };
            let folded_width = fold.width(nodes);
            let s = score(folded_width, fold.starts.len());
            if s < best.0 {
                best = (s, fold);
            }
        }
        best.1
    }

    /// Width of the folded drawing: the widest strip, nodes sticking out of it included.
    fn width(&self, nodes: &[Span]) -> f64 {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for &(l, r) in nodes {
            let c = (l + r) / 2.0;
            let [a, _] = self.map_in(c, [l, 0.0]);
            let [b, _] = self.map_in(c, [r, 0.0]);
            lo = lo.min(a);
            hi = hi.max(b);
        }
        hi - lo
    }
}

/// Counts what a cut at some point across the layers cuts through, from sorted interval ends.
struct Cutter {
    node_lo: Vec<f64>,
    node_hi: Vec<f64>,
    edge_lo: Vec<f64>,
    edge_hi: Vec<f64>,
    /// Candidate cuts: the middle of each gap between consecutive node boxes, and just left of
    /// each node box, ascending.
    candidates: Vec<f64>,
}

impl Cutter {
    fn new(nodes: &[Span], edges: &[Span]) -> Cutter {
        let sorted = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v
        };
        let node_lo = sorted(nodes.iter().map(|s| s.0).collect());
        let node_hi = sorted(nodes.iter().map(|s| s.1).collect());
        let mut candidates: Vec<f64> = node_lo.iter().map(|&l| l - 1e-3).collect();
        let mut by_left: Vec<Span> = nodes.to_vec();
        by_left.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut reach = f64::NEG_INFINITY;
        for &(l, r) in &by_left {
            if reach > f64::NEG_INFINITY && l > reach {
                candidates.push((reach + l) / 2.0);
            }
            reach = reach.max(r);
        }
        Cutter {
            node_lo,
            node_hi,
            edge_lo: sorted(edges.iter().map(|s| s.0).collect()),
            edge_hi: sorted(edges.iter().map(|s| s.1).collect()),
            candidates: sorted(candidates),
        }
    }

    /// How many intervals of `lo`/`hi` strictly contain `x`.
    fn inside(lo: &[f64], hi: &[f64], x: f64) -> usize {
        lo.partition_point(|&l| l < x) - hi.partition_point(|&h| h <= x)
    }

    fn cost(&self, x: f64) -> usize {
        NODE_CUT_COST * Cutter::inside(&self.node_lo, &self.node_hi, x)
            + Cutter::inside(&self.edge_lo, &self.edge_hi, x)
    }

    /// The cheapest candidate within `slack` of `target` and inside (`min`, `max`), nearest the
    /// target among equals.
    fn best_cut(&self, target: f64, slack: f64, min: f64, max: f64) -> Option<f64> {
        let (a, b) = ((target - slack).max(min), (target + slack).min(max));
        if a >= b {
            return None;
        }
        let from = self.candidates.partition_point(|&c| c <= a);
        let to = self.candidates.partition_point(|&c| c < b);
        let window = self.candidates[from..to].iter().copied();
        let pick = window.min_by(|&x, &y| {
            self.cost(x).cmp(&self.cost(y)).then((x - target).abs().total_cmp(&(y - target).abs()))
        });
        pick.or_else(|| (target > min && target < max).then_some(target))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` nodes 100 wide with gaps of 20, in one row, no edges.
    fn row(n: usize) -> Vec<Span> {
        (0..n).map(|i| (i as f64 * 120.0, i as f64 * 120.0 + 100.0)).collect()
    }

    #[test]
    fn a_narrow_drawing_is_left_alone() {
        assert!(Fold::choose(&row(3), &[], 100.0, 1.5, 50.0).is_identity());
        assert!(Fold::choose(&[], &[], 100.0, 1.5, 50.0).is_identity());
    }

    #[test]
    fn a_long_row_folds_near_the_aspect_ratio_in_gaps() {
        let nodes = row(100); // 11,980 wide, 40 deep
        let f = Fold::choose(&nodes, &[], 40.0, 1.0, 60.0);
        let strips = f.starts.len();
        // The ideal strip count is sqrt(11980 / 100) ≈ 11.
        assert!((9..=13).contains(&strips), "{strips} strips");
        let height = strips as f64 * 100.0 - 60.0;
        let ratio = f.width(&nodes) / height;
        assert!((0.7..1.4).contains(&ratio), "width / height = {ratio}");
        // No cut goes through a node.
        for &s in &f.starts[1..] {
            assert!(nodes.iter().all(|&(l, r)| !(l < s && s < r)), "cut at {s} splits a node");
        }
    }

    #[test]
    fn cuts_avoid_edges() {
        // Pairs of nodes joined by an edge: the cheap cuts are between pairs.
        let nodes = row(40);
        let edges: Vec<Span> = (0..20).map(|p| (p as f64 * 240.0 + 50.0, p as f64 * 240.0 + 170.0)).collect();
        let f = Fold::choose(&nodes, &edges, 40.0, 1.0, 60.0);
        assert!(!f.is_identity());
        for &s in &f.starts[1..] {
            assert!(edges.iter().all(|&(l, r)| !(l < s && s < r)), "cut at {s} crosses an edge");
        }
    }

    #[test]
    fn mapping_moves_strips_down_and_left() {
        let f = Fold { starts: vec![0.0, 500.0, 1000.0], pitch: 100.0 };
        assert_eq!(f.map([10.0, 5.0]), [10.0, 5.0]);
        assert_eq!(f.map([510.0, 5.0]), [10.0, 105.0]);
        assert_eq!(f.map([1200.0, 5.0]), [200.0, 205.0]);
        assert_eq!(f.map_in(499.0, [520.0, 5.0]), [520.0, 5.0]);
        assert_eq!(f.strip(-50.0), 0);
        assert_eq!(f.last_start(), Some(1000.0));
        assert_eq!(Fold::default().last_start(), None);
    }
}
