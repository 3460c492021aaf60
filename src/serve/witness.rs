//! The witness endpoint (docs/FORMATS.md, "Tamper-evident log", witnesses): C2SP
//! tlog-witness's `POST /witness/add-checkpoint`, answering the cosignature lines, or a
//! refusal as `{code, message}` (with `size`, the size last cosigned, on a conflict) under
//! C2SP's statuses: 400, 403, 404, 409, 422. A client that asks for `text/x.tlog.size` gets
//! C2SP's bare size on a conflict. The API's token rule applies; the server's origin rules
//! (`auth::check`) have already refused pages on other origins. Bodies are bounded in size
//! and in idle time.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use futures_util::StreamExt;

use super::{auth, ApiFailure, AppState};
use crate::api::ErrorCode;
use crate::facade::witness::WitnessRefusal;
use crate::tlog::witness::{ADD_CHECKPOINT_PATH, MAX_REQUEST_BYTES, SIZE_CONTENT_TYPE};

/// The routes, to be merged into the server's router.
pub(crate) fn routes() -> axum::Router<AppState> {
    let refuse_method = || async {
        ApiFailure::new(ErrorCode::MethodNotAllowed, "add-checkpoint takes POST only").into_response()
    };
    axum::Router::new().route(ADD_CHECKPOINT_PATH, post(add_checkpoint).fallback(refuse_method))
}

async fn add_checkpoint(State(state): State<AppState>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    if let Err(why) = auth::token(&state, &parts.headers, parts.uri.query(), None) {
        return ApiFailure::new(ErrorCode::Unauthorized, why).into_response();
    }
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_REQUEST_BYTES as u64) {
        return too_large().into_response();
    }
    let bytes = match read_body(body, state.limits.body_idle).await {
        Ok(b) => b,
        Err(f) => return f.into_response(),
    };
    match state.provex.witness_add_checkpoint(&bytes).await {
        Ok(Ok(lines)) => {
            let mut res = Response::new(Body::from(lines));
            res.headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
            res
        }
        Ok(Err(refusal)) => refused(&refusal, &parts.headers),
        Err(e) => ApiFailure::from(e).into_response(),
    }
}

fn too_large() -> ApiFailure {
    ApiFailure::new(
        ErrorCode::PayloadTooLarge,
        format!("an add-checkpoint body is at most {MAX_REQUEST_BYTES} bytes"),
    )
}

/// Whether the client asked for C2SP's bare size on a conflict.
fn wants_bare_size(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|m| m.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case(SIZE_CONTENT_TYPE))
}

fn refused(r: &WitnessRefusal, headers: &HeaderMap) -> Response {
    let status = StatusCode::from_u16(r.status).unwrap_or(StatusCode::BAD_REQUEST);
    let mut res = match r.size {
        Some(size) if wants_bare_size(headers) => {
            let mut res = Response::new(Body::from(format!("{size}\n")));
            res.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(SIZE_CONTENT_TYPE));
            res
        }
        _ => {
            let mut body = serde_json::json!({ "code": r.code, "message": r.message });
            if let Some(size) = r.size {
                body["size"] = size.into();
            }
            let mut res = Response::new(Body::from(body.to_string()));
            res.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            res
        }
    };
    *res.status_mut() = status;
    res
}

/// The whole body, at most [`MAX_REQUEST_BYTES`], cut when it sends nothing for `idle`.
async fn read_body(body: Body, idle: std::time::Duration) -> Result<Vec<u8>, ApiFailure> {
    let mut out = Vec::new();
    let mut data = body.into_data_stream();
    loop {
        let next = tokio::time::timeout(idle, data.next()).await.map_err(|_| {
            ApiFailure::new(ErrorCode::Timeout, format!("the body sent nothing for {} s", idle.as_secs_f64()))
        })?;
        let Some(chunk) = next else { return Ok(out) };
        let chunk = chunk
            .map_err(|e| ApiFailure::new(ErrorCode::BadRequest, format!("cannot read the body: {e}")))?;
        if out.len() + chunk.len() > MAX_REQUEST_BYTES {
            return Err(too_large());
        }
        out.extend_from_slice(&chunk);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bare_size_only_when_asked() {
        let mut h = HeaderMap::new();
        assert!(!wants_bare_size(&h));
        h.insert(header::ACCEPT, HeaderValue::from_static("application/json, text/x.tlog.size;q=0.5"));
        assert!(wants_bare_size(&h));
        h.insert(header::ACCEPT, HeaderValue::from_static("*/*"));
        assert!(!wants_bare_size(&h));
    }
}
