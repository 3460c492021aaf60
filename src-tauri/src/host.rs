//! What only the desktop can do for the core's operations (`provex::facade::DesktopHost`):
//! the settings in the app's config folder, native save dialogs, and knowing which graph
//! the window shows (the menu's actions act on it).

use futures_util::future::BoxFuture;
use provex::api::{SettingsUpdate, SettingsView};
use provex::facade::DesktopHost;
use provex::{Error, Result};
use tauri::{AppHandle, Manager};

use crate::settings::Settings;
use crate::shell::Shell;
use crate::{dialogs, ops};

/// The desktop host of one call.
pub struct Host {
    app: AppHandle,
}

impl Host {
    pub fn new(app: AppHandle) -> Host {
        Host { app }
    }

    fn config_dir(&self) -> Result<std::path::PathBuf> {
        self.app.path().app_config_dir().map_err(|e| Error::Usage(format!("no config folder: {e}")))
    }
}

impl DesktopHost for Host {
    fn settings(&self) -> Result<SettingsView> {
        let dir = self.config_dir()?;
        Ok(Settings::load(&dir).view(&dir))
    }

    fn save_settings(&self, update: SettingsUpdate) -> Result<SettingsView> {
        let dir = self.config_dir()?;
        let mut s = Settings::load(&dir);
        s.update(update);
        s.save(&dir).map_err(|e| Error::Io { path: dir.join(crate::settings::SETTINGS_FILE), source: e })?;
        Ok(s.view(&dir))
    }

    fn save_file(&self, name: String, bytes: Vec<u8>) -> BoxFuture<'_, Result<Option<String>>> {
        Box::pin(async move {
            let Some(path) = dialogs::save_path(&self.app, &name).await else { return Ok(None) };
            ops::save_bytes(&path, &bytes).await?;
            Ok(Some(path.display().to_string()))
        })
    }

    fn showing(&self, graph: &str) {
        self.app.state::<Shell>().set_current_graph(graph);
    }
}
