//! The IPC commands: each waits for the facade, calls its function in `ops`, and turns a
//! failure into the `{code, message}` every UI boundary uses (`provex::api::ApiError`).
//! Argument names arrive in camelCase from JavaScript (`paceMs`), as Tauri converts them.

use std::path::PathBuf;

use provex::a2ap::Trail;
use provex::api::{ApiError, Health, Job, SearchHit, SourceText, View};
use provex::facade::IngestReport;
use provex::store::{NodeRecord, PathResult, Stats, Subgraph, Table, TraceDirection};
use tauri::ipc::{Channel, InvokeBody, InvokeResponseBody, Request};
use tauri::{AppHandle, Manager, State, Webview};

use crate::settings::{Settings, SettingsUpdate, SettingsView};
use crate::shell::Shell;
use crate::{dialogs, ops};

type CmdResult<T> = Result<T, ApiError>;

/// A library error as it crosses the IPC boundary.
pub fn api(e: provex::Error) -> ApiError {
    ApiError::from(&e)
}

fn usage(message: impl Into<String>) -> ApiError {
    ApiError { code: "usage".into(), message: message.into() }
}

#[tauri::command]
pub async fn health(shell: State<'_, Shell>) -> CmdResult<Health> {
    Ok(ops::health(&*shell.provex().await?))
}

#[tauri::command]
pub async fn graphs(shell: State<'_, Shell>) -> CmdResult<Vec<String>> {
    ops::graphs(&*shell.provex().await?).await.map_err(api)
}

#[tauri::command]
pub async fn delete_graph(shell: State<'_, Shell>, graph: String) -> CmdResult<()> {
    ops::delete_graph(&*shell.provex().await?, &graph).await.map_err(api)
}

#[tauri::command]
pub async fn stats(shell: State<'_, Shell>, graph: String) -> CmdResult<Stats> {
    ops::stats(&*shell.provex().await?, &graph).await.map_err(api)
}

#[tauri::command]
pub async fn view(
    shell: State<'_, Shell>,
    graph: String,
    root: Option<String>,
    depth: Option<u32>,
    limit: Option<u32>,
) -> CmdResult<View> {
    let p = shell.provex().await?;
    let view = ops::view(&p, &graph, root, depth, limit).await.map_err(api)?;
    shell.set_current_graph(&graph);
    Ok(view)
}

#[tauri::command]
pub async fn node(shell: State<'_, Shell>, graph: String, id: String) -> CmdResult<NodeRecord> {
    ops::node(&*shell.provex().await?, &graph, &id).await.map_err(api)
}

#[tauri::command]
pub async fn neighbours(shell: State<'_, Shell>, graph: String, id: String) -> CmdResult<Subgraph> {
    ops::neighbours(&*shell.provex().await?, &graph, &id).await.map_err(api)
}

#[tauri::command]
pub async fn trace(
    shell: State<'_, Shell>,
    graph: String,
    id: String,
    dir: Option<TraceDirection>,
    depth: Option<u32>,
) -> CmdResult<Subgraph> {
    ops::trace(&*shell.provex().await?, &graph, &id, dir, depth).await.map_err(api)
}

#[tauri::command]
pub async fn path(
    shell: State<'_, Shell>,
    graph: String,
    from: String,
    to: String,
) -> CmdResult<Option<PathResult>> {
    ops::path(&*shell.provex().await?, &graph, &from, &to).await.map_err(api)
}

#[tauri::command]
pub async fn query(shell: State<'_, Shell>, graph: String, cypher: String) -> CmdResult<Table> {
    ops::query(&*shell.provex().await?, &graph, &cypher).await.map_err(api)
}

#[tauri::command]
pub async fn trail(shell: State<'_, Shell>, graph: String, statement: String) -> CmdResult<Trail> {
    ops::trail(&*shell.provex().await?, &graph, &statement).await.map_err(api)
}

#[tauri::command]
pub async fn source(shell: State<'_, Shell>, graph: String, id: String) -> CmdResult<SourceText> {
    ops::source(&*shell.provex().await?, &graph, &id).await.map_err(api)
}

#[tauri::command]
pub async fn search(
    shell: State<'_, Shell>,
    graph: String,
    q: String,
    limit: Option<u32>,
) -> CmdResult<Vec<SearchHit>> {
    ops::search(&*shell.provex().await?, &graph, &q, limit).await.map_err(api)
}

/// Ingests files on this machine into `graph` (the window's file picker or a drop).
#[tauri::command]
pub async fn ingest_files(
    shell: State<'_, Shell>,
    graph: String,
    paths: Vec<String>,
    format: Option<String>,
) -> CmdResult<IngestReport> {
    let p = shell.provex().await?;
    let ingest = shell.start_ingest();
    let paths: Vec<PathBuf> = paths.into_iter().map(PathBuf::from).collect();
    ops::ingest_files(&p, &graph, &paths, format.as_deref(), ingest.cancel.clone()).await.map_err(api)
}

