//! Reaching the server again after it went away: the store's address (which changes when
//! the private server is started again on another port), the retry of a request that
//! could not reach the server, and the database's health as the views report it.
//!
//! A request that fails to connect waits for the supervisor to have the private server
//! back (see `supervisor.rs`), or, on a shared server, for a backoff, then reconnects and
//! is sent again: reads are side-effect free and writes are idempotent upserts, so sending
//! one twice changes nothing.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use falkordb::FalkorConnectionInfo;
use futures_util::future::BoxFuture;
use tokio::sync::broadcast;

use super::cluster::{self, Target};
use super::supervisor::{Beacon, Health, Supervisor};
use super::{build_client, Store};
use crate::error::{Error, Result};

/// How long a request keeps trying when the server goes away.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    pub attempts: u32,
    pub first_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy { attempts: 7, first_delay: Duration::from_millis(100) }
    }
}

/// Where the server is: the URL of its (first) node with its password, as the typed client
/// takes it, the URL as messages show it, and for a Redis Cluster every seed node given.
pub(crate) struct Endpoint {
    /// A `redis://` or `rediss://` URL of one server (a cluster's first seed).
    pub(crate) url: String,
    pub(crate) shown: String,
    pub(crate) info: FalkorConnectionInfo,
    /// Every node the URL names (one for a single server), each a `redis(s)://` URL.
    pub(crate) seeds: Vec<String>,
    /// A Redis Cluster: named so by its URL (`redis+cluster://`) or found so at connection.
    pub(crate) cluster: bool,
}

impl Endpoint {
    pub(crate) fn parse(url: &str) -> Result<Endpoint> {
        let shown = super::redact(url);
        let seeds = cluster::seeds(url, &shown)?;
        if !seeds.declared {
            super::check_url(url, &shown)?;
        }
        let first = seeds.urls[0].clone();
        let info = connection_info(&first, &shown)?;
        Ok(Endpoint { url: first, shown, info, seeds: seeds.urls, cluster: seeds.declared })
    }

    /// Where the store's own connections go.
    pub(crate) fn target(&self) -> Target<'_> {
        Target { url: &self.url, seeds: &self.seeds, cluster: self.cluster }
    }

    /// The typed client, through the first seed that answers (it finds a cluster's other
    /// nodes from it).
    pub(crate) async fn client(&self) -> Result<falkordb::FalkorAsyncClient> {
        let mut failed = None;
        for seed in &self.seeds {
            let info =
                if *seed == self.url { self.info.clone() } else { connection_info(seed, &self.shown)? };
            match build_client(&info, &self.shown).await {
                Ok(client) => return Ok(client),
                Err(e) => failed = Some(e),
            }
        }
        Err(failed.unwrap_or_else(|| Error::Connection { url: self.shown.clone(), reason: "no node".into() }))
    }

    /// Finds out whether a URL that did not say so names a Redis Cluster node, and checks
    /// that one that said so does (on the first seed that answers).
    pub(crate) async fn detect_cluster(&mut self) -> Result<()> {
        for seed in &self.seeds {
            match cluster::is_cluster_node(seed, &self.shown).await {
                Ok(true) => {
                    self.cluster = true;
                    return Ok(());
                }
                Ok(false) if self.cluster => {
                    return Err(Error::Usage(format!(
                        "{}: {} is not a Redis Cluster node (it refuses CLUSTER INFO); for a single server use redis:// or rediss://",
                        self.shown,
                        super::redact(seed)
                    )))
                }
                Ok(false) => return Ok(()),
                Err(_) => continue,
            }
        }
        Ok(())
    }
}

fn connection_info(url: &str, shown: &str) -> Result<FalkorConnectionInfo> {
    url.try_into().map_err(|e| Error::Connection { url: shown.to_owned(), reason: format!("{e}") })
}

/// What a store follows the database's health by.
pub(crate) enum Watcher {
    /// The private server, kept running by its supervisor.
    Supervised(std::sync::Weak<Supervisor>),
    /// A shared server: the store's own view of it.
    Shared(Beacon),
}

