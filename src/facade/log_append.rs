//! Appending a batch's leaves to its graph's tamper-evident log on the write path
//! (docs/FORMATS.md "Tamper-evident log"): the leaves go before the batch's nodes, in the same
//! pipelined round trip as its first upserts when it has nodes to write, so a live batch
//! waits for one round trip (and one fsync of the private server's append-only file) where it
//! waited for two; a log another writer moved is read again and the nodes name their leaves
//! where they went.

use tlog_tiles::stored_hash_index;

use super::tlog::OpenLog;
use super::Provex;
use crate::error::{Error, Result};
use crate::model::GraphDelta;
use crate::store::WriteStats;
use crate::tlog::{Frontier, Hash};

/// How many times an append is tried against a log that moved under it.
const LOG_APPEND_TRIES: usize = 8;

impl Provex {
    /// The lock of a graph's frontier (made on first use).
    pub(super) fn open_log(&self, graph: &str) -> OpenLog {
        let mut open = self.logs.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        open.entry(graph.to_owned()).or_default().clone()
    }

    /// The index the next leaf of a graph's log gets, as this session knows the log (read
    /// from the server the first time): where a batch's leaves go unless another writer
    /// appends first, which [`Provex::log_append_and_write`] then corrects.
    pub(crate) async fn log_next_index(&self, graph: &str) -> Result<u64> {
        let log = self.open_log(graph);
        let mut f = log.lock().await;
        if f.is_none() {
            *f = Some(self.load_frontier(graph).await?);
        }
        Ok(f.as_ref().map_or(0, Frontier::size))
    }

    /// Appends leaves to a graph's log; returns the index of the first.
    pub(crate) async fn log_append(&self, graph: &str, leaves: &[Hash]) -> Result<u64> {
        let log = self.open_log(graph);
        let mut kept = log.lock().await;
        let mut frontier = match kept.take() {
            Some(f) => f,
            None => self.load_frontier(graph).await?,
        };
        // When the log no longer ends where this session left it (another Provex appended,
        // or the server came back without it), the frontier is read again from what the
        // server holds and the leaves go after that. On an error it is read again next time.
        for _ in 0..LOG_APPEND_TRIES {
            let first = frontier.size();
            if leaves.is_empty() {
                *kept = Some(frontier);
                return Ok(first);
            }
            let (next, bytes) = extended(&frontier, leaves);
            if self.store.log_append(graph, stored_hash_index(0, first), &bytes).await? {
                *kept = Some(next);
                return Ok(first);
            }
            frontier = self.load_frontier(graph).await?;
        }
        Err(Error::Query(format!(
            "the log of graph {graph} kept changing under this writer ({LOG_APPEND_TRIES} tries); nothing was appended"
        )))
    }

    /// Appends a batch's leaves to the graph's log and writes its delta, whose nodes name
    /// them from `first` on (stamped by [`crate::model::GraphDelta::stamp_log_leaves`] with
    /// what [`Provex::log_next_index`] said), in one pipelined round trip instead of two: the
    /// append leads the pipeline, so the server still appends the leaves before it writes the
    /// nodes (docs/FORMATS.md "Tamper-evident log"). When the log moved under this session
    /// (another writer appended), the leaves are appended where it ends now and the nodes
    /// written again naming them there. Returns the index of the first leaf and what the
    /// write wrote.
    pub(crate) async fn log_append_and_write(
        &self,
        graph: &str,
        leaves: &[Hash],
        first: u64,
        delta: &mut GraphDelta,
    ) -> Result<(u64, WriteStats)> {
        let log = self.open_log(graph);
        let mut kept = log.lock().await;
        let frontier = match kept.take() {
            Some(f) => f,
            None => self.load_frontier(graph).await?,
        };
        if frontier.size() == first {
            let (next, bytes) = extended(&frontier, leaves);
            let at = stored_hash_index(0, first);
            let (appended, stats) = self.store.log_append_and_write(graph, at, &bytes, delta).await?;
            if appended {
                *kept = Some(next);
                return Ok((first, stats));
            }
        }
        // Another writer appended: the log is read again, the leaves go where it ends now,
        // and the nodes are written (again) naming them there.
        drop(kept);
        let at = self.log_append(graph, leaves).await?;
        if at != first {
            *delta = shift_log_leaves(delta.take(), at as i64 - first as i64);
        }
        let stats = self.store.write_unsynced(graph, delta).await?;
        Ok((at, stats))
    }
}

/// The frontier after `leaves`, and the stored hashes they add (to write where the log ends).
fn extended(frontier: &Frontier, leaves: &[Hash]) -> (Frontier, Vec<u8>) {
    let mut bytes = Vec::with_capacity(leaves.len() * 64);
    let mut next = frontier.clone();
    for leaf in leaves {
        next.append(*leaf, &mut bytes);
    }
    (next, bytes)
}

/// The delta with every leaf its nodes name moved by `by` (its leaves went elsewhere in the
/// log than it was stamped for). A node's digest covers none of its leaves, so it stands.
fn shift_log_leaves(delta: GraphDelta, by: i64) -> GraphDelta {
    use crate::model::PropValue;
    let (nodes, edges) = delta.into_parts();
    let mut out = GraphDelta::with_capacity(nodes.len(), edges.len());
    for mut n in nodes {
        if let Some(PropValue::List(leaves)) = n.props.get_mut(crate::tlog::LEAVES_PROP) {
            for l in leaves.iter_mut() {
                if let PropValue::Int(i) = l {
                    *i += by;
                }
            }
        }
        out.add_node(n);
    }
    for e in edges {
        out.add_edge(e);
    }
    out
}