/// A header of a raw-body request, percent-decoded (the window encodes them with
/// `encodeURIComponent`, as header values must be ASCII).
fn header(request: &Request<'_>, name: &str) -> CmdResult<Option<String>> {
    let Some(v) = request.headers().get(name) else { return Ok(None) };
    let v = v.to_str().map_err(|_| usage(format!("header {name} is not ASCII")))?;
    percent_decode(v).map(Some).ok_or_else(|| usage(format!("header {name} is badly encoded")))
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The raw body of a request (the window sends an `ArrayBuffer`/`Uint8Array`).
fn raw_body<'a>(request: &'a Request<'_>) -> CmdResult<&'a [u8]> {
    match request.body() {
        InvokeBody::Raw(bytes) => Ok(bytes),
        InvokeBody::Json(_) => Err(usage("send the file's bytes as the request body")),
    }
}

/// Uploads a file's bytes from the window and ingests them: the body is the file, the
/// headers `graph`, `name` and `format` (optional) say where it goes. Nothing is written
/// from JavaScript: the bytes are saved into the uploads folder here.
#[tauri::command]
pub async fn ingest_bytes(shell: State<'_, Shell>, request: Request<'_>) -> CmdResult<IngestReport> {
    let graph = header(&request, "graph")?.ok_or_else(|| usage("no graph header"))?;
    let name = header(&request, "name")?.unwrap_or_else(|| "upload.jsonl".into());
    let format = header(&request, "format")?;
    let bytes = raw_body(&request)?;
    let p = shell.provex().await?;
    let ingest = shell.start_ingest();
    ops::ingest_bytes(&p, &graph, &name, bytes, format.as_deref(), ingest.cancel.clone()).await.map_err(api)
}

#[tauri::command]
pub async fn follow(
    shell: State<'_, Shell>,
    graph: String,
    path: String,
    format: Option<String>,
) -> CmdResult<Job> {
    ops::follow(&shell.provex().await?, &graph, &path, format.as_deref()).map_err(api)
}

#[tauri::command]
pub async fn demo(shell: State<'_, Shell>, graph: String, pace_ms: Option<u64>) -> CmdResult<Job> {
    ops::demo(&shell.provex().await?, &graph, pace_ms).map_err(api)
}

#[tauri::command]
pub async fn jobs(shell: State<'_, Shell>) -> CmdResult<Vec<Job>> {
    Ok(ops::jobs(&*shell.provex().await?))
}

#[tauri::command]
pub async fn stop_job(shell: State<'_, Shell>, id: String) -> CmdResult<Job> {
    ops::stop_job(&*shell.provex().await?, &id).map_err(api)
}

#[tauri::command]
pub async fn tidy(shell: State<'_, Shell>, graph: String) -> CmdResult<()> {
    ops::tidy(&*shell.provex().await?, &graph).await.map(drop).map_err(api)
}

/// Streams `graph`'s messages after `since` to `channel`; returns the subscription's id for
/// `unsubscribe`. The stream also ends when the page reloads.
#[tauri::command]
pub async fn subscribe(
    webview: Webview,
    shell: State<'_, Shell>,
    graph: String,
    since: Option<u64>,
    channel: Channel,
) -> CmdResult<u64> {
    let p = shell.provex().await?;
    let id = ops::subscribe(&shell, p, &graph, since.unwrap_or(0), webview.label(), move |msg| {
        let json = serde_json::to_string(msg).expect("stream messages serialise");
        channel.send(InvokeResponseBody::Json(json)).is_ok()
    })
    .await
    .map_err(api)?;
    shell.set_current_graph(&graph);
    Ok(id)
}

/// Ends a stream; true when it was running.
#[tauri::command]
pub fn unsubscribe(shell: State<'_, Shell>, id: u64) -> bool {
    shell.unsubscribe(id)
}

/// The database settings (the password is never sent back).
#[tauri::command]
pub fn get_settings(app: AppHandle) -> CmdResult<SettingsView> {
    let dir = app.path().app_config_dir().map_err(|e| usage(e.to_string()))?;
    Ok(Settings::load(&dir).view(&dir))
}

/// Saves the database settings; they take effect at the next start.
#[tauri::command]
pub fn save_settings(app: AppHandle, settings: SettingsUpdate) -> CmdResult<SettingsView> {
    let dir = app.path().app_config_dir().map_err(|e| usage(e.to_string()))?;
    let mut s = Settings::load(&dir);
    s.update(settings);
    s.save(&dir).map_err(|e| ApiError { code: "io".into(), message: format!("{}: {e}", dir.display()) })?;
    Ok(s.view(&dir))
}

/// Saves bytes the window made (a picture of the graph, a selection) where the user
/// chooses in a save dialog: the body is the content, the `name` header the suggested file
/// name. Returns the path written, or null when the user cancelled.
#[tauri::command]
pub async fn save_file(app: AppHandle, request: Request<'_>) -> CmdResult<Option<String>> {
    let name = header(&request, "name")?.unwrap_or_else(|| "provex-export".into());
    let bytes = raw_body(&request)?;
    let Some(path) = dialogs::save_path(&app, &name).await else { return Ok(None) };
    ops::save_bytes(&path, bytes).await.map_err(api)?;
    Ok(Some(path.display().to_string()))
}

/// Every command, for the invoke handler and its tests.
pub const NAMES: &[&str] = include!("command_names.rs");

#[cfg(test)]
mod tests {
    use super::percent_decode;

    #[test]
    fn headers_are_percent_decoded() {
        assert_eq!(percent_decode("a%20b%E2%80%94c.jsonl").as_deref(), Some("a b—c.jsonl"));
        assert_eq!(percent_decode("plain").as_deref(), Some("plain"));
        assert_eq!(percent_decode("bad%2"), None);
        assert_eq!(percent_decode("bad%zz"), None);
        assert_eq!(percent_decode("%FF"), None);
    }
}