impl Store {
    pub(crate) fn endpoint(&self) -> Arc<Endpoint> {
        self.endpoint.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// The URL, with any password hidden.
    pub fn url(&self) -> String {
        self.endpoint().shown.clone()
    }

    /// Keeps the private server of `supervisor` running behind this store: a request that
    /// cannot reach it waits until the supervisor has started it again, at its new address.
    /// The store holds it weakly: whoever opened the server stops it by dropping it.
    pub fn supervised_by(mut self, supervisor: &Arc<Supervisor>) -> Self {
        self.watcher = Watcher::Supervised(Arc::downgrade(supervisor));
        self
    }

    /// Each change of the database's health from now on (the supervisor's, or this
    /// store's view of a shared server).
    pub fn health_changes(&self) -> broadcast::Receiver<Health> {
        match &self.watcher {
            Watcher::Supervised(s) => match s.upgrade() {
                Some(s) => s.changes(),
                None => broadcast::channel(1).1,
            },
            Watcher::Shared(beacon) => beacon.changes(),
        }
    }

    /// Rebuilds the connections after the server went away (to its new address, when it
    /// has one).
    pub(super) async fn reconnect(&self) -> Result<()> {
        self.barrier.lost();
        *self.raw.lock().await = None;
        let client = self.endpoint().client().await?;
        *self.client.write().await = Arc::new(client);
        self.graphs.lock().await.clear();
        Ok(())
    }

    /// Runs `op` until it reaches the server: after a connection failure, waits for the
    /// server (see the module docs), reconnects and runs it again, up to the retry policy's
    /// attempts. `write` names a write for the error when every attempt failed.
    ///
    /// The future is boxed: its type stays small in the futures that await it (their `Send`
    /// checks would otherwise go as deep as the supervisor's process handles).
    pub(crate) fn retrying<'a, T, F, Fut>(&'a self, write: Option<&'a str>, op: F) -> BoxFuture<'a, Result<T>>
    where
        F: FnMut() -> Fut + Send + 'a,
        Fut: Future<Output = Result<T>> + Send + 'a,
        T: Send + 'a,
    {
        Box::pin(self.retry_loop(write, op))
    }

    async fn retry_loop<T, F, Fut>(&self, write: Option<&str>, mut op: F) -> Result<T>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T>>,
    {
        let mut delay = self.retry.first_delay;
        let mut attempt = 1;
        loop {
            match op().await {
                Ok(v) => {
                    if attempt > 1 {
                        self.back_up();
                    }
                    return Ok(v);
                }
                Err(Error::Connection { url, reason }) => {
                    if attempt >= self.retry.attempts {
                        return Err(match write {
                            Some(what) => Error::ConnectionLost {
                                during: format!("while writing {what} at {url} ({attempt} attempts)"),
                                reason,
                            },
                            None => Error::Connection { url, reason },
                        });
                    }
                    tracing::warn!(attempt, ?delay, %reason, "FalkorDB unreachable, retrying");
                    self.wait_for_server(&url, &reason, delay).await?;
                    delay = (delay * 2).min(Duration::from_secs(5));
                    attempt += 1;
                    let _ = self.reconnect().await;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// After a connection failure: the private server's supervisor has it answering again
    /// (or says it could not start it), or a shared server was given `delay`.
    async fn wait_for_server(&self, url: &str, reason: &str, delay: Duration) -> Result<()> {
        match &self.watcher {
            Watcher::Supervised(s) => {
                let Some(s) = s.upgrade() else {
                    return Err(Error::Server("the private server was stopped".into()));
                };
                let before = self.endpoint().url.clone();
                let now = s.wait_up().await?;
                if now != before {
                    let endpoint = Arc::new(Endpoint::parse(&now)?);
                    *self.endpoint.write().unwrap_or_else(std::sync::PoisonError::into_inner) = endpoint;
                    self.indexed.lock().await.clear();
                } else {
                    // Alive at the same address, or not yet seen dead: give it the backoff.
                    tokio::time::sleep(delay).await;
                }
            }
            Watcher::Shared(beacon) => {
                if matches!(beacon.now(), Health::Up { .. }) {
                    beacon.set(Health::Restarting {
                        reason: format!(
                            "the FalkorDB server at {url} does not answer ({reason}); reconnecting"
                        ),
                    });
                }
                tokio::time::sleep(delay).await;
            }
        }
        Ok(())
    }

    /// A request went through after failures: a shared server is back.
    fn back_up(&self) {
        if let Watcher::Shared(beacon) = &self.watcher {
            if !matches!(beacon.now(), Health::Up { .. }) {
                beacon.set(Health::Up { url: self.url(), restarts: 0 });
            }
        }
    }
}
