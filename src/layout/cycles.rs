//! Cycle breaking: picks a small feedback arc set whose reversal makes the graph acyclic.
//!
//! Uses petgraph's `greedy_feedback_arc_set`, the greedy heuristic of Eades, Lin & Smyth, "A
//! fast and effective heuristic for the feedback arc set problem", Information Processing
//! Letters 47 (1993): repeatedly peel sinks to the back and sources to the front of a vertex
//! sequence, otherwise move the vertex with the largest out-degree minus in-degree to the
//! front; edges pointing backwards in the sequence are reversed. It runs only when
//! petgraph's `toposort` shows a cycle. Both are deterministic for a given node and edge order.
//!
//! Issue 11 replaced our own Kahn sort and Eades–Lin–Smyth (a `BTreeSet` by degree delta)
//! with petgraph's. `bench/layout` (`examples/layout_bench.rs`, release, best of 3 per run,
//! two runs each, before and after interleaved, on a 2-core machine that other builds were
//! loading heavily): the layouts of the DAGs are identical (same crossings and widths), and
//! the times moved within the noise — 100,000 nodes 2,858 / 3,415 ms before, 2,985 / 6,966 ms
//! after (best of the two runs: +4.4 %); 20,000 nodes 743 / 780 ms before, 654 / 1,382 ms
//! after; 5,000 nodes 120 / 128 ms before, 142 / 244 ms after (+18 %, within the run-to-run
//! spread of one binary there, to be settled on a quiet machine); with one edge in 20 reversed (cycles, so this module runs) 20,000 nodes 3,307 /
//! 3,560 ms before, 3,159 ms after. The figures are in docs/BENCHMARKS.md ("Issue 11").

use petgraph::algo::{greedy_feedback_arc_set, toposort};
use petgraph::visit::EdgeRef;

use super::adjacency::digraph;
#[cfg(test)]
use super::adjacency::topological_order;

/// Returns, per edge, whether it must be reversed to make the graph acyclic.
/// `edges` must not contain self-loops.
pub(crate) fn feedback_arcs(n: usize, edges: &[(u32, u32)]) -> Vec<bool> {
    let mut reversed = vec![false; edges.len()];
    let g = digraph(n, edges);
    if toposort(&g, None).is_ok() {
        return reversed;
    }
    for e in greedy_feedback_arc_set(&g) {
        reversed[e.id().index()] = true;
    }
    reversed
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
