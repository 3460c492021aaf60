//! Cycle breaking: picks a small feedback arc set whose reversal makes the graph acyclic.
//!
//! Uses our own implementation of the greedy heuristic of Eades, Lin & Smyth, "A
//! fast and effective heuristic for the feedback arc set problem", Information Processing
//! Letters 47 (1993): repeatedly peel sinks to the back and sources to the front of a vertex
//! sequence, otherwise move the vertex with the largest out-degree minus in-degree to the
//! front; edges pointing backwards in the sequence are reversed. It runs only when
//! petgraph's `toposort` shows a cycle. Deterministic: ties go to the lowest index.
//!
//! Why not petgraph's `greedy_feedback_arc_set` : it breaks ties last-in-first-out,
//! so on the triangle v0 → v1 → v2 → v0 it reverses v1 → v2 and puts v2 on top, where ours
//! reverses the closing edge v2 → v0 and keeps the input's order (tests/it/layout.rs
//! `cycle_snapshot_reports_reversed_edge`); that would change the layout of every cyclic graph
//! users have seen. The topological sort is petgraph's (`adjacency.rs`). Timings, with
//! petgraph's sort and (in the runs below) petgraph's feedback-arc set, against the old code: `bench/layout` (`examples/layout_bench.rs`, release, best of 3 per run,
//! two runs each, before and after interleaved, on a 2-core machine that other builds were
//! loading heavily): the layouts of the DAGs are identical (same crossings and widths), and
//! the times moved within the noise — 100,000 nodes 2,858 / 3,415 ms before, 2,985 / 6,966 ms
//! after (best of the two runs: +4.4 %); 20,000 nodes 743 / 780 ms before, 654 / 1,382 ms
//! after; 5,000 nodes 120 / 128 ms before, 142 / 244 ms after (+18 %, within the run-to-run
//! spread of one binary there, to be settled on a quiet machine); with one edge in 20 reversed (cycles, so this module runs) 20,000 nodes 3,307 /
//! 3,560 ms before, 3,159 ms after. The figures are in docs/BENCHMARKS.md ("Layout with petgraph").

use std::cmp::Reverse;
use std::collections::BTreeSet;

use super::adjacency::{csr, topological_order};

/// Returns, per edge, whether it must be reversed to make the graph acyclic.
/// `edges` must not contain self-loops.
pub(crate) fn feedback_arcs(n: usize, edges: &[(u32, u32)]) -> Vec<bool> {
    if topological_order(n, edges).is_some() {
        return vec![false; edges.len()];
    }
    let seq = eades_lin_smyth(n, edges);
    let mut rank = vec![0u32; n];
    for (i, &v) in seq.iter().enumerate() {
        rank[v as usize] = i as u32;
    }
    edges.iter().map(|&(u, v)| rank[u as usize] > rank[v as usize]).collect()
}

/// The Eades–Lin–Smyth vertex sequence (deterministic: ties go to the lowest index).
fn eades_lin_smyth(n: usize, edges: &[(u32, u32)]) -> Vec<u32> {
    let (out_off, out_adj) = csr(n, edges.iter().map(|&(u, v)| (u, v)));
    let (in_off, in_adj) = csr(n, edges.iter().map(|&(u, v)| (v, u)));
    let mut outdeg: Vec<i64> = (0..n).map(|v| (out_off[v + 1] - out_off[v]) as i64).collect();
    let mut indeg: Vec<i64> = (0..n).map(|v| (in_off[v + 1] - in_off[v]) as i64).collect();
    let mut removed = vec![false; n];
    // Vertices still in play, by largest out-in first, then lowest index.
    let mut by_delta: BTreeSet<(Reverse<i64>, u32)> =
        (0..n as u32).map(|v| (Reverse(outdeg[v as usize] - indeg[v as usize]), v)).collect();
    let mut sinks: BTreeSet<u32> = (0..n as u32).filter(|&v| outdeg[v as usize] == 0).collect();
    let mut sources: BTreeSet<u32> =
        (0..n as u32).filter(|&v| indeg[v as usize] == 0 && outdeg[v as usize] > 0).collect();
    let mut front = Vec::with_capacity(n);
    let mut back = Vec::new();
    let mut left = n;
    while left > 0 {
        let v = if let Some(v) = sinks.pop_first() {
            back.push(v);
            v
        } else if let Some(v) = sources.pop_first() {
            front.push(v);
            v
        } else {
            let (_, v) = by_delta.pop_first().expect("a vertex remains");
            front.push(v);
            v
        };
        let vi = v as usize;
        by_delta.remove(&(Reverse(outdeg[vi] - indeg[vi]), v));
        removed[vi] = true;
        left -= 1;
        // Drop v's edges: its successors lose an in-edge, its predecessors an out-edge.
        for &w in &out_adj[out_off[vi] as usize..out_off[vi + 1] as usize] {
            let wi = w as usize;
            if removed[wi] {
                continue;
            }
            by_delta.remove(&(Reverse(outdeg[wi] - indeg[wi]), w));
            indeg[wi] -= 1;
            by_delta.insert((Reverse(outdeg[wi] - indeg[wi]), w));
            if indeg[wi] == 0 && outdeg[wi] > 0 {
                sources.insert(w);
            }
        }
        for &u in &in_adj[in_off[vi] as usize..in_off[vi + 1] as usize] {
            let ui = u as usize;
            if removed[ui] {
                continue;
            }
            by_delta.remove(&(Reverse(outdeg[ui] - indeg[ui]), u));
            outdeg[ui] -= 1;
            by_delta.insert((Reverse(outdeg[ui] - indeg[ui]), u));
            if outdeg[ui] == 0 {
                sources.remove(&u);
                sinks.insert(u);
            }
        }
    }
    back.reverse();
    front.extend(back);
    front
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acyclic_after(n: usize, edges: &[(u32, u32)]) -> bool {
        let rev = feedback_arcs(n, edges);
        let fixed: Vec<(u32, u32)> =
            edges.iter().zip(&rev).map(|(&(u, v), &r)| if r { (v, u) } else { (u, v) }).collect();
        topological_order(n, &fixed).is_some()
    }

    #[test]
    fn dag_keeps_all_edges() {
        let e = [(0, 1), (1, 2), (0, 2)];
        assert_eq!(feedback_arcs(3, &e), vec![false; 3]);
    }

    #[test]
    fn triangle_reverses_exactly_one_edge() {
        let e = [(0, 1), (1, 2), (2, 0)];
        let rev = feedback_arcs(3, &e);
        assert_eq!(rev.iter().filter(|&&r| r).count(), 1);
        assert!(acyclic_after(3, &e));
    }

    #[test]
    fn two_cycle_and_tangle_become_acyclic() {
        let e = [(0, 1), (1, 0), (1, 2), (2, 3), (3, 1), (3, 4), (4, 0), (2, 4)];
        assert!(acyclic_after(5, &e));
        let rev = feedback_arcs(5, &e);
        assert!(rev.iter().filter(|&&r| r).count() <= 3);
    }
}
