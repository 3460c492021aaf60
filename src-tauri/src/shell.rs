//! What the window shares: the facade (opened in the background at launch, so commands wait
//! for it), the live stream subscriptions, the cancel flags of running ingests, and the graph
//! the window shows. Shutting down stops all of them and drops the facade, which stops the
//! private FalkorDB server.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use provex::api::ApiError;
use provex::facade::Provex;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// The facade once opened, or why it could not be.
pub type Opened = Result<Arc<Provex>, ApiError>;

/// How long shutdown waits for jobs and ingests to let go of the facade before dropping it.
const RELEASE_WAIT: Duration = Duration::from_secs(5);

pub struct Shell {
    facade: watch::Sender<Option<Opened>>,
    subscriptions: Mutex<HashMap<u64, Subscription>>,
    ingests: Mutex<HashMap<u64, Arc<AtomicBool>>>,
    next_id: AtomicU64,
    current_graph: Mutex<Option<String>>,
}

struct Subscription {
    webview: String,
    task: JoinHandle<()>,
}

/// Removes an ingest's cancel flag when the ingest ends.
pub struct IngestGuard<'a> {
    shell: &'a Shell,
    id: u64,
    pub cancel: Arc<AtomicBool>,
}

impl Drop for IngestGuard<'_> {
    fn drop(&mut self) {
        self.shell.ingests.lock().expect("ingests").remove(&self.id);
    }
}

impl Default for Shell {
    fn default() -> Self {
        Shell {
            facade: watch::channel(None).0,
            subscriptions: Mutex::default(),
            ingests: Mutex::default(),
            next_id: AtomicU64::new(1),
            current_graph: Mutex::default(),
        }
    }
}

impl Shell {
    /// A shell whose facade is already open (tests).
    pub fn with(provex: Arc<Provex>) -> Shell {
        let shell = Shell::default();
        shell.set_facade(Ok(provex));
        shell
    }

    /// Hands the opened facade (or the error) to the commands waiting for it.
    pub fn set_facade(&self, opened: Opened) {
        self.facade.send_replace(Some(opened));
    }

    /// The facade, waiting while it is still being opened.
    pub async fn provex(&self) -> Result<Arc<Provex>, ApiError> {
        let mut rx = self.facade.subscribe();
        let slot = rx.wait_for(Option::is_some).await.map_err(|_| closing())?;
        slot.as_ref().expect("waited for it").clone()
    }

    /// The facade if it is open now (menu actions do not wait).
    pub fn provex_now(&self) -> Option<Arc<Provex>> {
        match &*self.facade.borrow() {
            Some(Ok(p)) => Some(p.clone()),
            _ => None,
        }
    }

    fn next_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Keeps a stream task so `unsubscribe` or a page reload can end it.
    pub fn add_subscription(&self, webview: &str, task: JoinHandle<()>) -> u64 {
        let id = self.next_id();
        let mut subs = self.subscriptions.lock().expect("subscriptions");
        subs.retain(|_, s| !s.task.is_finished());
        subs.insert(id, Subscription { webview: webview.to_owned(), task });
        id
    }

    /// Ends a stream; false when there is no such stream (it may have ended already).
    pub fn unsubscribe(&self, id: u64) -> bool {
        match self.subscriptions.lock().expect("subscriptions").remove(&id) {
            Some(s) => {
                s.task.abort();
                true
            }
            None => false,
        }
    }

    /// Ends the streams of a webview (it is loading a new page: its channels are gone).
    pub fn unsubscribe_webview(&self, webview: &str) {
        self.subscriptions.lock().expect("subscriptions").retain(|_, s| {
            if s.webview == webview {
                s.task.abort();
                false
            } else {
                true
            }
        });
    }

    /// How many streams are running (tests).
    pub fn subscription_count(&self) -> usize {
        let mut subs = self.subscriptions.lock().expect("subscriptions");
        subs.retain(|_, s| !s.task.is_finished());
        subs.len()
    }

    /// Registers an ingest so shutdown can stop it.
    pub fn start_ingest(&self) -> IngestGuard<'_> {
        let id = self.next_id();
        let cancel = Arc::new(AtomicBool::new(false));
        self.ingests.lock().expect("ingests").insert(id, cancel.clone());
        IngestGuard { shell: self, id, cancel }
    }

    /// The graph the window shows (the last one viewed or streamed).
    pub fn current_graph(&self) -> Option<String> {
        self.current_graph.lock().expect("current graph").clone()
    }

    pub fn set_current_graph(&self, graph: &str) {
        *self.current_graph.lock().expect("current graph") = Some(graph.to_owned());
    }

    /// Stops everything and drops the facade: jobs and ingests are asked to stop, streams
    /// end, and once nothing else holds the facade (or after a few seconds) it is dropped,
    /// which stops the private server (it saves its data first). Later commands fail with
    /// `closing`.
    pub fn shutdown(&self) {
        for cancel in self.ingests.lock().expect("ingests").values() {
            cancel.store(true, Ordering::Relaxed);
        }
        for (_, s) in self.subscriptions.lock().expect("subscriptions").drain() {
            s.task.abort();
        }
        let Some(Ok(provex)) = self.facade.send_replace(Some(Err(closing()))) else { return };
        provex.stop_all_jobs();
        let deadline = Instant::now() + RELEASE_WAIT;
        let mut provex = provex;
        loop {
            match Arc::try_unwrap(provex) {
                Ok(p) => {
                    drop(p);
                    tracing::info!("Provex closed");
                    return;
                }
                Err(p) if Instant::now() < deadline => {
                    provex = p;
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(p) => {
                    // A task still holds it; the private server stops with this process.
                    tracing::warn!("Provex still in use at exit ({} holders)", Arc::strong_count(&p));
                    return;
                }
            }
        }
    }
}

fn closing() -> ApiError {
    ApiError::new(provex::api::ErrorCode::Closing, "Provex is closing")
}
