//! Typed errors of the library, each with a stable code for the IPC and HTTP boundary.

use std::path::PathBuf;

mod code;

pub use code::ErrorCode;

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
    /// A path outside the folders this server may read and write.
    #[error("{0}")]
    ForbiddenPath(String),
    /// A request a transport could not decode (a missing field, a value of the wrong type).
    #[error("{0}")]
    BadRequest(String),
    /// A request body over the operation's limit.
    #[error("{0}")]
    PayloadTooLarge(String),
    /// The server is at one of its limits (request bodies read at once, memory for lines
    /// in flight): try again later.
    #[error("{0}")]
    Busy(String),
    /// A request body sent nothing for too long.
    #[error("{0}")]
    Timeout(String),
    /// An operation this transport does not offer.
    #[error("{0}")]
    Unsupported(String),
    /// `ask` with no chat endpoint configured.
    #[error("no chat endpoint is configured for questions: set PROVEX_LLM_URL (an OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1), PROVEX_LLM_MODEL and, if it needs one, PROVEX_LLM_KEY; in the desktop app, Settings")]
    LlmNotConfigured,
    /// The chat endpoint failed or answered something unusable.
    #[error("the chat endpoint {url}: {reason}")]
    Llm { url: String, reason: String },
    /// A query would write (or is unbounded): refused before it ran, or by FalkorDB's
    /// read-only mode.
    #[error("{0}; nothing was run")]
    WriteRefused(String),
    /// FalkorDB refused a write or did not confirm it on disk (a full disk, no memory left,
    /// no fsync in time): what was not confirmed is not acknowledged.
    #[error("{0}; nothing more was acknowledged")]
    NotStored(String),
    /// A log's witness refused to cosign its checkpoint (its `{code, message}`).
    #[error("witness: {message}")]
    Witness { code: ErrorCode, message: String },
}

impl Error {
    /// A stable, machine-readable code: what crosses the IPC and HTTP boundary with the
    /// message, and what a UI matches on (never the message text).
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::Usage(_) => ErrorCode::Usage,
            Error::Connection { .. } => ErrorCode::Connection,
            Error::ServerMissing { .. } => ErrorCode::ServerMissing,
            Error::Server(_) => ErrorCode::Server,
            Error::ConnectionLost { .. } => ErrorCode::ConnectionLost,
            Error::Query(_) => ErrorCode::Query,
            Error::NotFound { .. } => ErrorCode::NotFound,
            Error::Io { .. } => ErrorCode::Io,
            Error::Input { .. } => ErrorCode::Input,
            Error::ForbiddenPath(_) => ErrorCode::ForbiddenPath,
            Error::BadRequest(_) => ErrorCode::BadRequest,
            Error::PayloadTooLarge(_) => ErrorCode::PayloadTooLarge,
            Error::Busy(_) => ErrorCode::Busy,
            Error::Timeout(_) => ErrorCode::Timeout,
            Error::Unsupported(_) => ErrorCode::Unsupported,
            Error::LlmNotConfigured => ErrorCode::LlmNotConfigured,
            Error::Llm { .. } => ErrorCode::Llm,
            Error::WriteRefused(_) => ErrorCode::WriteRefused,
            Error::NotStored(_) => ErrorCode::NotStored,
            Error::Witness { code, .. } => *code,
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
