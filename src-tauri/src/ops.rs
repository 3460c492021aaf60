//! What each command does, as plain async functions of the facade, so they can be tested
//! without a window. Each is a call of `provex::facade::Provex`, with the small argument
//! handling `provex serve`'s routes do (src/serve/routes.rs) mirrored here.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use provex::a2ap::Trail;
use provex::api::{Health, Job, JobState, SearchHit, SourceText, StreamMessage, View};
use provex::facade::{IngestReport, Provex, Quiet, ViewRequest};
use provex::ingest::IngestOptions;
use provex::store::{NodeRecord, PathResult, Stats, Subgraph, Table, TraceDirection};
use provex::{Error, Result};

use crate::shell::Shell;

/// The graph the first start fills with the council demo.
pub const DEMO_GRAPH: &str = "council";

pub fn health(p: &Provex) -> Health {
    // No token: the window talks to its own process.
    p.health(false)
}

pub async fn graphs(p: &Provex) -> Result<Vec<String>> {
    p.graphs().await
}

pub async fn delete_graph(p: &Provex, graph: &str) -> Result<()> {
    p.delete_graph(graph).await
}

pub async fn stats(p: &Provex, graph: &str) -> Result<Stats> {
    p.stats(graph).await
}

pub async fn view(
    p: &Provex,
    graph: &str,
    root: Option<String>,
    depth: Option<u32>,
    limit: Option<u32>,
) -> Result<View> {
    let req = ViewRequest { root: root.filter(|r| !r.is_empty()), depth, limit };
    p.view(graph, req).await
}

pub async fn node(p: &Provex, graph: &str, id: &str) -> Result<NodeRecord> {
    p.node(graph, id).await
}

pub async fn neighbours(p: &Provex, graph: &str, id: &str) -> Result<Subgraph> {
    p.neighbours(graph, id).await
}

pub async fn trace(
    p: &Provex,
    graph: &str,
    id: &str,
    dir: Option<TraceDirection>,
    depth: Option<u32>,
) -> Result<Subgraph> {
    let depth = depth.unwrap_or(10).min(provex::store::read::MAX_DEPTH);
    p.trace(graph, id, dir.unwrap_or(TraceDirection::Up), depth).await
}

pub async fn path(p: &Provex, graph: &str, from: &str, to: &str) -> Result<Option<PathResult>> {
    p.path(graph, from, to).await
}

pub async fn query(p: &Provex, graph: &str, cypher: &str) -> Result<Table> {
    p.query(graph, cypher).await
}

pub async fn trail(p: &Provex, graph: &str, statement: &str) -> Result<Trail> {
    p.trail(graph, statement).await
}

pub async fn source(p: &Provex, graph: &str, id: &str) -> Result<SourceText> {
    p.source_text(graph, id).await
}

pub async fn search(p: &Provex, graph: &str, q: &str, limit: Option<u32>) -> Result<Vec<SearchHit>> {
    p.search(graph, q, limit.unwrap_or(50)).await
}

/// Ingests files on this machine (chosen in the open dialog or dropped on the window).
pub async fn ingest_files(
    p: &Provex,
    graph: &str,
    paths: &[PathBuf],
    format: Option<&str>,
    cancel: Arc<AtomicBool>,
) -> Result<IngestReport> {
    provex::store::validate_graph_name(graph)?;
    let format = provex::facade::parse_format(format)?;
    let opts = IngestOptions { format, ..Default::default() };
    p.ingest(graph, paths, opts, cancel, Arc::new(Quiet)).await
}

/// Ingests a file's bytes sent by the window: saved into the uploads folder, then ingested
/// (the `upload` route of `provex serve`).
pub async fn ingest_bytes(
    p: &Provex,
    graph: &str,
    name: &str,
    bytes: &[u8],
    format: Option<&str>,
    cancel: Arc<AtomicBool>,
) -> Result<IngestReport> {
    provex::store::validate_graph_name(graph)?;
    let format = provex::facade::parse_format(format)?;
    let path = p.new_upload_path(name)?;
    tokio::fs::write(&path, bytes).await.map_err(|e| io(&path, e))?;
    let opts = IngestOptions { format, ..Default::default() };
    p.ingest(graph, &[path], opts, cancel, Arc::new(Quiet)).await
}

