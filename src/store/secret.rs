//! Only its owner reaches the private server: a random password in a file only the owner
//! can read (mode 0600, in a data folder of mode 0700), an ACL whose `default` user is off
//! (a connection that has not authenticated can run nothing), whose `provex` user may run
//! only the commands Provex sends, and the authenticated plain-socket commands Provex sends
//! before the store connects.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// The ACL user Provex connects as.
pub const USER: &str = "provex";
/// The user the owning process keeps for itself (turning the append-only file on in an
/// old data folder; tests that need `CONFIG` or `SAVE`). Its password is never written
/// anywhere: only the process that started the server knows it.
pub const ADMIN_USER: &str = "provex-admin";
/// The file holding the password, in the data folder.
pub const SECRET_FILE: &str = "server.secret";

/// Every command Provex sends to FalkorDB, in ACL notation: graph queries and bulk loads
/// (a bulk-built graph is renamed into place when complete: `RENAMENX`, which never
/// replaces a key), the durability barrier (`INCR` of its marker key, `WAITAOF`), `INFO` (replication and
/// server mode), `PING`, the client library's `CLIENT SETINFO` at connection time, and the
/// tamper-evident log's key reads and its compare-and-append script (`EVAL`; a script runs
/// with this user's rights, so it can do nothing the list does not grant), `MULTI`/`EXEC`
/// around a batch's append and upserts (`log.rs`), and on a Redis
/// Cluster what its clients send to find and follow the slots (`CLUSTER INFO`,
/// `CLUSTER SLOTS`, `ASKING`, and `READONLY` for reads from replicas).
/// Nothing administrative (`CONFIG`, `DEBUG`, `MODULE`, `ACL`, `SHUTDOWN`, `SAVE`, …).
pub const COMMANDS: &[&str] = &[
    "ping",
    "info",
    "client|setinfo",
    "incr",
    "waitaof",
    "graph.query",
    "graph.ro_query",
    "graph.list",
    "graph.delete",
    "graph.bulk",
    "renamenx",
    "strlen",
    "getrange",
    "append",
    "get",
    "set",
    "eval",
    "multi",
    "exec",
    "cluster|info",
    "cluster|slots",
    "asking",
    "readonly",
];

/// What a batch's transaction leaves in the append-only file (`MULTI`, the log's `APPEND`,
/// FalkorDB's writes as queries or effects, `EXEC`): the rights of the disabled default user
/// (see [`acl_args`]).
const REPLAYED: &[&str] = &["multi", "exec", "append", "graph.query", "graph.effect"];

/// The ACL rules of a user that may run exactly [`COMMANDS`] on every key and no channel.
pub fn rules() -> Vec<String> {
    let mut r: Vec<String> = ["~*", "resetchannels", "-@all"].map(String::from).to_vec();
    r.extend(COMMANDS.iter().map(|c| format!("+{c}")));
    r
}

/// The least-privilege user an administrator creates for Provex on a shared server, as the
/// README documents it (`PASSWORD` stands for the password).
pub fn shared_acl_line() -> String {
    format!("ACL SETUSER provex-app on >PASSWORD {}", rules().join(" "))
}

/// A password of a private server.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl Secret {
    /// A new random password (256 bits from the system's generator, as hex), kept in
    /// memory only.
    pub fn random() -> Result<Secret> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes)
            .map_err(|e| Error::Server(format!("no randomness for a password: {e}")))?;
        Ok(Secret(hex(&bytes)))
    }

    /// A new random password, written to the data folder's secret file (mode 0600; the
    /// folder is made 0700).
    pub fn create(dir: &Path) -> Result<Secret> {
        owner_only_dir(dir)?;
        let secret = Secret::random()?;
        let path = dir.join(SECRET_FILE);
        let tmp = dir.join(format!("{SECRET_FILE}.tmp"));
        let _ = std::fs::remove_file(&tmp);
        let mut file = owner_only_file(&tmp)?;
        file.write_all(secret.0.as_bytes()).map_err(|e| Error::io(&tmp, e))?;
        file.sync_all().map_err(|e| Error::io(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))?;
        Ok(secret)
    }

    /// The folder's password when it has one only its owner can read (so a client given
    /// the server's URL stays connected across restarts of Provex), else a new one.
    pub fn keep_or_create(dir: &Path) -> Result<Secret> {
        owner_only_dir(dir)?;
        let private = std::fs::metadata(dir.join(SECRET_FILE)).is_ok_and(|m| {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                m.is_file() && m.permissions().mode() & 0o077 == 0
            }
            #[cfg(not(unix))]
            m.is_file()
        });
        match private.then(|| Secret::read(dir)) {
            Some(Ok(secret)) => Ok(secret),
            _ => Secret::create(dir),
        }
    }

    /// The password the owner of this data folder wrote for its server.
    pub fn read(dir: &Path) -> Result<Secret> {
        let path = dir.join(SECRET_FILE);
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        let text = text.trim();
        if text.len() < 32 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Error::Server(format!("{}: not a password Provex wrote", path.display())));
        }
        Ok(Secret(text.to_owned()))
    }

    /// The password (for the connection URL; never logged: URLs are shown redacted).
    pub fn password(&self) -> &str {
        &self.0
    }

    fn hash(&self) -> String {
        format!("#{}", hex(&Sha256::digest(self.0.as_bytes())))
    }
}

