//! What Provex knows of a graph's lineages while it ingests: every prompt's lineage, time,
//! version, position and text, and the evolution DAG (`dag`: a topological order kept without
//! recursion), so that the prompt-lineage format's graph constraints (no cycle, one root per lineage, child later than parent, a
//! parent that exists) are checked on each record against everything before it.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use petgraph::graph::NodeIndex;
use uuid::Uuid;

use super::dag::Dag;
use super::records::{invalid, relationship, EvolutionType, RecordError, Version};

/// A prompt as the book keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct Known {
    pub lineage: Uuid,
    pub timestamp: DateTime<Utc>,
    pub version: Version,
    pub position: u32,
    pub content: Arc<str>,
    /// Known children: a prompt with none is a head.
    pub children: u32,
    pub root: bool,
}

/// An evolution to check: the child, its parent and the evolution type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Evolution {
    pub child: Uuid,
    pub parent: Uuid,
    pub kind: EvolutionType,
    /// False for the extra parents of a merge.
    pub primary: bool,
}

/// The lineages of one graph.
#[derive(Default)]
pub struct Book {
    /// Parent → child.
    dag: Dag,
    at: HashMap<Uuid, NodeIndex>,
    prompts: HashMap<Uuid, Known>,
    roots: HashMap<Uuid, Uuid>,
    edges: HashSet<(Uuid, Uuid)>,
}

impl std::fmt::Debug for Book {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Book")
            .field("prompts", &self.prompts.len())
            .field("edges", &self.edges.len())
            .finish()
    }
}

impl Book {
    pub fn new() -> Book {
        Book::default()
    }

    pub fn get(&self, id: &Uuid) -> Option<&Known> {
        self.prompts.get(id)
    }

    pub fn len(&self) -> usize {
        self.prompts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.prompts.is_empty()
    }

    /// The root of a lineage, when one is known.
    pub fn root_of(&self, lineage: &Uuid) -> Option<Uuid> {
        self.roots.get(lineage).copied()
    }

    pub fn has_edge(&self, child: Uuid, parent: Uuid) -> bool {
        self.edges.contains(&(child, parent))
    }

    fn index(&mut self, id: Uuid) -> NodeIndex {
        if let Some(i) = self.at.get(&id) {
            return *i;
        }
        let i = self.dag.add_node(id);
        self.at.insert(id, i);
        i
    }

    /// Checks that a prompt can join: same lineage as before when known again, and no
    /// second root in its lineage.
    pub fn check_prompt(&self, id: Uuid, p: &Known) -> Result<(), RecordError> {
        if let Some(k) = self.prompts.get(&id) {
            if k.lineage != p.lineage {
                return Err(relationship(format!(
                    "prompt {id} is already in lineage {}, not {}",
                    k.lineage, p.lineage
                )));
            }
            if k.timestamp != p.timestamp {
                return Err(invalid(format!(
                    "prompt {id} is already recorded at {}, not {}: a prompt's time does not change",
                    k.timestamp.to_rfc3339(),
                    p.timestamp.to_rfc3339()
                )));
            }
        }
        if p.root {
            if let Some(root) = self.roots.get(&p.lineage) {
                if *root != id {
                    return Err(relationship(format!(
                        "lineage {} already has its root {root}: a lineage has one root",
                        p.lineage
                    )));
                }
            }
        }
        Ok(())
    }

    /// Checks an evolution of the prompt `child` (described by `p`): the parent is known, is
    /// earlier, and the edge closes no cycle. `Ok(false)` when the parent is not known (yet).
    pub fn check_evolution(&self, e: Evolution, child_time: DateTime<Utc>) -> Result<bool, RecordError> {
        if e.child == e.parent {
            return Err(relationship(format!("prompt {} would evolve from itself", e.child)));
        }
        let Some(parent) = self.prompts.get(&e.parent) else { return Ok(false) };
        if !self.edges.contains(&(e.child, e.parent)) {
            if let (Some(&p), Some(&c)) = (self.at.get(&e.parent), self.at.get(&e.child)) {
                if !self.dag.is_valid_edge(p, c) {
                    return Err(relationship(format!(
                        "{} from {} would close a cycle: a lineage is acyclic",
                        e.kind.as_str(),
                        e.parent
                    )));
                }
            }
        }
        if child_time <= parent.timestamp {
            return Err(invalid(format!(
                "prompt {} ({}) is not later than its parent {} ({}): a child comes after its parent",
                e.child,
                child_time.to_rfc3339(),
                e.parent,
                parent.timestamp.to_rfc3339()
            )));
        }
        Ok(true)
    }

