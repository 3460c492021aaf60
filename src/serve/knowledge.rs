//! Knowledge-graph statements over HTTP: the A2A knowledge extension (docs/FORMATS.md,
//! "Knowledge-graph statements"), JSON-RPC 2.0 at `POST /a2a/{graph}` (`knowledge/query`,
//! `knowledge/update`, `knowledge/subscribe` as server-sent events), the agent card at
//! `GET /a2a/{graph}/.well-known/agent.json`, and GraphQL at `/graphql?graph=G`. The token
//! rule is the API's.

use std::convert::Infallible;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, StreamExt};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::broadcast::error::RecvError;

use super::{auth, AppState};
use crate::graphql::{Bounds, GraphqlRequest};
use crate::sources::knowledge::ops::{UpdateError, REJECTED};
use crate::sources::knowledge::rpc::{self, RpcError};
use crate::sources::knowledge::UpdateParams;
use crate::sources::knowledge::{card, subscription};

/// Largest JSON-RPC or GraphQL body.
const MAX_BODY: usize = 4 << 20;

fn json_response(status: StatusCode, value: &Value) -> Response {
    let mut res = Response::new(Body::from(value.to_string()));
    *res.status_mut() = status;
    res.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    res
}

/// `GET /a2a/{graph}/.well-known/agent.json` (public, like the UI's files).
pub async fn agent_card(Path(graph): Path<String>, headers: HeaderMap) -> Response {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("127.0.0.1");
    let scheme = headers.get("x-forwarded-proto").and_then(|h| h.to_str().ok()).unwrap_or("http");
    json_response(StatusCode::OK, &card::agent_card(&format!("{scheme}://{host}"), &graph))
}

async fn body_bytes(req: Request) -> Result<(HeaderMap, Uri, Vec<u8>), String> {
    let (parts, body) = req.into_parts();
    let bytes =
        axum::body::to_bytes(body, MAX_BODY).await.map_err(|e| format!("cannot read the body: {e}"))?;
    Ok((parts.headers, parts.uri, bytes.to_vec()))
}

/// The code a method's refusals carry.
fn method_code(method: &str) -> i64 {
    match method {
        "knowledge/query" => rpc::QUERY_ERROR,
        "knowledge/update" => rpc::UPDATE_ERROR,
        "knowledge/subscribe" => rpc::SUBSCRIPTION_ERROR,
        _ => rpc::INVALID_REQUEST,
    }
}

