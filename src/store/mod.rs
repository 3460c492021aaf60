//! The FalkorDB store: connection by URL, batched idempotent upserts, and the reads the
//! explorer needs. Labels and relationship types in queries come only from the vocabulary
//! types; everything from input travels as query parameters.

mod aof;
mod binaries;
pub mod bulk;
mod bulk_load;
mod bulk_records;
pub mod bulk_spill;
pub mod canvas_reads;
pub mod cluster;
pub mod cluster_url;
pub mod compact;
pub mod durable;
pub(crate) mod gate;
pub mod groups;
pub mod log;
pub mod members;
pub mod placeholders;
pub mod problems;
pub mod raw;
pub mod read;
mod reconnect;
pub mod replicas;
pub mod reserved;
pub mod resp;
mod schemas;
pub mod secret;
pub mod server;
pub mod shapes;
pub mod snapshot;
pub mod supervisor;
pub mod value;
pub mod within;
pub mod witness;
pub(crate) mod write;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use falkordb::{AsyncGraph, FalkorAsyncClient, FalkorClientBuilder, FalkorConnectionInfo, FalkorValue};
use tokio::sync::{Mutex, RwLock};

use crate::error::{Error, Result};
use crate::model::vocab::Label;

pub use bulk_load::{is_partial, partial_name, BulkOutcome};
pub use durable::{Durability, WriteBatch};
pub use read::{EdgeRecord, NodeRecord, PathResult, Stats, Subgraph, Table, TraceDirection};
pub use reconnect::RetryPolicy;
pub use write::WriteStats;

/// Server-side time limit of every query, in milliseconds.
pub const QUERY_TIMEOUT_MS: i64 = 10_000;

/// Rows per `UNWIND` batch (see docs/BENCHMARKS.md for the measurement behind it).
pub const BATCH_ROWS: usize = 5_000;

/// A connection to one FalkorDB server.
pub struct Store {
    /// Where the server is; replaced when the private server comes back on another port.
    endpoint: std::sync::RwLock<Arc<reconnect::Endpoint>>,
    /// How the database's health is followed (see `reconnect.rs`).
    watcher: reconnect::Watcher,
    raw: Mutex<Option<cluster::RawConnection>>,
    client: RwLock<Arc<FalkorAsyncClient>>,
    graphs: Mutex<HashMap<String, AsyncGraph>>,
    indexed: Mutex<HashSet<String>>,
    /// The label each name prefix (`artifact:`, `llm_call:` …) was last found with, per
    /// graph: a name is then looked up in that label's index alone before all of them.
    prefix_labels: std::sync::Mutex<HashMap<(String, String), Label>>,
    retry: RetryPolicy,
    /// The durability barrier's connection and counters.
    barrier: durable::Barrier,
    /// Reads from replicas (`read_from=replicas` on a cluster): their connection and lag.
    replicas: replicas::Replicas,
}

/// Hides the user and password of a URL for messages (`redis://***@host:port`): everything
/// between `://` and the last `@`, as Provex reads a URL (see `cluster_url.rs`).
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => format!("{}://***@{}", &url[..s], &url[at + 1..]),
        _ => url.to_owned(),
    }
}

/// Checks that `url` is a FalkorDB URL: `redis://` or `rediss://`, with a host (a cluster
/// URL is checked node by node, see `cluster.rs`). `shown` is the URL as messages show it.
fn check_url(url: &str, shown: &str) -> Result<()> {
    let parsed = url::Url::parse(url).map_err(|e| {
        Error::Usage(format!("{shown}: not a URL ({e}); a FalkorDB URL is redis://host:port"))
    })?;
    if !matches!(parsed.scheme(), "redis" | "rediss") {
        return Err(Error::Usage(format!(
            "{shown}: a FalkorDB URL starts with redis:// or rediss:// (a Redis Cluster: redis+cluster:// or rediss+cluster://)"
        )));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(Error::Usage(format!("{shown}: the URL names no host")));
    }
    Ok(())
}