/// The server arguments of the ACL: `default` off with no password and no command,
/// Provex's user with [`COMMANDS`], and the owner's admin user. Users are known by their
/// password's SHA-256 only (a process list shows the arguments).
pub fn acl_args(provex: &Secret, admin: &Secret) -> Vec<String> {
    // `resetpass`: no password and no `nopass`, so `AUTH default <anything>` fails and no
    // connection runs a command as `default`. Its rights are used by one client only: the one
    // that loads the append-only file at start, which Redis gives the default user's rights
    // when it replays a transaction's `EXEC` (a batch's log append and upserts, `log.rs`):
    // without them every transaction in the file is refused and the server starts without it.
    let mut args: Vec<String> = ["--user", "default", "off", "resetpass", "-@all"].map(String::from).to_vec();
    args.extend(REPLAYED.iter().map(|c| format!("+{c}")));
    args.push("~*".into());
    args.extend(["--user".into(), USER.into(), "on".into(), provex.hash()]);
    args.extend(rules());
    args.extend(["--user", ADMIN_USER, "on"].map(String::from));
    args.extend([admin.hash(), "~*".into(), "&*".into(), "+@all".into()]);
    args
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Makes `dir` (created if needed) readable by its owner only.
pub fn owner_only_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| Error::io(dir, e))?;
    }
    Ok(())
}

/// Creates a file only its owner can read and write.
fn owner_only_file(path: &Path) -> Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path).map_err(|e| Error::io(path, e))
}

/// The outcome of one authenticated command over a plain socket.
#[derive(Debug)]
pub(crate) enum Reply {
    /// The reply (a status line, an error, an integer, an array's header or one bulk string).
    Text(String),
    /// Connected, but the reply did not come in time (a server busy loading its data).
    Slow,
    /// No connection, or the server refused the password.
    No,
}

/// Sends `AUTH user password` and one command over a plain socket and reads the command's
/// reply as text.
pub(crate) fn roundtrip(port: u16, user: &str, secret: &Secret, args: &[&str], timeout: Duration) -> Reply {
    let Ok(s) = std::net::TcpStream::connect(("127.0.0.1", port)) else { return Reply::No };
    if s.set_read_timeout(Some(timeout)).is_err() {
        return Reply::No;
    }
    let mut out = Vec::new();
    for cmd in [&["AUTH", user, secret.password()][..], args] {
        out.extend_from_slice(format!("*{}\r\n", cmd.len()).as_bytes());
        for a in cmd {
            out.extend_from_slice(format!("${}\r\n{a}\r\n", a.len()).as_bytes());
        }
    }
    if (&s).write_all(&out).is_err() {
        return Reply::No;
    }
    let mut reader = BufReader::new(&s);
    match read_reply(&mut reader) {
        Ok(Some(auth)) if auth.starts_with("+OK") => {}
        Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
            return Reply::Slow
        }
        _ => return Reply::No,
    }
    match read_reply(&mut reader) {
        Ok(Some(text)) => Reply::Text(text),
        Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
            Reply::Slow
        }
        _ => Reply::No,
    }
}

fn read_reply(reader: &mut impl BufRead) -> std::io::Result<Option<String>> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    if let Some(len) = line.strip_prefix('$') {
        let Ok(len) = len.trim().parse::<i64>() else { return Ok(None) };
        if len < 0 {
            return Ok(Some(line));
        }
        let mut body = vec![0u8; len as usize + 2];
        reader.read_exact(&mut body)?;
        body.truncate(len as usize);
        return Ok(Some(String::from_utf8_lossy(&body).into_owned()));
    }
    if let Some(n) = line.strip_prefix('*') {
        // An array (GRAPH.LIST): read its elements, answer its header line.
        let n: i64 = n.trim().parse().unwrap_or(0);
        for _ in 0..n.max(0) {
            if read_reply(reader)?.is_none() {
                return Ok(None);
            }
        }
    }
    Ok(Some(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_secret_file_and_folder_are_the_owners_only() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("falkordb");
        let secret = Secret::create(&data).unwrap();
        assert_eq!(secret.password().len(), 64);
        assert_eq!(Secret::read(&data).unwrap(), secret);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&data), 0o700);
            assert_eq!(mode(&data.join(SECRET_FILE)), 0o600);
        }
        // A new start keeps it while only the owner can read it…
        assert_eq!(Secret::keep_or_create(&data).unwrap(), secret);
        // …and makes a new one when others could have read it.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let file = data.join(SECRET_FILE);
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
            let fresh = Secret::keep_or_create(&data).unwrap();
            assert_ne!(fresh, secret);
            assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
        }
        let again = Secret::create(&data).unwrap();
        assert_ne!(again, secret);
        assert_eq!(Secret::read(&data).unwrap(), again);
        // The arguments carry hashes, never a password.
        let admin = Secret::random().unwrap();
        let args = acl_args(&again, &admin).join(" ");
        assert!(!args.contains(again.password()) && !args.contains(admin.password()));
        assert!(args.contains(&hex(&Sha256::digest(again.password().as_bytes()))));
        assert!(
            args.starts_with(
                "--user default off resetpass -@all +multi +exec +append +graph.query +graph.effect ~* --user provex on #"
            ),
            "{args}"
        );
        assert!(format!("{again:?}").contains("***") && !format!("{again:?}").contains(again.password()));
    }

    #[test]
    fn a_file_that_is_not_a_password_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(SECRET_FILE), "short").unwrap();
        let e = Secret::read(dir.path()).unwrap_err().to_string();
        assert!(e.contains("not a password Provex wrote"), "{e}");
    }

    #[test]
    fn the_least_privilege_rules_grant_no_administration() {
        let line = shared_acl_line();
        assert!(line.starts_with("ACL SETUSER provex-app on >PASSWORD ~* resetchannels -@all +ping"));
        for admin in ["config", "debug", "module", "acl", "shutdown", "save", "flushall", "monitor", "@all"] {
            assert!(!line.split(' ').any(|w| w == format!("+{admin}")), "{admin} in {line}");
        }
    }
}
