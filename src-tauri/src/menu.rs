//! The native menu: File (Open…, Open Recent, Import, Export), Edit, View, Help. Actions on
//! files run here; the ones that need the page (pictures of the graph, the shortcuts
//! panel) go to it as `provex://menu` events (see `ui/src/api/tauri.ts`).

use provex::api::{events, MenuAction, MenuEvent};
use tauri::menu::{AboutMetadata, Menu, MenuBuilder, MenuItemBuilder, SubmenuBuilder};
use tauri::{AppHandle, Emitter, Manager, Wry};

use crate::actions::{self, Target};
use crate::settings;

pub const OPEN: &str = "open";
pub const IMPORT: &str = "import";
pub const RECENT_PREFIX: &str = "recent:";
pub const RECENT_CLEAR: &str = "recent-clear";
pub const EXPORT_JSON: &str = "export-json";
pub const EXPORT_SVG: &str = "export-svg";
pub const EXPORT_PNG: &str = "export-png";
pub const RELOAD: &str = "reload";
pub const TIDY: &str = "tidy";
pub const FULLSCREEN: &str = "fullscreen";
pub const DEVTOOLS: &str = "devtools";
pub const SHORTCUTS: &str = "help";
pub const QUIT: &str = "quit";

/// The menu, with the recent files as they are now.
pub fn build(app: &AppHandle) -> tauri::Result<Menu<Wry>> {
    let data_dir = app.path().app_data_dir()?;
    let recent = settings::load_recent(&data_dir);
    let mut recent_menu = SubmenuBuilder::new(app, "Open Recent");
    for (i, path) in recent.iter().enumerate() {
        recent_menu = recent_menu.text(format!("{RECENT_PREFIX}{i}"), path.display().to_string());
    }
    if recent.is_empty() {
        recent_menu = recent_menu
            .item(&MenuItemBuilder::with_id("recent-none", "No Recent Files").enabled(false).build(app)?);
    }
    let recent_menu = recent_menu.separator().item(
        &MenuItemBuilder::with_id(RECENT_CLEAR, "Clear Recent").enabled(!recent.is_empty()).build(app)?,
    );

    let export = SubmenuBuilder::new(app, "Export")
        .text(EXPORT_JSON, "Graph Data (JSON)…")
        .text(EXPORT_SVG, "Picture (SVG)…")
        .text(EXPORT_PNG, "Picture (PNG)…")
        .build()?;
    let file = SubmenuBuilder::new(app, "File")
        .item(&MenuItemBuilder::with_id(OPEN, "Open…").accelerator("CmdOrCtrl+O").build(app)?)
        .item(&recent_menu.build()?)
        .item(
            &MenuItemBuilder::with_id(IMPORT, "Import into Current Graph…")
                .accelerator("CmdOrCtrl+I")
                .build(app)?,
        )
        .separator()
        .item(&export)
        .separator()
        // Not the predefined Quit: GTK shows that one disabled.
        .item(&MenuItemBuilder::with_id(QUIT, "Quit").accelerator("CmdOrCtrl+Q").build(app)?)
        .build()?;
    // GTK has no predefined Undo/Redo (they show disabled): macOS only.
    let mut edit = SubmenuBuilder::new(app, "Edit");
    if cfg!(target_os = "macos") {
        edit = edit.undo().redo().separator();
    }
    let edit = edit.cut().copy().paste().select_all().build()?;
    let mut view = SubmenuBuilder::new(app, "View")
        .item(&MenuItemBuilder::with_id(RELOAD, "Reload").accelerator("CmdOrCtrl+R").build(app)?)
        .text(TIDY, "Tidy Layout")
        .separator()
        .item(&MenuItemBuilder::with_id(FULLSCREEN, "Full Screen").accelerator("F11").build(app)?);
    if cfg!(debug_assertions) {
        view = view.separator().item(
            &MenuItemBuilder::with_id(DEVTOOLS, "Developer Tools")
                .accelerator("CmdOrCtrl+Shift+I")
                .build(app)?,
        );
    }
    let info = app.package_info();
    let about = AboutMetadata {
        name: Some("Provex".into()),
        version: Some(info.version.to_string()),
        comments: Some("Explore and check the provenance of AI systems' output.".into()),
        license: Some("Apache-2.0".into()),
        ..Default::default()
    };
    let help = SubmenuBuilder::new(app, "Help")
        .text(SHORTCUTS, "Keyboard Shortcuts")
        .separator()
        .about(Some(about))
        .build()?;
    MenuBuilder::new(app).item(&file).item(&edit).item(&view.build()?).item(&help).build()
}

