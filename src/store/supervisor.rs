//! Keeps the private FalkorDB server running: a thread of its own starts it, watches its
//! process and, when it dies, starts it again with the same options (arguments, data
//! folder) after a backoff, a bounded number of times, then gives up with an error naming
//! what happened. The server's health (and its address, which may change on a restart) is
//! published on a watch channel the store and the live views follow.
//!
//! The server is started by this thread and no other because on Linux a server dies with
//! the thread that started it (see `server.rs`): this one lives as long as the supervisor.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::sync::{broadcast, watch};

use super::server::{PrivateServer, ServerOptions};
use crate::error::{Error, Result};

/// How often the thread looks whether the server process is still there.
const WATCH_EVERY: Duration = Duration::from_millis(25);

/// How a dead server is started again.
#[derive(Debug, Clone, Copy)]
pub struct RestartPolicy {
    /// Tries after a death before giving up.
    pub attempts: u32,
    /// Wait before the first try; doubled before each next one, up to `max_delay`.
    pub first_delay: Duration,
    pub max_delay: Duration,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        RestartPolicy {
            attempts: 5,
            first_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(5),
        }
    }
}

/// The database's state as the store and the views see it.
#[derive(Debug, Clone, PartialEq)]
pub enum Health {
    /// Answering at `url` (with its password, when it has one).
    Up { url: String, restarts: u32 },
    /// Gone; being started again (the private server) or reconnected to (a shared one).
    Restarting { reason: String },
    /// Not started again after the policy's tries: every request fails with this.
    Failed { reason: String },
}

impl Health {
    /// `up`, `restarting` or `failed`, as the stream's `database` message says it.
    pub fn state(&self) -> &'static str {
        match self {
            Health::Up { .. } => "up",
            Health::Restarting { .. } => "restarting",
            Health::Failed { .. } => "failed",
        }
    }
}

/// The health now (for requests waiting on it) and each change of it (for the views,
/// which must tell every one, however quick the next).
pub(crate) struct Beacon {
    now: watch::Sender<Health>,
    changes: broadcast::Sender<Health>,
}

impl Beacon {
    pub(crate) fn new(health: Health) -> Beacon {
        Beacon { now: watch::channel(health).0, changes: broadcast::channel(64).0 }
    }

    pub(crate) fn now(&self) -> Health {
        self.now.borrow().clone()
    }

    pub(crate) fn set(&self, health: Health) {
        if *self.now.borrow() != health {
            self.now.send_replace(health.clone());
            let _ = self.changes.send(health);
        }
    }

    pub(crate) fn watch(&self) -> watch::Receiver<Health> {
        self.now.subscribe()
    }

    pub(crate) fn changes(&self) -> broadcast::Receiver<Health> {
        self.changes.subscribe()
    }
}

struct Shared {
    opts: ServerOptions,
    policy: RestartPolicy,
    server: Mutex<Option<PrivateServer>>,
    /// Bulk builds under way, which hold the server's automatic rewrites.
    rewrite_holds: Mutex<usize>,
    health: Beacon,
    stop: AtomicBool,
    /// Set (and the condvar notified) to make the thread look now.
    wake: Mutex<bool>,
    bell: Condvar,
}

