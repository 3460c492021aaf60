//! What an ingest tells the one who started it as it goes: files started, progress, rejects.

use std::path::Path;

use crate::ingest::Rejected;

/// Progress callbacks of an ingest (the CLI draws a progress bar from them).
pub trait IngestObserver: Send + Sync {
    fn file_started(&self, _path: &Path, _bytes: u64) {}
    fn progress(&self, _path: &Path, _offset: u64, _events: u64) {}
    fn rejected(&self, _record: &Rejected) {}
}

/// An observer that ignores everything.
pub struct Quiet;
impl IngestObserver for Quiet {}
