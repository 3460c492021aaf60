//! Keeps this process's queries from being planned while a write adds a relationship type
//! (or, in place, labels or an index) to their graph. FalkorDB 4.16 plans a query before it takes the
//! graph's lock, looking types up in an array that the write adding one moves: a query that
//! names a type the graph lacks, planned at that moment, kills the server (SIGSEGV in
//! `_GraphContext_GetLabelID`, from `QueryGraph_ResolveUnknownRelIDs`; FalkorDB/FalkorDB#1784,
//! fixed in 4.20; docs/ARCHITECTURE.md).
//!
//! Every query of a graph holds the graph's gate shared while it is sent and answered; a
//! write that would give the graph a type it lacks first adds the type alone, in a query that
//! holds the gate exclusively and leaves nothing behind. The gates are the process's, one
//! per server and graph, since one process may hold several stores of one server. Another
//! process's queries are not covered.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, LazyLock, Mutex};

use tokio::sync::{OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock};

use super::value::as_string;
use super::Store;
use crate::error::{Error, Result};
use crate::model::GraphDelta;

/// One graph's gate, and the relationship types this process knows the graph has.
#[derive(Default)]
pub(crate) struct Gate {
    lock: Arc<RwLock<()>>,
    /// `None` until read from the server (and again after the graph was replaced).
    known: Mutex<Option<HashSet<String>>>,
}

/// Held by a query while it is sent and answered.
pub(crate) type Shared = OwnedRwLockReadGuard<()>;
/// Held by the one query that adds types (or labels): no other query of the graph runs.
pub(crate) type Exclusive = OwnedRwLockWriteGuard<()>;

/// The process's gates by server and graph.
type Gates = HashMap<(String, String), Arc<Gate>>;

static GATES: LazyLock<Mutex<Gates>> = LazyLock::new(Default::default);

/// The gate of `graph` on the server named `server`.
pub(crate) fn of(server: &str, graph: &str) -> Arc<Gate> {
    let mut gates = GATES.lock().unwrap_or_else(|e| e.into_inner());
    gates.entry((server.to_owned(), graph.to_owned())).or_default().clone()
}

impl Gate {
    pub(crate) async fn shared(&self) -> Shared {
        self.lock.clone().read_owned().await
    }

    pub(crate) async fn exclusive(&self) -> Exclusive {
        self.lock.clone().write_owned().await
    }

    /// Of `wanted`, the types the graph is not known to have; `None` when what it has is
    /// not known yet.
    pub(crate) fn missing<'a>(&self, wanted: &[&'a str]) -> Option<Vec<&'a str>> {
        let known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        let known = known.as_ref()?;
        Some(wanted.iter().copied().filter(|t| !known.contains(*t)).collect())
    }

    /// Records types the graph has (read from the server, or just added).
    pub(crate) fn learn<'a>(&self, types: impl IntoIterator<Item = &'a str>) {
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        known.get_or_insert_with(HashSet::new).extend(types.into_iter().map(str::to_owned));
    }

    /// Forgets what the graph has: it was deleted, or another graph took its name.
    pub(crate) fn forget(&self) {
        *self.known.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

/// The query that gives a graph relationship `types` and leaves no node or edge behind: a
/// node with a loop of each type, then deleted with its loops. A graph keeps its types when
/// their last edge goes.
pub(crate) fn adding_types_query(types: &[&str]) -> String {
    let mut q = String::from("CREATE (n)");
    for t in types {
        q.push_str(&format!(" CREATE (n)-[:`{t}`]->(n)"));
    }
    q.push_str(" WITH n DETACH DELETE n");
    q
}

/// The relationship types of a delta's edges, each once.
pub(crate) fn delta_types(delta: &GraphDelta) -> Vec<&'static str> {
    let mut types: Vec<&'static str> = delta.edges().map(|e| e.rel.as_str()).collect();
    types.sort_unstable();
    types.dedup();
    types
}

impl Store {
    /// This store's gate of `graph`.
    pub(crate) fn gate(&self, graph: &str) -> Arc<Gate> {
        of(&self.endpoint().shown, graph)
    }

