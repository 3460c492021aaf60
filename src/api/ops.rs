//! How an operation a UI can call is declared: its name, HTTP method and route, where its
//! arguments travel, its request and response types (defaults live on the request types),
//! the error codes it can answer with besides the ones every operation can (`bad_request`,
//! `connection`, `connection_lost`, `server`), and what it runs. The operations themselves
//! are declared once, with [`declare_operations!`], where what they run is in reach (the
//! facade's `calls`, above every source). From that one list come the HTTP routes of
//! `provex serve` (`serve::routes`), the desktop shell's one generic command and its
//! capability list, the TypeScript types and client both UI transports use
//! (`typescript`, its types registry filled from each declaration's types), and the
//! dispatch from a name to the code that runs it.

use serde::de::DeserializeOwned;
use serde::Serialize;
use ts_rs::{Config, TS};

use super::contract::*;
use super::registry::Registry;
use super::requests::*;
use super::ErrorCode;
use crate::error::{Error, Result};

/// The HTTP method of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Delete => "DELETE",
        }
    }
}

/// Where an operation's arguments travel over HTTP, besides those named in its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// In the query string.
    Query,
    /// As a JSON object in the body.
    Json,
    /// In the query string; the body is a file's bytes (over IPC: the raw request body,
    /// the arguments in the `args` header).
    Bytes,
}

impl Body {
    pub fn as_str(self) -> &'static str {
        match self {
            Body::Query => "query",
            Body::Json => "json",
            Body::Bytes => "bytes",
        }
    }
}

/// Which transports offer an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// `provex serve` and the desktop shell.
    Both,
    /// Only the desktop shell: it needs the user's machine (dialogs, settings, local paths).
    Desktop,
}

/// An operation's declaration.
#[derive(Debug, Clone, Copy)]
pub struct OpInfo {
    /// snake_case: the IPC name; the TypeScript method is its camelCase.
    pub name: &'static str,
    pub doc: &'static str,
    pub method: Method,
    /// Under `/api`; `{field}` segments are request fields. Empty for desktop-only ones.
    pub path: &'static str,
    pub body: Body,
    pub transport: Transport,
    pub errors: &'static [ErrorCode],
    /// The TypeScript names of the request and response types.
    pub request: fn(&Config) -> String,
    pub response: fn(&Config) -> String,
    /// Declares the request and response types, and every type they name, in a registry.
    pub types: fn(&mut Registry),
}

/// A stream's declaration: subscribed to with its request, it yields messages.
#[derive(Debug, Clone, Copy)]
pub struct StreamInfo {
    pub name: &'static str,
    pub doc: &'static str,
    /// Over HTTP: server-sent events at this path (under `/api`).
    pub path: &'static str,
    pub request: fn(&Config) -> String,
    pub message: fn(&Config) -> String,
    /// Declares the request and message types, and every type they name.
    pub types: fn(&mut Registry),
}

/// The streams: a graph's live changes.
pub const STREAMS: &[StreamInfo] = &[StreamInfo {
    name: "subscribe",
    doc: "A graph's changes after `since`, numbered without gaps; a `reset` when they are gone.",
    path: "/graphs/{graph}/stream",
    request: <StreamRequest as TS>::name,
    message: <StreamMessage as TS>::name,
    types: |r| {
        r.add::<StreamRequest>();
        r.add::<StreamMessage>();
    },
}];

/// The desktop shell's IPC commands: every operation goes through `call` (its name in the
/// `op` header), streams through `subscribe` and `unsubscribe`.
pub const DESKTOP_COMMANDS: &[&str] = &["call", "subscribe", "unsubscribe"];

/// An operation's arguments as a transport received them.
#[derive(Debug, Clone)]
pub enum Args {
    /// A JSON value (IPC arguments, or an HTTP JSON body with the path's fields added).
    Json(serde_json::Value),
    /// A URL-encoded query (an HTTP query string with the path's fields added).
    Query(String),
}

