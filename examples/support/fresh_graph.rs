//! What the fresh-graph ingest benchmarks share (`bench_otel_file`, `bench_trustgraph`,
//! `bench_prov`): a private FalkorDB with a Provex session on it, the bare `UNWIND … MERGE`
//! baseline of a graph's rows (`common/bare.rs`), `provex ingest` of a file timed, and the
//! check that the two made the same graph.

#[path = "../common/bare.rs"]
mod bare;

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use provex::diff::Snapshot;
use provex::facade::{ConnectOptions, IngestReport, Provex, Quiet};
use provex::ingest::IngestOptions;
use provex::store::server::{PrivateServer, ServerOptions};

/// A private FalkorDB (not persisted, its data in a temporary folder) and a Provex session.
pub struct Bench {
    pub provex: Provex,
    server: PrivateServer,
    _data: tempfile::TempDir,
}

impl Bench {
    pub async fn start() -> Bench {
        let data = tempfile::tempdir().unwrap();
        let server =
            PrivateServer::start(&ServerOptions { data_dir: data.path().into(), persist: false, port: None })
                .unwrap();
        let provex = Provex::open(ConnectOptions { url: Some(server.url()), server: None }).await.unwrap();
        Bench { provex, server, _data: data }
    }

    /// The baseline: a bare `UNWIND … MERGE` of `snap`'s rows into `graph` (made anew).
    pub fn bare(&self, graph: &str, snap: &Snapshot) -> Duration {
        bare::bare_merge(&self.server.url(), graph, snap)
    }

    /// `provex ingest` of `file` into `graph`, timed; every record is taken.
    pub async fn ingest(&self, graph: &str, file: &Path, opts: IngestOptions) -> (Duration, IngestReport) {
        let files = [file.to_path_buf()];
        let t = Instant::now();
        let r = self
            .provex
            .ingest(graph, &files, opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
            .await
            .unwrap();
        let took = t.elapsed();
        assert_eq!(r.rejected, 0);
        (took, r)
    }

    /// A graph's nodes and edges.
    #[allow(dead_code)] // not every benchmark compares so
    pub async fn size(&self, graph: &str) -> (u64, u64) {
        let s = self.provex.stats(graph).await.unwrap();
        (s.nodes, s.edges)
    }

    #[allow(dead_code)] // not every benchmark compares so
    pub async fn assert_same_graph(&self, ours: &str, bare: &str) {
        let s = self.provex.stats(ours).await.unwrap();
        let b = self.provex.stats(bare).await.unwrap();
        assert_eq!((s.nodes, s.edges), (b.nodes, b.edges), "the same graph");
    }
}