/// `POST /a2a/{graph}`.
pub async fn json_rpc(State(state): State<AppState>, Path(graph): Path<String>, req: Request) -> Response {
    let (headers, uri, body) = match body_bytes(req).await {
        Ok(b) => b,
        Err(e) => {
            return json_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                &RpcError::new(Value::Null, rpc::INVALID_REQUEST, e).to_json(),
            )
        }
    };
    let authorized = |r: &rpc::Request| {
        let in_body = r.params.pointer("/metadata/token").and_then(Value::as_str);
        auth::token(&state, &headers, uri.query(), in_body)
    };
    match rpc::parse(&body) {
        rpc::Body::Invalid(e) => json_response(StatusCode::OK, &e.to_json()),
        rpc::Body::One(Err(e)) => json_response(StatusCode::OK, &e.to_json()),
        rpc::Body::One(Ok(r)) => {
            let id = r.id.clone().unwrap_or(Value::Null);
            if let Err(reason) = authorized(&r) {
                return json_response(
                    StatusCode::UNAUTHORIZED,
                    &RpcError::new(id, method_code(&r.method), reason).to_json(),
                );
            }
            if r.method == "knowledge/subscribe" {
                return subscribe(state, graph, r).await;
            }
            let notification = r.id.is_none();
            let out = call(&state, &graph, r).await;
            if notification {
                return StatusCode::NO_CONTENT.into_response();
            }
            json_response(StatusCode::OK, &out)
        }
        rpc::Body::Batch(items) => {
            let mut out = Vec::new();
            for item in items {
                match item {
                    Err(e) => out.push(e.to_json()),
                    Ok(r) => {
                        let id = r.id.clone().unwrap_or(Value::Null);
                        let notification = r.id.is_none();
                        let answer = if let Err(reason) = authorized(&r) {
                            RpcError::new(id, method_code(&r.method), reason).to_json()
                        } else if r.method == "knowledge/subscribe" {
                            RpcError::new(
                                id,
                                rpc::SUBSCRIPTION_ERROR,
                                "knowledge/subscribe cannot be part of a batch: send it alone",
                            )
                            .to_json()
                        } else {
                            call(&state, &graph, r).await
                        };
                        if !notification {
                            out.push(answer);
                        }
                    }
                }
            }
            if out.is_empty() {
                return StatusCode::NO_CONTENT.into_response();
            }
            json_response(StatusCode::OK, &Value::Array(out))
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct QueryParams {
    query: String,
    #[serde(default)]
    query_language: Option<String>,
    #[serde(default)]
    variables: Option<Value>,
    #[serde(default)]
    required_certainty: Option<f64>,
    #[serde(default)]
    max_age_seconds: Option<u64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SubscribeParams {
    subscription_query: String,
    #[serde(default)]
    query_language: Option<String>,
    #[serde(default)]
    variables: Option<Value>,
}

fn language(id: &Value, lang: &Option<String>) -> Result<(), RpcError> {
    match lang.as_deref() {
        None | Some("graphql") | Some("GraphQL") => Ok(()),
        Some(other) => Err(RpcError::new(
            id.clone(),
            rpc::INVALID_PARAMS,
            format!("invalid params: queryLanguage {other} is not supported (this server speaks graphql)"),
        )),
    }
}

/// One request's response (query or update).
async fn call(state: &AppState, graph: &str, r: rpc::Request) -> Value {
    let id = r.id.clone().unwrap_or(Value::Null);
    let answer = match r.method.as_str() {
        "knowledge/query" => query(state, graph, &id, &r.params).await,
        "knowledge/update" => update(state, graph, &id, &r.params).await,
        other => Err(rpc::unknown_method(id.clone(), other)),
    };
    match answer {
        Ok(v) => rpc::result(&id, v),
        Err(e) => e.to_json(),
    }
}

async fn query(state: &AppState, graph: &str, id: &Value, params: &Value) -> Result<Value, RpcError> {
    let p: QueryParams = rpc::params(id, params)?;
    language(id, &p.query_language)?;
    if let Some(c) = p.required_certainty {
        if !(0.0..=1.0).contains(&c) {
            return Err(RpcError::new(
                id.clone(),
                rpc::INVALID_PARAMS,
                format!("invalid params: requiredCertainty {c} is outside [0, 1]"),
            ));
        }
    }
    let started = Instant::now();
    let request = GraphqlRequest { query: p.query, variables: p.variables, operation_name: None };
    let bounds = Bounds::new(p.required_certainty, p.max_age_seconds);
    let resp = crate::graphql::execute_with(state.provex.clone(), graph, request, bounds).await;
    if let Some(errors) = resp.get("errors").filter(|e| e.as_array().is_some_and(|a| !a.is_empty())) {
        let first = errors[0].get("message").and_then(Value::as_str).unwrap_or("the query failed");
        return Err(RpcError::new(id.clone(), rpc::QUERY_ERROR, format!("knowledge query failed: {first}"))
            .with_data(json!({"errors": errors})));
    }
    Ok(json!({
        "data": resp.get("data").cloned().unwrap_or(Value::Null),
        "queryMetadata": {
            "graph": graph,
            "queryLanguage": "graphql",
            "elapsedMs": started.elapsed().as_secs_f64() * 1000.0,
            "requiredCertainty": p.required_certainty,
            "maxAgeSeconds": p.max_age_seconds,
        }
    }))
}

async fn update(state: &AppState, graph: &str, id: &Value, params: &Value) -> Result<Value, RpcError> {
    let p: UpdateParams = rpc::params(id, params)?;
    match state.provex.kg_update(graph, &p).await {
        Ok(result) => Ok(serde_json::to_value(result).unwrap_or(Value::Null)),
        Err(UpdateError::Invalid(reason)) => {
            Err(RpcError::new(id.clone(), rpc::INVALID_PARAMS, format!("invalid params: {reason}")))
        }
        Err(UpdateError::Alignment(v)) => Err(RpcError::new(
            id.clone(),
            rpc::ALIGNMENT_ERROR,
            format!("alignment violation: rule {} refuses the update: {}", v.rule, v.details),
        )
        .with_data(json!({
            "rule": v.rule,
            "success": false,
            "verificationStatus": REJECTED,
            "verificationDetails": format!("rule {}: {}", v.rule, v.details),
        }))),
        Err(UpdateError::Store(e)) => {
            Err(RpcError::new(id.clone(), rpc::UPDATE_ERROR, format!("knowledge update failed: {e}")))
        }
    }
}

/// `knowledge/subscribe`: 200 `text/event-stream`, one JSON-RPC response per committed change
/// the subscription selects, from the moment it opened; errors opening it: 400.
async fn subscribe(state: AppState, graph: String, r: rpc::Request) -> Response {
    let id = r.id.clone().unwrap_or(Value::Null);
    let refuse = |e: RpcError| json_response(StatusCode::BAD_REQUEST, &e.to_json());
    let p: SubscribeParams = match rpc::params(&id, &r.params) {
        Ok(p) => p,
        Err(e) => return refuse(e),
    };
    if let Err(e) = language(&id, &p.query_language) {
        return refuse(e);
    }
    let filter = match subscription::filter(&p.subscription_query, p.variables.as_ref()) {
        Ok(f) => f,
        Err(reason) => {
            return refuse(RpcError::new(
                id,
                rpc::SUBSCRIPTION_ERROR,
                format!("knowledge subscription refused: {reason}"),
            ))
        }
    };
    let rx = state.provex.kg_subscribe();
    let s = stream::unfold((rx, false), move |(mut rx, done)| {
        let (graph, filter, id) = (graph.clone(), filter.clone(), id.clone());
        async move {
            if done {
                return None;
            }
            loop {
                match rx.recv().await {
                    Ok(change) if change.graph == graph && filter.matches(&change.event.statement) => {
                        let data =
                            rpc::result(&id, serde_json::to_value(&change.event).unwrap_or(Value::Null));
                        let ev = Event::default().id(change.event.change_id.clone()).data(data.to_string());
                        return Some((Ok::<_, Infallible>(ev), (rx, false)));
                    }
                    Ok(_) => continue,
                    Err(RecvError::Lagged(n)) => {
                        let e = RpcError::new(
                            id.clone(),
                            rpc::SUBSCRIPTION_ERROR,
                            format!("the subscriber fell {n} changes behind and was closed; subscribe again"),
                        );
                        return Some((Ok(Event::default().data(e.to_json().to_string())), (rx, true)));
                    }
                    Err(RecvError::Closed) => return None,
                }
            }
        }
    });
    Sse::new(s.boxed()).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response()
}

/// A subscription over GraphQL over SSE (its "distinct connections" mode): an `event: next`
/// per result, then `event: complete` if the subscription ends.
fn graphql_events(state: AppState, graph: &str, request: GraphqlRequest) -> Response {
    let results = crate::graphql::execute_stream(state.provex.clone(), graph, request)
        .map(|r| Ok::<_, Infallible>(Event::default().event("next").data(r.to_string())))
        .chain(stream::once(async { Ok(Event::default().event("complete").data("")) }));
    Sse::new(results.boxed()).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response()
}

fn graphql_error(status: StatusCode, message: &str) -> Response {
    json_response(status, &json!({"errors": [{"message": message}]}))
}

/// `/graphql?graph=G`: POST `{"query", "variables"}`, or GET `?query=` (queries only).
pub async fn graphql(State(state): State<AppState>, req: Request) -> Response {
    let method = req.method().clone();
    let (headers, uri, body) = match body_bytes(req).await {
        Ok(b) => b,
        Err(e) => return graphql_error(StatusCode::PAYLOAD_TOO_LARGE, &e),
    };
    let pairs: Vec<(String, String)> = form_urlencoded::parse(uri.query().unwrap_or("").as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let get = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let wants_html =
        headers.get(header::ACCEPT).and_then(|h| h.to_str().ok()).is_some_and(|a| a.contains("text/html"));
    if method == axum::http::Method::GET && wants_html && get("query").is_none() {
        // The query page is one of the UI's pages (ui/graphql.html), public like the others.
        let to = match uri.query() {
            Some(q) => format!("/graphql.html?{q}"),
            None => "/graphql.html".to_owned(),
        };
        return axum::response::Redirect::to(&to).into_response();
    }
    if let Err(reason) = auth::token(&state, &headers, uri.query(), None) {
        return graphql_error(StatusCode::UNAUTHORIZED, reason);
    }
    let Some(graph) = get("graph").filter(|g| !g.is_empty()) else {
        return graphql_error(StatusCode::BAD_REQUEST, "name the graph: /graphql?graph=<graph>");
    };
    let request = if method == axum::http::Method::POST {
        match serde_json::from_slice::<GraphqlRequest>(&body) {
            Ok(b) => b,
            Err(e) => {
                return graphql_error(
                    StatusCode::BAD_REQUEST,
                    &format!("the body is not a GraphQL request: {e}"),
                )
            }
        }
    } else if method == axum::http::Method::GET {
        let Some(q) = get("query") else {
            return graphql_error(StatusCode::BAD_REQUEST, "GET /graphql needs ?query=");
        };
        if q.trim_start().starts_with("mutation") || q.trim_start().starts_with("subscription") {
            return graphql_error(
                StatusCode::METHOD_NOT_ALLOWED,
                "GET runs queries only: POST other operations",
            );
        }
        let vars = match get("variables").map(|v| serde_json::from_str(&v)) {
            Some(Ok(v)) => Some(v),
            Some(Err(e)) => return graphql_error(StatusCode::BAD_REQUEST, &format!("variables: {e}")),
            None => None,
        };
        GraphqlRequest { query: q, variables: vars, operation_name: get("operationName") }
    } else {
        return graphql_error(StatusCode::METHOD_NOT_ALLOWED, "use GET or POST");
    };
    if crate::graphql::is_subscription(&request) {
        let streams = headers
            .get(header::ACCEPT)
            .and_then(|h| h.to_str().ok())
            .is_some_and(|a| a.contains("text/event-stream"));
        if !streams {
            return graphql_error(
                StatusCode::NOT_ACCEPTABLE,
                "a subscription streams: POST it with Accept: text/event-stream (GraphQL over SSE), \
                 or subscribe with knowledge/subscribe at /a2a/<graph>",
            );
        }
        return graphql_events(state, &graph, request);
    }
    let resp = crate::graphql::execute_with(state.provex.clone(), &graph, request, Bounds::default()).await;
    json_response(StatusCode::OK, &resp)
}
