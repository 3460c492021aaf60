//! The Provex desktop shell: one window showing the explorer UI (`ui/`), whose backend is
//! the core's facade called over Tauri IPC (`ui/src/api/tauri.ts` ⇄ `commands`). At launch
//! the facade opens in the background (the private FalkorDB in the app's data folder, or
//! the server in the settings); at exit jobs and ingests stop and the facade is dropped,
//! which stops the private server.

// The facade's futures (the falkordb client's) nest deeply.
#![recursion_limit = "256"]

mod actions;
pub mod commands;
mod dialogs;
pub mod host;
mod menu;
pub mod ops;
pub mod settings;
pub mod shell;
pub mod stream;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use provex::facade::{ConnectOptions, Provex};
use provex::store::server::{ServerOptions, BIN_DIR_ENV};
use tauri::webview::{DownloadEvent, PageLoadEvent};
use tauri::{DragDropEvent, Manager, RunEvent, WindowEvent};

use crate::settings::Settings;
use crate::shell::Shell;

/// How long the first start waits for the council demo before showing the window's graphs.
const FIRST_RUN_WAIT: Duration = Duration::from_secs(60);

/// Where the FalkorDB files are bundled: `falkordb/` in the app's resources (the .deb puts
/// them in `/usr/lib/Provex/falkordb/`), or beside the executable in a development build.
fn bundled_falkordb(resource_dir: Option<PathBuf>) -> Option<PathBuf> {
    let exe_dir = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf));
    [resource_dir, exe_dir]
        .into_iter()
        .flatten()
        .map(|d| d.join("falkordb"))
        .find(|d| d.join("redis-server").is_file() && d.join("falkordb.so").is_file())
}

/// Where the facade connects: the server in the settings, else the private server in the
/// app's data folder (or in `$PROVEX_DATA_DIR`, as the CLI has it, when that is set).
fn connect_options(settings: &Settings, app_data_dir: &Path) -> provex::Result<ConnectOptions> {
    if let Some(url) = settings.database_url() {
        return Ok(ConnectOptions { url: Some(url), server: None });
    }
    let server = if std::env::var_os("PROVEX_DATA_DIR").is_some() {
        ServerOptions::app_default()?
    } else {
        ServerOptions { data_dir: app_data_dir.join("falkordb"), persist: true, port: None }
    };
    Ok(ConnectOptions { url: None, server: Some(server) })
}

/// Opens the facade on a thread of its own that lives as long as the app: the private
/// server is started from it, and on Linux the server gets SIGTERM when the thread that
/// started it ends, so it must not be a pool thread that may end early.
fn open_facade(app: &tauri::AppHandle) -> tauri::Result<()> {
    let config_dir = app.path().app_config_dir()?;
    let data_dir = app.path().app_data_dir()?;
    let settings = Settings::load(&config_dir);
    let handle = app.clone();
    std::thread::Builder::new().name("provex-db".into()).spawn(move || {
        let shell = handle.state::<Shell>();
        let opened = tauri::async_runtime::block_on(async {
            let opts = connect_options(&settings, &data_dir)?;
            let p = Arc::new(Provex::open(opts).await?);
            if let Some(e) = settings.embeddings() {
                p.set_embeddings(Some(e));
            }
            if let Some(l) = settings.llm() {
                p.set_llm(Some(l));
            }
            tracing::info!("Provex uses {}", p.url());
            match ops::first_run(&p, FIRST_RUN_WAIT).await {
                Ok(Some(job)) => tracing::info!("first start: council demo {:?}", job.state),
                Ok(None) => {}
                Err(e) => tracing::warn!("first start: council demo failed: {e}"),
            }
            Ok::<_, provex::Error>(p)
        });
        if let Err(e) = &opened {
            tracing::error!("cannot open Provex: {e}");
        }
        shell.set_facade(opened.map_err(commands::api));
        // Lives until the process ends (see above).
        loop {
            std::thread::park();
        }
    })?;
    Ok(())
}

