//! Keeps the cross-graph search index current: the write path hands every written delta's
//! items here as it publishes the delta (one hook, `facade::Publisher`), and one task writes
//! them to the index in order, many deltas' items per write. A write waits for nothing; an
//! ingest waits for its items ([`Indexer::flush`]) before it acknowledges, so what an ingest
//! wrote is found once it returns. Unless someone waits, the task gathers what arrives for
//! [`GATHER`] before it writes: a live stream's small batches then make a few index writes a
//! second instead of one each, which would compete with the stream's own writes (and their
//! fsyncs) on the same server. Items that could not be written (the server gone for
//! longer than the retries) are dropped with a warning; `provex search reindex` rebuilds
//! the index from the graphs.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::{mpsc, watch, Notify, OnceCell};

use super::index;
use super::items::{delta_items, Item};
use crate::error::Result;
use crate::model::GraphDelta;
use crate::store::Store;

/// How long the task gathers items before writing them, when no one waits for them.
pub const GATHER: Duration = Duration::from_millis(250);

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
    /// Told when someone waits for the queue ([`Indexer::flush`]): the task writes at once.
    urgent: Arc<Notify>,
    /// Writes made to the index since the session began.
    writes: Arc<AtomicU64>,
}

impl Indexer {
    /// Starts the writing task on the current runtime.
    pub fn start(store: Arc<Store>) -> Indexer {
        let (tx, rx) = mpsc::unbounded_channel();
        let (done_tx, done) = watch::channel(0);
        let schema = Arc::new(OnceCell::new());
        let written = Arc::new(AtomicU64::new(0));
        let urgent = Arc::new(Notify::new());
        let writes = Arc::new(AtomicU64::new(0));
        let task = Task {
            store: store.clone(),
            done: done_tx,
            schema: schema.clone(),
            written: written.clone(),
            urgent: urgent.clone(),
            writes: writes.clone(),
        };
        tokio::spawn(task.run(rx));
        Indexer {
            store,
            tx: Mutex::new((Some(tx), 0)),
            done,
            enabled: AtomicBool::new(true),
            schema,
            written,
            urgent,
            writes,
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
        if *done.borrow() < target {
            self.urgent.notify_one();
        }
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

    /// Writes made to the index since the session began (each of many deltas' items).
    pub fn writes(&self) -> u64 {
        self.writes.load(Ordering::Relaxed)
    }
}

async fn ensure(store: &Store, schema: &OnceCell<()>) -> Result<()> {
    schema.get_or_try_init(|| index::ensure_schema(store)).await.map(|_| ())
}

/// The task's side of the index's writer.
struct Task {
    store: Arc<Store>,
    done: watch::Sender<u64>,
    schema: Arc<OnceCell<()>>,
    written: Arc<AtomicU64>,
    urgent: Arc<Notify>,
    writes: Arc<AtomicU64>,
}

impl Task {
    /// Takes what is queued (what arrives within [`GATHER`] of the first, or until someone
    /// waits, up to a write's rows), writes it, and says how far it got.
    async fn run(self, mut rx: mpsc::UnboundedReceiver<Queued>) {
        while let Some(first) = rx.recv().await {
            let mut last = first.seq;
            let mut items = first.items;
            let deadline = tokio::time::Instant::now() + GATHER;
            while items.len() < index::WRITE_ROWS {
                tokio::select! {
                    next = rx.recv() => match next {
                        Some(next) => {
                            last = next.seq;
                            items.extend(next.items);
                        }
                        None => break,
                    },
                    _ = self.urgent.notified() => {
                        // Everything queued before the wait is already in the channel.
                        while items.len() < index::WRITE_ROWS {
                            let Ok(next) = rx.try_recv() else { break };
                            last = next.seq;
                            items.extend(next.items);
                        }
                        break;
                    }
                    _ = tokio::time::sleep_until(deadline) => break,
                }
            }
            self.write(&items).await;
            let _ = self.done.send(last);
        }
    }

    async fn write(&self, items: &[Item]) {
        self.writes.fetch_add(1, Ordering::Relaxed);
        let outcome = match ensure(&self.store, &self.schema).await {
            Ok(()) => index::upsert(&self.store, items).await,
            Err(e) => Err(e),
        };
        match outcome {
            Ok(()) => {
                self.written.fetch_add(items.len() as u64, Ordering::Relaxed);
            }
            Err(e) => tracing::warn!(
                "{} search index items not written ({e}); `provex search reindex` rebuilds the index",
                items.len()
            ),
        }
    }
}
