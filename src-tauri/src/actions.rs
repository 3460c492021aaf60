//! What the menu and a drop of files do: ingest files (into a new graph named after the
//! first file, or into the graph the window shows), export a graph. The
//! page hears of it through `provex://ingest` and `provex://notice` events.

use std::path::PathBuf;

use provex::api::{events, IngestEvent, IngestState, Notice, NoticeLevel};
use tauri::{AppHandle, Emitter, Manager};

use crate::commands::api;
use crate::ops;
use crate::shell::Shell;

/// Which graph files go into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A graph named after the first file (File ▸ Open), shown once ingested.
    NewGraph,
    /// The graph the window shows, or a new one when it shows none (Import, a drop).
    Current,
}

pub fn notify(app: &AppHandle, level: NoticeLevel, message: impl Into<String>) {
    let message = message.into();
    tracing::info!("{level:?}: {message}");
    if let Err(e) = app.emit_to("main", events::NOTICE, Notice { level, message }) {
        tracing::warn!("cannot reach the window: {e}");
    }
}

/// Ingests files in the background, telling the page when it starts and ends. (File ▸ Open
/// also remembers the files as recent: the menu does that, since it shows them.)
pub fn ingest(app: &AppHandle, files: Vec<PathBuf>, target: Target) {
    let Some(first) = files.first() else { return };
    let shell = app.state::<Shell>();
    let graph = match target {
        Target::NewGraph => None,
        Target::Current => shell.current_graph(),
    }
    .unwrap_or_else(|| ops::graph_name_for(first));
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        let event = |state, report, error| IngestEvent {
            state,
            graph: graph.clone(),
            files: names.clone(),
            open: target == Target::NewGraph,
            report,
            error,
        };
        let _ = app.emit_to("main", events::INGEST, event(IngestState::Started, None, None));
        let shell = app.state::<Shell>();
        let result = match shell.provex().await {
            Ok(p) => {
                let guard = shell.start_ingest();
                ops::ingest_files(&p, &graph, &files, None, guard.cancel.clone()).await.map_err(api)
            }
            Err(e) => Err(e),
        };
        let done = match result {
            Ok(report) => event(IngestState::Done, Some(report), None),
            Err(e) => {
                tracing::warn!("ingest into {graph} failed: {}", e.message);
                event(IngestState::Failed, None, Some(e))
            }
        };
        let _ = app.emit_to("main", events::INGEST, done);
    });
}

/// File ▸ Export ▸ Graph Data: every node and edge of the current graph as JSON.
pub async fn export_json(app: &AppHandle) {
    let shell = app.state::<Shell>();
    let Some(graph) = shell.current_graph() else {
        notify(app, NoticeLevel::Info, "Open a graph to export it.");
        return;
    };
    let Some(path) = crate::dialogs::save_path(app, &format!("{graph}.json")).await else { return };
    let result = match shell.provex().await {
        Ok(p) => ops::export_graph(&p, &graph, &path).await.map_err(api),
        Err(e) => Err(e),
    };
    match result {
        Ok(()) => notify(app, NoticeLevel::Info, format!("Exported “{graph}” to {}", path.display())),
        Err(e) => notify(app, NoticeLevel::Error, format!("Export of “{graph}” failed: {}", e.message)),
    }
}
