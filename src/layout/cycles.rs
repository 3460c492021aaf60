//! Cycle breaking: picks a small feedback arc set whose reversal makes the graph acyclic.
//!
//! Uses the greedy heuristic of Eades, Lin & Smyth, "A fast and effective heuristic for the
//! feedback arc set problem", Information Processing Letters 47 (1993): repeatedly peel sinks
//! to the back and sources to the front of a vertex sequence, otherwise move the vertex with the
//! largest out-degree minus in-degree to the front; edges pointing backwards in the sequence are
//! reversed. It runs only when a topological sort shows a cycle.

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