impl Args {
    /// Decodes into the operation's request type; what is missing or malformed is a
    /// `bad_request` naming the field.
    pub fn decode<T: DeserializeOwned>(self) -> Result<T> {
        match self {
            Args::Query(q) => serde_urlencoded::from_str(&q)
                .map_err(|e| Error::BadRequest(format!("invalid query parameters: {e}"))),
            Args::Json(v) => {
                let v = if v.is_null() { serde_json::Value::Object(Default::default()) } else { v };
                serde_json::from_value(v).map_err(|e| Error::BadRequest(format!("invalid arguments: {e}")))
            }
        }
    }
}

/// A response as JSON text (what every transport sends).
pub fn to_json<T: Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::Server(format!("cannot encode the response: {e}")))
}

/// Declares the operations, once: for each, its doc, `name(Request) -> Response`, its HTTP
/// method, route, where its arguments travel, its transports and its error codes, then
/// `=> |call, req| expression` (a `Result` of the response; `.await` allowed) run with the
/// call and the decoded request. It makes `OPERATIONS` (every declaration, in order) and a
/// `dispatch(&self, name, args)` method on the call type that decodes the request, runs
/// the expression and encodes the response: no forwarder or type list is written by hand.
macro_rules! declare_operations {
    (impl $target:ty { $(
        $(#[doc = $doc:literal])*
        $name:ident($req:ty) -> $resp:ty = $method:ident $path:literal $body:ident $transport:ident
            [$($err:ident),*] => |$call:tt, $arg:tt| $run:expr;
    )* }) => {
        /// Every operation, in declaration order.
        pub const OPERATIONS: &[$crate::api::ops::OpInfo] = &[$(
            $crate::api::ops::OpInfo {
                name: stringify!($name),
                doc: concat!($($doc, "\n"),*),
                method: $crate::api::ops::Method::$method,
                path: $path,
                body: $crate::api::ops::Body::$body,
                transport: $crate::api::ops::Transport::$transport,
                errors: &[$($crate::error::ErrorCode::$err),*],
                request: <$req as ::ts_rs::TS>::name,
                response: <$resp as ::ts_rs::TS>::name,
                types: |r| {
                    r.add::<$req>();
                    r.add::<$resp>();
                },
            },
        )*];

        impl $target {
            /// Runs the operation `name` with `args`; the response as JSON text.
            async fn dispatch(&self, name: &str, args: $crate::api::ops::Args) -> $crate::error::Result<String> {
                match name {
                    $(
                        stringify!($name) => {
                            let $call = self;
                            let $arg: $req = args.decode()?;
                            let response: $crate::error::Result<$resp> = $run;
                            $crate::api::ops::to_json(&response?)
                        }
                    )*
                    _ => Err($crate::error::Error::NotFound { what: "operation", name: name.to_owned() }),
                }
            }
        }
    };
}
pub(crate) use declare_operations;

/// The `{field}` names in a route.
pub fn path_fields(path: &str) -> impl Iterator<Item = &str> {
    path.split('/').filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_and_json_decode_with_defaults_and_name_what_is_wrong() {
        let q = Args::Query("graph=g&id=a%20b&depth=3&token=x".into());
        let t: TraceRequest = q.decode().unwrap();
        assert_eq!(
            (t.graph.as_str(), t.id.as_str(), t.depth(), t.dir()),
            ("g", "a b", 3, crate::store::TraceDirection::Up)
        );
        let t: TraceRequest =
            Args::Json(serde_json::json!({"graph": "g", "id": "n", "dir": "down"})).decode().unwrap();
        assert_eq!((t.depth(), t.dir()), (TraceRequest::DEFAULT_DEPTH, crate::store::TraceDirection::Down));
        let e = Args::Query("graph=g".into()).decode::<NodeRequest>().unwrap_err();
        assert_eq!(e.code(), ErrorCode::BadRequest);
        assert!(e.to_string().contains("missing field `id`"), "{e}");
        let e = Args::Query("graph=g&id=n&depth=deep".into()).decode::<TraceRequest>().unwrap_err();
        assert!(e.to_string().contains("invalid"), "{e}");
        let _: NoArgs = Args::Json(serde_json::Value::Null).decode().unwrap();
    }
}
