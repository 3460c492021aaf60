//! Packing a wide drawing to the screen's shape : a layered drawing of many
//! components, or of one component with wide layers, is one long row; cut across the layers
//! into pieces and packed into shelves like words into lines of text, it fills a viewport of
//! the wanted aspect ratio.
//!
//! A fold is a piecewise translation of the (across, along) plane: piece `k` is the part of the
//! unfolded drawing with `starts[k] <= across < starts[k + 1]` (by node centre), moved by
//! `shift[k]`. Pieces are cut first where nothing crosses (between components, so a component
//! that fits stays whole), then, in a component wider than a shelf, where the fewest edges and
//! nodes cross, near the shelf width. Shelves are as thick as the whole drawing and pieces in
//! a shelf are kept apart by their extents, so a drawing without overlaps has none folded. The
//! shelf width is the one whose packing comes nearest the aspect ratio.
//!
//! For drawings that grow (`incremental.rs`): a node added later must not cross a cut (the
//! caller blocks each cut in each row no node covers already), and the pieces' extents reach
//! their cuts, so a piece can fill up to its cuts without touching its neighbours; the first
//! piece may grow left and the last right and down, where nothing is packed.

/// How the drawing's pieces are cut and moved. The identity fold has one piece.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Fold {
    /// Left end (across the layers) of each piece, in unfolded coordinates, ascending.
    starts: Vec<f64>,
    /// How far each piece moves, (across, along).
    shift: Vec<[f64; 2]>,
}

/// Ends of an interval across the layers: a node box, or the span of an edge's route.
pub(crate) type Span = (f64, f64);

/// Weight of a node cut in two against an edge cut in two, when choosing where to cut.
const NODE_CUT_COST: usize = 4;
/// Most shelf widths tried.
const MAX_SHELVES: usize = 64;

impl Fold {
    /// Whether this fold moves anything.
    pub(crate) fn is_identity(&self) -> bool {
        self.starts.len() < 2
    }

    /// The piece a point at `across` (unfolded) belongs to.
    pub(crate) fn strip(&self, across: f64) -> usize {
        if self.is_identity() {
            return 0;
        }
        self.starts[1..].partition_point(|&s| s <= across)
    }

    /// Where pieces meet (unfolded): nodes added later must not cross these.
    pub(crate) fn cuts(&self) -> &[f64] {
        if self.is_identity() {
            &[]
        } else {
            &self.starts[1..]
        }
    }

    /// Left end of the last piece: rows made after the fold may only hold nodes past it (they
    /// are deeper than the shelves are thick, and only the last piece has room below).
    pub(crate) fn last_start(&self) -> Option<f64> {
        (!self.is_identity()).then(|| self.starts[self.starts.len() - 1])
    }

    /// Where an unfolded point goes: moved with the piece of `strip_of` (an across coordinate).
    pub(crate) fn map_in(&self, strip_of: f64, [across, along]: [f64; 2]) -> [f64; 2] {
        if self.is_identity() {
            return [across, along];
        }
        let [dc, da] = self.shift[self.strip(strip_of)];
        [across + dc, along + da]
    }

    /// Where an unfolded point goes (moved with its own piece).
    pub(crate) fn map(&self, p: [f64; 2]) -> [f64; 2] {
        self.map_in(p[0], p)
    }