impl Store {
    /// Connects to `redis://[user:password@]host:port` or `rediss://…` (TLS), or to a Redis
    /// Cluster: `redis+cluster://[user:password@]host:port[,host:port…]` (or
    /// `rediss+cluster://`), or any of its nodes by a plain URL (found with `CLUSTER INFO`).
    pub async fn connect(url: &str) -> Result<Store> {
        let mut endpoint = reconnect::Endpoint::parse(url)?;
        let client = endpoint.client().await?;
        endpoint.detect_cluster().await?;
        let up = supervisor::Health::Up { url: endpoint.shown.clone(), restarts: 0 };
        let store = Store {
            endpoint: std::sync::RwLock::new(Arc::new(endpoint)),
            watcher: reconnect::Watcher::Shared(supervisor::Beacon::new(up)),
            raw: Mutex::new(None),
            client: RwLock::new(Arc::new(client)),
            graphs: Mutex::new(HashMap::new()),
            indexed: Mutex::new(HashSet::new()),
            prefix_labels: std::sync::Mutex::new(HashMap::new()),
            retry: RetryPolicy::default(),
            barrier: durable::Barrier::default(),
            replicas: replicas::Replicas::default(),
        };
        store.graphs_list().await?;
        if store.endpoint().read_from == cluster_url::ReadFrom::Replicas && !store.is_cluster() {
            return Err(Error::Usage(format!(
                "{}: read_from=replicas needs a Redis Cluster (its replicas serve the reads); this is a single server",
                store.url()
            )));
        }
        if let Err(e) = store.replica_lag(None).await {
            tracing::warn!(%e, "could not measure how far the replicas are behind");
        }
        Ok(store)
    }

    /// Whether the store talks to a Redis Cluster (graphs spread over its shards).
    pub fn is_cluster(&self) -> bool {
        self.endpoint().cluster
    }

    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    async fn graph(&self, name: &str) -> Result<AsyncGraph> {
        validate_graph_name(name)?;
        let mut graphs = self.graphs.lock().await;
        if let Some(g) = graphs.get(name) {
            return Ok(g.clone());
        }
        let g = self.client.read().await.select_graph(name);
        graphs.insert(name.to_owned(), g.clone());
        Ok(g)
    }

    /// Runs a query (read-write), returning its rows.
    pub(crate) async fn run(
        &self,
        graph: &str,
        cypher: &str,
        params: Vec<(&str, FalkorValue)>,
    ) -> Result<Vec<Vec<FalkorValue>>> {
        let _planned = self.shared(graph).await;
        self.run_ungated(graph, cypher, params).await
    }

    /// [`Store::run`] for a caller that holds the graph's gate ([`gate`]).
    async fn run_ungated(
        &self,
        graph: &str,
        cypher: &str,
        params: Vec<(&str, FalkorValue)>,
    ) -> Result<Vec<Vec<FalkorValue>>> {
        let mut g = self.graph(graph).await?;
        let mut q = g.query(cypher).with_timeout(QUERY_TIMEOUT_MS);
        for (k, v) in params {
            q = q.with_param(k, v);
        }
        let result = match q.execute().await.map_err(|e| classify(e, &self.url())) {
            Ok(r) => r,
            Err(e) => {
                if matches!(e, Error::Connection { .. }) {
                    self.barrier.lost();
                }
                return Err(e);
            }
        };
        self.barrier.wrote();
        Ok(result.data.into_values_lossy().collect())
    }

    /// Runs a read-only query (`GRAPH.RO_QUERY`), again after the server came back when it
    /// could not reach it.
    pub(crate) async fn run_ro(
        &self,
        graph: &str,
        cypher: &str,
        params: Vec<(&str, FalkorValue)>,
    ) -> Result<(Vec<String>, Vec<Vec<FalkorValue>>)> {
        self.retrying(None, || self.run_ro_once(graph, cypher, params.clone())).await
    }

