//! `provex ingest`: files, or standard input read as it grows, with a progress bar.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use provex::facade::{IngestObserver, Provex};
use provex::ingest::{IngestOptions, Rejected};

use super::output::{render, OutputFormat};
use super::{Command, EXIT_REJECTED};

/// Runs an ingest command; its exit status.
pub(super) async fn run(provex: &Provex, command: Command, out: &mut impl Write) -> anyhow::Result<u8> {
    let Command::Ingest {
        files,
        graph,
        format,
        follow,
        rejects,
        keys,
        max_line_bytes,
        no_bulk,
        bulk_max_rows,
    } = command
    else {
        unreachable!("an ingest command")
    };
    let opts = IngestOptions {
        format: format.into(),
        follow,
        rejects,
        keys,
        max_line_bytes,
        bulk: !no_bulk,
        bulk_max_rows,
        ..Default::default()
    };
    let cancel = Arc::new(AtomicBool::new(false));
    if follow {
        let c = cancel.clone();
        tokio::spawn(async move {
            let _ = tokio::signal::ctrl_c().await;
            c.store(true, Ordering::Relaxed);
        });
    }
    let progress = Arc::new(Progress::new());
    let report = if files.len() == 1 && files[0] == Path::new("-") {
        // Standard input, read as it grows (a pipe from a live stream); the rejects go
        // to `stdin.rejected.jsonl` unless --rejects names a file.
        let opts = IngestOptions {
            rejects: opts.rejects.clone().or_else(|| Some("stdin.rejected.jsonl".into())),
            ..opts
        };
        let (tx, rx) = tokio::sync::mpsc::channel::<Vec<u8>>(16);
        std::thread::spawn(move || {
            use std::io::Read as _;
            let mut stdin = std::io::stdin().lock();
            let mut buf = vec![0u8; 1 << 16];
            loop {
                match stdin.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if tx.blocking_send(buf[..n].to_vec()).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let source = futures_util::stream::unfold(rx, |mut rx| async move {
            rx.recv().await.map(|v| (Ok(axum::body::Bytes::from(v)), rx))
        });
        provex
            .ingest_stream(
                &graph.graph,
                PathBuf::from("stdin"),
                Box::pin(source),
                opts,
                cancel,
                progress.clone(),
            )
            .await
    } else {
        provex.ingest(&graph.graph, &files, opts, cancel, progress.clone()).await
    };
    progress.finish();
    let report = report?;
    write!(out, "{}", render(&report, OutputFormat::Text)?)?;
    Ok(if report.rejected > 0 { EXIT_REJECTED } else { 0 })
}

/// The ingest progress bar: drawn on a terminal only, once an ingest has taken longer than
/// a moment; rejected records are reported on stderr as they come.
struct Progress {
    started: Instant,
    bar: Mutex<Option<ProgressBar>>,
    total: Mutex<u64>,
}

impl Progress {
    fn new() -> Self {
        Progress { started: Instant::now(), bar: Mutex::new(None), total: Mutex::new(0) }
    }

    fn finish(&self) {
        if let Some(bar) = self.bar.lock().expect("bar").take() {
            bar.finish_and_clear();
        }
    }
}

impl IngestObserver for Progress {
    fn file_started(&self, _path: &Path, bytes: u64) {
        *self.total.lock().expect("total") = bytes;
        if let Some(bar) = self.bar.lock().expect("bar").as_ref() {
            bar.set_length(bytes);
            bar.set_position(0);
        }
    }

    fn progress(&self, path: &Path, offset: u64, events: u64) {
        let mut bar = self.bar.lock().expect("bar");
        if bar.is_none()
            && self.started.elapsed() > Duration::from_millis(300)
            && std::io::stderr().is_terminal()
        {
            let b = ProgressBar::with_draw_target(
                Some(*self.total.lock().expect("total")),
                ProgressDrawTarget::stderr(),
            );
            b.set_style(
                ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {bytes}/{total_bytes} {per_sec}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            *bar = Some(b);
        }
        if let Some(b) = bar.as_ref() {
            b.set_position(offset);
            b.set_message(format!("{} {events} events", path.display()));
        }
    }

    fn rejected(&self, record: &Rejected) {
        let line = format!("rejected {record}");
        match self.bar.lock().expect("bar").as_ref() {
            Some(b) => b.println(line),
            None => eprintln!("{line}"),
        }
    }
}
