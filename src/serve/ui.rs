//! Where the built UI is, and serving it: the folder given, `PROVEX_UI_DIR`, or the first
//! `ui/dist` found beside the executable (installed, or `target/<profile>/` of a checkout)
//! or in the current folder. Without one, `/` says how to build it.

use std::path::{Path, PathBuf};

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse};
use axum::Router;
use tower_http::services::ServeDir;

fn candidates() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(d) = std::env::var_os("PROVEX_UI_DIR") {
        out.push(PathBuf::from(d));
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(dir) = exe.parent() {
            out.push(dir.join("ui"));
            out.push(dir.join("../share/provex/ui"));
            out.push(dir.join("../lib/provex/ui"));
            // target/debug/provex or target/release/provex in a checkout.
            out.push(dir.join("../../ui/dist"));
        }
    }
    out.push(PathBuf::from("ui/dist"));
    out
}

/// The UI folder to serve, if there is one with an `index.html`.
pub fn locate(given: Option<&Path>) -> Option<PathBuf> {
    match given {
        Some(d) if d.join("index.html").is_file() => Some(d.to_path_buf()),
        Some(d) => {
            tracing::warn!("{} has no index.html: the UI is not served", d.display());
            None
        }
        None => candidates().into_iter().find(|d| d.join("index.html").is_file()),
    }
}

async fn not_built() -> impl IntoResponse {
    (
        StatusCode::NOT_FOUND,
        Html(
            "<!doctype html><title>Provex</title><h1>The Provex UI is not built</h1>\
             <p>Build it with <code>npm --prefix ui install &amp;&amp; npm --prefix ui run build</code>, \
             or point <code>provex serve --ui DIR</code> at a built copy. The API is at <code>/api/</code>.</p>",
        ),
    )
}

/// The UI's routes: its files, or a page that says how to build it.
pub fn router<S: Clone + Send + Sync + 'static>(dir: Option<PathBuf>) -> Router<S> {
    match dir {
        Some(d) => {
            tracing::info!(ui = %d.display(), "serving the UI");
            Router::new().fallback_service(ServeDir::new(d))
        }
        None => Router::new().fallback(not_built),
    }
}