    async fn run_ro_once(
        &self,
        graph: &str,
        cypher: &str,
        params: Vec<(&str, FalkorValue)>,
    ) -> Result<(Vec<String>, Vec<Vec<FalkorValue>>)> {
        let mut g = self.graph(graph).await?;
        let _planned = self.shared(graph).await;
        let mut q = g.ro_query(cypher).with_timeout(QUERY_TIMEOUT_MS);
        for (k, v) in params {
            q = q.with_param(k, v);
        }
        let result = q.execute().await.map_err(|e| {
            let e = classify(e, &self.url());
            if matches!(e, Error::Connection { .. }) {
                self.barrier.lost();
            }
            write_refused(missing_graph(e, graph))
        })?;
        let header = result.header.to_vec();
        Ok((header, result.data.into_values_lossy().collect()))
    }

    /// Runs a write with retries and backoff while the server is unreachable.
    pub(crate) async fn run_retrying(
        &self,
        graph: &str,
        cypher: &str,
        params: Vec<(&str, FalkorValue)>,
    ) -> Result<()> {
        let what = format!("graph {graph}");
        self.retrying(Some(&what), || self.run(graph, cypher, params.clone())).await.map(|_| ())
    }

    /// The graphs on the server that are users' graphs: not Provex's own (the search index),
    /// not one being built ([`is_partial`]).
    pub async fn graphs_list(&self) -> Result<Vec<String>> {
        let mut graphs = self.graph_keys().await?;
        graphs.retain(|g| !reserved::is_reserved(g) && !is_partial(g));
        Ok(graphs)
    }

    /// Every graph key on the server, sorted.
    pub(crate) async fn graph_keys(&self) -> Result<Vec<String>> {
        self.retrying(None, || async {
            let client = self.client.read().await.clone();
            // On a cluster the client asks every primary and merges their lists.
            let mut graphs = client.list_graphs().await.map_err(|e| classify(e, &self.url()))?;
            graphs.sort();
            graphs.dedup();
            Ok(graphs)
        })
        .await
    }

    /// Deletes a graph.
    pub async fn delete_graph(&self, graph: &str) -> Result<()> {
        let mut g = self.graph(graph).await?;
        g.delete().await.map_err(|e| classify(e, &self.url()))?;
        self.gate(graph).forget();
        self.barrier.wrote();
        self.graphs.lock().await.remove(graph);
        self.indexed.lock().await.remove(graph);
        Ok(())
    }
}

async fn build_client(info: &FalkorConnectionInfo, shown: &str) -> Result<FalkorAsyncClient> {
    FalkorClientBuilder::new_async()
        .with_connection_info(info.clone())
        .with_num_connections(std::num::NonZeroU8::new(2).expect("nonzero"))
        .build()
        .await
        .map_err(|e| Error::Connection { url: shown.to_owned(), reason: e.to_string() })
}

/// Graph names are Redis keys: keep them printable and free of spaces.
pub fn validate_graph_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 200
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "_-.:".contains(c));
    if ok && reserved::is_reserved(name) {
        return Err(Error::Usage(format!(
            "graph name {name:?} is kept for Provex's own use: choose another"
        )));
    }
    if ok {
        Ok(())
    } else {
        Err(Error::Usage(format!(
            "invalid graph name {name:?}: use letters, digits and _ - . : (at most 200)"
        )))
    }
}

/// FalkorDB's error for a read of a graph that does not exist, as `NotFound`.
pub(crate) fn missing_graph(e: Error, graph: &str) -> Error {
    match e {
        Error::Query(m) if m.contains("empty key") => {
            Error::NotFound { what: "graph", name: graph.to_owned() }
        }
        e => e,
    }
}

/// What a read-only query that would write is told, in place of FalkorDB's "graph.RO_QUERY
/// is to be executed only on read-only queries".
pub const WRITE_IN_READ_ONLY: &str =
    "this query would change the graph (CREATE, MERGE, SET, REMOVE or DELETE), \
     and queries here only read it; to add data, ingest a file";

/// FalkorDB's refusal of a write sent as a read-only query, said in words (`write_refused`).
pub(crate) fn write_refused(e: Error) -> Error {
    match e {
        Error::Query(m) if m.contains("RO_QUERY") || m.to_ascii_lowercase().contains("only on read-only") => {
            Error::WriteRefused(WRITE_IN_READ_ONLY.to_owned())
        }
        e => e,
    }
}