    /// Chooses a fold for a drawing whose nodes span `nodes` across the layers, whose edges
    /// span `edges`, and which is `depth` thick along the flow, so that the folded drawing's
    /// width over its height is near `aspect`. `gap` separates two shelves, `spacing` two pieces
    /// of a shelf. Returns the identity when folding would not bring the shape nearer `aspect`.
    pub(crate) fn choose(
        nodes: &[Span],
        edges: &[Span],
        depth: f64,
        aspect: f64,
        gap: f64,
        spacing: f64,
    ) -> Fold {
        let sized = aspect > 0.0 && depth > 0.0; // false for NaN too
        if nodes.is_empty() || !sized {
            return Fold::default();
        }
        let lo = nodes.iter().map(|s| s.0).fold(f64::INFINITY, f64::min);
        let hi = nodes.iter().map(|s| s.1).fold(f64::NEG_INFINITY, f64::max);
        let width = hi - lo;
        let pitch = depth + gap;
        let score = |w: f64, h: f64| ((w / h) / aspect).ln().abs();
        let mut best = (score(width, depth), Fold::default());
        let ideal = (width / (aspect * pitch)).sqrt();
        if !ideal.is_finite() || ideal < 1.2 {
            return best.1;
        }
        let cutter = Cutter::new(nodes, edges);
        // Cuts nothing crosses: between components.
        let free: Vec<f64> =
            cutter.candidates.iter().copied().filter(|&c| c > lo && c < hi && cutter.cost(c) == 0).collect();
        let most = ((2.0 * ideal).ceil() as usize + 1).min(MAX_SHELVES);
        for k in 2..=most {
            let target = width / k as f64;
            let mut cuts = Vec::new();
            let mut prev = lo;
            for &end in free.iter().chain(std::iter::once(&hi)) {
                // A block wider than a shelf is cut inside, where it costs least.
                while end - prev > target * 1.25 {
                    match cutter.best_cut(
                        prev + target,
                        target / 4.0,
                        prev + target / 2.0,
                        end - target / 4.0,
                    ) {
                        Some(c) => {
                            cuts.push(c);
                            prev = c;
                        }
                        None => break,
                    }
                }
                if end < hi {
                    cuts.push(end);
                }
                prev = end;
            }
            let (fold, w, h) = Fold::pack(lo, &cuts, nodes, target, pitch, gap, spacing);
            let s = score(w, h);
            if s < best.0 {
                best = (s, fold);
            }
        }
        best.1
    }

