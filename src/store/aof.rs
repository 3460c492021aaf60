//! The private server's append-only file: FalkorDB's settings for what it logs, turning it on
//! for a data folder that holds only a snapshot, and folding a long log into a snapshot.

use std::path::Path;
use std::time::{Duration, Instant};

use super::secret::{self, Reply, Secret, ADMIN_USER};

/// The folder of the append-only file, inside the data folder.
pub(super) const AOF_DIR: &str = "appendonlydir";

/// FalkorDB's own settings. Every query has a time limit (`TIMEOUT_DEFAULT`, up to
/// `TIMEOUT_MAX` when a query asks for more), and every write reaches the append-only file
/// as its effects (`EFFECTS_THRESHOLD 0`: the nodes, edges and properties it changed), never
/// as its query text. FalkorDB otherwise logs a write that changed things quickly as its
/// text, and a start replays that text as new queries under the default time limit; the
/// `MATCH … MERGE` upserts of an ingest then replayed far slower than they first ran (one
/// ingest of 6,300 events: 21 s; four: 240 s), the larger ones hit the limit and were rolled
/// back, and the graph came back without writes that had been acknowledged.
pub(super) const MODULE_ARGS: [&str; 6] =
    ["TIMEOUT_DEFAULT", "10000", "TIMEOUT_MAX", "60000", "EFFECTS_THRESHOLD", "0"];

/// The append-only file is rewritten as a snapshot once its log part reached 16 MB and
/// doubled since the last rewrite, so that a start after a crash loads a snapshot and a
/// short log (Redis' default waits for 64 MB of log).
pub(super) const AOF_REWRITE: [&str; 4] =
    ["--auto-aof-rewrite-min-size", "16mb", "--auto-aof-rewrite-percentage", "100"];
/// The snapshot file's name.
pub(super) const RDB_FILE: &str = "provex.rdb";

/// Whether the data folder holds a snapshot and no append-only file yet.
pub(super) fn needs_aof_migration(dir: &Path) -> bool {
    dir.join(RDB_FILE).is_file() && !dir.join(AOF_DIR).exists()
}

/// Turns the append-only file on in a running server (which writes it from the data it
/// holds) and waits until it is written.
pub(super) fn enable_aof(port: u16, admin: &Secret, dir: &Path) -> std::result::Result<(), String> {
    let roundtrip =
        |args: &[&str]| match secret::roundtrip(port, ADMIN_USER, admin, args, Duration::from_secs(5)) {
            Reply::Text(t) => Some(t),
            Reply::Slow | Reply::No => None,
        };
    match roundtrip(&["CONFIG", "SET", "appendonly", "yes"]) {
        Some(r) if r.starts_with("+OK") => {}
        other => return Err(format!("cannot turn the append-only file on: {other:?}")),
    }
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        let info = roundtrip(&["INFO", "persistence"]).unwrap_or_default();
        let field = |k: &str| info.lines().find_map(|l| l.strip_prefix(k)).map(str::trim).unwrap_or("");
        let done = field("aof_rewrite_in_progress:") == "0"
            && field("aof_rewrite_scheduled:") == "0"
            && field("aof_enabled:") == "1"
            && dir.join(AOF_DIR).exists();
        if done {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err("the append-only file was not written in time".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The log part of the append-only file (`*.incr.aof`) a start replayed is rewritten into
/// a snapshot in the background when it is over 1 MiB, so that the next start loads the
/// snapshot instead of replaying the log again (a folder written before writes were logged
/// as their effects holds query text that replays slowly, see [`MODULE_ARGS`]).
pub(super) fn fold_log(port: u16, admin: &Secret, dir: &Path) {
    let log_bytes: u64 = std::fs::read_dir(dir.join(AOF_DIR))
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".incr.aof"))
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0);
    if log_bytes > 1 << 20 {
        let reply = secret::roundtrip(port, ADMIN_USER, admin, &["BGREWRITEAOF"], Duration::from_secs(5));
        if !matches!(&reply, Reply::Text(t) if t.starts_with('+')) {
            tracing::warn!(?reply, "the append-only file could not be rewritten as a snapshot");
        }
    }
}

/// FalkorDB 4.16 can stop serving every client for good when the server forks for an
/// append-only-file rewrite while `GRAPH.BULK` commands are arriving: its fork preparation
/// answers `BUSY preparing to fork`, and then nothing is answered, not even a new
/// connection's `AUTH` (found in 180,000- and 1,000,000-event fresh imports; docs/BENCHMARKS.md).
/// A bulk build on a server Provex owns therefore holds automatic rewrites (`hold`), and
/// lets them go again when done; a rewrite already scheduled is waited for (up to a
/// minute), so that no fork starts during the build. `Err` says why it could not.
pub(super) fn hold_rewrites(port: u16, admin: &Secret, hold: bool) -> std::result::Result<(), String> {
    let roundtrip =
        |args: &[&str]| match secret::roundtrip(port, ADMIN_USER, admin, args, Duration::from_secs(5)) {
            Reply::Text(t) => Some(t),
            Reply::Slow | Reply::No => None,
        };
    let percentage = if hold { "0" } else { AOF_REWRITE[3] };
    match roundtrip(&["CONFIG", "SET", "auto-aof-rewrite-percentage", percentage]) {
        Some(r) if r.starts_with("+OK") => {}
        other => return Err(format!("cannot set auto-aof-rewrite-percentage: {other:?}")),
    }
    if !hold {
        return Ok(());
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let info = roundtrip(&["INFO", "persistence"]).unwrap_or_default();
        let scheduled = info.lines().find_map(|l| l.strip_prefix("aof_rewrite_scheduled:")).map(str::trim);
        if scheduled == Some("0") {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err("a scheduled append-only-file rewrite did not start within a minute".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
