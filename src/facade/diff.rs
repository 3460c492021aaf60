//! `provex diff`: two graphs, or files normalised in memory the way an ingest would write
//! them, read into snapshots and compared by the pure functions of [`crate::diff`]; whole,
//! or one OpenTelemetry trace of each (two runs of an agent in one graph or in two).

use std::path::{Path, PathBuf};

use crate::diff::{diff, diff_traces, split_edge_props, EdgeKey, GraphDiff, NodeKey, Snapshot};
use crate::error::{Error, Result};
use crate::ingest::{self, IngestOptions, RejectsFile};
use crate::model::GraphDelta;
use crate::sources::statements::{stored, ConsensusConfig, KeyRegistry, Ledger};

use super::Provex;

/// One side of a diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffSide {
    /// A graph in the database.
    Graph(String),
    /// A file any `provex ingest` accepts, read without the database.
    File(PathBuf),
}

impl DiffSide {
    /// An existing file's path is a file; anything else names a graph.
    pub fn parse(arg: &str) -> DiffSide {
        if Path::new(arg).is_file() {
            DiffSide::File(arg.into())
        } else {
            DiffSide::Graph(arg.to_owned())
        }
    }
}

/// The graph an ingest of `path` into an empty graph writes, built in memory: the file is
/// read and normalised as `provex ingest` does (bad records are rejected to
/// `<file>.rejected.jsonl` and skipped), A2AP documents go through a ledger and its graph
/// mapping with the documents kept, and nothing is written to the database.
pub fn file_delta(path: &Path) -> Result<GraphDelta> {
    if !path.is_file() {
        return Err(Error::io(path, std::io::Error::new(std::io::ErrorKind::NotFound, "no such file")));
    }
    let opts = IngestOptions { bulk: false, ..Default::default() };
    let mut rejects = RejectsFile::beside(path);
    let mut delta = GraphDelta::new();
    let mut records = Vec::new();
    ingest::read_file(path, &opts, &mut rejects, &mut || false, &mut |chunk| {
        delta.extend(chunk.delta);
        records.extend(chunk.records);
        true
    })?;
    if !records.is_empty() {
        let mut ledger = Ledger::new(KeyRegistry::new(), ConsensusConfig::default());
        ledger.push_all(records);
        delta.extend(stored::delta_with_documents(&ledger));
    }
    Ok(delta)
}

/// The snapshot of what an ingest of `path` into an empty graph would hold.
pub fn file_snapshot(path: &Path) -> Result<Snapshot> {
    Ok(Snapshot::from_delta(&file_delta(path)?))
}

impl Provex {
    /// Every node and edge of a graph with all their properties.
    pub async fn graph_snapshot(&self, graph: &str) -> Result<Snapshot> {
        crate::store::validate_graph_name(graph)?;
        let (nodes, edges) = self.store.read_all(graph).await?;
        let mut snap = Snapshot::default();
        snap.nodes.reserve(nodes.len());
        snap.edges.reserve(edges.len());
        for mut n in nodes {
            // The log's bookkeeping (which leaves, what digest) is not the node's content.
            for p in crate::tlog::BOOKKEEPING_PROPS {
                n.props.remove(p);
            }
            snap.nodes.insert(NodeKey { label: n.label, name: n.name }, n.props);
        }
        for e in edges {
            let (kind, props) = split_edge_props(e.props);
            snap.edges.insert(EdgeKey { source: e.source, rel: e.rel, kind, target: e.target }, props);
        }
        Ok(snap)
    }

    async fn side_snapshot(&self, side: &DiffSide) -> Result<Snapshot> {
        match side {
            DiffSide::Graph(g) => self.graph_snapshot(g).await,
            DiffSide::File(p) => {
                let p = p.clone();
                tokio::task::spawn_blocking(move || file_snapshot(&p))
                    .await
                    .map_err(|e| Error::Server(format!("diff reader: {e}")))?
            }
        }
    }

    /// What `b` adds, removes and changes with respect to `a` (graphs or files).
    pub async fn diff(&self, a: &DiffSide, b: &DiffSide) -> Result<GraphDiff> {
        let (sa, sb) = tokio::try_join!(self.side_snapshot(a), self.side_snapshot(b))?;
        Ok(diff(&sa, &sb))
    }

    /// What trace `tb` of `b` adds, removes and changes with respect to trace `ta` of `a`
    /// (graphs or files; the same one for two runs in one graph). A trace is named by its id
    /// or a prefix of it that names one trace only.
    pub async fn diff_traces(&self, a: &DiffSide, b: &DiffSide, ta: &str, tb: &str) -> Result<GraphDiff> {
        let (sa, sb) = if a == b {
            let s = self.side_snapshot(a).await?;
            (s.clone(), s)
        } else {
            tokio::try_join!(self.side_snapshot(a), self.side_snapshot(b))?
        };
        let (ta, tb) = (trace_id(&sa, ta)?, trace_id(&sb, tb)?);
        Ok(diff_traces(&sa, &sb, &ta, &tb))
    }

    /// Graphs `a` and `b` compared whole, or, given two trace ids, those two traces of them.
    pub async fn diff_request(
        &self,
        a: &str,
        b: &str,
        ta: Option<&str>,
        tb: Option<&str>,
    ) -> Result<GraphDiff> {
        let (ga, gb) = (DiffSide::Graph(a.to_owned()), DiffSide::Graph(b.to_owned()));
        match (ta, tb) {
            (None, None) => self.diff(&ga, &gb).await,
            (Some(ta), Some(tb)) => self.diff_traces(&ga, &gb, ta, tb).await,
            _ => Err(Error::Usage("give a trace of each side (trace_a and trace_b), or neither".into())),
        }
    }

    /// What graph `b` adds, removes and changes with respect to graph `a`.
    pub async fn diff_graphs(&self, a: &str, b: &str) -> Result<GraphDiff> {
        self.diff(&DiffSide::Graph(a.to_owned()), &DiffSide::Graph(b.to_owned())).await
    }
}

/// The trace a snapshot holds whose id is `id`, or starts with it (when only one does).
pub fn trace_id(s: &Snapshot, id: &str) -> Result<String> {
    let id = id.trim().to_ascii_lowercase();
    let mut found = std::collections::BTreeSet::new();
    for p in s.nodes.values() {
        if let Some(t) = p.get("otel:trace_id").and_then(serde_json::Value::as_str) {
            if t == id {
                return Ok(id);
            }
            if !id.is_empty() && t.starts_with(&id) {
                found.insert(t);
            }
        }
    }
    match found.len() {
        1 => Ok(found.into_iter().next().unwrap_or_default().to_owned()),
        0 => Err(Error::NotFound { what: "trace", name: id }),
        n => Err(Error::Usage(format!("{n} traces start with {id}: give more of the id"))),
    }
}

/// Diffs two traces of files without a database (the same file for two runs in one).
pub fn diff_file_traces(a: &Path, b: &Path, ta: &str, tb: &str) -> Result<GraphDiff> {
    let sa = file_snapshot(a)?;
    let sb = if a == b { sa.clone() } else { file_snapshot(b)? };
    let (ta, tb) = (trace_id(&sa, ta)?, trace_id(&sb, tb)?);
    Ok(diff_traces(&sa, &sb, &ta, &tb))
}

/// Diffs two files without a database.
pub fn diff_files(a: &Path, b: &Path) -> Result<GraphDiff> {
    Ok(diff(&file_snapshot(a)?, &file_snapshot(b)?))
}
