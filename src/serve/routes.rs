//! The JSON API, made from the operation declarations (`facade::OPERATIONS`, declared with `api::ops`): each declared route
//! decodes its arguments (the path's fields, then the query string or the JSON body) and
//! runs the operation through the facade (`facade::Call`). Decoding is done here rather
//! than by axum's extractors so that every refusal (a missing parameter, malformed JSON, a
//! wrong content type, a body too large, an unknown route or method) is `{code, message}`.

use std::collections::HashMap;
use std::path::PathBuf;

use axum::body::Body;
use axum::extract::{FromRequestParts, RawPathParams, Request, State};
use axum::http::{header, request::Parts, HeaderMap, HeaderValue, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, on, post, MethodFilter, MethodRouter};
use axum::{middleware, Router};
use futures_util::{StreamExt, TryStreamExt};

use super::{auth, knowledge, limits, otlp_http, stream, ui, witness, ApiFailure, AppState};
use crate::api::ops::{self, Args, Body as ArgsIn, Method, OpInfo, Transport};
use crate::api::{ErrorCode, StreamRequest};
use crate::facade::Call;

/// Largest JSON body an operation takes.
const MAX_JSON: usize = 2 << 20;
/// Largest file a UI may upload.
const MAX_UPLOAD: u64 = 4 << 30;

pub fn router(state: AppState, ui_dir: Option<PathBuf>) -> Router {
    let mut routes: HashMap<&'static str, MethodRouter<AppState>> = HashMap::new();
    for op in crate::facade::OPERATIONS.iter().filter(|o| o.transport == Transport::Both) {
        let filter = match op.method {
            Method::Get => MethodFilter::GET,
            Method::Post => MethodFilter::POST,
            Method::Delete => MethodFilter::DELETE,
        };
        let handler = move |State(s): State<AppState>, req: Request| handle(s, op, req);
        let entry = routes.remove(op.path).unwrap_or_default();
        routes.insert(op.path, entry.on(filter, handler));
    }
    let mut api = Router::new();
    for (path, methods) in routes {
        api = api.route(path, methods.fallback(method_not_allowed));
    }
    for s in ops::STREAMS {
        api = api.route(s.path, on(MethodFilter::GET, stream_graph).fallback(method_not_allowed));
    }
    let api = api.fallback(|| async { ApiFailure::new(ErrorCode::NotFound, "no such API route") });
    // The knowledge-graph extension's knowledge endpoint and GraphQL (docs/FORMATS.md, "Knowledge-graph statements"): protocols of their own, with
    // the API's token rule (checked by their handlers, which answer in their protocol).
    let knowledge = Router::new()
        .route("/a2a/{graph}", post(knowledge::json_rpc))
        .route("/a2a/{graph}/.well-known/agent.json", get(knowledge::agent_card))
        .route("/graphql", get(knowledge::graphql).post(knowledge::graphql));
    Router::new()
        .nest("/api", api)
        .merge(knowledge)
        .merge(otlp_http::routes())
        .merge(witness::routes())
        .merge(ui::router(ui_dir))
        .layer(middleware::from_fn_with_state(state.clone(), auth::check))
        .with_state(state)
}

async fn method_not_allowed() -> ApiFailure {
    ApiFailure::new(ErrorCode::MethodNotAllowed, "this API route does not take that method")
}

/// The path's `{field}`s, URL-encoded as query pairs.
async fn path_fields(parts: &mut Parts, state: &AppState) -> Result<Vec<(String, String)>, ApiFailure> {
    let params = RawPathParams::from_request_parts(parts, state)
        .await
        .map_err(|e| ApiFailure::new(ErrorCode::BadRequest, e.body_text()))?;
    Ok(params.iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect())
}

/// The path's fields and then the request's query string, as one URL-encoded query.
fn query_string(fields: &[(String, String)], uri: &Uri) -> String {
    let mut q = form_urlencoded::Serializer::new(String::new());
    q.extend_pairs(fields);
    let mut q = q.finish();
    if let Some(rest) = uri.query().filter(|r| !r.is_empty()) {
        if !q.is_empty() {
            q.push('&');
        }
        q.push_str(rest);
    }
    q
}

