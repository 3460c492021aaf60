//! The IPC commands, generic over the operations declared in the core
//! (`provex::api::ops`): `call` runs one through the facade exactly as `provex serve`'s
//! routes do (its name in the `op` header, its request as the JSON body, or for the
//! operations that take a file the bytes as the raw body and the request, as JSON, in the
//! percent-encoded `args` header); `subscribe` and `unsubscribe` stream a graph's changes
//! over a Channel. Every failure is the `{code, message}` of every boundary.

use provex::api::ops::Args;
use provex::api::{ApiError, ErrorCode, StreamRequest};
use provex::facade::Call;
use tauri::ipc::{Channel, InvokeBody, InvokeResponseBody, Request, Response};
use tauri::{AppHandle, State, Webview};

use crate::host::Host;
use crate::ops;
use crate::shell::Shell;

type CmdResult<T> = Result<T, ApiError>;

/// A library error as it crosses the IPC boundary.
pub fn api(e: provex::Error) -> ApiError {
    ApiError::from(&e)
}

fn bad(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::BadRequest, message)
}

/// A header of a request, percent-decoded (the window encodes them with
/// `encodeURIComponent`, as header values must be ASCII).
fn header(request: &Request<'_>, name: &str) -> CmdResult<Option<String>> {
    let Some(v) = request.headers().get(name) else { return Ok(None) };
    let v = v.to_str().map_err(|_| bad(format!("header {name} is not ASCII")))?;
    decode_header(v).map(Some).ok_or_else(|| bad(format!("header {name} is badly encoded")))
}

/// Percent-decodes a header value; `None` when the bytes are not UTF-8 or a `%` is not
/// followed by two hex digits (`encodeURIComponent` always writes both).
fn decode_header(v: &str) -> Option<String> {
    let bytes = v.as_bytes();
    let well_formed = bytes
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'%')
        .all(|(i, _)| bytes.get(i + 1..i + 3).is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)));
    if !well_formed {
        return None;
    }
    percent_encoding::percent_decode_str(v).decode_utf8().ok().map(|s| s.into_owned())
}

/// Runs the declared operation named in the `op` header.
#[tauri::command]
pub async fn call(app: AppHandle, shell: State<'_, Shell>, request: Request<'_>) -> CmdResult<Response> {
    let op = header(&request, "op")?.ok_or_else(|| bad("no `op` header: which operation?"))?;
    let p = shell.provex().await?;
    let host = Host::new(app);
    let ingest = shell.start_ingest();
    let call = Call::desktop(&p, &host, ingest.cancel.clone());
    let (args, call) = match request.body() {
        InvokeBody::Json(v) => (Args::Json(v.clone()), call),
        InvokeBody::Raw(bytes) => {
            let args = match header(&request, "args")? {
                Some(a) => {
                    serde_json::from_str(&a).map_err(|e| bad(format!("the args header is not JSON: {e}")))?
                }
                None => serde_json::Value::Null,
            };
            (Args::Json(args), call.with_bytes(bytes.to_vec()))
        }
    };
    let json = call.run(&op, args).await.map_err(api)?;
    Ok(Response::new(InvokeResponseBody::Json(json)))
}

/// Streams a graph's messages after `since` to `channel`; returns the subscription's id for
/// `unsubscribe`. The stream also ends when the page reloads.
#[tauri::command]
pub async fn subscribe(
    webview: Webview,
    shell: State<'_, Shell>,
    req: StreamRequest,
    channel: Channel,
) -> CmdResult<u64> {
    let p = shell.provex().await?;
    let id = ops::subscribe(&shell, p, &req, webview.label(), move |msg| {
        let json = serde_json::to_string(msg).expect("stream messages serialise");
        channel.send(InvokeResponseBody::Json(json)).is_ok()
    })
    .await
    .map_err(api)?;
    shell.set_current_graph(&req.graph);
    Ok(id)
}

/// Ends a stream; true when it was running.
#[tauri::command]
pub fn unsubscribe(shell: State<'_, Shell>, id: u64) -> bool {
    shell.unsubscribe(id)
}

/// Every command, for the invoke handler and its tests (generated from the declarations).
pub const NAMES: &[&str] = include!("command_names.rs");

#[cfg(test)]
mod tests {
    use super::decode_header;

    #[test]
    fn headers_are_percent_decoded() {
        assert_eq!(decode_header("a%20b%E2%80%94c.jsonl").as_deref(), Some("a b—c.jsonl"));
        assert_eq!(decode_header("plain").as_deref(), Some("plain"));
        assert_eq!(decode_header("bad%2"), None);
        assert_eq!(decode_header("bad%zz"), None);
        assert_eq!(decode_header("%+1"), None, "from_str_radix would read this as byte 1");
        assert_eq!(decode_header("%-1"), None);
        assert_eq!(decode_header("%FF"), None, "not UTF-8");
    }
}
