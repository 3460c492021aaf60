//! Where an OTLP export's time goes, phase by phase (normalising, waiting for its group
//! write, the log append, the upserts, folding placeholders, the checkpoint, the durable
//! commit), for the receiver's benchmark (docs/BENCHMARKS.md "OpenTelemetry traces"). Off
//! unless [`enable`]d, so a server pays one atomic load per phase; when on, each phase keeps
//! its last [`KEPT`] durations.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Durations kept per phase (the oldest dropped past it).
pub const KEPT: usize = 1 << 16;

/// A phase of an export or of the group write that holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Decoded request → graph delta (per export).
    Normalise,
    /// Queued until a group write took it (per export).
    Queued,
    /// The group write, whole (per group).
    GroupWrite,
    /// The checks before writing: read-only graph, placeholders to relink (per group).
    Checks,
    /// The log leaves appended (per group).
    LogAppend,
    /// The nodes and edges upserted (per group).
    Upserts,
    /// Span placeholders folded into the spans that arrived (per group).
    Fold,
    /// The log's checkpoint signed and kept (per group).
    Checkpoint,
    /// The durability barrier (per group).
    Commit,
    /// Received → answered (per export).
    Export,
}

impl Phase {
    pub const ALL: [Phase; 10] = [
        Phase::Normalise,
        Phase::Queued,
        Phase::GroupWrite,
        Phase::Checks,
        Phase::LogAppend,
        Phase::Upserts,
        Phase::Fold,
        Phase::Checkpoint,
        Phase::Commit,
        Phase::Export,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Phase::Normalise => "normalise",
            Phase::Queued => "queued for a group",
            Phase::GroupWrite => "group write",
            Phase::Checks => "  checks",
            Phase::LogAppend => "  log append",
            Phase::Upserts => "  upserts",
            Phase::Fold => "  fold placeholders",
            Phase::Checkpoint => "  checkpoint",
            Phase::Commit => "  commit",
            Phase::Export => "export, whole",
        }
    }
}

static ENABLED: AtomicBool = AtomicBool::new(false);

struct Kept {
    micros: Vec<u32>,
    next: usize,
}

static KEPT_TIMES: [Mutex<Kept>; 10] = [const { Mutex::new(Kept { micros: Vec::new(), next: 0 }) }; 10];

/// Starts keeping durations.
pub fn enable() {
    ENABLED.store(true, Ordering::Relaxed);
}

/// Whether durations are kept (then callers take the time).
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Keeps the time since `since` for `phase` (nothing when not enabled).
pub fn since(phase: Phase, since: Instant) {
    if enabled() {
        record(phase, since.elapsed());
    }
}

/// Keeps one duration for `phase` (nothing when not enabled).
pub fn record(phase: Phase, took: Duration) {
    if !enabled() {
        return;
    }
    let micros = u32::try_from(took.as_micros()).unwrap_or(u32::MAX);
    let mut k = KEPT_TIMES[phase as usize].lock().unwrap_or_else(PoisonError::into_inner);
    if k.micros.len() < KEPT {
        k.micros.push(micros);
    } else {
        let at = k.next;
        k.micros[at] = micros;
        k.next = (at + 1) % KEPT;
    }
}

/// One phase's durations: how many, and p50, p99, max and mean in milliseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub phase: Phase,
    pub count: usize,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    pub mean_ms: f64,
}

/// Every phase that has durations.
pub fn summary() -> Vec<Summary> {
    Phase::ALL
        .iter()
        .filter_map(|&phase| {
            let mut v =
                KEPT_TIMES[phase as usize].lock().unwrap_or_else(PoisonError::into_inner).micros.clone();
            if v.is_empty() {
                return None;
            }
            v.sort_unstable();
            let at = |p: f64| f64::from(v[((v.len() - 1) as f64 * p).round() as usize]) / 1000.0;
            let mean = v.iter().map(|&x| f64::from(x)).sum::<f64>() / v.len() as f64 / 1000.0;
            Some(Summary {
                phase,
                count: v.len(),
                p50_ms: at(0.5),
                p99_ms: at(0.99),
                max_ms: at(1.0),
                mean_ms: mean,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_keep_their_durations_once_enabled_and_summarise_them() {
        enable();
        for ms in 1..=100 {
            record(Phase::Checkpoint, Duration::from_millis(ms));
        }
        let s = summary().into_iter().find(|s| s.phase == Phase::Checkpoint).unwrap();
        assert_eq!(s.count, 100);
        assert_eq!((s.p50_ms, s.p99_ms, s.max_ms), (51.0, 99.0, 100.0));
        assert!((s.mean_ms - 50.5).abs() < 1e-9);
    }
}
