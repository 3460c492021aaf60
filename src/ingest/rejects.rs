//! The rejected-records file: every line that could not be ingested, with its file, line
//! and reason, written where the user can read it and fix or replay it.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};

/// One rejected record.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Rejected {
    pub file: PathBuf,
    pub line: u64,
    pub reason: String,
    /// The line as text (invalid UTF-8 replaced by U+FFFD).
    pub text: String,
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
        RejectsFile { path, out: None, count: 0 }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn write(&mut self, rejected: &Rejected) -> Result<()> {
        if self.out.is_none() {
            let f = File::create(&self.path).map_err(|e| Error::io(&self.path, e))?;
            self.out = Some(BufWriter::new(f));
        }
        let out = self.out.as_mut().expect("opened above");
        serde_json::to_writer(&mut *out, rejected).map_err(|e| Error::io(&self.path, e.into()))?;
        out.write_all(b"\n").map_err(|e| Error::io(&self.path, e))?;
        out.flush().map_err(|e| Error::io(&self.path, e))?;
        self.count += 1;
        Ok(())
    }
}