    /// Records a prompt (after [`Book::check_prompt`]). Returns whether it was new.
    pub fn add_prompt(&mut self, id: Uuid, mut p: Known) -> bool {
        self.index(id);
        if p.root {
            self.roots.entry(p.lineage).or_insert(id);
        }
        match self.prompts.get_mut(&id) {
            Some(k) => {
                p.children = k.children;
                *k = p;
                false
            }
            None => {
                self.prompts.insert(id, p);
                true
            }
        }
    }

    /// Records an evolution (after [`Book::check_evolution`] said yes). Returns whether the
    /// edge was new.
    pub fn add_evolution(&mut self, e: Evolution) -> Result<bool, RecordError> {
        if self.edges.contains(&(e.child, e.parent)) {
            return Ok(false);
        }
        let (p, c) = (self.index(e.parent), self.index(e.child));
        self.dag.try_add_edge(p, c).map_err(|_| {
            relationship(format!(
                "{} from {} would close a cycle: a lineage is acyclic",
                e.kind.as_str(),
                e.parent
            ))
        })?;
        self.edges.insert((e.child, e.parent));
        if let Some(k) = self.prompts.get_mut(&e.parent) {
            k.children += 1;
        }
        Ok(true)
    }

    /// Whether a prompt has no known child.
    pub fn is_head(&self, id: &Uuid) -> bool {
        self.prompts.get(id).is_none_or(|k| k.children == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(lineage: u128, secs: i64, root: bool) -> Known {
        Known {
            lineage: Uuid::from_u128(lineage),
            timestamp: DateTime::from_timestamp(secs, 0).unwrap(),
            version: Version::ROOT,
            position: 1,
            content: Arc::from("p"),
            children: 0,
            root,
        }
    }

    fn ev(child: u128, parent: u128) -> Evolution {
        Evolution {
            child: Uuid::from_u128(child),
            parent: Uuid::from_u128(parent),
            kind: EvolutionType::Refines,
            primary: true,
        }
    }

    #[test]
    fn cycles_second_roots_and_time_order_are_refused() {
        let mut b = Book::new();
        let (a, c, d) = (Uuid::from_u128(1), Uuid::from_u128(2), Uuid::from_u128(3));
        b.add_prompt(a, known(9, 10, true));
        assert!(b.check_prompt(Uuid::from_u128(7), &known(9, 11, true)).is_err(), "second root");
        assert!(b.check_prompt(a, &known(9, 10, true)).is_ok(), "the same root again");
        assert_eq!(b.check_evolution(ev(2, 1), DateTime::from_timestamp(11, 0).unwrap()), Ok(true));
        b.add_prompt(c, known(9, 11, false));
        assert!(b.add_evolution(ev(2, 1)).unwrap());
        assert!(!b.add_evolution(ev(2, 1)).unwrap(), "the same edge twice is one edge");
        assert!(!b.is_head(&a) && b.is_head(&c));
        b.add_prompt(d, known(9, 12, false));
        b.add_evolution(ev(3, 2)).unwrap();
        // 1 → 2 → 3; 3 → 1 would close the loop (time order aside).
        let e = b.check_evolution(ev(1, 3), DateTime::from_timestamp(20, 0).unwrap()).unwrap_err();
        assert_eq!(e.code.as_str(), "INVALID_LINEAGE_RELATIONSHIP", "{e:?}");
        let e = b.check_evolution(ev(4, 3), DateTime::from_timestamp(12, 0).unwrap()).unwrap_err();
        assert_eq!(e.code.as_str(), "VALIDATION_ERROR", "not later: {e:?}");
        assert_eq!(b.check_evolution(ev(4, 99), DateTime::from_timestamp(50, 0).unwrap()), Ok(false));
    }
}
