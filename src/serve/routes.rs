//! The JSON API: one handler per facade call, each a few lines. Graph names come in the
//! path; node names and other text in the query string or a JSON body.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{delete, get, post};
use axum::{middleware, Json, Router};
use futures_util::StreamExt;
use serde::Deserialize;
use tokio::io::AsyncWriteExt;

use super::{auth, stream, ui, ApiFailure, AppState};
use crate::api::{DemoRequest, FollowRequest, Job, QueryRequest, SearchHit, SourceText, View};
use crate::error::Error;
use crate::facade::{IngestReport, Quiet, ViewRequest};
use crate::ingest::IngestOptions;
use crate::store::{NodeRecord, PathResult, Stats, Subgraph, Table, TraceDirection};

type ApiResult<T> = Result<Json<T>, ApiFailure>;

/// Largest file a UI may upload.
const MAX_UPLOAD: usize = 4 << 30;

pub fn router(state: AppState, ui_dir: Option<PathBuf>) -> Router {
    let api = Router::new()
        .route("/health", get(health))
        .route("/graphs", get(graphs))
        .route("/graphs/{graph}", delete(delete_graph))
        .route("/graphs/{graph}/stats", get(stats))
        .route("/graphs/{graph}/view", get(view))
        .route("/graphs/{graph}/node", get(node))
        .route("/graphs/{graph}/neighbours", get(neighbours))
        .route("/graphs/{graph}/trace", get(trace))
        .route("/graphs/{graph}/path", get(path))
        .route("/graphs/{graph}/query", post(query))
        .route("/graphs/{graph}/trail", get(trail))
        .route("/graphs/{graph}/source", get(source))
        .route("/graphs/{graph}/search", get(search))
        .route("/graphs/{graph}/upload", post(upload).layer(DefaultBodyLimit::max(MAX_UPLOAD)))
        .route("/graphs/{graph}/follow", post(follow))
        .route("/graphs/{graph}/demo", post(demo))
        .route("/graphs/{graph}/tidy", post(tidy))
        .route("/graphs/{graph}/stream", get(stream_graph))
        .route("/jobs", get(jobs))
        .route("/jobs/{id}", delete(stop_job))
        .fallback(|| async { ApiFailure::new(StatusCode::NOT_FOUND, "not_found", "no such API route") });
    Router::new()
        .nest("/api", api)
        .merge(ui::router(ui_dir))
        .layer(middleware::from_fn_with_state(state.clone(), auth::check))
        .with_state(state)
}

async fn health(State(s): State<AppState>) -> ApiResult<crate::api::Health> {
    Ok(Json(s.provex.health(s.token.is_some())))
}

async fn graphs(State(s): State<AppState>) -> ApiResult<Vec<String>> {
    Ok(Json(s.provex.graphs().await?))
}

