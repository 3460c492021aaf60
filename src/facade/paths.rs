//! Which folders `follow` and `upload` may read and write. On loopback anything the user
//! can reach is allowed (the user is on this machine); a server bound to another address
//! is limited to the data folder and the folders given with `provex serve --allow-dir`, so
//! a remote client cannot make it read or write elsewhere. Paths are compared after
//! resolving symlinks and `..`.

use std::path::{Path, PathBuf};
use std::sync::RwLock;

use crate::error::{Error, Result};

/// The folders allowed, or `None` for no limit.
#[derive(Default)]
pub(super) struct PathPolicy {
    allowed: RwLock<Option<Vec<PathBuf>>>,
}

impl PathPolicy {
    /// Limits paths to `roots` (each must be an existing folder).
    pub fn restrict(&self, roots: &[PathBuf]) -> Result<()> {
        let mut canonical = Vec::with_capacity(roots.len());
        for root in roots {
            let c = root.canonicalize().map_err(|e| Error::io(root, e))?;
            if !c.is_dir() {
                return Err(Error::Usage(format!("{} is not a folder", root.display())));
            }
            if !canonical.contains(&c) {
                canonical.push(c);
            }
        }
        *self.allowed.write().expect("path policy") = Some(canonical);
        Ok(())
    }

    /// The allowed folders, when limited.
    pub fn allowed(&self) -> Option<Vec<PathBuf>> {
        self.allowed.read().expect("path policy").clone()
    }

    /// `path` resolved (symlinks and `..`), when it lies inside an allowed folder; `what`
    /// names it in the error. Without a limit the path is returned as given. A missing path
    /// gets the same answer as one outside, so the answer does not tell what exists there.
    pub fn check(&self, path: &Path, what: &str) -> Result<PathBuf> {
        let Some(roots) = self.allowed() else {
            return Ok(path.to_owned());
        };
        if let Ok(real) = path.canonicalize() {
            if roots.iter().any(|r| real.starts_with(r)) {
                return Ok(real);
            }
        }
        let list = if roots.is_empty() {
            "none".to_owned()
        } else {
            roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ")
        };
        Err(Error::ForbiddenPath(format!(
            "{what} {} is not inside the folders this server may use ({list}); \
             a server on a non-loopback address reads and writes only in its data folder \
             and the folders given with `provex serve --allow-dir`",
            path.display()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unlimited_until_restricted() {
        let p = PathPolicy::default();
        assert_eq!(p.check(Path::new("/etc/passwd"), "file").unwrap(), PathBuf::from("/etc/passwd"));
        assert_eq!(p.allowed(), None);
    }

    #[test]
    fn inside_outside_dotdot_and_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let allowed = dir.path().join("allowed");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(allowed.join("sub")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(allowed.join("sub/in.jsonl"), "").unwrap();
        std::fs::write(outside.join("out.jsonl"), "").unwrap();
        std::os::unix::fs::symlink(outside.join("out.jsonl"), allowed.join("link.jsonl")).unwrap();
        std::os::unix::fs::symlink(&outside, allowed.join("linkdir")).unwrap();

        let p = PathPolicy::default();
        p.restrict(std::slice::from_ref(&allowed)).unwrap();
        let real = allowed.canonicalize().unwrap();
        assert_eq!(p.check(&allowed.join("sub/in.jsonl"), "file").unwrap(), real.join("sub/in.jsonl"));
        assert_eq!(p.check(&allowed.join("sub/../sub/in.jsonl"), "file").unwrap(), real.join("sub/in.jsonl"));
        for bad in [
            outside.join("out.jsonl"),
            allowed.join("../outside/out.jsonl"),
            allowed.join("link.jsonl"),
            allowed.join("linkdir/out.jsonl"),
            allowed.join("missing.jsonl"),
            PathBuf::from("/etc/passwd"),
        ] {
            let e = p.check(&bad, "the file to follow").unwrap_err();
            let Error::ForbiddenPath(msg) = &e else { panic!("{e:?}") };
            assert_eq!(
                msg,
                &format!(
                    "the file to follow {} is not inside the folders this server may use ({}); \
                     a server on a non-loopback address reads and writes only in its data folder \
                     and the folders given with `provex serve --allow-dir`",
                    bad.display(),
                    real.display()
                )
            );
        }
    }

    #[test]
    fn allowed_folders_must_exist() {
        let p = PathPolicy::default();
        assert!(matches!(p.restrict(&[PathBuf::from("/no/such/folder/here")]), Err(Error::Io { .. })));
        assert_eq!(p.allowed(), None);
    }
}