/// A whole body of at most `limit` bytes.
async fn read_limited(body: Body, limit: usize) -> Result<Vec<u8>, ApiFailure> {
    let mut out = Vec::new();
    let mut data = body.into_data_stream();
    while let Some(chunk) = data.next().await {
        let chunk = chunk
            .map_err(|e| ApiFailure::new(ErrorCode::BadRequest, format!("cannot read the body: {e}")))?;
        if out.len() + chunk.len() > limit {
            return Err(ApiFailure::new(
                ErrorCode::PayloadTooLarge,
                format!("the body is over {} MiB", limit >> 20),
            ));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| {
            let m = m.trim().to_ascii_lowercase();
            m == "application/json" || (m.starts_with("application/") && m.ends_with("+json"))
        })
}

async fn handle(state: AppState, op: &'static OpInfo, req: Request) -> Response {
    let started = std::time::Instant::now();
    let mut res = match run(&state, op, req).await {
        Ok(json) => {
            let mut res = Response::new(Body::from(json));
            res.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            res
        }
        Err(f) => f.into_response(),
    };
    // The time the operation took here, body made (a browser's developer tools and resource
    // timings show it beside the time on the wire).
    let took = format!("op;dur={:.1}", started.elapsed().as_secs_f64() * 1000.0);
    if let Ok(v) = HeaderValue::from_str(&took) {
        res.headers_mut().insert("server-timing", v);
    }
    res
}

async fn run(state: &AppState, op: &'static OpInfo, req: Request) -> Result<String, ApiFailure> {
    let (mut parts, body) = req.into_parts();
    let fields = path_fields(&mut parts, state).await?;
    let call = Call::http(&state.provex, true);
    let query = || query_string(&fields, &parts.uri);
    let (args, call) = match op.body {
        ArgsIn::Query => (Args::Query(query()), call),
        ArgsIn::Bytes => {
            let Some(slot) = state.limits.slot() else {
                return Err(ApiFailure::new(
                    ErrorCode::Busy,
                    format!(
                        "this server is reading {} request bodies already, the most it reads at once; \
                         send this one again in a moment",
                        state.limits.max_bodies
                    ),
                ));
            };
            let mut seen = 0u64;
            let stream = body.into_data_stream().map_err(std::io::Error::other).and_then(move |chunk| {
                seen += chunk.len() as u64;
                let over = seen > MAX_UPLOAD;
                async move {
                    if over {
                        Err(std::io::Error::new(
                            std::io::ErrorKind::FileTooLarge,
                            format!("the upload is over {} GiB", MAX_UPLOAD >> 30),
                        ))
                    } else {
                        Ok(chunk)
                    }
                }
            });
            let body = limits::Guarded::new(Box::pin(stream), state.limits.body_idle, slot);
            (Args::Query(query()), call.with_limits(state.limits.body.clone()).with_payload(Box::pin(body)))
        }
        ArgsIn::Json => {
            let bytes = read_limited(body, MAX_JSON).await?;
            let mut value = if bytes.iter().all(u8::is_ascii_whitespace) {
                serde_json::Value::Object(Default::default())
            } else if !is_json(&parts.headers) {
                return Err(ApiFailure::new(
                    ErrorCode::UnsupportedMediaType,
                    "send the arguments as JSON with `Content-Type: application/json`",
                ));
            } else {
                serde_json::from_slice(&bytes).map_err(|e| {
                    ApiFailure::new(ErrorCode::BadRequest, format!("the body is not valid JSON: {e}"))
                })?
            };
            let Some(obj) = value.as_object_mut() else {
                return Err(ApiFailure::new(ErrorCode::BadRequest, "the body must be a JSON object"));
            };
            for (k, v) in fields.iter().cloned() {
                obj.insert(k, serde_json::Value::String(v));
            }
            (Args::Json(value), call)
        }
    };
    Ok(call.run(op.name, args).await?)
}

async fn stream_graph(State(s): State<AppState>, req: Request) -> Response {
    let (mut parts, _) = req.into_parts();
    let fields = match path_fields(&mut parts, &s).await {
        Ok(f) => f,
        Err(f) => return f.into_response(),
    };
    let req: StreamRequest = match Args::Query(query_string(&fields, &parts.uri)).decode() {
        Ok(r) => r,
        Err(e) => return ApiFailure::from(e).into_response(),
    };
    let last_event =
        parts.headers.get("last-event-id").and_then(|v| v.to_str().ok()).and_then(|v| v.parse().ok());
    let since = req.since.or(last_event).unwrap_or(0);
    match s.provex.watch(&req, since).await {
        Ok((backlog, rx)) => stream::events(s.provex.clone(), req, since, backlog, rx).into_response(),
        Err(e) => ApiFailure::from(e).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_content_types() {
        let mut h = HeaderMap::new();
        assert!(!is_json(&h));
        for (v, json) in [
            ("application/json", true),
            ("application/json; charset=utf-8", true),
            ("Application/JSON", true),
            ("application/ld+json", true),
            ("text/plain", false),
            ("application/x-www-form-urlencoded", false),
        ] {
            h.insert(header::CONTENT_TYPE, HeaderValue::from_static(v));
            assert_eq!(is_json(&h), json, "{v}");
        }
    }
}