/// See the module docs.
pub struct Supervisor {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Supervisor {
    /// Starts the private server on the supervisor's thread and returns once it answers
    /// (or when starting it failed).
    pub fn start(opts: ServerOptions, policy: RestartPolicy) -> Result<Supervisor> {
        let (tx, rx) = std::sync::mpsc::channel();
        let opts2 = opts.clone();
        let thread = std::thread::Builder::new()
            .name("falkordb-supervisor".into())
            .spawn(move || {
                let server = match PrivateServer::start(&opts2) {
                    Ok(s) => s,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                };
                let health = Beacon::new(Health::Up { url: server.url(), restarts: 0 });
                let shared = Arc::new(Shared {
                    opts: opts2,
                    policy,
                    server: Mutex::new(Some(server)),
                    rewrite_holds: Mutex::new(0),
                    health,
                    stop: AtomicBool::new(false),
                    wake: Mutex::new(false),
                    bell: Condvar::new(),
                });
                if tx.send(Ok(shared.clone())).is_ok() {
                    shared.run();
                }
                // Dropping the server stops it (here, on the thread that started it).
                drop(shared.lock().take());
            })
            .map_err(|e| Error::Server(format!("cannot start the supervisor thread: {e}")))?;
        match rx.recv() {
            Ok(Ok(shared)) => Ok(Supervisor { shared, thread: Some(thread) }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(Error::Server("the supervisor thread ended at start".into())),
        }
    }

    /// The server's address now.
    pub fn url(&self) -> Option<String> {
        self.shared.lock().as_ref().map(PrivateServer::url)
    }

    /// The server's process id now, when this process started it.
    pub fn pid(&self) -> Option<u32> {
        self.shared.lock().as_ref().and_then(PrivateServer::pid)
    }

    /// Whether this process started the server (else another Provex on the same data
    /// folder did, and this one uses it).
    pub fn owned(&self) -> bool {
        self.shared.lock().as_ref().is_some_and(PrivateServer::owned)
    }

    /// A bulk build starts (`hold`) or ends: the first to start holds the server's automatic
    /// append-only-file rewrites, the last to end lets them go (see
    /// [`super::aof::hold_rewrites`]). Blocks for at most about a minute.
    pub fn hold_rewrites(&self, hold: bool) {
        let mut holds = self.shared.rewrite_holds.lock().unwrap_or_else(PoisonError::into_inner);
        let before = *holds;
        *holds = if hold { before + 1 } else { before.saturating_sub(1) };
        if (hold && before == 0) || (!hold && before == 1) {
            if let Some(server) = self.shared.lock().as_ref() {
                server.hold_rewrites(hold);
            }
        }
    }

    /// The URL of the owner's administrative user, when this process started the server
    /// (tests that look at the server's settings).
    #[doc(hidden)]
    pub fn admin_url(&self) -> Option<String> {
        self.shared.lock().as_ref().and_then(PrivateServer::admin_url)
    }

    /// The data folder.
    pub fn data_dir(&self) -> &std::path::Path {
        &self.shared.opts.data_dir
    }

    pub fn health(&self) -> Health {
        self.shared.health.now()
    }

    /// Every change of the health from now on.
    pub fn changes(&self) -> broadcast::Receiver<Health> {
        self.shared.health.changes()
    }

    /// A request could not reach the server: look at it now, and wait until it answers
    /// again (its address, which may have changed) or until it could not be started again.
    pub async fn wait_up(&self) -> Result<String> {
        self.shared.ring();
        let mut rx = self.shared.health.watch();
        // The thread looks at once; a server it finds alive but not answering is waited
        // for no longer than the store's own backoff would.
        let state = rx
            .wait_for(|h| !matches!(h, Health::Restarting { .. }))
            .await
            .map_err(|_| Error::Server("the database supervisor stopped".into()))?
            .clone();
        match state {
            Health::Up { url, .. } => Ok(url),
            Health::Failed { reason } => Err(Error::Server(reason)),
            Health::Restarting { .. } => unreachable!("waited past it"),
        }
    }

    /// Stops the server (saving its data) and the thread.
    pub fn stop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.shared.ring();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Supervisor {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<PrivateServer>> {
        self.server.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn ring(&self) {
        *self.wake.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.bell.notify_all();
    }

    /// Waits for the next look: [`WATCH_EVERY`], or sooner when rung. Whether it was rung.
    fn pause(&self) -> bool {
        let woken = self.wake.lock().unwrap_or_else(PoisonError::into_inner);
        let (mut woken, _) =
            self.bell.wait_timeout_while(woken, WATCH_EVERY, |w| !*w).unwrap_or_else(PoisonError::into_inner);
        std::mem::take(&mut *woken)
    }

    fn run(&self) {
        loop {
            let rung = self.pause();
            if self.stop.load(Ordering::SeqCst) {
                return;
            }
            if matches!(self.health.now(), Health::Failed { .. }) {
                continue;
            }
            let died = {
                let mut server = self.lock();
                match server.as_mut() {
                    Some(s) if s.owned() => s.exited(),
                    // Another Provex runs it: only a request that failed makes us look.
                    Some(s) if rung && !s.answers() => Some("it no longer answers".into()),
                    _ => None,
                }
            };
            match died {
                Some(how) => self.restart(&how),
                // Rung by a request that could not connect, yet the server is alive.
                None if rung => {
                    let url = self.lock().as_ref().map(PrivateServer::url);
                    let restarts = match self.health.now() {
                        Health::Up { restarts, .. } => restarts,
                        _ => 0,
                    };
                    if let Some(url) = url {
                        self.health.set(Health::Up { url, restarts });
                    }
                }
                None => {}
            }
        }
    }

    /// Starts the dead server again: the same options as the first start, tries spaced
    /// by the policy's backoff.
    fn restart(&self, how: &str) {
        let n = self.policy.attempts.max(1);
        let (was, owned) = {
            let server = self.lock();
            (server.as_ref().and_then(PrivateServer::pid), server.as_ref().is_some_and(PrivateServer::owned))
        };
        let what = match was {
            Some(pid) => format!("the private FalkorDB server (pid {pid}) stopped: {how}"),
            None => format!("the private FalkorDB server this Provex shares stopped: {how}"),
        };
        tracing::warn!("{what}; starting it again");
        let restarts = match self.health.now() {
            Health::Up { restarts, .. } => restarts,
            _ => 0,
        };
        let mut delay = self.policy.first_delay;
        let mut last = String::new();
        for attempt in 1..=n {
            self.health.set(Health::Restarting {
                reason: format!("{what}; starting it again (try {attempt} of {n})"),
            });
            // Each try waits first (the first the policy's first delay): a server that
            // crashes as it starts is not restarted in a tight loop.
            std::thread::sleep(delay);
            delay = (delay * 2).min(self.policy.max_delay);
            if self.stop.load(Ordering::SeqCst) {
                return;
            }
            let result = {
                let mut server = self.lock();
                match server.as_mut() {
                    Some(s) if owned => s.respawn(&self.opts).map(|()| s.url()),
                    // Its owner went away (we may now own the data folder) or restarted it.
                    _ => PrivateServer::start(&self.opts).map(|s| {
                        let url = s.url();
                        *server = Some(s);
                        url
                    }),
                }
            };
            match result {
                Ok(url) => {
                    tracing::info!(attempt, "the private FalkorDB server is back");
                    self.health.set(Health::Up { url, restarts: restarts + 1 });
                    return;
                }
                Err(e) => last = e.to_string(),
            }
        }
        let reason = format!("{what}, and it did not start again after {n} tries: {last}");
        tracing::error!("{reason}");
        self.health.set(Health::Failed { reason });
    }
}
