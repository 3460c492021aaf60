//! The desktop settings (`settings.json` in the app's config folder): which FalkorDB to use.
//! No `url` means the private server in the app's data folder. Also the recent files list
//! (`recent.json` in the app's data folder).

use std::path::{Path, PathBuf};

pub use provex::api::{SettingsUpdate, SettingsView};
use provex::openai::{self, Endpoint};
use serde::{Deserialize, Serialize};

/// Settings as stored. The password is kept in the file (readable only by the user).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// A shared FalkorDB: `host`, `host:port`, or a `redis://` / `rediss://` URL.
    pub url: Option<String>,
    pub user: Option<String>,
    pub password: Option<String>,
    /// Connect over TLS (`rediss://`).
    pub tls: bool,
    /// The embeddings endpoint of lineage confidences (prompt lineage), its model and key.
    pub embeddings_url: Option<String>,
    pub embeddings_model: Option<String>,
    pub embeddings_key: Option<String>,
    /// The chat endpoint of questions in plain language (`ask`), its model and key.
    pub llm_url: Option<String>,
    pub llm_model: Option<String>,
    pub llm_key: Option<String>,
}

pub const SETTINGS_FILE: &str = "settings.json";
const RECENT_FILE: &str = "recent.json";
/// Most recent files remembered.
pub const MAX_RECENT: usize = 10;

fn non_empty(s: Option<String>) -> Option<String> {
    s.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty())
}

