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
//!
//! The queue is bounded in bytes ([`DEFAULT_QUEUE_BYTES`]): a fresh import's nodes are sent
//! as they are read, and [`Indexer::send_bounded`] waits for room, so a large import is
//! held back to the index's pace instead of queueing every node. The synchronous hook
//! cannot wait: its writers wait for room before they write ([`Indexer::room`]), and what
//! it queues beyond the bound is counted, never refused.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::{mpsc, watch, Notify, OnceCell, Semaphore};

use super::index;
use super::items::{delta_items, Item};
use crate::error::Result;
use crate::model::GraphDelta;
use crate::store::Store;

/// How long the task gathers items before writing them, when no one waits for them. Not
/// longer: a write's time grows with its items, and a second's items of a 1,000 events/s
/// stream made one write long enough to hold up the stream's own writes behind it (two
/// FalkorDB writes at once share the same cores and the same fsync).
pub const GATHER: Duration = Duration::from_millis(250);

/// The bytes of items queued (or being written) at most, for senders that wait for room.
pub const DEFAULT_QUEUE_BYTES: usize = 16 << 20;

/// Items queued, numbered in the order they were sent, with the room they hold.
struct Queued {
    seq: u64,
    items: Vec<Item>,
    /// Their weight ([`item_weight`]).
    bytes: usize,
    /// The queue's permits they took (fewer than `bytes` when sent without waiting).
    permits: usize,
}

/// The room in the queue and what it has held, shared with the writing task.
struct Room {
    /// Bytes free under the bound.
    free: Semaphore,
    /// The bound (the permits `free` was given in all).
    bound: AtomicUsize,
    /// Bytes queued or being written.
    queued: AtomicUsize,
    /// The most bytes queued at once since the session began (or the last reset).
    high_water: AtomicUsize,
}

impl Room {
    fn new(bound: usize) -> Room {
        Room {
            free: Semaphore::new(bound),
            bound: AtomicUsize::new(bound),
            queued: AtomicUsize::new(0),
            high_water: AtomicUsize::new(0),
        }
    }

    fn queue(&self, bytes: usize) {
        let now = self.queued.fetch_add(bytes, Ordering::AcqRel) + bytes;
        self.high_water.fetch_max(now, Ordering::AcqRel);
    }

    fn written(&self, bytes: usize, permits: usize) {
        self.queued.fetch_sub(bytes, Ordering::AcqRel);
        self.free.add_permits(permits);
    }
}