/// Rebuilds the menu (after the recent files changed).
pub fn refresh(app: &AppHandle) {
    match build(app) {
        Ok(menu) => {
            if let Err(e) = app.set_menu(menu) {
                tracing::warn!("cannot update the menu: {e}");
            }
        }
        Err(e) => tracing::warn!("cannot build the menu: {e}"),
    }
}

fn ask_page(app: &AppHandle, action: MenuAction) {
    let graph = app.state::<crate::shell::Shell>().current_graph();
    if let Err(e) = app.emit_to("main", events::MENU, MenuEvent { action, graph }) {
        tracing::warn!("cannot reach the window: {e}");
    }
}

/// File ▸ Open and Open Recent: the files become the most recent ones, then go into a new
/// graph.
fn open_files(app: &AppHandle, files: Vec<std::path::PathBuf>) {
    if files.is_empty() {
        return;
    }
    if let Ok(dir) = app.path().app_data_dir() {
        settings::add_recent(&dir, &files);
        refresh(app);
    }
    actions::ingest(app, files, Target::NewGraph);
}

/// Runs a menu item.
pub fn handle(app: &AppHandle, id: &str) {
    let app = app.clone();
    match id {
        OPEN => spawn(async move {
            let files = crate::dialogs::pick_files(&app, "Open Provenance Files").await;
            open_files(&app, files);
        }),
        IMPORT => spawn(async move {
            let files = crate::dialogs::pick_files(&app, "Import into the Current Graph").await;
            actions::ingest(&app, files, Target::Current);
        }),
        RECENT_CLEAR => {
            if let Ok(dir) = app.path().app_data_dir() {
                settings::save_recent(&dir, &[]);
            }
            refresh(&app);
        }
        EXPORT_JSON => spawn(async move { actions::export_json(&app).await }),
        EXPORT_SVG => ask_page(&app, MenuAction::ExportSvg),
        EXPORT_PNG => ask_page(&app, MenuAction::ExportPng),
        SHORTCUTS => ask_page(&app, MenuAction::Help),
        TIDY => ask_page(&app, MenuAction::Tidy),
        QUIT => app.exit(0),
        RELOAD => {
            if let Some(w) = app.get_webview_window("main") {
                let _ = w.reload();
            }
        }
        FULLSCREEN => {
            if let Some(w) = app.get_webview_window("main") {
                let on = w.is_fullscreen().unwrap_or(false);
                let _ = w.set_fullscreen(!on);
            }
        }
        #[cfg(debug_assertions)]
        DEVTOOLS => {
            if let Some(w) = app.get_webview_window("main") {
                if w.is_devtools_open() {
                    w.close_devtools();
                } else {
                    w.open_devtools();
                }
            }
        }
        other => {
            if let Some(i) = other.strip_prefix(RECENT_PREFIX).and_then(|i| i.parse::<usize>().ok()) {
                let recent = app.path().app_data_dir().map(|d| settings::load_recent(&d)).unwrap_or_default();
                if let Some(path) = recent.get(i).cloned() {
                    open_files(&app, vec![path]);
                }
            }
        }
    }
}

fn spawn(f: impl std::future::Future<Output = ()> + Send + 'static) {
    tauri::async_runtime::spawn(f);
}
