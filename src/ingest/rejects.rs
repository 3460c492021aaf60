//! The rejected-records file: every line that could not be ingested, with its file, line
//! and reason, written where the user can read it and fix or replay it. A row keeps a
//! bounded excerpt of the line with its length and SHA-256 (never the whole line, which may
//! be megabytes of control characters that JSON escaping makes six times larger), and the
//! file stops growing at a per-ingest quota: past it rejections are counted, not written,
//! and the file's last line says how many (docs/FORMATS.md, "Rejected records").

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// How much of a rejected line a row keeps, in bytes of the line.
pub const EXCERPT_BYTES: usize = 1024;

/// The default quota of one ingest's rejects file: 16 MiB.
pub const DEFAULT_QUOTA: u64 = 16 << 20;

/// One rejected record.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Rejected {
    pub file: PathBuf,
    pub line: u64,
    pub reason: String,
    /// The line's first [`EXCERPT_BYTES`] bytes as text (invalid UTF-8 replaced by U+FFFD).
    pub text: String,
    /// The line's length in bytes (without its newline).
    pub bytes: u64,
    /// `sha256:<hex>` of the whole line, so that a copy of it can be recognised.
    pub sha256: String,
}

impl Rejected {
    /// A rejected line held whole.
    pub fn new(file: PathBuf, line: u64, reason: String, bytes: &[u8]) -> Rejected {
        Rejected::from_parts(file, line, reason, bytes, bytes.len() as u64, &Sha256::digest(bytes).into())
    }

    /// A rejected line of which only `head` was kept; `len` and `digest` are the whole line's.
    pub fn from_parts(
        file: PathBuf,
        line: u64,
        reason: String,
        head: &[u8],
        len: u64,
        digest: &[u8; 32],
    ) -> Rejected {
        let mut text = String::from_utf8_lossy(&head[..head.len().min(EXCERPT_BYTES)]).into_owned();
        // A multi-byte character cut at the end shows as U+FFFD; that is the excerpt's end.
        if head.len() > EXCERPT_BYTES && text.ends_with('\u{fffd}') {
            text.pop();
        }
        Rejected { file, line, reason, text, bytes: len, sha256: format!("sha256:{}", hex(digest)) }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl std::fmt::Display for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file.display(), self.line, self.reason)
    }
}

/// Writes rejected records as JSON lines, creating the file at the first rejection.
pub struct RejectsFile {
    path: PathBuf,
    out: Option<BufWriter<File>>,
    count: u64,
    written: u64,
    quota: u64,
    /// Rejections past the quota: counted, not written.
    unwritten: u64,
    closed: bool,
}

impl RejectsFile {
    /// `<input>.rejected.jsonl` next to the input. A file left by an earlier run of the
    /// same input is removed, so what is there afterwards speaks of this run only.
    pub fn beside(input: &Path) -> Self {
        let mut name = input.file_name().unwrap_or_default().to_os_string();
        name.push(".rejected.jsonl");
        Self::at(input.with_file_name(name))
    }

    /// A rejects file at an explicit path (shared by all inputs of one run).
    pub fn at(path: PathBuf) -> Self {
        let _ = std::fs::remove_file(&path);
        RejectsFile {
            path,
            out: None,
            count: 0,
            written: 0,
            quota: DEFAULT_QUOTA,
            unwritten: 0,
            closed: false,
        }
    }

    /// At most `bytes` of rows (the closing line past it not counted).
    pub fn with_quota(mut self, bytes: u64) -> Self {
        self.quota = bytes;
        self
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Rejections so far, written or not.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Rejections past the quota, counted but not written.
    pub fn unwritten(&self) -> u64 {
        self.unwritten
    }

    fn open(&mut self) -> Result<&mut BufWriter<File>> {
        if self.out.is_none() {
            let f = File::create(&self.path).map_err(|e| Error::io(&self.path, e))?;
            self.out = Some(BufWriter::new(f));
        }
        Ok(self.out.as_mut().expect("opened above"))
    }

    pub fn write(&mut self, rejected: &Rejected) -> Result<()> {
        self.count += 1;
        let mut row = serde_json::to_vec(rejected).map_err(|e| Error::io(&self.path, e.into()))?;
        row.push(b'\n');
        if self.unwritten > 0 || self.written + row.len() as u64 > self.quota {
            self.unwritten += 1;
            return Ok(());
        }
        self.written += row.len() as u64;
        let path = self.path.clone();
        let out = self.open()?;
        out.write_all(&row).map_err(|e| Error::io(&path, e))?;
        out.flush().map_err(|e| Error::io(&path, e))?;
        Ok(())
    }

    /// Ends the file: when rejections went past the quota, its last line says how many were
    /// not written. Called once the ingest is over (and on drop, if it was not).
    pub fn close(&mut self) -> Result<()> {
        if self.closed || self.unwritten == 0 {
            return Ok(());
        }
        self.closed = true;
        let note = serde_json::json!({
            "unwritten": self.unwritten,
            "reason": format!(
                "the rejects file reached its quota of {} bytes: {} more rejected lines were counted but not written",
                self.quota, self.unwritten
            ),
        });
        let path = self.path.clone();
        let out = self.open()?;
        writeln!(out, "{note}").and_then(|()| out.flush()).map_err(|e| Error::io(&path, e))
    }
}

impl Drop for RejectsFile {
    fn drop(&mut self) {
        if let Err(e) = self.close() {
            tracing::warn!("{e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rejected line's row holds an excerpt, its length and hash, whatever its size.
    #[test]
    fn a_row_is_bounded_and_the_file_stops_at_its_quota() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let mut file = RejectsFile::at(path.clone()).with_quota(20_000);
        let line = vec![1u8; 100_000];
        for n in 1..=10 {
            file.write(&Rejected::new("in".into(), n, "bad".into(), &line)).unwrap();
        }
        file.close().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.len() < 20_000 + 300, "{}", text.len());
        let rows: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let last = rows.last().unwrap();
        let written = rows.len() as u64 - 1;
        assert!(written >= 1);
        assert_eq!(last["unwritten"], 10 - written);
        assert!(last["reason"].as_str().unwrap().contains("quota of 20000 bytes"), "{last}");
        let first = &rows[0];
        assert_eq!((first["line"].as_u64(), first["bytes"].as_u64()), (Some(1), Some(100_000)));
        assert_eq!(first["text"].as_str().unwrap().len(), EXCERPT_BYTES);
        assert_eq!(first["sha256"], format!("sha256:{}", hex(&Sha256::digest(&line))));
        assert_eq!(file.count(), 10);
    }
}
