//! Typed errors of the library, each with a stable code for the IPC and HTTP boundary.

use std::path::PathBuf;

/// Everything the library can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Usage(String),
    #[error("cannot connect to FalkorDB at {url}: {reason}")]
    Connection { url: String, reason: String },
    #[error("FalkorDB server binaries not found ({looked}). Install them with: {install}")]
    ServerMissing { looked: String, install: String },
    #[error("the private FalkorDB server failed: {0}")]
    Server(String),
    #[error("FalkorDB went away {during}: {reason}. Writes are idempotent: re-run the same command to complete it")]
    ConnectionLost { during: String, reason: String },
    #[error("query failed: {0}")]
    Query(String),
    #[error("{what} not found: {name}")]
    NotFound { what: &'static str, name: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {reason}")]
    Input { path: PathBuf, reason: String },
}

impl Error {
    /// A stable, machine-readable code: what crosses the IPC and HTTP boundary with the
    /// message, and what a UI matches on (never the message text).
    pub fn code(&self) -> &'static str {
        match self {
            Error::Usage(_) => "usage",
            Error::Connection { .. } => "connection",
            Error::ServerMissing { .. } => "server_missing",
            Error::Server(_) => "server",
            Error::ConnectionLost { .. } => "connection_lost",
            Error::Query(_) => "query",
            Error::NotFound { .. } => "not_found",
            Error::Io { .. } => "io",
            Error::Input { .. } => "input",
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