    /// Packs the pieces between `cuts` into shelves `target` wide (a wider piece gets a shelf
    /// of its own). Returns the fold and the packed drawing's width and height.
    fn pack(
        lo: f64,
        cuts: &[f64],
        nodes: &[Span],
        target: f64,
        pitch: f64,
        gap: f64,
        spacing: f64,
    ) -> (Fold, f64, f64) {
        let mut starts = Vec::with_capacity(cuts.len() + 1);
        starts.push(lo);
        starts.extend_from_slice(cuts);
        let probe = Fold { starts, shift: Vec::new() };
        let pieces = probe.starts.len();
        // Each piece's extent: its nodes (by centre), and its cuts (it may fill up to them).
        let mut ext: Vec<Span> = (0..pieces)
            .map(|k| {
                let left = if k == 0 { f64::INFINITY } else { probe.starts[k] };
                let right = if k + 1 == pieces { f64::NEG_INFINITY } else { probe.starts[k + 1] };
                (left, right)
            })
            .collect();
        for &(l, r) in nodes {
            let k = if probe.starts.len() < 2 {
                0
            } else {
                probe.starts[1..].partition_point(|&s| s <= (l + r) / 2.0)
            };
            ext[k] = (ext[k].0.min(l), ext[k].1.max(r));
        }
        let mut shift = Vec::with_capacity(pieces);
        let (mut cursor, mut shelf, mut widest) = (0.0f64, 0usize, 0.0f64);
        for &(l, r) in &ext {
            let w = if r >= l { r - l } else { 0.0 };
            if cursor > 0.0 && cursor + w > target {
                cursor = 0.0;
                shelf += 1;
            }
            let left = if r >= l { l } else { lo };
            shift.push([lo + cursor - left, shelf as f64 * pitch]);
            widest = widest.max(cursor + w);
            cursor += w + spacing;
        }
        let height = (shelf + 1) as f64 * pitch - gap;
        (Fold { starts: probe.starts, shift }, widest, height)
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

    /// Width and height of the folded boxes of `nodes`, `depth` thick.
    fn extent(f: &Fold, nodes: &[Span], depth: f64) -> (f64, f64) {
        let (mut lo, mut hi, mut bottom) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
        for &(l, r) in nodes {
            let c = (l + r) / 2.0;
            let [a, top] = f.map_in(c, [l, 0.0]);
            let [b, _] = f.map_in(c, [r, 0.0]);
            lo = lo.min(a);
            hi = hi.max(b);
            bottom = bottom.max(top + depth);
        }
        (hi - lo, bottom)
    }

    #[test]
    fn a_narrow_drawing_is_left_alone() {
        assert!(Fold::choose(&row(3), &[], 100.0, 1.5, 50.0, 40.0).is_identity());
        assert!(Fold::choose(&[], &[], 100.0, 1.5, 50.0, 40.0).is_identity());
    }

    #[test]
    fn a_long_row_folds_near_the_aspect_ratio_in_gaps() {
        let nodes = row(100); // 11,980 wide, 40 deep
        let f = Fold::choose(&nodes, &[], 40.0, 1.0, 60.0, 20.0);
        assert!(!f.is_identity());
        let (w, h) = extent(&f, &nodes, 40.0);
        assert!((0.6..1.6).contains(&(w / h)), "width / height = {}", w / h);
        // No cut goes through a node.
        for &s in f.cuts() {
            assert!(nodes.iter().all(|&(l, r)| !(l < s && s < r)), "cut at {s} splits a node");
        }
    }

    #[test]
    fn cuts_avoid_edges_and_components_stay_whole() {
        // Pairs of nodes joined by an edge: the free cuts are between pairs.
        let nodes = row(40);
        let edges: Vec<Span> = (0..20).map(|p| (p as f64 * 240.0 + 50.0, p as f64 * 240.0 + 170.0)).collect();
        let f = Fold::choose(&nodes, &edges, 40.0, 1.0, 60.0, 20.0);
        assert!(!f.is_identity());
        for &s in f.cuts() {
            assert!(edges.iter().all(|&(l, r)| !(l < s && s < r)), "cut at {s} crosses an edge");
        }
        // The two nodes of a pair move together.
        for p in 0..20 {
            let (a, b) = (nodes[2 * p], nodes[2 * p + 1]);
            let ma = f.map([a.0, 0.0]);
            let mb = f.map([b.0, 0.0]);
            assert_eq!((mb[0] - ma[0], mb[1] - ma[1]), (b.0 - a.0, 0.0), "pair {p} is split");
        }
    }

    #[test]
    fn a_wide_component_is_cut_where_it_costs_least() {
        // One component: 60 nodes in a row, each joined to the next, except a weak spot every
        // 15 nodes where two edges overlap less.
        let nodes = row(60);
        let edges: Vec<Span> = (0..59).map(|i| (i as f64 * 120.0 + 50.0, i as f64 * 120.0 + 170.0)).collect();
        let f = Fold::choose(&nodes, &edges, 40.0, 1.0, 60.0, 20.0);
        assert!(f.cuts().len() >= 2, "{:?}", f.cuts());
        for &s in f.cuts() {
            assert!(nodes.iter().all(|&(l, r)| !(l < s && s < r)), "cut at {s} splits a node");
        }
    }

    #[test]
    fn mapping_moves_pieces() {
        let f = Fold {
            starts: vec![0.0, 500.0, 1000.0],
            shift: vec![[0.0, 0.0], [-500.0, 100.0], [-1000.0, 200.0]],
        };
        assert_eq!(f.map([10.0, 5.0]), [10.0, 5.0]);
        assert_eq!(f.map([510.0, 5.0]), [10.0, 105.0]);
        assert_eq!(f.map([1200.0, 5.0]), [200.0, 205.0]);
        assert_eq!(f.map_in(499.0, [520.0, 5.0]), [520.0, 5.0]);
        assert_eq!(f.strip(-50.0), 0);
        assert_eq!(f.last_start(), Some(1000.0));
        assert_eq!(f.cuts(), [500.0, 1000.0]);
        assert_eq!(Fold::default().last_start(), None);
        assert!(Fold::default().cuts().is_empty());
    }
}