/// The main window, as configured in tauri.conf.json (`create: false` there so it can get
/// a download hook here): a download the page starts (a picture of the graph, a selection)
/// goes to the Downloads folder, or the home folder without one, and the page is told.
fn create_window(app: &tauri::AppHandle) -> tauri::Result<()> {
    let config = app.config().app.windows.iter().find(|w| w.label == "main").cloned().unwrap_or_default();
    let handle = app.clone();
    tauri::WebviewWindowBuilder::from_config(app, &config)?
        .on_download(move |_webview, event| {
            match event {
                // No Downloads folder: the home folder rather than the working directory.
                DownloadEvent::Requested { destination, .. } if handle.path().download_dir().is_err() => {
                    if let (Ok(home), Some(name)) = (handle.path().home_dir(), destination.file_name()) {
                        *destination = home.join(name);
                    }
                }
                DownloadEvent::Finished { path, success, .. } => {
                    let where_ = path
                        .map(|p| p.display().to_string())
                        .unwrap_or_else(|| "the Downloads folder".into());
                    if success {
                        actions::notify(&handle, provex::api::NoticeLevel::Info, format!("Saved {where_}"));
                    } else {
                        actions::notify(
                            &handle,
                            provex::api::NoticeLevel::Error,
                            format!("Could not save {where_}"),
                        );
                    }
                }
                _ => {}
            }
            true
        })
        .build()?;
    Ok(())
}

pub fn run() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();

    let context = tauri::generate_context!();
    // The core finds the FalkorDB binaries through $PROVEX_FALKORDB_BIN first; point it at
    // the bundled ones before any thread starts (unless the user set it).
    if std::env::var_os(BIN_DIR_ENV).is_none() {
        let resources =
            tauri::utils::platform::resource_dir(context.package_info(), &tauri::utils::Env::default()).ok();
        if let Some(dir) = bundled_falkordb(resources) {
            std::env::set_var(BIN_DIR_ENV, &dir);
        }
    }

    let app = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_window_state::Builder::default().build())
        .manage(Shell::default())
        .menu(menu::build)
        .on_menu_event(|app, event| menu::handle(app, event.id().as_ref()))
        .on_window_event(|window, event| {
            if let WindowEvent::DragDrop(DragDropEvent::Drop { paths, .. }) = event {
                let files: Vec<PathBuf> = paths.iter().filter(|p| p.is_file()).cloned().collect();
                actions::ingest(window.app_handle(), files, actions::Target::Current);
            }
        })
        .on_page_load(|webview, payload| {
            // A new page: the old page's channels are gone.
            if payload.event() == PageLoadEvent::Started {
                webview.state::<Shell>().unsubscribe_webview(webview.label());
            }
        })
        .setup(|app| {
            create_window(app.handle())?;
            open_facade(app.handle())?;
            Ok(())
        })
        // The commands are the ones declared in the core (src-tauri/src/command_names.rs is
        // generated from provex::api::ops; a test checks the two lists agree).
        .invoke_handler(tauri::generate_handler![commands::call, commands::subscribe, commands::unsubscribe])
        .build(context)
        .expect("the Provex window could not start");

    app.run(|app, event| {
        if let RunEvent::Exit = event {
            // Stops jobs and ingests (also one in progress) and drops the facade, which
            // stops the private server after it saved its data.
            app.state::<Shell>().shutdown();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_options_follow_the_settings() {
        let dir = Path::new("/data/app");
        let shared = Settings { url: Some("db:7000".into()), ..Default::default() };
        let o = connect_options(&shared, dir).unwrap();
        assert_eq!(o.url.as_deref(), Some("redis://db:7000"));
        assert!(o.server.is_none());
        if std::env::var_os("PROVEX_DATA_DIR").is_none() {
            let o = connect_options(&Settings::default(), dir).unwrap();
            assert!(o.url.is_none());
            let s = o.server.unwrap();
            assert_eq!(s.data_dir, dir.join("falkordb"));
            assert!(s.persist);
            assert!(s.port.is_none());
        }
    }

    #[test]
    fn bundled_binaries_need_both_files() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(bundled_falkordb(Some(dir.path().to_owned())), None);
        let fdb = dir.path().join("falkordb");
        std::fs::create_dir_all(&fdb).unwrap();
        std::fs::write(fdb.join("redis-server"), "").unwrap();
        assert_eq!(bundled_falkordb(Some(dir.path().to_owned())), None);
        std::fs::write(fdb.join("falkordb.so"), "").unwrap();
        assert_eq!(bundled_falkordb(Some(dir.path().to_owned())), Some(fdb));
    }
}
