//! Every error code that crosses a boundary (HTTP, IPC) or that a UI shows, as one enum.
//! The library's errors map onto it (`Error::code`), the transports add the codes of
//! requests they refuse before the facade runs, and the UI's clients add the few that only a
//! client can see (the server is unreachable). The TypeScript union is generated from it,
//! so a UI matches on these values and nothing else.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

macro_rules! error_codes {
    ($( $(#[doc = $doc:literal])* $variant:ident = $code:literal, $status:literal; )*) => {
        /// A stable, machine-readable error code (snake_case on the wire).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
        #[serde(rename_all = "snake_case")]
        pub enum ErrorCode {
            $( $(#[doc = $doc])* $variant, )*
        }

        impl ErrorCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant),*];

            /// The code as it is sent.
            pub fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $code,)* }
            }

            /// The HTTP status `provex serve` answers with.
            pub fn http_status(self) -> u16 {
                match self { $(ErrorCode::$variant => $status,)* }
            }
        }
    };
}

error_codes! {
    // The library's own errors.
    /// A bad argument or option (a graph name, a format, a value out of range).
    Usage = "usage", 400;
    /// The database cannot be reached.
    Connection = "connection", 503;
    /// The FalkorDB server binaries are not installed.
    ServerMissing = "server_missing", 500;
    /// The private FalkorDB server failed.
    Server = "server", 500;
    /// The database went away during an operation.
    ConnectionLost = "connection_lost", 503;
    /// A query failed (a syntax error, an unknown function, the server's time-out).
    Query = "query", 400;
    /// No such graph, node, statement, job or API route.
    NotFound = "not_found", 404;
    /// A file could not be read or written.
    Io = "io", 400;
    /// An input file is not what its format says.
    Input = "input", 400;
    /// A path outside the folders this server may read and write.
    ForbiddenPath = "forbidden_path", 403;
    /// `ask`: no chat endpoint is configured (the message says how to configure one).
    LlmNotConfigured = "llm_not_configured", 503;
    /// `ask`: the chat endpoint is down or answered something unusable.
    Llm = "llm", 502;
    /// A query would write (Cypher typed in a console, or what `ask` generated) or is
    /// unbounded; nothing ran.
    WriteRefused = "write_refused", 400;
    /// FalkorDB refused a write or did not confirm it on disk (a full disk, no memory
    /// left); the message names the cause, and nothing unconfirmed was acknowledged.
    NotStored = "not_stored", 507;
    /// A log's witness has cosigned another history of it: another root for a size it
    /// cosigned, or more leaves than the checkpoint has; or the request builds on another
    /// size than the one it last cosigned (the answer names that size).
    LogConflict = "log_conflict", 409;
    /// A checkpoint sent to a witness does not extend what it last cosigned: the consistency
    /// proof does not hold.
    LogInconsistent = "log_inconsistent", 422;
    /// A checkpoint sent to a witness is not signed by the key it pins for that log.
    LogUnsigned = "log_unsigned", 403;

    // Requests a transport refuses before the facade runs.
    /// A malformed request: a missing or invalid parameter, a body that is not valid JSON.
    BadRequest = "bad_request", 400;
    /// A body of a content type the operation does not take.
    UnsupportedMediaType = "unsupported_media_type", 415;
    /// A body larger than the operation takes.
    PayloadTooLarge = "payload_too_large", 413;
    /// An API route that exists, called with another method.
    MethodNotAllowed = "method_not_allowed", 405;
    /// An operation this transport does not offer (a desktop-only one over HTTP).
    Unsupported = "unsupported", 501;
    /// No token, or the wrong one, on a server that needs one.
    Unauthorized = "unauthorized", 401;
    /// A request naming a host other than loopback, on a loopback server (DNS rebinding).
    ForbiddenHost = "forbidden_host", 403;
    /// A browser's request from a page that is not one of the server's own (another site,
    /// port or subdomain), or one that changes something and could come from a web form.
    ForbiddenOrigin = "forbidden_origin", 403;
    /// The desktop app is shutting down.
    Closing = "closing", 503;
    /// The server is at a limit (request bodies read at once, memory for lines in flight):
    /// the answer carries `Retry-After`.
    Busy = "busy", 503;
    /// A request body sent nothing for longer than the server waits.
    Timeout = "timeout", 408;
    /// A request target longer than the server reads.
    UriTooLong = "uri_too_long", 414;
    /// Request headers larger than the server reads.
    HeadersTooLarge = "headers_too_large", 431;

    // Codes only a client can see.
    /// The server could not be reached at all.
    Network = "network", 0;
    /// The server answered with something that is not the contract's JSON.
    BadResponse = "bad_response", 0;
    /// The desktop IPC failed outside any command (a missing permission, an unknown command).
    Ipc = "ipc", 0;
    /// An action that needs an open graph, with none open.
    NoGraph = "no_graph", 0;
    /// A background job (ingest, follow, demo) failed.
    JobFailed = "job_failed", 0;
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_serialise_as_their_strings_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for &c in ErrorCode::ALL {
            assert_eq!(serde_json::to_string(&c).unwrap(), format!("\"{}\"", c.as_str()));
            assert_eq!(serde_json::from_str::<ErrorCode>(&format!("\"{c}\"")).unwrap(), c);
            assert!(seen.insert(c.as_str()), "{c} twice");
        }
        assert_eq!(ErrorCode::NotFound.http_status(), 404);
        assert_eq!(ErrorCode::PayloadTooLarge.http_status(), 413);
    }
}
