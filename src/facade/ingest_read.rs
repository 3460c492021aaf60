//! The reading side of the facade's ingest (`ingest.rs` writes): a stream read on the async
//! runtime as its bytes arrive, files one after the other on a blocking thread, each sending
//! its batches to the writer.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::calls;
use super::observer::IngestObserver;
use crate::error::{Error, Result};
use crate::ingest::{self, Chunk, FileReport, IngestOptions, RejectsFile};

/// One input of an ingest.
pub(super) enum Input {
    File(PathBuf),
    /// A stream's bytes as they arrive, and the name that stands for it.
    Stream {
        name: PathBuf,
        source: calls::Payload,
    },
}

/// Starts reading the inputs: one stream on the runtime as its bytes arrive, files one
/// after the other on a blocking thread. Batches go to `tx`; the task gives the reports.
pub(super) fn spawn_reader(
    inputs: Vec<Input>,
    opts: IngestOptions,
    stop: Arc<AtomicBool>,
    obs: Arc<dyn IngestObserver>,
    tx: mpsc::Sender<Chunk>,
) -> JoinHandle<Result<Vec<FileReport>>> {
    let single = inputs.len() == 1;
    let mut inputs = inputs.into_iter();
    match inputs.next() {
        Some(Input::Stream { name, source }) if single => tokio::spawn(async move {
            let mut rejects = match opts.rejects.clone() {
                Some(p) => RejectsFile::at(p),
                None => RejectsFile::beside(&name),
            }
            .with_quota(opts.rejects_quota);
            obs.file_started(&name, 0);
            let mut keep = move || !stop.load(Ordering::Relaxed);
            let report = ingest::stream::read(&name, source, &opts, &mut rejects, &mut keep, &tx).await;
            rejects.close()?;
            Ok(vec![report?])
        }),
        first => {
            let inputs: Vec<Input> = first.into_iter().chain(inputs).collect();
            tokio::task::spawn_blocking(move || read_files(inputs, &opts, &stop, &*obs, &tx))
        }
    }
}

/// Reads files one after the other (on a blocking thread), sending their batches to `tx`.
fn read_files(
    inputs: Vec<Input>,
    opts: &IngestOptions,
    stop: &AtomicBool,
    obs: &dyn IngestObserver,
    tx: &mpsc::Sender<Chunk>,
) -> Result<Vec<FileReport>> {
    let mut shared = opts.rejects.clone().map(|p| RejectsFile::at(p).with_quota(opts.rejects_quota));
    let mut reports = Vec::new();
    for input in inputs {
        let Input::File(path) = input else {
            return Err(Error::Usage("a stream is ingested alone".into()));
        };
        let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        obs.file_started(&path, bytes);
        let mut own;
        let rejects = match shared.as_mut() {
            Some(r) => r,
            None => {
                own = RejectsFile::beside(&path).with_quota(opts.rejects_quota);
                &mut own
            }
        };
        let mut keep = || !stop.load(Ordering::Relaxed);
        let mut send = |c: Chunk| tx.blocking_send(c).is_ok();
        reports.push(ingest::read_file(&path, opts, rejects, &mut keep, &mut send)?);
        if stop.load(Ordering::Relaxed) {
            break;
        }
    }
    if let Some(r) = shared.as_mut() {
        r.close()?;
    }
    Ok(reports)
}