/// The index's writer: a queue and the task that empties it.
pub struct Indexer {
    store: Arc<Store>,
    /// The queue's sending side and the number of the last batch sent, under one lock so
    /// numbers are sent in order.
    tx: Mutex<(Option<mpsc::UnboundedSender<Queued>>, u64)>,
    room: Arc<Room>,
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
        let room = Arc::new(Room::new(DEFAULT_QUEUE_BYTES));
        let urgent = Arc::new(Notify::new());
        let writes = Arc::new(AtomicU64::new(0));
        let task = Task {
            store: store.clone(),
            done: done_tx,
            schema: schema.clone(),
            written: written.clone(),
            room: room.clone(),
            urgent: urgent.clone(),
            writes: writes.clone(),
        };
        tokio::spawn(task.run(rx));
        Indexer {
            store,
            tx: Mutex::new((Some(tx), 0)),
            room,
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

    /// Queues the items of a delta written to `graph`, without waiting (what the bound
    /// cannot take is queued all the same: see [`Indexer::room`]).
    pub fn written(&self, graph: &str, delta: &GraphDelta) {
        if !self.enabled.load(Ordering::Relaxed) || delta.node_count() == 0 {
            return;
        }
        self.send(delta_items(graph, delta));
    }

    /// Queues items without waiting.
    pub fn send(&self, items: Vec<Item>) {
        let bytes = weight(&items);
        let permits = bytes.min(self.room.free.available_permits());
        if let Ok(taken) = self.room.free.try_acquire_many(permits as u32) {
            taken.forget();
        }
        self.queue(items, bytes, permits);
    }

    /// Queues the items of nodes written (or about to be written) to `graph`, a write's
    /// rows at a time, each once the queue has room for it: the bytes queued stay under the
    /// bound (a piece heavier than the whole bound waits for an empty queue).
    pub async fn send_bounded(&self, items: Vec<Item>) {
        if !self.enabled.load(Ordering::Relaxed) {
            return;
        }
        let bound = self.room.bound.load(Ordering::Relaxed);
        let mut items = items.into_iter().peekable();
        while items.peek().is_some() {
            // A piece is at most a write's rows and a quarter of the bound.
            let (mut piece, mut bytes) = (Vec::new(), 0);
            while let Some(next) = items.next_if(|i| {
                piece.is_empty() || { piece.len() < index::WRITE_ROWS && bytes + item_weight(i) <= bound / 4 }
            }) {
                bytes += item_weight(&next);
                piece.push(next);
            }
            let permits = bytes.clamp(1, bound);
            match self.room.free.acquire_many(permits as u32).await {
                Ok(taken) => taken.forget(),
                // Never closed.
                Err(_) => return,
            }
            self.queue(piece, bytes, permits);
        }
    }

    /// Waits until the queue has room for a write's items (a quarter of its bound): a
    /// writer whose deltas are queued by the synchronous hook calls it before each write.
    pub async fn room(&self) {
        if !self.enabled.load(Ordering::Relaxed) {
            return;
        }
        let quarter = (self.room.bound.load(Ordering::Relaxed) / 4).max(1);
        // Taken and given back at once: only the wait matters.
        let _ = self.room.free.acquire_many(quarter as u32).await;
    }

    fn queue(&self, items: Vec<Item>, bytes: usize, permits: usize) {
        if items.is_empty() {
            self.room.free.add_permits(permits);
            return;
        }
        let mut tx = self.tx.lock().unwrap_or_else(PoisonError::into_inner);
        let seq = tx.1 + 1;
        self.room.queue(bytes);
        let sent = match &tx.0 {
            Some(sender) => sender.send(Queued { seq, items, bytes, permits }).is_ok(),
            None => false,
        };
        if sent {
            tx.1 = seq;
        } else {
            self.room.written(bytes, permits);
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

    /// The queue's bound, in bytes of items.
    pub fn queue_bound(&self) -> usize {
        self.room.bound.load(Ordering::Relaxed)
    }

    /// Bounds the queue to `bytes` of items from now on (tests of an import many times the
    /// bound; the default suits any input). Call it while nothing is queued.
    #[doc(hidden)]
    pub fn set_queue_bound(&self, bytes: usize) {
        let bytes = bytes.clamp(1, u32::MAX as usize);
        let old = self.room.bound.swap(bytes, Ordering::AcqRel);
        if bytes > old {
            self.room.free.add_permits(bytes - old);
        } else {
            self.room.free.forget_permits(old - bytes);
        }
    }

    /// The most bytes of items queued at once since the last call (and starts counting
    /// again from what is queued now).
    pub fn take_high_water(&self) -> usize {
        let now = self.room.queued.load(Ordering::Acquire);
        self.room.high_water.swap(now, Ordering::AcqRel)
    }
}

/// The bytes an item holds: its strings and itself.
fn item_weight(i: &Item) -> usize {
    let strings = [
        Some(&i.uid),
        Some(&i.graph),
        Some(&i.node),
        Some(&i.label),
        Some(&i.key),
        i.alt.as_ref(),
        i.text.as_ref(),
        i.words.as_ref(),
        i.trace.as_ref(),
    ];
    std::mem::size_of::<Item>() + strings.iter().flatten().map(|s| s.len()).sum::<usize>()
}

/// The bytes a list of items holds.
fn weight(items: &[Item]) -> usize {
    items.iter().map(item_weight).sum()
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
    room: Arc<Room>,
    urgent: Arc<Notify>,
    writes: Arc<AtomicU64>,
}

/// What the task took from the queue for one write.
struct Taken {
    last: u64,
    items: Vec<Item>,
    bytes: usize,
    permits: usize,
}

impl Taken {
    fn add(&mut self, next: Queued) {
        self.last = next.seq;
        self.bytes += next.bytes;
        self.permits += next.permits;
        self.items.extend(next.items);
    }
}

impl Task {
    /// Takes what is queued (what arrives within [`GATHER`] of the first, or until someone
    /// waits, up to a write's rows), writes it, says how far it got and gives the room back.
    async fn run(self, mut rx: mpsc::UnboundedReceiver<Queued>) {
        let mut fresh = super::fresh::Fresh::default();
        while let Some(first) = rx.recv().await {
            let mut taken =
                Taken { last: first.seq, items: first.items, bytes: first.bytes, permits: first.permits };
            let deadline = tokio::time::Instant::now() + GATHER;
            while taken.items.len() < index::WRITE_ROWS {
                tokio::select! {
                    next = rx.recv() => match next {
                        Some(next) => taken.add(next),
                        None => break,
                    },
                    _ = self.urgent.notified() => {
                        // Everything queued before the wait is already in the channel.
                        while taken.items.len() < index::WRITE_ROWS {
                            let Ok(next) = rx.try_recv() else { break };
                            taken.add(next);
                        }
                        break;
                    }
                    _ = tokio::time::sleep_until(deadline) => break,
                }
            }
            self.write(&mut fresh, taken.items).await;
            self.room.written(taken.bytes, taken.permits);
            let _ = self.done.send(taken.last);
        }
    }

    /// Writes items (new graphs' with `CREATE`, see [`super::fresh`]).
    async fn write(&self, fresh: &mut super::fresh::Fresh, items: Vec<Item>) {
        self.writes.fetch_add(1, Ordering::Relaxed);
        let n = items.len();
        let outcome = match ensure(&self.store, &self.schema).await {
            Ok(()) => super::fresh::write(&self.store, fresh, items).await,
            Err(e) => Err(e),
        };
        match outcome {
            Ok(()) => {
                self.written.fetch_add(n as u64, Ordering::Relaxed);
            }
            Err(e) => tracing::warn!(
                "{n} search index items not written ({e}); `provex search reindex` rebuilds the index"
            ),
        }
    }
}