    /// Holds `graph`'s gate shared: for a query, while it is sent and answered.
    pub(crate) async fn shared(&self, graph: &str) -> Shared {
        self.gate(graph).shared().await
    }

    /// Gives `graph` the relationship types of `wanted` it lacks, before a write that uses
    /// them: all in one query of their own, holding the gate exclusively.
    pub(crate) async fn ensure_types(&self, graph: &str, wanted: &[&str]) -> Result<()> {
        if wanted.is_empty() {
            return Ok(());
        }
        let gate = self.gate(graph);
        let missing = match gate.missing(wanted) {
            Some(missing) => missing,
            None => {
                let q = "CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType";
                let have: Vec<String> = match self.run_ro(graph, q, vec![]).await {
                    Ok((_, rows)) => rows.iter().filter_map(|r| r.first().and_then(as_string)).collect(),
                    Err(Error::NotFound { .. }) => Vec::new(),
                    Err(e) => return Err(e),
                };
                gate.learn(have.iter().map(String::as_str));
                gate.missing(wanted).unwrap_or_default()
            }
        };
        if missing.is_empty() {
            return Ok(());
        }
        self.run_exclusive(graph, &adding_types_query(&missing)).await?;
        gate.learn(missing);
        Ok(())
    }

    /// Runs a write that adds types or labels to `graph`, holding its gate exclusively:
    /// no other query of the graph from this process is planned meanwhile.
    pub(crate) async fn run_exclusive(&self, graph: &str, cypher: &str) -> Result<()> {
        let _only = self.gate(graph).exclusive().await;
        let what = format!("graph {graph}");
        self.retrying(Some(&what), || self.run_ungated(graph, cypher, vec![])).await.map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_adding_query_names_each_type_once_and_deletes_what_it_creates() {
        assert_eq!(
            adding_types_query(&["USED", "WAS_DERIVED_FROM"]),
            "CREATE (n) CREATE (n)-[:`USED`]->(n) CREATE (n)-[:`WAS_DERIVED_FROM`]->(n) WITH n DETACH DELETE n"
        );
    }

    #[test]
    fn what_is_missing_is_unknown_until_learnt_and_again_after_forgetting() {
        let gate = Gate::default();
        assert_eq!(gate.missing(&["USED"]), None);
        gate.learn(["USED"]);
        assert_eq!(gate.missing(&["USED", "WAS_DERIVED_FROM"]), Some(vec!["WAS_DERIVED_FROM"]));
        gate.learn(["WAS_DERIVED_FROM"]);
        assert_eq!(gate.missing(&["USED", "WAS_DERIVED_FROM"]), Some(vec![]));
        gate.forget();
        assert_eq!(gate.missing(&["USED"]), None);
    }

    #[test]
    fn one_gate_per_server_and_graph() {
        assert!(Arc::ptr_eq(&of("redis://a:1", "g"), &of("redis://a:1", "g")));
        assert!(!Arc::ptr_eq(&of("redis://a:1", "g"), &of("redis://a:1", "h")));
        assert!(!Arc::ptr_eq(&of("redis://a:1", "g"), &of("redis://a:2", "g")));
    }

    #[tokio::test]
    async fn an_exclusive_holder_waits_for_queries_under_way_and_holds_off_new_ones() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let gate = of("redis://gate-test:1", "g");
        let added = Arc::new(AtomicBool::new(false));
        let query = gate.shared().await;
        let adding = tokio::spawn({
            let (gate, added) = (gate.clone(), added.clone());
            async move {
                let _only = gate.exclusive().await;
                tokio::time::sleep(Duration::from_millis(50)).await;
                added.store(true, Ordering::SeqCst);
            }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!added.load(Ordering::SeqCst), "the type was added while a query was being planned");
        drop(query);
        // A query asked for once the adder holds the gate runs after it.
        tokio::time::sleep(Duration::from_millis(10)).await;
        let _next = gate.shared().await;
        assert!(added.load(Ordering::SeqCst), "a query ran while the type was being added");
        adding.await.unwrap();
    }
}
