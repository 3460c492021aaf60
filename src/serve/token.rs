//! The per-launch token of `provex serve`: made at start when none is given (as Jupyter
//! does), and kept in a file only its owner can read, in the data folder, so that the same
//! user's tools (scripts, tests, `curl`) find it while no other user or web page can.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Bytes of randomness in a made token (written as hex: 48 characters).
const TOKEN_BYTES: usize = 24;

/// A new random token: 48 lowercase hex digits from the system's randomness.
pub(crate) fn generate() -> Result<String> {
    let mut bytes = [0u8; TOKEN_BYTES];
    getrandom::fill(&mut bytes).map_err(|e| Error::Server(format!("no randomness for a token: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Where the token of the server listening on `port` is kept, under the data folder `dir`.
pub fn token_file(dir: &Path, port: u16) -> PathBuf {
    dir.join(format!("serve-{port}.token"))
}

/// Creates `dir` (readable by its owner only when it is new).
fn make_dir(dir: &Path) -> Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir).map_err(|e| Error::io(dir, e))
}

/// Writes `text` to `path`, readable and writable by its owner only. The file is written
/// beside it first and then renamed over it, so a reader never sees part of it and a link
/// planted at `path` is replaced, not followed.
pub(crate) fn write_private(path: &Path, text: &str) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    make_dir(dir)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let written =
        opts.open(&tmp).and_then(|mut f| f.write_all(text.as_bytes())).map_err(|e| Error::io(&tmp, e));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(path, e)
    })
}

/// Removes `path` if it still holds `text` (a later server on the same port may have
/// replaced it).
pub(crate) fn remove_if_holds(path: &Path, text: &str) {
    if std::fs::read_to_string(path).is_ok_and(|t| t == text) {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_hex() {
        let (a, b) = (generate().unwrap(), generate().unwrap());
        assert_eq!(a.len(), 2 * TOKEN_BYTES);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()), "{a}");
        assert_ne!(a, b);
    }

    #[test]
    fn the_file_is_private_and_replaces_what_was_there() {
        let dir = tempfile::tempdir().unwrap();
        let path = token_file(&dir.path().join("new"), 7878);
        write_private(&path, "one").unwrap();
        write_private(&path, "two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
            assert_eq!(
                std::fs::metadata(path.parent().unwrap()).unwrap().permissions().mode() & 0o777,
                0o700
            );
            // A link planted where the file goes is replaced, and what it pointed at is untouched.
            let target = dir.path().join("target");
            std::fs::write(&target, "keep").unwrap();
            std::fs::remove_file(&path).unwrap();
            std::os::unix::fs::symlink(&target, &path).unwrap();
            write_private(&path, "three").unwrap();
            assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
            assert!(!std::fs::symlink_metadata(&path).unwrap().file_type().is_symlink());
        }
        remove_if_holds(&path, "not this");
        assert!(path.exists());
        remove_if_holds(&path, "three");
        assert!(!path.exists());
        assert_eq!(std::fs::read_dir(path.parent().unwrap()).unwrap().count(), 0, "no temporary file left");
    }
}
