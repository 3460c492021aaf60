//! The graph structures the layout stages share: the compressed adjacency (offsets and
//! targets) the layering, cycle breaking and dummy-node stages walk, and the topological
//! order, taken from `petgraph::algo::toposort` (see the module doc of `cycles` for the
//! measurements behind using petgraph's). Its own module so that `cycles` and `layering`
//! need not use each other.

use petgraph::algo::toposort;
use petgraph::graph::{DiGraph, NodeIndex};

/// Compressed adjacency: offsets and targets, keeping the input order within each vertex.
pub(crate) fn csr(n: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> (Vec<u32>, Vec<u32>) {
    let mut off = vec![0u32; n + 1];
    for (u, _) in pairs.clone() {
        off[u as usize + 1] += 1;
    }
    for i in 0..n {
        off[i + 1] += off[i];
    }
    let mut fill = off.clone();
    let mut adj = vec![0u32; off[n] as usize];
    for (u, v) in pairs {
        adj[fill[u as usize] as usize] = v;
        fill[u as usize] += 1;
    }
    (off, adj)
}

/// The graph as a petgraph `DiGraph`: node `i` is vertex `i`, edge `k` is `edges[k]`.
pub(crate) fn digraph(n: usize, edges: &[(u32, u32)]) -> DiGraph<(), (), u32> {
    let mut g = DiGraph::with_capacity(n, edges.len());
    for _ in 0..n {
        g.add_node(());
    }
    for &(u, v) in edges {
        g.add_edge(NodeIndex::new(u as usize), NodeIndex::new(v as usize), ());
    }
    g
}

/// A topological order (deterministic for a given input), or `None` when the graph has a
/// cycle.
pub(crate) fn topological_order(n: usize, edges: &[(u32, u32)]) -> Option<Vec<u32>> {
    let order = toposort(&digraph(n, edges), None).ok()?;
    Some(order.into_iter().map(|v| v.index() as u32).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csr_keeps_input_order_per_vertex() {
        let (off, adj) = csr(4, [(2, 1), (0, 3), (2, 0), (0, 1)].into_iter());
        assert_eq!(off, vec![0, 2, 2, 4, 4]);
        assert_eq!(adj, vec![3, 1, 1, 0]);
    }

    #[test]
    fn topological_order_puts_every_edge_forward() {
        let e = [(3, 1), (1, 2), (0, 2), (4, 3)];
        let order = topological_order(5, &e).unwrap();
        let mut rank = [0usize; 5];
        for (i, &v) in order.iter().enumerate() {
            rank[v as usize] = i;
        }
        assert_eq!(order.len(), 5);
        assert!(e.iter().all(|&(u, v)| rank[u as usize] < rank[v as usize]), "{order:?}");
        assert_eq!(topological_order(3, &[(0, 1), (1, 2), (2, 0)]), None);
    }
}
