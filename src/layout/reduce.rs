//! Views of graphs too large to show whole: the neighbourhood of one node, and a collapsed graph
//! where chains and repeated sibling groups stand as single nodes with a count.

use std::collections::{BTreeMap, HashSet, VecDeque};

use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef as _;
use petgraph::Direction::{Incoming, Outgoing};

use super::error::LayoutError;
use super::graph::{LayoutEdge, LayoutGraph, LayoutNode};

/// The subgraph induced by node `id`, its ancestors up to `ancestors` edges away and its
/// descendants up to `descendants` edges away (node and edge order kept). Lay it out with
/// [`super::full`].
pub fn neighbourhood(
    g: &LayoutGraph,
    id: &str,
    ancestors: usize,
    descendants: usize,
) -> Result<LayoutGraph, LayoutError> {
    let start =
        g.node_indices().find(|&v| g[v].id == id).ok_or_else(|| LayoutError::NoSuchNode(id.to_string()))?;
    let mut keep = vec![false; g.node_count()];
    keep[start.index()] = true;
    for (dir, depth) in [(Incoming, ancestors), (Outgoing, descendants)] {
        let mut seen = vec![false; g.node_count()];
        seen[start.index()] = true;
        let mut queue = VecDeque::from([(start, 0usize)]);
        while let Some((v, d)) = queue.pop_front() {
            if d == depth {
                continue;
            }
            for w in g.neighbors_directed(v, dir) {
                if !seen[w.index()] {
                    seen[w.index()] = true;
                    keep[w.index()] = true;
                    queue.push_back((w, d + 1));
                }
            }
        }
    }
    let groups: Vec<Option<u32>> = {
        let mut next = 0;
        keep.iter()
            .map(|&k| {
                k.then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect()
    };
    let mut sub = LayoutGraph::new();
    for v in g.node_indices().filter(|v| keep[v.index()]) {
        sub.add_node(g[v].clone());
    }
    for e in g.edge_references() {
        if let (Some(s), Some(t)) = (groups[e.source().index()], groups[e.target().index()]) {
            sub.add_edge(NodeIndex::new(s as usize), NodeIndex::new(t as usize), e.weight().clone());
        }
    }
    Ok(sub)
}

/// A collapsed graph and, per node of it, the ids of the original nodes it stands for.
#[derive(Debug, Clone)]
pub struct Collapsed {
    /// The smaller graph; merged nodes have `count` > 1.
    pub graph: LayoutGraph,
    /// Original ids behind each node, in node index order.
    pub members: Vec<Vec<String>>,
}

/// Collapses repeated groups (two or more nodes with the same label and base type and the same
/// parent and child sets) into one node each, then maximal chains of two or more nodes with one
/// parent and one child into one node each. Merged nodes get ids `group:<first id>` and
/// `chain:<first id>`.
pub fn collapse(g: &LayoutGraph) -> Collapsed {
    let members: Vec<Vec<String>> = g.node_weights().map(|w| vec![w.id.clone()]).collect();
    let (g1, m1) = merge_groups(g, members);
    merge_chains(&g1, m1)
}

fn sorted_neighbours(g: &LayoutGraph, v: NodeIndex, dir: petgraph::Direction) -> Vec<u32> {
    let mut ns: Vec<u32> = g.neighbors_directed(v, dir).map(|w| w.index() as u32).collect();
    ns.sort_unstable();
    ns.dedup();
    ns
}

type GroupKey = (String, Option<String>, Vec<u32>, Vec<u32>);

fn merge_groups(g: &LayoutGraph, members: Vec<Vec<String>>) -> (LayoutGraph, Vec<Vec<String>>) {
    let mut by_key: BTreeMap<GroupKey, Vec<u32>> = BTreeMap::new();
    for v in g.node_indices() {
        let w = &g[v];
        let key = (
            w.label.clone(),
            w.base_type.clone(),
            sorted_neighbours(g, v, Incoming),
            sorted_neighbours(g, v, Outgoing),
        );
        by_key.entry(key).or_default().push(v.index() as u32);
    }
    let mut rep: Vec<u32> = (0..g.node_count() as u32).collect();
    for group in by_key.values() {
        for &v in group {
            rep[v as usize] = group[0];
        }
    }
    rebuild(g, members, &rep, "group:")
}

fn merge_chains(g: &LayoutGraph, members: Vec<Vec<String>>) -> Collapsed {
    let n = g.node_count();
    let ins: Vec<Vec<u32>> = g.node_indices().map(|v| sorted_neighbours(g, v, Incoming)).collect();
    let outs: Vec<Vec<u32>> = g.node_indices().map(|v| sorted_neighbours(g, v, Outgoing)).collect();
    let linear = |v: usize| ins[v].len() == 1 && outs[v].len() == 1 && ins[v][0] as usize != v;
    let mut rep: Vec<u32> = (0..n as u32).collect();
    for (v, preds) in ins.iter().enumerate() {
        if !linear(v) || linear(preds[0] as usize) {
            continue; // not the first node of a chain (nodes on pure cycles have no first)
        }
        let mut cur = v;
        loop {
            rep[cur] = v as u32;
            let next = outs[cur][0] as usize;
            if !linear(next) || next == v {
                break;
            }
            cur = next;
        }
    }
    let (graph, members) = rebuild(g, members, &rep, "chain:");
    Collapsed { graph, members }
}

/// Builds the graph where every node `v` is replaced by `rep[v]`; edges are deduplicated and
/// edges inside a merged node dropped.
fn rebuild(
    g: &LayoutGraph,
    members: Vec<Vec<String>>,
    rep: &[u32],
    prefix: &str,
) -> (LayoutGraph, Vec<Vec<String>>) {
    let n = g.node_count();
    let mut new_of = vec![u32::MAX; n];
    let mut out = LayoutGraph::new();
    let mut out_members: Vec<Vec<String>> = Vec::new();
    let mut parts: Vec<Vec<u32>> = vec![Vec::new(); n];
    for v in 0..n {
        parts[rep[v] as usize].push(v as u32);
    }
    for &r in rep {
        let r = r as usize;
        if new_of[r] == u32::MAX {
            let group = &parts[r];
            let first = &g[NodeIndex::new(group[0] as usize)];
            let node = if group.len() == 1 {
                first.clone()
            } else {
                let last = &g[NodeIndex::new(group[group.len() - 1] as usize)];
                let count = group.iter().map(|&m| g[NodeIndex::new(m as usize)].count).sum();
                let width = group.iter().map(|&m| g[NodeIndex::new(m as usize)].width).fold(0.0, f64::max);
                let label = if prefix == "chain:" && first.label != last.label {
                    format!("{} … {}", first.label, last.label)
                } else {
                    first.label.clone()
                };
                LayoutNode { id: format!("{prefix}{}", first.id), label, count, width, ..first.clone() }
            };
            new_of[r] = out.add_node(node).index() as u32;
            out_members.push(group.iter().flat_map(|&m| members[m as usize].clone()).collect());
        }
    }
    let mut seen: HashSet<(u32, u32)> = HashSet::new();
    for e in g.edge_references() {
        let s = new_of[rep[e.source().index()] as usize];
        let t = new_of[rep[e.target().index()] as usize];
        let merged = parts[rep[e.source().index()] as usize].len() > 1;
        if (s == t && merged) || !seen.insert((s, t)) {
            continue;
        }
        out.add_edge(
            NodeIndex::new(s as usize),
            NodeIndex::new(t as usize),
            LayoutEdge { kind: e.weight().kind.clone() },
        );
    }
    (out, out_members)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, labels: &[&str], edges: &[(u32, u32)]) -> LayoutGraph {
        let mut g = LayoutGraph::new();
        for i in 0..n {
            let mut node = LayoutNode::new(format!("n{i}"), 40.0, 20.0);
            node.label = labels.get(i).unwrap_or(&"x").to_string();
            g.add_node(node);
        }
        for &(u, v) in edges {
            g.add_edge(NodeIndex::new(u as usize), NodeIndex::new(v as usize), LayoutEdge::default());
        }
        g
    }

    #[test]
    fn neighbourhood_respects_depths() {
        // 0 -> 1 -> 2 -> 3 -> 4, and 5 -> 2
        let g = graph(6, &["a", "b", "c", "d", "e", "f"], &[(0, 1), (1, 2), (2, 3), (3, 4), (5, 2)]);
        let sub = neighbourhood(&g, "n2", 1, 2).unwrap();
        let ids: Vec<&str> = sub.node_weights().map(|w| w.id.as_str()).collect();
        assert_eq!(ids, ["n1", "n2", "n3", "n4", "n5"]);
        assert_eq!(sub.edge_count(), 4);
        assert!(matches!(neighbourhood(&g, "zz", 1, 1), Err(LayoutError::NoSuchNode(_))));
    }

    #[test]
    fn chain_collapses_to_one_node_with_count() {
        // 0 -> 1 -> 2 -> 3 -> 4 with 0 and 4 branching
        let g =
            graph(7, &["s", "a", "b", "c", "t", "u", "v"], &[(0, 1), (1, 2), (2, 3), (3, 4), (0, 5), (6, 4)]);
        let c = collapse(&g);
        assert_eq!(c.graph.node_count(), 5);
        let chain = c.graph.node_weights().find(|w| w.count == 3).expect("chain node");
        assert_eq!(chain.id, "chain:n1");
        assert_eq!(chain.label, "a … c");
        assert_eq!(c.members[1], ["n1", "n2", "n3"]);
        assert_eq!(c.graph.edge_count(), 4);
    }

    #[test]
    fn repeated_siblings_collapse() {
        // parent 0 with four "read" children all feeding 5, plus an odd child 6
        let g = graph(
            7,
            &["p", "read", "read", "read", "read", "sink", "other"],
            &[(0, 1), (0, 2), (0, 3), (0, 4), (1, 5), (2, 5), (3, 5), (4, 5), (0, 6)],
        );
        let c = collapse(&g);
        let group = c.graph.node_weights().find(|w| w.count == 4).expect("group node");
        assert_eq!(group.id, "group:n1");
        assert_eq!(c.graph.node_count(), 4);
        assert_eq!(c.graph.edge_count(), 3);
        let total: usize = c.members.iter().map(Vec::len).sum();
        assert_eq!(total, 7);
    }
}