impl Settings {
    /// Reads the settings; missing or unreadable settings are the defaults (logged).
    pub fn load(config_dir: &Path) -> Settings {
        let path = config_dir.join(SETTINGS_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).unwrap_or_else(|e| {
                tracing::warn!("{}: {e}; using the defaults", path.display());
                Settings::default()
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Settings::default(),
            Err(e) => {
                tracing::warn!("{}: {e}; using the defaults", path.display());
                Settings::default()
            }
        }
    }

    /// Writes the settings, readable by the user only (they may hold a password).
    pub fn save(&self, config_dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(config_dir)?;
        let path = config_dir.join(SETTINGS_FILE);
        let tmp = config_dir.join(format!("{SETTINGS_FILE}.tmp"));
        let text = serde_json::to_string_pretty(self).expect("settings serialise");
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        {
            use std::io::Write;
            let mut f = opts.open(&tmp)?;
            f.write_all(text.as_bytes())?;
            f.sync_all()?;
        }
        std::fs::rename(&tmp, &path)
    }

    pub fn view(&self, config_dir: &Path) -> SettingsView {
        SettingsView {
            url: self.url.clone(),
            user: self.user.clone(),
            has_password: self.password.as_deref().is_some_and(|p| !p.is_empty()),
            tls: self.tls,
            embeddings_url: self.embeddings_url.clone(),
            embeddings_model: self.embeddings_model.clone(),
            has_embeddings_key: self.embeddings_key.as_deref().is_some_and(|k| !k.is_empty()),
            llm_url: self.llm_url.clone(),
            llm_model: self.llm_model.clone(),
            has_llm_key: self.llm_key.as_deref().is_some_and(|k| !k.is_empty()),
            file: config_dir.join(SETTINGS_FILE).display().to_string(),
        }
    }

    /// Applies a window's update.
    pub fn update(&mut self, u: SettingsUpdate) {
        self.url = non_empty(u.url);
        self.user = non_empty(u.user);
        match u.password {
            None => {}
            Some(p) if p.is_empty() => self.password = None,
            Some(p) => self.password = Some(p),
        }
        self.tls = u.tls;
        self.embeddings_url = non_empty(u.embeddings_url);
        self.embeddings_model = non_empty(u.embeddings_model);
        match u.embeddings_key {
            None => {}
            Some(k) if k.is_empty() => self.embeddings_key = None,
            Some(k) => self.embeddings_key = Some(k),
        }
        self.llm_url = non_empty(u.llm_url);
        self.llm_model = non_empty(u.llm_model);
        match u.llm_key {
            None => {}
            Some(k) if k.is_empty() => self.llm_key = None,
            Some(k) => self.llm_key = Some(k),
        }
    }

    /// The chat endpoint the settings name, if any (else the environment's is used).
    pub fn llm(&self) -> Option<provex::ask::LlmConfig> {
        let (url, model, key) = (self.llm_url.clone(), self.llm_model.clone(), self.llm_key.clone());
        Endpoint::configured(&openai::CHAT, url, model, key)
    }

    /// The embeddings endpoint the settings name, if any (else the environment's is used).
    pub fn embeddings(&self) -> Option<provex::sources::lineage::embeddings::EmbeddingsConfig> {
        let (url, model, key) =
            (self.embeddings_url.clone(), self.embeddings_model.clone(), self.embeddings_key.clone());
        Endpoint::configured(&openai::EMBEDDINGS, url, model, key)
    }

    /// The URL of the shared server, or `None` for the private one. Built and edited with
    /// the `url` crate: a bare `host` or `host:port` (IPv6 in brackets) gets the default
    /// port, and the configured user and password replace any in the URL, percent-encoded.
    /// Text that is no URL is passed on as typed, for the connection to refuse with its
    /// reason.
    pub fn database_url(&self) -> Option<String> {
        let raw = self.url.as_deref().map(str::trim).filter(|s| !s.is_empty())?;
        let (scheme, rest, bare) = match raw.split_once("://") {
            // A full URL: its scheme is kept unless TLS is asked for.
            Some((s, rest)) => {
                let tls = self.tls || s.eq_ignore_ascii_case("rediss");
                (if tls { "rediss" } else { "redis" }, rest, false)
            }
            None => (if self.tls { "rediss" } else { "redis" }, raw, true),
        };
        let text = format!("{scheme}://{rest}");
        let Ok(mut url) = url::Url::parse(&text) else {
            return Some(text);
        };
        if bare && url.port().is_none() && url.set_port(Some(DEFAULT_PORT)).is_err() {
            return Some(text);
        }
        if with_credentials(&mut url, self.user.as_deref(), self.password.as_deref()).is_err() {
            return Some(text);
        }
        Some(url.to_string())
    }
}

/// FalkorDB's (Redis's) port.
const DEFAULT_PORT: u16 = 6379;

/// Puts the configured credentials in `url` (percent-encoded by the `url` crate); with none
/// configured, those already in the URL are kept.
fn with_credentials(url: &mut url::Url, user: Option<&str>, password: Option<&str>) -> Result<(), ()> {
    let user = user.filter(|u| !u.is_empty());
    let password = password.filter(|p| !p.is_empty());
    if user.is_none() && password.is_none() {
        return Ok(());
    }
    url.set_username(user.unwrap_or(""))?;
    url.set_password(password)
}

/// The recently opened files, newest first.
pub fn load_recent(data_dir: &Path) -> Vec<PathBuf> {
    std::fs::read_to_string(data_dir.join(RECENT_FILE))
        .ok()
        .and_then(|t| serde_json::from_str::<Vec<PathBuf>>(&t).ok())
        .unwrap_or_default()
}

/// Puts `files` first in the recent list and saves it; returns the new list.
pub fn add_recent(data_dir: &Path, files: &[PathBuf]) -> Vec<PathBuf> {
    let mut recent = load_recent(data_dir);
    for f in files.iter().rev() {
        recent.retain(|r| r != f);
        recent.insert(0, f.clone());
    }
    recent.truncate(MAX_RECENT);
    save_recent(data_dir, &recent);
    recent
}

pub fn save_recent(data_dir: &Path, recent: &[PathBuf]) {
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(data_dir)?;
        std::fs::write(
            data_dir.join(RECENT_FILE),
            serde_json::to_string_pretty(recent).expect("paths serialise"),
        )
    };
    if let Err(e) = write() {
        tracing::warn!("cannot save the recent files: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(url: &str, user: Option<&str>, password: Option<&str>, tls: bool) -> Settings {
        Settings {
            url: Some(url.into()),
            user: user.map(Into::into),
            password: password.map(Into::into),
            tls,
            ..Default::default()
        }
    }

    #[test]
    fn urls_from_settings() {
        assert_eq!(Settings::default().database_url(), None);
        assert_eq!(s("  ", None, None, false).database_url(), None);
        assert_eq!(s("db.example", None, None, false).database_url().unwrap(), "redis://db.example:6379");
        assert_eq!(
            s("db.example:7000", None, None, true).database_url().unwrap(),
            "rediss://db.example:7000"
        );
        assert_eq!(s("[::1]", None, None, false).database_url().unwrap(), "redis://[::1]:6379");
        assert_eq!(
            s("db.example", Some("ann"), Some("p@ss:w/rd"), false).database_url().unwrap(),
            "redis://ann:p%40ss%3Aw%2Frd@db.example:6379"
        );
        assert_eq!(
            s("db.example", None, Some("pw"), false).database_url().unwrap(),
            "redis://:pw@db.example:6379"
        );
        assert_eq!(s("redis://h:1/0", None, None, true).database_url().unwrap(), "rediss://h:1/0");
        assert_eq!(s("rediss://h:1", None, None, false).database_url().unwrap(), "rediss://h:1");
        assert_eq!(
            s("redis://old:pw@h:1", Some("new"), Some("x"), false).database_url().unwrap(),
            "redis://new:x@h:1"
        );
        assert_eq!(s("redis://old:pw@h:1", None, None, false).database_url().unwrap(), "redis://old:pw@h:1");
    }

    /// Issue 11 §3.6: the same URLs built with the `url` crate, on the cases hand-written
    /// editing got wrong or never saw.
    #[test]
    fn urls_with_ipv6_hosts_odd_passwords_and_tls() {
        let url = |raw: &str, user: Option<&str>, password: Option<&str>, tls: bool| {
            s(raw, user, password, tls).database_url().unwrap()
        };
        // IPv6 hosts, bare or in URLs, with and without ports and credentials.
        assert_eq!(url("[::1]:7000", None, None, false), "redis://[::1]:7000");
        assert_eq!(url("[2001:DB8::1]", Some("ann"), Some("pw"), true), "rediss://ann:pw@[2001:db8::1]:6379");
        assert_eq!(url("redis://[::1]", None, None, false), "redis://[::1]");
        assert_eq!(url("redis://u:p@[::1]:7000/2", Some("v"), None, false), "redis://v@[::1]:7000/2");
        // Passwords and users with @ : / and other reserved characters.
        assert_eq!(url("h:1", Some("a@b"), Some("p@:/#?x"), false), "redis://a%40b:p%40%3A%2F%23%3Fx@h:1");
        assert_eq!(url("redis://h:1/0", None, Some("@@"), false), "redis://:%40%40@h:1/0");
        // A password with an unencoded @ in the URL itself: the last @ ends the user info.
        assert_eq!(url("redis://u:p@ss@h:1", Some("n"), Some("x"), false), "redis://n:x@h:1");
        // rediss:// kept, asked for, or implied by the TLS switch; other schemes become redis.
        assert_eq!(url("REDISS://h", None, None, false), "rediss://h");
        assert_eq!(url("rediss://a:b@h:1", None, None, true), "rediss://a:b@h:1");
        assert_eq!(url("h", None, None, true), "rediss://h:6379");
        assert_eq!(url("http://h:1", None, None, false), "redis://h:1");
        // Not a URL: passed on as typed, for the connection to refuse.
        assert_eq!(url("h:notaport", None, None, false), "redis://h:notaport");
        assert_eq!(url("[::1", Some("u"), None, false), "redis://[::1");
    }

    #[test]
    fn settings_round_trip_and_hide_the_password() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Settings::load(dir.path()), Settings::default());
        let mut st = Settings::default();
        st.update(SettingsUpdate {
            url: Some(" db:1 ".into()),
            user: Some("".into()),
            password: Some("pw".into()),
            tls: true,
            ..Default::default()
        });
        st.save(dir.path()).unwrap();
        let loaded = Settings::load(dir.path());
        assert_eq!(loaded, st);
        assert_eq!(loaded.url.as_deref(), Some("db:1"));
        assert_eq!(loaded.user, None);
        let v = loaded.view(dir.path());
        assert!(v.has_password);
        assert!(!serde_json::to_string(&v).unwrap().contains("pw\""));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(SETTINGS_FILE)).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0);
        }
        // No password in an update keeps it; an empty one clears it.
        let mut st2 = loaded.clone();
        st2.update(SettingsUpdate {
            url: None,
            user: None,
            password: None,
            tls: false,
            ..Default::default()
        });
        assert_eq!(st2.password.as_deref(), Some("pw"));
        st2.update(SettingsUpdate { password: Some(String::new()), ..Default::default() });
        assert_eq!(st2.password, None);
        // The embeddings endpoint, its key kept like the password.
        assert_eq!(st2.embeddings(), None);
        st2.update(SettingsUpdate {
            embeddings_url: Some(" http://127.0.0.1:9/v1 ".into()),
            embeddings_key: Some("k".into()),
            ..Default::default()
        });
        let e = st2.embeddings().unwrap();
        assert_eq!(
            (e.url.as_str(), e.model.as_str(), e.key.as_deref()),
            ("http://127.0.0.1:9/v1", "text-embedding-3-small", Some("k"))
        );
        assert!(st2.view(dir.path()).has_embeddings_key);
        st2.update(SettingsUpdate { embeddings_url: Some("http://h".into()), ..Default::default() });
        assert_eq!(st2.embeddings_key.as_deref(), Some("k"), "absent keeps the key");
        // The chat endpoint of `ask`, the same way.
        assert_eq!(st2.llm(), None);
        st2.update(SettingsUpdate {
            llm_url: Some(" http://127.0.0.1:11434/v1 ".into()),
            llm_model: Some("llama3.1".into()),
            llm_key: Some("lk".into()),
            ..Default::default()
        });
        let l = st2.llm().unwrap();
        assert_eq!(
            (l.url.as_str(), l.model.as_str(), l.key.as_deref()),
            ("http://127.0.0.1:11434/v1", "llama3.1", Some("lk"))
        );
        assert!(st2.view(dir.path()).has_llm_key);
        st2.update(SettingsUpdate { llm_url: Some("http://h".into()), ..Default::default() });
        assert_eq!((st2.llm_key.as_deref(), st2.llm().unwrap().model.as_str()), (Some("lk"), "gpt-4o-mini"));
    }

    #[test]
    fn recent_files_are_newest_first_without_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        let p = |s: &str| PathBuf::from(s);
        add_recent(dir.path(), &[p("/a"), p("/b")]);
        let r = add_recent(dir.path(), &[p("/c"), p("/a")]);
        assert_eq!(r, vec![p("/c"), p("/a"), p("/b")]);
        for i in 0..20 {
            add_recent(dir.path(), &[p(&format!("/f{i}"))]);
        }
        let r = load_recent(dir.path());
        assert_eq!(r.len(), MAX_RECENT);
        assert_eq!(r[0], p("/f19"));
    }
}
