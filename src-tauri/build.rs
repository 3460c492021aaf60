// Generates the app's permissions: each command gets an `allow-<name>` permission, and only
// the ones in capabilities/ can be called from the window.
fn main() {
    let commands = &[
        "health",
        "graphs",
        "delete_graph",
        "stats",
        "view",
        "node",
        "neighbours",
        "trace",
        "path",
        "query",
        "trail",
        "source",
        "search",
        "ingest_files",
        "ingest_bytes",
        "follow",
        "demo",
        "jobs",
        "stop_job",
        "tidy",
        "subscribe",
        "unsubscribe",
        "get_settings",
        "save_settings",
        "save_file",
    ];
    tauri_build::try_build(
        tauri_build::Attributes::new().app_manifest(tauri_build::AppManifest::new().commands(commands)),
    )
    .expect("tauri-build");
}
