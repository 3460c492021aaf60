//! What the shell does beyond the declared operations (which `commands::call` runs through
//! the core's `provex::facade::Call`): the first start, streams, and the menu's actions
//! (ingest, export), as plain async functions of the facade, testable without a window.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use provex::api::{Job, JobState, StreamMessage, StreamRequest};
use provex::facade::{IngestReport, Provex, Quiet};
use provex::ingest::IngestOptions;
use provex::{Error, Result};

use crate::shell::Shell;

/// The graph the first start fills with the council demo.
pub const DEMO_GRAPH: &str = "council";

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

/// Starts forwarding `graph`'s stream after `since` to `send` (see [`crate::stream`]) and
/// returns the subscription's id. `webview` names the window the stream belongs to.
pub async fn subscribe<F>(
    shell: &Shell,
    p: Arc<Provex>,
    req: &StreamRequest,
    webview: &str,
    send: F,
) -> Result<u64>
where
    F: FnMut(&StreamMessage) -> bool + Send + 'static,
{
    let since = req.since.unwrap_or(0);
    let (backlog, rx) = p.watch(req, since).await?;
    let task = tokio::spawn(crate::stream::forward(p, req.clone(), since, backlog, rx, send));
    Ok(shell.add_subscription(webview, task))
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
