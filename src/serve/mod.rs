//! `provex serve`: the explorer UI, its JSON API and live streams over HTTP, all calling the
//! same facade the desktop shell calls. Loopback by default; any other address needs a
//! token given to it. On loopback without one, a token is made for each launch; every request
//! that reads or writes a graph carries it, from Provex's own UI or a tool of its owner.

mod auth;
mod canned;
mod error;
mod knowledge;
mod limits;
mod otlp;
mod otlp_grpc;
mod otlp_http;
mod routes;
mod stream;
mod token;
mod ui;
mod witness;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::serve::ListenerExt;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use crate::error::{Error, Result};
use crate::facade::Provex;

pub use error::ApiFailure;
pub use limits::ServeLimits;
pub use otlp_grpc::GRAPH_METADATA as OTLP_GRAPH_METADATA;
pub use token::token_file;

/// How to serve.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub bind: SocketAddr,
    /// Required unless `bind` is a loopback address; on loopback, one is made when none is
    /// given.
    pub token: Option<String>,
    /// Where a made token is written ([`token_file`], readable by its owner only) for the same
    /// user's tools to read: the data folder. `None` keeps it in memory only.
    pub token_dir: Option<PathBuf>,
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
    /// What every request that reads or writes a graph must carry.
    pub token: Arc<str>,
    pub loopback: bool,
    pub limits: limits::Limits,
}

/// A server running in the background (tests and embedders): its address, its token, and a
/// handle that stops it.
pub struct Running {
    pub addr: SocketAddr,
    token: Arc<str>,
    /// The files this server wrote (its token's), each with what it holds, removed at stop.
    files: Vec<(PathBuf, String)>,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
    grace: std::time::Duration,
    /// What the handlers share, for receivers started later (OTLP/gRPC).
    state: AppState,
    /// The OTLP/gRPC receiver, when one was started.
    grpc: Option<otlp_grpc::GrpcServer>,
}

impl Running {
    /// The token requests must carry (the one given, or the one made at start).
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The file the made token was written to, if one was.
    pub fn token_file(&self) -> Option<&Path> {
        self.files.first().map(|(p, _)| p.as_path())
    }

    /// Starts the OTLP/gRPC trace receiver (`TraceService/Export`) on `addr`, under this
    /// server's token and OTLP limits; the address it listens on.
    pub async fn start_otlp_grpc(&mut self, addr: SocketAddr) -> Result<SocketAddr> {
        if let Some(g) = &self.grpc {
            return Err(Error::Usage(format!("the OTLP/gRPC receiver already listens on {}", g.addr)));
        }
        let server = otlp_grpc::GrpcServer::start(self.state.clone(), addr).await?;
        let bound = server.addr;
        self.grpc = Some(server);
        Ok(bound)
    }

    /// Where the OTLP/gRPC receiver listens, when it was started.
    pub fn otlp_grpc_addr(&self) -> Option<SocketAddr> {
        self.grpc.as_ref().map(|g| g.addr)
    }

    /// Stops accepting, lets open requests finish for the grace period, then closes what is
    /// left (event streams never finish on their own, nor does a client that sends nothing).
    pub async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(g) = self.grpc.take() {
            g.stop(self.grace).await;
        }
        if tokio::time::timeout(self.grace, &mut self.task).await.is_err() {
            self.task.abort();
            let _ = (&mut self.task).await;
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        for (path, text) in self.files.drain(..) {
            token::remove_if_holds(&path, &text);
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
    let made = opts.token.is_none();
    let token: Arc<str> = match &opts.token {
        Some(t) => Arc::from(t.as_str()),
        None => Arc::from(token::generate()?),
    };
    let state = AppState {
        provex,
        token: token.clone(),
        loopback: opts.bind.ip().is_loopback(),
        limits: limits::Limits::new(&opts.limits),
    };
    let app = routes::router(state.clone(), ui_dir);
    let listener = TcpListener::bind(opts.bind).await.map_err(|e| Error::io(opts.bind.to_string(), e))?;
    let addr = listener.local_addr().map_err(|e| Error::io(opts.bind.to_string(), e))?;
    let mut files = Vec::new();
    if let (true, Some(dir)) = (made, &opts.token_dir) {
        let path = token_file(dir, addr.port());
        token::write_private(&path, &format!("{token}\n"))?;
        files.push((path, format!("{token}\n")));
    }
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
    Ok(Running {
        addr,
        token,
        files,
        stop: Some(tx),
        task,
        grace: opts.limits.shutdown_grace,
        state,
        grpc: None,
    })
}

/// Serves until Ctrl-C or SIGTERM, then stops the jobs (and, when the facade is dropped, the
/// private server). With `otlp_grpc`, the OTLP/gRPC trace receiver listens there too (an
/// address other than loopback needs a token given, as `bind` does).
pub async fn run(provex: Arc<Provex>, opts: ServeOptions, otlp_grpc: Option<SocketAddr>) -> Result<()> {
    if let Some(a) = otlp_grpc.filter(|a| !a.ip().is_loopback() && opts.token.is_none()) {
        return Err(Error::Usage(format!(
            "--otlp-grpc {a} takes spans from beyond this machine: give a token with --token or PROVEX_TOKEN"
        )));
    }
    let open = opts.open;
    let mut running = start(provex.clone(), opts).await?;
    if let Some(a) = otlp_grpc {
        let bound = running.start_otlp_grpc(a).await?;
        eprintln!("OTLP/gRPC trace export (TraceService/Export) is received on {bound}");
    }
    let graphs = provex.graphs().await.unwrap_or_default();
    let first = graphs.iter().find(|g| *g == "council").or(graphs.first());
    let mut query = form_urlencoded::Serializer::new(String::new());
    if let Some(g) = first {
        query.append_pair("graph", g);
    }
    query.append_pair("token", running.token());
    let url = format!("http://{}/?{}", running.addr, query.finish());
    eprintln!("Provex is serving on {url} (Ctrl-C stops)");
    eprintln!(
        "OTLP/HTTP trace export is received at http://{}/v1/traces (graph otel); point an exporter at a graph \
         with OTEL_EXPORTER_OTLP_ENDPOINT=http://{}/otlp/GRAPH",
        running.addr, running.addr
    );
    if let Some(f) = running.token_file() {
        eprintln!(
            "Its token, which every API request carries (`Authorization: Bearer <token>`), is in {}",
            f.display()
        );
    }
    if open {
        open_browser(&url, &mut running);
    }
    shutdown_signal().await;
    provex.stop_all_jobs();
    running.stop().await;
    Ok(())
}

/// Opens `url` in the default browser. When the token is kept in a file, the browser is
/// given a page beside it (readable by its owner only) that goes on to `url`, so the token
/// is not in a command line other users can list.
fn open_browser(url: &str, running: &mut Running) {
    let target = match running.token_file().map(|f| f.with_extension("open.html")) {
        Some(page) => {
            let href = url.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;");
            let html = format!(
                "<!doctype html><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0;url={href}\">\
                 <title>Provex</title><p><a href=\"{href}\">Open Provex</a></p>\n"
            );
            match token::write_private(&page, &html) {
                Ok(()) => {
                    running.files.push((page.clone(), html));
                    page.display().to_string()
                }
                Err(e) => {
                    tracing::warn!("could not write the page that opens the UI: {e}");
                    url.to_owned()
                }
            }
        }
        None => url.to_owned(),
    };
    if let Err(e) = std::process::Command::new("xdg-open").arg(&target).spawn() {
        tracing::warn!("could not open a browser: {e}");
    }
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
            token_dir: None,
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
