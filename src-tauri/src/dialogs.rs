//! Native file dialogs (the official dialog plugin), as futures.

use std::path::PathBuf;

use tauri::{AppHandle, Manager};
use tauri_plugin_dialog::{DialogExt, FileDialogBuilder};

/// File types the core reads.
const PROVENANCE: &[&str] = &["jsonl", "ndjson", "json", "txt"];

fn builder(app: &AppHandle) -> FileDialogBuilder<tauri::Wry> {
    let mut b = app.dialog().file();
    if let Some(w) = app.get_webview_window("main") {
        b = b.set_parent(&w);
    }
    b
}

/// Asks for provenance files to open; empty when the user cancelled.
pub async fn pick_files(app: &AppHandle, title: &str) -> Vec<PathBuf> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    builder(app)
        .set_title(title)
        .add_filter("Provenance (JSON lines)", PROVENANCE)
        .add_filter("All files", &["*"])
        .pick_files(move |files| {
            let _ = tx.send(files);
        });
    let files = rx.await.ok().flatten().unwrap_or_default();
    files.into_iter().filter_map(|f| f.into_path().ok()).collect()
}

/// Asks where to save a file named `name`; `None` when the user cancelled.
pub async fn save_path(app: &AppHandle, name: &str) -> Option<PathBuf> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let mut b = builder(app).set_file_name(name);
    if let Some(ext) = std::path::Path::new(name).extension().and_then(|e| e.to_str()) {
        b = b.add_filter(ext.to_uppercase(), &[ext]);
    }
    b.save_file(move |path| {
        let _ = tx.send(path);
    });
    rx.await.ok().flatten().and_then(|p| p.into_path().ok())
}