/// Tells connection failures (worth a retry) from query errors.
fn classify(e: falkordb::FalkorDBError, url: &str) -> Error {
    use falkordb::FalkorDBError as F;
    let reason = e.to_string();
    let connection = match &e {
        F::ConnectionDown | F::NoConnection | F::EmptyConnection => true,
        F::RedisError(msg) => {
            let m = msg.to_ascii_lowercase();
            [
                "connection",
                "refused",
                "broken pipe",
                "reset",
                "closed",
                "eof",
                "io error",
                "timed out",
                "os error",
                "unreachable",
                "not connected",
            ]
            .iter()
            .any(|w| m.contains(w))
        }
        _ => false,
    };
    if connection {
        Error::Connection { url: url.to_owned(), reason }
    } else {
        durable::refusal(&reason).unwrap_or(Error::Query(reason))
    }
}

#[cfg(test)]
mod url_tests {
    use super::*;

    #[test]
    fn a_write_in_a_read_only_query_is_said_in_words() {
        let e =
            write_refused(Error::Query("graph.RO_QUERY is to be executed only on read-only queries".into()));
        assert!(matches!(e, Error::WriteRefused(_)), "{e:?}");
        assert_eq!(e.code(), crate::error::ErrorCode::WriteRefused);
        let text = e.to_string();
        assert!(!text.contains("RO_QUERY") && text.contains("would change the graph"), "{text}");
        assert!(text.ends_with("nothing was run"), "{text}");
        // Other query errors are left as they are.
        let other = write_refused(Error::Query("Invalid input 'X'".into()));
        assert!(matches!(other, Error::Query(ref m) if m == "Invalid input 'X'"), "{other:?}");
    }

    #[test]
    fn redact_hides_user_and_password() {
        assert_eq!(redact("redis://ann:secret@db.example:6379"), "redis://***@db.example:6379");
        assert_eq!(redact("rediss://:secret@h:1/0"), "rediss://***@h:1/0");
        assert_eq!(redact("redis://ann@h:1"), "redis://***@h:1");
        assert_eq!(redact("redis://u:p%40ss@[::1]:7000"), "redis://***@[::1]:7000");
        // An unencoded @ in the password: all of it is hidden.
        assert_eq!(redact("redis://u:p@ss@h:1"), "redis://***@h:1");
        assert_eq!(redact("redis://h:1"), "redis://h:1");
        // Not parsable: cut at the last @ all the same.
        assert_eq!(redact("redis://u:pw@h:notaport"), "redis://***@h:notaport");
        assert_eq!(redact("no url"), "no url");
        // A `/` in the password: the `url` crate ends the host before it; hidden all the same.
        assert_eq!(redact("redis://u:12/pw@h:1"), "redis://***@h:1");
    }

    #[test]
    fn urls_are_checked_before_connecting() {
        let check = |u: &str| check_url(u, &redact(u)).map_err(|e| e.to_string());
        assert_eq!(check("redis://h:1"), Ok(()));
        assert_eq!(check("rediss://u:p@[::1]:7000/0"), Ok(()));
        assert_eq!(check("REDIS://h"), Ok(()));
        let usage = |u: &str| match check_url(u, &redact(u)) {
            Err(Error::Usage(m)) => m,
            other => panic!("{u}: {other:?}"),
        };
        assert_eq!(
            usage("http://h:1"),
            "http://h:1: a FalkorDB URL starts with redis:// or rediss:// (a Redis Cluster: redis+cluster:// or rediss+cluster://)"
        );
        assert_eq!(
            usage("localhost:6379"),
            "localhost:6379: a FalkorDB URL starts with redis:// or rediss:// (a Redis Cluster: redis+cluster:// or rediss+cluster://)"
        );
        assert_eq!(usage("redis://"), "redis://: the URL names no host");
        assert_eq!(usage("redis:///0"), "redis:///0: the URL names no host");
        assert_eq!(
            usage("redis://u:pw@h:notaport"),
            "redis://***@h:notaport: not a URL (invalid port number); a FalkorDB URL is redis://host:port"
        );
    }
}
