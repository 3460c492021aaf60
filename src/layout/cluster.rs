//! Semantic zoom : a graph too large to draw whole is drawn as clusters, one box
//! per agent (runtime work, claims and verifications by who acted), one for the tasks no
//! agent is named on, one for the source documents and one per other kind of node; an
//! agent's box (and the tasks box) opens into one box per task (conversation), and a task's
//! into its nodes. Which cluster a node is in depends on
//! the node alone (its label, agent and context), so clusters partition every graph, grow
//! as events arrive without anything being recomputed, and a node never changes cluster.
//! The clusters and the edges between them (with counts) are a petgraph graph, laid out
//! like any other.

use std::collections::{BTreeMap, HashMap};

use petgraph::graphmap::DiGraphMap;

/// Between a cluster's key and its sub-cluster's part in a sub-cluster's key.
pub const SEP: &str = " › ";

/// The key of the cluster of the tasks no agent is named on.
pub const TASKS: &str = "tasks";

/// Labels of the source documents a statement cites: drawn as one cluster.
pub const SOURCE_LABELS: [&str; 3] = ["Chunk", "Document", "Source"];

/// The top-level cluster of a node: `agent:<id>`, `sources`, `tasks` (a node of a task
/// that names no agent), or `kind:<label>`.
pub fn top_key(label: &str, agent: Option<&str>, has_context: bool) -> String {
    if SOURCE_LABELS.contains(&label) {
        return "sources".to_owned();
    }
    match agent.filter(|a| !a.is_empty()) {
        Some(a) => format!("agent:{a}"),
        None if has_context => TASKS.to_owned(),
        None => format!("kind:{label}"),
    }
}

/// The cluster a node is in one level down, inside its top-level cluster: its task
/// (`<top> › task:<context>`), or its kind (`<top> › kind:<label>`).
pub fn sub_key(label: &str, agent: Option<&str>, context: Option<&str>) -> String {
    let context = context.filter(|c| !c.is_empty());
    let top = top_key(label, agent, context.is_some());
    match context {
        Some(c) if top != "sources" => format!("{top}{SEP}task:{c}"),
        _ => format!("{top}{SEP}kind:{label}"),
    }
}

/// The key of the cluster one level up (none for a top-level key).
pub fn parent(key: &str) -> Option<&str> {
    key.rsplit_once(SEP).map(|(p, _)| p)
}

/// A human title for a cluster key: "agent gpt-5", "task ctx-1", "source documents",
/// "Artifact nodes".
pub fn title(key: &str) -> String {
    let last = key.rsplit(SEP).next().unwrap_or(key);
    match last.split_once(':') {
        Some(("agent", a)) => format!("agent {}", a.trim_start_matches("urn:agent:")),
        Some(("task", t)) => format!("task {t}"),
        Some(("kind", l)) => format!("{l} nodes"),
        _ if last == "sources" => "source documents".to_owned(),
        _ if last == "tasks" => "tasks".to_owned(),
        _ => last.to_owned(),
    }
}

/// One cluster: how many nodes it holds, by label and by signature status.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Cluster {
    pub key: String,
    pub members: u64,
    pub labels: BTreeMap<String, u64>,
    /// Signature statuses of the signed documents in it (`valid`, `invalid`, …).
    pub statuses: BTreeMap<String, u64>,
    /// Edges between two of its own members.
    pub internal_edges: u64,
}

/// A set of clusters and the edges between them, built from nodes (or counted groups of
/// nodes) and edges as they come.
#[derive(Debug, Clone, Default)]
pub struct Clusters {
    index: HashMap<String, u32>,
    clusters: Vec<Cluster>,
    /// Edges between clusters, by cluster index, weighted by how many member edges they stand for.
    edges: DiGraphMap<u32, u64, foldhash::fast::RandomState>,
}

impl Clusters {
    pub fn new() -> Clusters {
        Clusters::default()
    }