pub fn follow(p: &Arc<Provex>, graph: &str, path: &str, format: Option<&str>) -> Result<Job> {
    p.start_follow(graph, PathBuf::from(path), format)
}

pub fn demo(p: &Arc<Provex>, graph: &str, pace_ms: Option<u64>) -> Result<Job> {
    p.start_demo(graph, pace_ms)
}

pub fn jobs(p: &Provex) -> Vec<Job> {
    p.jobs()
}

pub fn stop_job(p: &Provex, id: &str) -> Result<Job> {
    p.stop_job(id)
}

/// Starts forwarding `graph`'s stream after `since` to `send` (see [`crate::stream`]) and
/// returns the subscription's id. `webview` names the window the stream belongs to.
pub async fn subscribe<F>(
    shell: &Shell,
    p: Arc<Provex>,
    graph: &str,
    since: u64,
    webview: &str,
    send: F,
) -> Result<u64>
where
    F: FnMut(&StreamMessage) -> bool + Send + 'static,
{
    let (backlog, rx) = p.watch(graph, since).await?;
    let task = tokio::spawn(crate::stream::forward(p, graph.to_owned(), since, backlog, rx, send));
    Ok(shell.add_subscription(webview, task))
}

pub async fn tidy(p: &Provex, graph: &str) -> Result<usize> {
    p.tidy(graph).await
}

/// Writes every node and edge of a graph as JSON (`{"nodes": [...], "edges": [...]}`).
pub async fn export_graph(p: &Provex, graph: &str, path: &Path) -> Result<()> {
    let sub = p.dump(graph).await?;
    let text =
        serde_json::to_vec_pretty(&sub).map_err(|e| Error::Server(format!("export of {graph}: {e}")))?;
    tokio::fs::write(path, text).await.map_err(|e| io(path, e))
}

/// Writes bytes the window made (a picture of the graph) where the user chose.
pub async fn save_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    tokio::fs::write(path, bytes).await.map_err(|e| io(path, e))
}

/// The first start: with no graphs at all, runs the council demo into [`DEMO_GRAPH`] and
/// waits (up to `wait`) for it to finish, so the window opens on it. Returns the demo's job.
pub async fn first_run(p: &Arc<Provex>, wait: Duration) -> Result<Option<Job>> {
    if !p.graphs().await?.is_empty() {
        return Ok(None);
    }
    let job = p.start_demo(DEMO_GRAPH, None)?;
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        let now = p.jobs().into_iter().find(|j| j.id == job.id);
        match now {
            Some(j) if j.state == JobState::Running && tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Some(j) => return Ok(Some(j)),
            None => return Ok(Some(job)),
        }
    }
}

/// A graph name for a file: its stem, with characters graph names cannot have replaced.
pub fn graph_name_for(path: &Path) -> String {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let stem = stem.strip_suffix(".jsonl").or_else(|| stem.strip_suffix(".json")).unwrap_or(stem);
    let name: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "_-.:".contains(c) { c } else { '_' })
        .take(200)
        .collect();
    let name = name.trim_matches(|c| c == '_' || c == '.');
    if name.is_empty() {
        "graph".to_owned()
    } else {
        name.to_owned()
    }
}

fn io(path: &Path, source: std::io::Error) -> Error {
    Error::Io { path: path.to_owned(), source }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graph_names_for_files() {
        assert_eq!(graph_name_for(Path::new("/runs/council-events.jsonl")), "council-events");
        assert_eq!(graph_name_for(Path::new("/runs/my run (2).jsonl")), "my_run__2");
        assert_eq!(graph_name_for(Path::new("/runs/x.jsonl.gz")), "x");
        assert_eq!(graph_name_for(Path::new("/runs/.jsonl")), "graph");
        assert_eq!(graph_name_for(Path::new("/runs/ü.jsonl")), "graph");
        for n in ["a", "council-events", "my_run__2"] {
            provex::store::validate_graph_name(n).unwrap();
        }
    }
}
