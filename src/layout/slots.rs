//! Where a node fits in a layer of the incremental layout: the layer's taken intervals keyed
//! by left edge, the search for the free slot nearest a wished-for position, and the fast id
//! hash the layout's index uses.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Bound::{Excluded, Unbounded};

/// Gaps probed each way from the wished-for position before going past a layer's end.
const GAP_PROBES: usize = 16;

/// Multiply-rotate hash (the "FxHash" of rustc) for the id index: ids are looked up on every
/// append, and SipHash costs a noticeable share of the 5 µs budget. Only lookups use it, never
/// iteration, so output order does not depend on it.
#[derive(Default, Clone, Copy)]
pub(super) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(K);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

pub(super) type IdIndex = HashMap<String, u32, BuildHasherDefault<IdHasher>>;

#[derive(Debug, Clone, Copy)]
pub(super) struct Key(pub(super) f64);
impl PartialEq for Key {
    fn eq(&self, o: &Self) -> bool {
        self.0.total_cmp(&o.0).is_eq()
    }
}
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Key {
    fn cmp(&self, o: &Self) -> Ordering {
        self.0.total_cmp(&o.0)
    }
}

/// Left edge of an interval that walls off everything left of its right edge (a folded
/// drawing's rows past the fold): nothing is placed left of a wall.
pub(super) const WALL: f64 = -f64::MAX / 4.0;

/// Centre of the free slot nearest `wanted` for a box of half-width `half` keeping `gap` to
/// every taken interval (and right of a [`WALL`]).
pub(super) fn free_slot(taken: &BTreeMap<(Key, u32), f64>, wanted: f64, half: f64, gap: f64) -> f64 {
    type Iv = Option<(f64, f64)>; // (left, right)
    let fit = |l: Iv, r: Iv| -> Option<f64> {
        if l.is_none() && r.is_some_and(|(left, _)| left <= WALL) {
            return None;
        }
        let lo = l.map_or(f64::NEG_INFINITY, |(_, right)| right + gap + half);
        let hi = r.map_or(f64::INFINITY, |(left, _)| left - gap - half);
        (lo <= hi).then(|| wanted.clamp(lo, hi))
    };
    let next_after = |left: f64| -> Iv {
        taken.range((Excluded((Key(left), u32::MAX)), Unbounded)).next().map(|(k, &r)| (k.0 .0, r))
    };
    let prev_before =
        |left: f64| -> Iv { taken.range(..(Key(left), 0)).next_back().map(|(k, &r)| (k.0 .0, r)) };
    let l0: Iv = taken.range(..=(Key(wanted), u32::MAX)).next_back().map(|(k, &r)| (k.0 .0, r));
    let r0: Iv =
        taken.range((Excluded((Key(wanted), u32::MAX)), Unbounded)).next().map(|(k, &r)| (k.0 .0, r));
    if let Some(c) = fit(l0, r0) {
        return c;
    }
    let mut right_pick = None;
    let (mut l, mut r) = (r0, r0.and_then(|(left, _)| next_after(left)));
    for _ in 0..GAP_PROBES {
        if l.is_none() {
            break;
        }
        if let Some(c) = fit(l, r) {
            right_pick = Some(c);
            break;
        }
        l = r;
        r = r.and_then(|(left, _)| next_after(left));
    }
    let mut left_pick = None;
    let (mut l, mut r) = (l0.and_then(|(left, _)| prev_before(left)), l0);
    for _ in 0..GAP_PROBES {
        if r.is_none() {
            break;
        }
        if let Some(c) = fit(l, r) {
            left_pick = Some(c);
            break;
        }
        r = l;
        l = l.and_then(|(left, _)| prev_before(left));
    }
    let ends = || {
        let first = taken.iter().next().map(|(k, _)| k.0 .0).unwrap_or(wanted);
        let last = taken.iter().next_back().map(|(_, &r)| r).unwrap_or(wanted);
        (first - gap - half, last + gap + half)
    };
    match (left_pick, right_pick) {
        (Some(a), Some(b)) => {
            if wanted - a < b - wanted {
                a
            } else {
                b
            }
        }
        (Some(a), None) => a,
        (None, Some(b)) => b,
        (None, None) => {
            let (a, b) = ends();
            let walled = taken.keys().next().is_some_and(|k| k.0 .0 <= WALL);
            if !walled && wanted - a < b - wanted {
                a
            } else {
                b
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_placed_left_of_a_wall() {
        let mut t = BTreeMap::new();
        t.insert((Key(WALL), u32::MAX), 100.0);
        t.insert((Key(120.0), 1), 140.0);
        for wanted in [-1e9, -50.0, 0.0, 99.0, 130.0] {
            let c = free_slot(&t, wanted, 10.0, 5.0);
            assert!(c - 10.0 >= 100.0 + 5.0 - 1e-9, "{wanted} placed at {c}");
            let clear = c + 10.0 + 5.0 <= 120.0 + 1e-9 || c - 10.0 - 5.0 >= 140.0 - 1e-9;
            assert!(clear, "{wanted} placed at {c}, on a taken interval");
        }
    }

    fn taken(ivs: &[(f64, f64)]) -> BTreeMap<(Key, u32), f64> {
        ivs.iter().enumerate().map(|(i, &(l, r))| ((Key(l), i as u32), r)).collect()
    }

    #[test]
    fn slot_in_empty_row_is_the_wish() {
        assert_eq!(free_slot(&taken(&[]), 42.0, 10.0, 5.0), 42.0);
    }

    #[test]
    fn slot_avoids_taken_intervals() {
        let t = taken(&[(0.0, 100.0), (125.0, 200.0)]);
        // wish inside the first interval: the gap 100..125 is too small for 20 + 2*5,
        // so the nearest free place is left of 0 (at -15) rather than right of 200 (215).
        assert_eq!(free_slot(&t, 50.0, 10.0, 5.0), -15.0);
        // a gap that fits exactly
        let t = taken(&[(0.0, 100.0), (130.0, 200.0)]);
        assert_eq!(free_slot(&t, 120.0, 10.0, 5.0), 115.0);
        assert_eq!(free_slot(&t, 190.0, 10.0, 5.0), 215.0);
    }
}
