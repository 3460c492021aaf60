//! The evolution DAG of a graph's lineages with a topological order kept as edges arrive
//! (Pearce and Kelly's dynamic topological sort, as petgraph's `Acyclic` does it), but with
//! iterative searches: `Acyclic` walks the affected region with a recursive depth-first
//! search, so a lineage file whose chain of 16,384 prompts ends in an edge back to its root
//! overflowed the stack. Here the search keeps its own stack, whatever the chain's length.

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{Dfs, NodeFiltered, Reversed, Walker};
use uuid::Uuid;

/// An edge that would close a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cycle;

/// Parent → child edges between prompts, acyclic, with each node's place in a topological
/// order (`pos[n] < pos[m]` for every edge `n → m`).
#[derive(Default)]
pub struct Dag {
    graph: DiGraph<Uuid, ()>,
    pos: Vec<usize>,
}

impl Dag {
    pub fn add_node(&mut self, id: Uuid) -> NodeIndex {
        let i = self.graph.add_node(id);
        // A new node has no edge: last in the order is a valid place.
        self.pos.push(i.index());
        i
    }

    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    fn at(&self, n: NodeIndex) -> usize {
        self.pos[n.index()]
    }

    /// The nodes reachable from `b` whose place is at most `upto` (`b`'s future that an edge
    /// into `b` could disturb), in no particular order; `Err` if `a` is among them.
    fn future(&self, a: NodeIndex, b: NodeIndex, upto: usize) -> Result<Vec<NodeIndex>, Cycle> {
        let within = NodeFiltered::from_fn(&self.graph, |n: NodeIndex| self.at(n) <= upto);
        let mut out = Vec::new();
        for n in Dfs::new(&within, b).iter(&within) {
            if n == a {
                return Err(Cycle);
            }
            out.push(n);
        }
        Ok(out)
    }

    /// The nodes that reach `a` whose place is at least `from`.
    fn past(&self, a: NodeIndex, from: usize) -> Vec<NodeIndex> {
        let reversed = Reversed(&self.graph);
        let within = NodeFiltered::from_fn(reversed, |n: NodeIndex| self.at(n) >= from);
        Dfs::new(&within, a).iter(&within).collect()
    }

    /// Whether `a → b` would keep the graph acyclic.
    pub fn is_valid_edge(&self, a: NodeIndex, b: NodeIndex) -> bool {
        a != b && (self.at(a) < self.at(b) || self.future(a, b, self.at(a)).is_ok())
    }

    /// Adds `a → b`, moving the nodes between them in the order when it must; `Err` (and
    /// nothing changed) when it would close a cycle.
    pub fn try_add_edge(&mut self, a: NodeIndex, b: NodeIndex) -> Result<(), Cycle> {
        if a == b {
            return Err(Cycle);
        }
        let (lo, hi) = (self.at(b), self.at(a));
        if lo > hi {
            self.graph.add_edge(a, b, ());
            return Ok(());
        }
        // b's future and a's past within [lo, hi] swap places: the past first, each part in
        // its old order, into the places both held.
        let mut future = self.future(a, b, hi)?;
        let mut past = self.past(a, lo);
        future.sort_by_key(|&n| self.at(n));
        past.sort_by_key(|&n| self.at(n));
        let mut places: Vec<usize> = past.iter().chain(&future).map(|&n| self.at(n)).collect();
        places.sort_unstable();
        for (n, p) in past.into_iter().chain(future).zip(places) {
            self.pos[n.index()] = p;
        }
        self.graph.add_edge(a, b, ());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order_holds(d: &Dag) -> bool {
        d.graph.edge_indices().all(|e| {
            let (a, b) = d.graph.edge_endpoints(e).unwrap();
            d.at(a) < d.at(b)
        })
    }

    #[test]
    fn a_long_chain_closed_into_a_cycle_is_refused_on_a_small_stack() {
        // 100,000 prompts in a chain, on a thread with less stack than a tokio worker's.
        std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(|| {
                let mut d = Dag::default();
                let nodes: Vec<NodeIndex> =
                    (0..100_000u128).map(|i| d.add_node(Uuid::from_u128(i))).collect();
                for w in nodes.windows(2) {
                    d.try_add_edge(w[0], w[1]).unwrap();
                }
                let (first, last) = (nodes[0], nodes[nodes.len() - 1]);
                assert!(!d.is_valid_edge(last, first));
                assert_eq!(d.try_add_edge(last, first), Err(Cycle));
                assert_eq!(d.edge_count(), 99_999, "nothing added");
                assert!(order_holds(&d));
            })
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn edges_against_the_order_reorder_it() {
        let mut d = Dag::default();
        let n: Vec<NodeIndex> = (0..6u128).map(|i| d.add_node(Uuid::from_u128(i))).collect();
        // 5 → 4 → 3, then 3 → 1 and 1 → 0: all against insertion order.
        for (a, b) in [(5, 4), (4, 3), (3, 1), (1, 0), (2, 0)] {
            assert!(d.is_valid_edge(n[a], n[b]));
            d.try_add_edge(n[a], n[b]).unwrap();
            assert!(order_holds(&d), "after {a} → {b}");
        }
        assert_eq!(d.try_add_edge(n[0], n[5]), Err(Cycle));
        assert!(!d.is_valid_edge(n[0], n[4]));
        assert!(d.is_valid_edge(n[2], n[1]), "no path between them");
        assert_eq!(d.try_add_edge(n[3], n[3]), Err(Cycle));
        assert!(order_holds(&d));
    }
}