    fn slot(&mut self, key: &str) -> u32 {
        if let Some(&i) = self.index.get(key) {
            return i;
        }
        let i = self.clusters.len() as u32;
        self.clusters.push(Cluster { key: key.to_owned(), ..Default::default() });
        self.index.insert(key.to_owned(), i);
        self.edges.add_node(i);
        i
    }

    /// Makes cluster `key` if there is none (empty, until nodes are added).
    pub fn ensure(&mut self, key: &str) {
        self.slot(key);
    }

    /// Adds `count` nodes of `label` (and signature `status`) to cluster `key`.
    pub fn add_nodes(&mut self, key: &str, label: &str, status: Option<&str>, count: u64) {
        let i = self.slot(key) as usize;
        let c = &mut self.clusters[i];
        c.members += count;
        *c.labels.entry(label.to_owned()).or_default() += count;
        if let Some(s) = status.filter(|s| !s.is_empty()) {
            *c.statuses.entry(s.to_owned()).or_default() += count;
        }
    }

    /// Takes `count` nodes of `label` (and signature `status`) out of cluster `key`: a node
    /// whose status or cluster changed is taken out, then added again.
    pub fn remove_nodes(&mut self, key: &str, label: &str, status: Option<&str>, count: u64) {
        let Some(&i) = self.index.get(key) else { return };
        let c = &mut self.clusters[i as usize];
        c.members = c.members.saturating_sub(count);
        if let Some(n) = c.labels.get_mut(label) {
            *n = n.saturating_sub(count);
            if *n == 0 {
                c.labels.remove(label);
            }
        }
        if let Some(s) = status.filter(|s| !s.is_empty()) {
            if let Some(n) = c.statuses.get_mut(s) {
                *n = n.saturating_sub(count);
                if *n == 0 {
                    c.statuses.remove(s);
                }
            }
        }
    }

    /// How many member edges go from cluster `from` to cluster `to` (inside it, when the same).
    pub fn edge_count(&self, from: &str, to: &str) -> u64 {
        let (Some(&a), Some(&b)) = (self.index.get(from), self.index.get(to)) else { return 0 };
        if a == b {
            return self.clusters[a as usize].internal_edges;
        }
        self.edges.edge_weight(a, b).copied().unwrap_or(0)
    }

    /// Adds `count` edges from a member of cluster `from` to a member of cluster `to`.
    pub fn add_edges(&mut self, from: &str, to: &str, count: u64) {
        let (a, b) = (self.slot(from), self.slot(to));
        if a == b {
            self.clusters[a as usize].internal_edges += count;
        } else if let Some(w) = self.edges.edge_weight_mut(a, b) {
            *w += count;
        } else {
            self.edges.add_edge(a, b, count);
        }
    }

    /// The clusters, in the order they first appeared.
    pub fn clusters(&self) -> &[Cluster] {
        &self.clusters
    }

    pub fn get(&self, key: &str) -> Option<&Cluster> {
        self.index.get(key).map(|&i| &self.clusters[i as usize])
    }

    /// Edges between clusters: (from, to, member edges), in a stable order.
    pub fn edges(&self) -> Vec<(&str, &str, u64)> {
        let mut out: Vec<(u32, u32, u64)> = self.edges.all_edges().map(|(a, b, w)| (a, b, *w)).collect();
        out.sort_unstable();
        out.into_iter()
            .map(|(a, b, w)| {
                (self.clusters[a as usize].key.as_str(), self.clusters[b as usize].key.as_str(), w)
            })
            .collect()
    }

    /// All member nodes counted.
    pub fn total_members(&self) -> u64 {
        self.clusters.iter().map(|c| c.members).sum()
    }

    /// All member edges counted (between clusters and inside them).
    pub fn total_edges(&self) -> u64 {
        self.clusters.iter().map(|c| c.internal_edges).sum::<u64>()
            + self.edges.all_edges().map(|(_, _, w)| *w).sum::<u64>()
    }
}

#[cfg(test)]
#[path = "cluster_tests.rs"]
mod tests;
