//! Writes a graph's items with `CREATE` while the graph is new to the index: a fresh
//! import's items cost one write each, not a look-up by `uid` and a write (`MERGE`). A graph
//! is new when the index held none of its items the first time this session wrote it; from
//! then on the items written are remembered (64-bit hashes of their `uid`s), so an item
//! written again (a node updated, a placeholder span written as itself) is merged as
//! before. Past [`MAX_REMEMBERED`] items, or when more than [`MAX_GRAPHS`] graphs are new at
//! once, a graph's items are merged again: slower, never wrong.
//!
//! The index's one writing task (`indexer.rs`) is this session's only writer of its items;
//! another process writing items of the same new graph at the same moment could add an item
//! twice (a search shows each node once: `index::find`).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, BuildHasherDefault};

use super::index;
use super::items::Item;
use crate::error::Result;
use crate::store::Store;

/// Items remembered per new graph (8 bytes each, and the set's own overhead).
pub const MAX_REMEMBERED: usize = 4_000_000;
/// New graphs remembered at once (a session writing more is merged for the others).
pub const MAX_GRAPHS: usize = 8;

type Hasher = BuildHasherDefault<std::collections::hash_map::DefaultHasher>;

/// What this session knows of each graph it wrote items of.
#[derive(Default)]
pub struct Fresh {
    /// `Some`: new to the index, with the items written since; `None`: merged.
    graphs: HashMap<String, Option<HashSet<u64>>>,
}

/// A write's items split: those added with `CREATE` (each new, once) and the rest, in order.
#[derive(Debug, Default, PartialEq)]
pub struct Split {
    pub create: Vec<Item>,
    pub merge: Vec<Item>,
}

fn uid_hash(uid: &str) -> u64 {
    Hasher::default().hash_one(uid)
}

impl Fresh {
    /// Whether `graph` is not yet known either way.
    fn unknown(&self, graph: &str) -> bool {
        !self.graphs.contains_key(graph)
    }

    /// Records what the index held of `graph` when this session first wrote it.
    fn learn(&mut self, graph: &str, new: bool) {
        let remembered = self.graphs.values().filter(|v| v.is_some()).count();
        let set = (new && remembered < MAX_GRAPHS).then(HashSet::new);
        self.graphs.insert(graph.to_owned(), set);
    }

    /// Splits items (all known graphs'): an item of a new graph not written before is
    /// created, the others merged. The items created first, then the merged ones in order,
    /// give what merging all in order gives.
    pub fn split(&mut self, items: Vec<Item>) -> Split {
        let mut out = Split::default();
        for item in items {
            let set = self.graphs.get_mut(&item.graph).and_then(Option::as_mut);
            match set {
                Some(seen) if seen.len() >= MAX_REMEMBERED => {
                    self.graphs.insert(item.graph.clone(), None);
                    out.merge.push(item);
                }
                Some(seen) => {
                    if seen.insert(uid_hash(&item.uid)) {
                        out.create.push(item);
                    } else {
                        out.merge.push(item);
                    }
                }
                None => out.merge.push(item),
            }
        }
        out
    }
}

/// Writes items: asks the index about graphs not yet known, then creates the new items and
/// merges the rest.
pub async fn write(store: &Store, fresh: &mut Fresh, items: Vec<Item>) -> Result<()> {
    let mut asked: Vec<&str> = Vec::new();
    for i in &items {
        if fresh.unknown(&i.graph) && !asked.contains(&i.graph.as_str()) {
            asked.push(&i.graph);
        }
    }
    let mut learnt = Vec::with_capacity(asked.len());
    for g in asked {
        learnt.push((g.to_owned(), !index::has_items(store, g).await?));
    }
    for (g, new) in learnt {
        fresh.learn(&g, new);
    }
    let split = fresh.split(items);
    index::create(store, split.create).await?;
    index::upsert(store, &split.merge).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(graph: &str, node: &str) -> Item {
        Item {
            uid: super::super::items::node_uid(graph, node),
            graph: graph.into(),
            node: node.into(),
            kind: "node",
            label: "Artifact".into(),
            key: node.into(),
            alt: None,
            text: None,
            words: None,
            trace: None,
            root: None,
        }
    }

    fn nodes(items: &[Item]) -> Vec<&str> {
        items.iter().map(|i| i.node.as_str()).collect()
    }

    #[test]
    fn a_new_graphs_items_are_created_once_and_merged_after() {
        let mut f = Fresh::default();
        f.learn("new", true);
        f.learn("old", false);
        let s = f.split(vec![item("new", "a"), item("old", "x"), item("new", "b"), item("new", "a")]);
        assert_eq!(nodes(&s.create), ["a", "b"]);
        assert_eq!(nodes(&s.merge), ["x", "a"]);
        let s = f.split(vec![item("new", "b"), item("new", "c")]);
        assert_eq!((nodes(&s.create), nodes(&s.merge)), (vec!["c"], vec!["b"]));
        assert!(f.unknown("other") && !f.unknown("old"));
    }

    #[test]
    fn past_its_bounds_a_graph_is_merged() {
        let mut f = Fresh::default();
        for g in 0..MAX_GRAPHS + 1 {
            f.learn(&format!("g{g}"), true);
        }
        let last = format!("g{MAX_GRAPHS}");
        let s = f.split(vec![item(&last, "a"), item("g0", "a")]);
        assert_eq!((nodes(&s.create), nodes(&s.merge)), (vec!["a"], vec!["a"]));
        assert_eq!(s.create[0].graph, "g0");
        let mut f = Fresh::default();
        f.learn("big", true);
        if let Some(Some(seen)) = f.graphs.get_mut("big") {
            seen.extend(0..MAX_REMEMBERED as u64);
        }
        let s = f.split(vec![item("big", "z"), item("big", "y")]);
        assert!(s.create.is_empty() && s.merge.len() == 2);
        assert_eq!(f.graphs.get("big"), Some(&None));
    }
}
