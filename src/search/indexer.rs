//! Keeps the cross-graph search index current: the write path hands every written delta's
//! items here as it publishes the delta (one hook, `facade::Publisher`), and one task writes
//! them to the index in order, many deltas' items per write. A write waits for nothing; an
//! ingest waits for its items ([`Indexer::flush`]) before it acknowledges, so what an ingest
//! wrote is found once it returns. Items that could not be written (the server gone for
//! longer than the retries) are dropped with a warning; `provex search reindex` rebuilds
//! the index from the graphs.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{mpsc, watch, OnceCell};

use super::index;
use super::items::{delta_items, Item};
use crate::error::Result;
use crate::model::GraphDelta;
use crate::store::Store;

/// Items queued, numbered in the order they were sent.
struct Queued {
    seq: u64,
    items: Vec<Item>,
}

/// The index's writer: a queue and the task that empties it.
pub struct Indexer {
    store: Arc<Store>,
    /// The queue's sending side and the number of the last batch sent, under one lock so
    /// numbers are sent in order.
    tx: Mutex<(Option<mpsc::UnboundedSender<Queued>>, u64)>,
    /// The number of the last batch written (or given up on).
    done: watch::Receiver<u64>,
    /// Whether written deltas are indexed (a session may turn it off, to measure).
    enabled: AtomicBool,
    schema: Arc<OnceCell<()>>,
    /// Items written since the session began.
    written: Arc<AtomicU64>,
}

impl Indexer {
    /// Starts the writing task on the current runtime.
    pub fn start(store: Arc<Store>) -> Indexer {
        let (tx, rx) = mpsc::unbounded_channel();
        let (done_tx, done) = watch::channel(0);
        let schema = Arc::new(OnceCell::new());
        let written = Arc::new(AtomicU64::new(0));
        tokio::spawn(run(store.clone(), rx, done_tx, schema.clone(), written.clone()));
        Indexer {
            store,
            tx: Mutex::new((Some(tx), 0)),
            done,
            enabled: AtomicBool::new(true),
            schema,
            written,
        }
    }

    /// Turns indexing of written deltas on or off.
    pub fn set_enabled(&self, on: bool) {
        self.enabled.store(on, Ordering::Relaxed);
    }

    /// Whether written deltas are indexed.
    pub fn enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// Queues the items of a delta written to `graph`.
    pub fn written(&self, graph: &str, delta: &GraphDelta) {
        if !self.enabled.load(Ordering::Relaxed) || delta.node_count() == 0 {
            return;
        }
        self.send(delta_items(graph, delta));
    }

    /// Queues items.
    pub fn send(&self, items: Vec<Item>) {
        if items.is_empty() {
            return;
        }
        let mut tx = self.tx.lock().unwrap_or_else(PoisonError::into_inner);
        let seq = tx.1 + 1;
        if let Some(sender) = &tx.0 {
            if sender.send(Queued { seq, items }).is_ok() {
                tx.1 = seq;
            }
        }
    }

    /// Waits until every item queued before this call is written (or given up on).
    pub async fn flush(&self) {
        let target = self.tx.lock().unwrap_or_else(PoisonError::into_inner).1;
        let mut done = self.done.clone();
        // The task ended (the runtime is going away): nothing more will be written.
        let _ = done.wait_for(|d| *d >= target).await;
    }

    /// Creates the index's graph and indexes, once per session.
    pub async fn ensure_schema(&self) -> Result<()> {
        ensure(&self.store, &self.schema).await
    }

    /// Items written since the session began.
    pub fn items_written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }
}

async fn ensure(store: &Store, schema: &OnceCell<()>) -> Result<()> {
    schema.get_or_try_init(|| index::ensure_schema(store)).await.map(|_| ())
}

/// The task: takes what is queued (everything waiting, up to a write's rows), writes it,
/// and says how far it got.
async fn run(
    store: Arc<Store>,
    mut rx: mpsc::UnboundedReceiver<Queued>,
    done: watch::Sender<u64>,
    schema: Arc<OnceCell<()>>,
    written: Arc<AtomicU64>,
) {
    let mut fresh = super::fresh::Fresh::default();
    while let Some(first) = rx.recv().await {
        let mut last = first.seq;
        let mut items = first.items;
        while items.len() < index::WRITE_ROWS {
            match rx.try_recv() {
                Ok(next) => {
                    last = next.seq;
                    items.extend(next.items);
                }
                Err(_) => break,
            }
        }
        let n = items.len();
        let outcome = match ensure(&store, &schema).await {
            Ok(()) => super::fresh::write(&store, &mut fresh, items).await,
            Err(e) => Err(e),
        };
        match outcome {
            Ok(()) => {
                written.fetch_add(n as u64, Ordering::Relaxed);
            }
            Err(e) => tracing::warn!(
                "{n} search index items not written ({e}); `provex search reindex` rebuilds the index"
            ),
        }
        let _ = done.send(last);
    }
}
