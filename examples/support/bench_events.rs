//! What the ingest benchmarks share (`bench_ingest`, `bench_tlog_ingest`): the A2A runtime
//! event file they ingest (9 events a task, all alike: `a2a_events.rs`) and a private
//! FalkorDB with a Provex session on it.

#[path = "a2a_events.rs"]
mod a2a_events;

use std::io::Write as _;
use std::path::Path;

use a2a_events::task_events;

use provex::facade::{ConnectOptions, Provex};
use provex::store::server::{PrivateServer, ServerOptions};

/// Writes `tasks` tasks of A2A runtime events to `path`, one event a line.
pub fn write_events(path: &Path, tasks: usize) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut lines = String::new();
    for t in 0..tasks {
        lines.clear();
        task_events(&mut lines, t, "ctx-bench", false);
        out.write_all(lines.as_bytes()).unwrap();
    }
}

/// FalkorDB on a free port with its data in `dir` (kept on disk, append-only, when
/// `persist`), and a Provex session on it.
pub async fn private_provex(dir: &Path, persist: bool) -> (PrivateServer, Provex) {
    let server = PrivateServer::start(&ServerOptions { data_dir: dir.into(), persist, port: None }).unwrap();
    let provex = Provex::open(ConnectOptions { url: Some(server.url()), server: None }).await.unwrap();
    (server, provex)
}
