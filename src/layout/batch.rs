//! An appended batch's own structure, for the incremental layout's `append`: which batch
//! edges touch each new node, and the order that places parents before their children.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One end of a batch edge seen from a new node: (new node's index in the batch, neighbour,
/// the neighbour is its child).
pub(super) type Touch = (u32, u32, bool);

/// The batch's adjacency (only batch edges can touch new nodes), grouped by new node, in edge
/// order. `base` is the first new node's index, `k` the batch's size.
pub(super) fn adjacency(ends: &[(u32, u32)], base: usize, k: usize) -> Vec<Touch> {
    let mut adj: Vec<Touch> = Vec::with_capacity(2 * ends.len());
    for &(s, t) in ends {
        if s != t {
            if t as usize >= base {
                adj.push((t - base as u32, s, false));
            }
            if s as usize >= base {
                adj.push((s - base as u32, t, true));
            }
        }
    }
    if k > 1 {
        adj.sort_by_key(|a| a.0);
    }
    adj
}

/// What touches new node `i` (its slice of the sorted adjacency).
pub(super) fn around(adj: &[Touch], i: u32) -> &[Touch] {
    let lo = adj.partition_point(|a| a.0 < i);
    let hi = adj.partition_point(|a| a.0 <= i);
    &adj[lo..hi]
}

/// The batch in placing order: parents first within the batch (the smallest index first
/// among the ready), then the leftovers of cycles in batch order.
pub(super) fn parents_first(adj: &[Touch], base: usize, k: usize) -> Vec<u32> {
    if k <= 1 {
        return (0..k as u32).collect();
    }
    let mut pending = vec![0u32; k];
    for a in adj.iter().filter(|a| !a.2 && a.1 as usize >= base) {
        pending[a.0 as usize] += 1;
    }
    let mut heap: BinaryHeap<Reverse<u32>> =
        (0..k as u32).filter(|&i| pending[i as usize] == 0).map(Reverse).collect();
    let mut order = Vec::with_capacity(k);
    let mut done = vec![false; k];
    while let Some(Reverse(i)) = heap.pop() {
        order.push(i);
        done[i as usize] = true;
        for a in around(adj, i).iter().filter(|a| a.2 && a.1 as usize >= base) {
            let j = a.1 as usize - base;
            pending[j] -= 1;
            if pending[j] == 0 {
                heap.push(Reverse(j as u32));
            }
        }
    }
    order.extend((0..k as u32).filter(|&i| !done[i as usize]));
    order
}
