//! `provex serve`: the explorer UI, its JSON API and live streams over HTTP, all calling the
//! same facade the desktop shell calls. Loopback by default; any other address needs a
//! token, checked on every request.

mod a2a;
mod auth;
mod canned;
mod error;
mod limits;
mod routes;
mod stream;
mod ui;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::serve::ListenerExt;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use crate::error::{Error, Result};
use crate::facade::Provex;

pub use error::ApiFailure;
pub use limits::ServeLimits;

/// How to serve.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub bind: SocketAddr,
    /// Required unless `bind` is a loopback address.
    pub token: Option<String>,
    /// The built UI folder (default: see [`ui::locate`]).
    pub ui: Option<PathBuf>,
    /// Open the UI in the default browser once listening.
    pub open: bool,
    /// On a non-loopback address, the folders besides the data folder that `follow` may
    /// read and `upload` may write (`--allow-dir`); none other is allowed there.
    pub allow_dirs: Vec<PathBuf>,
    /// What request bodies may take (bodies at once, idle time, line length and memory).
    pub limits: ServeLimits,
}

/// What every handler shares.
#[derive(Clone)]
pub(crate) struct AppState {
    pub provex: Arc<Provex>,
    pub token: Option<Arc<str>>,
    pub loopback: bool,
    pub limits: limits::Limits,
}

/// A server running in the background (tests and embedders): its address, and a handle
/// that stops it.
pub struct Running {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
    grace: std::time::Duration,
}

impl Running {
    /// Stops accepting, lets open requests finish for the grace period, then closes what is
    /// left (event streams never finish on their own, nor does a client that sends nothing).
    pub async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if tokio::time::timeout(self.grace, &mut self.task).await.is_err() {
            self.task.abort();
            let _ = (&mut self.task).await;
        }
    }
}

fn check_options(opts: &ServeOptions) -> Result<()> {
    if let Some(t) = &opts.token {
        if t.len() < 16 {
            return Err(Error::Usage("the token must be at least 16 characters".into()));
        }
    }
    if !opts.bind.ip().is_loopback() && opts.token.is_none() {
        return Err(Error::Usage(format!(
            "binding to {} exposes the graph beyond this machine: give a token with --token or PROVEX_TOKEN",
            opts.bind
        )));
    }
    Ok(())
}

/// Starts serving in the background.
pub async fn start(provex: Arc<Provex>, opts: ServeOptions) -> Result<Running> {
    check_options(&opts)?;
    if !opts.bind.ip().is_loopback() {
        provex.restrict_paths(opts.allow_dirs.clone())?;
    }
    let ui_dir = ui::locate(opts.ui.as_deref());
    let state = AppState {
        provex,
        token: opts.token.as_deref().map(Arc::from),
        loopback: opts.bind.ip().is_loopback(),
        limits: limits::Limits::new(&opts.limits),
    };
    let app = routes::router(state, ui_dir);
    let listener = TcpListener::bind(opts.bind).await.map_err(|e| Error::io(opts.bind.to_string(), e))?;
    let addr = listener.local_addr().map_err(|e| Error::io(opts.bind.to_string(), e))?;
    let (tx, rx) = oneshot::channel::<()>();
    // No Nagle: a stream event is a small write, and waiting for the previous one's ACK
    // (delayed up to 40 ms) would hold it back.
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!("TCP_NODELAY: {e}");
        }
    });
    // hyper's own refusals (a malformed request, a target or headers too large) in JSON.
    let listener = canned::JsonRefusals(listener);
    let task = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = rx.await;
            })
            .await
    });
    Ok(Running { addr, stop: Some(tx), task, grace: opts.limits.shutdown_grace })
}

/// Serves until Ctrl-C or SIGTERM, then stops the jobs (and, when the facade is dropped, the
/// private server).
pub async fn run(provex: Arc<Provex>, opts: ServeOptions) -> Result<()> {
    let open = opts.open;
    let token = opts.token.clone();
    let running = start(provex.clone(), opts).await?;
    let mut url = format!("http://{}/", running.addr);
    let graphs = provex.graphs().await.unwrap_or_default();
    let first = graphs.iter().find(|g| *g == "council").or(graphs.first());
    let mut query = Vec::new();
    if let Some(g) = first {
        query.push(format!("graph={g}"));
    }
    if let Some(t) = token {
        query.push(format!("token={t}"));
    }
    if !query.is_empty() {
        url.push('?');
        url.push_str(&query.join("&"));
    }
    eprintln!("Provex is serving on {url} (Ctrl-C stops)");
    if open {
        if let Err(e) = std::process::Command::new("xdg-open").arg(&url).spawn() {
            tracing::warn!("could not open a browser: {e}");
        }
    }
    shutdown_signal().await;
    provex.stop_all_jobs();
    running.stop().await;
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(s) => s,
            Err(_) => {
                let _ = ctrl_c.await;
                return;
            }
        };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(bind: &str, token: Option<&str>) -> ServeOptions {
        ServeOptions {
            bind: bind.parse().unwrap(),
            token: token.map(str::to_owned),
            ui: None,
            open: false,
            allow_dirs: Vec::new(),
            limits: ServeLimits::default(),
        }
    }

    #[test]
    fn non_loopback_bind_needs_a_token() {
        assert!(check_options(&opts("127.0.0.1:0", None)).is_ok());
        assert!(check_options(&opts("[::1]:0", None)).is_ok());
        let e = check_options(&opts("0.0.0.0:7878", None)).unwrap_err();
        assert_eq!(e.code(), crate::api::ErrorCode::Usage);
        assert!(e.to_string().contains("--token"), "{e}");
        assert!(check_options(&opts("0.0.0.0:7878", Some("0123456789abcdef"))).is_ok());
        assert!(check_options(&opts("0.0.0.0:7878", Some("short"))).is_err());
    }
}