async fn delete_graph(
    State(s): State<AppState>,
    Path(graph): Path<String>,
) -> Result<StatusCode, ApiFailure> {
    s.provex.delete_graph(&graph).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn stats(State(s): State<AppState>, Path(graph): Path<String>) -> ApiResult<Stats> {
    Ok(Json(s.provex.stats(&graph).await?))
}

#[derive(Deserialize)]
struct ViewQuery {
    root: Option<String>,
    depth: Option<u32>,
    limit: Option<u32>,
}

async fn view(
    State(s): State<AppState>,
    Path(graph): Path<String>,
    Query(q): Query<ViewQuery>,
) -> ApiResult<View> {
    let req = ViewRequest { root: q.root.filter(|r| !r.is_empty()), depth: q.depth, limit: q.limit };
    Ok(Json(s.provex.view(&graph, req).await?))
}

#[derive(Deserialize)]
struct IdQuery {
    id: String,
}

async fn node(
    State(s): State<AppState>,
    Path(graph): Path<String>,
    Query(q): Query<IdQuery>,
) -> ApiResult<NodeRecord> {
    Ok(Json(s.provex.node(&graph, &q.id).await?))
}

async fn neighbours(
    State(s): State<AppState>,
    Path(graph): Path<String>,
    Query(q): Query<IdQuery>,
) -> ApiResult<Subgraph> {
    Ok(Json(s.provex.neighbours(&graph, &q.id).await?))
}

#[derive(Deserialize)]
struct TraceQuery {
    id: String,
    dir: Option<TraceDirection>,
    depth: Option<u32>,
}

async fn trace(
    State(s): State<AppState>,
    Path(graph): Path<String>,
    Query(q): Query<TraceQuery>,
) -> ApiResult<Subgraph> {
    let depth = q.depth.unwrap_or(10).min(crate::store::read::MAX_DEPTH);
    Ok(Json(s.provex.trace(&graph, &q.id, q.dir.unwrap_or(TraceDirection::Up), depth).await?))
}

#[derive(Deserialize)]
struct PathQuery {
    from: String,
    to: String,
}

async fn path(
    State(s): State<AppState>,
    Path(graph): Path<String>,
    Query(q): Query<PathQuery>,
) -> ApiResult<Option<PathResult>> {
    Ok(Json(s.provex.path(&graph, &q.from, &q.to).await?))
}

async fn query(
    State(s): State<AppState>,
    Path(graph): Path<String>,
    Json(req): Json<QueryRequest>,
) -> ApiResult<Table> {
    Ok(Json(s.provex.query(&graph, &req.cypher).await?))
}

#[derive(Deserialize)]
struct TrailQuery {
    statement: String,
}

async fn trail(
    State(s): State<AppState>,
    Path(graph): Path<String>,
    Query(q): Query<TrailQuery>,
) -> ApiResult<crate::a2ap::Trail> {
    Ok(Json(s.provex.trail(&graph, &q.statement).await?))
}

async fn source(
    State(s): State<AppState>,
    Path(graph): Path<String>,
    Query(q): Query<IdQuery>,
) -> ApiResult<SourceText> {
    Ok(Json(s.provex.source_text(&graph, &q.id).await?))
}

#[derive(Deserialize)]
struct SearchQuery {
    q: String,
    limit: Option<u32>,
}

async fn search(
    State(s): State<AppState>,
    Path(graph): Path<String>,
    Query(q): Query<SearchQuery>,
) -> ApiResult<Vec<SearchHit>> {
    Ok(Json(s.provex.search(&graph, &q.q, q.limit.unwrap_or(50)).await?))
}

#[derive(Deserialize)]
struct UploadQuery {
    name: String,
    format: Option<String>,
}

async fn upload(
    State(s): State<AppState>,
    Path(graph): Path<String>,
    Query(q): Query<UploadQuery>,
    body: Body,
) -> ApiResult<IngestReport> {
    crate::store::validate_graph_name(&graph)?;
    let format = crate::facade::parse_format(q.format.as_deref())?;
    let path = s.provex.new_upload_path(&q.name)?;
    let mut file = tokio::fs::File::create(&path).await.map_err(|e| Error::io(&path, e))?;
    let mut data = body.into_data_stream();
    while let Some(chunk) = data.next().await {
        let chunk = chunk.map_err(|e| Error::Usage(format!("upload interrupted: {e}")))?;
        file.write_all(&chunk).await.map_err(|e| Error::io(&path, e))?;
    }
    file.flush().await.map_err(|e| Error::io(&path, e))?;
    drop(file);
    let opts = IngestOptions { format, ..Default::default() };
    let report =
        s.provex.ingest(&graph, &[path], opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet)).await?;
    Ok(Json(report))
}

async fn follow(
    State(s): State<AppState>,
    Path(graph): Path<String>,
    Json(req): Json<FollowRequest>,
) -> ApiResult<Job> {
    Ok(Json(s.provex.start_follow(&graph, PathBuf::from(req.path), req.format.as_deref())?))
}

async fn demo(
    State(s): State<AppState>,
    Path(graph): Path<String>,
    Json(req): Json<DemoRequest>,
) -> ApiResult<Job> {
    Ok(Json(s.provex.start_demo(&graph, req.pace_ms)?))
}

async fn tidy(State(s): State<AppState>, Path(graph): Path<String>) -> Result<StatusCode, ApiFailure> {
    s.provex.tidy(&graph).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn jobs(State(s): State<AppState>) -> ApiResult<Vec<Job>> {
    Ok(Json(s.provex.jobs()))
}

async fn stop_job(State(s): State<AppState>, Path(id): Path<String>) -> ApiResult<Job> {
    Ok(Json(s.provex.stop_job(&id)?))
}

#[derive(Deserialize)]
struct StreamQuery {
    since: Option<u64>,
}

async fn stream_graph(
    State(s): State<AppState>,
    Path(graph): Path<String>,
    Query(q): Query<StreamQuery>,
    headers: HeaderMap,
) -> Result<impl IntoResponse, ApiFailure> {
    let last_event = headers.get("last-event-id").and_then(|v| v.to_str().ok()).and_then(|v| v.parse().ok());
    let since = q.since.or(last_event).unwrap_or(0);
    let (backlog, rx) = s.provex.watch(&graph, since).await?;
    Ok(stream::events(s.provex.clone(), graph, since, backlog, rx))
}
