//! `verify --graph`: re-hashes what every node of a graph holds against the digest its
//! records gave it, rebuilds the leaf of every node that keeps its line, and checks the log
//! against its latest signed checkpoint (docs/FORMATS.md, "Tamper-evident log"). The explorer's
//! bounded check (`log_status`) shares the re-hash ([`super::log_proofs`]).
//!
//! A graph of a million nodes is read in large pages of node ids in FalkorDB's compact reply
//! format, by the streaming reader `provex diff` uses (`store/compact.rs`); each page is
//! re-hashed on a blocking worker while the next one is read, and the leaves a page's lines
//! must hash to are read from the log in one round trip.

use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;
use tlog_tiles::stored_hash_index;

use super::log_proofs::record_line;
use super::Provex;
use crate::error::{Error, Result};
use crate::model::vocab::NAME;
use crate::tlog::{checkpoint, Hash, DIGEST_PROP, LEAVES_PROP, RECEIVED_PROP, SOURCE_PROP};

/// A node whose stored form no longer matches what its records gave it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Mismatch {
    pub name: String,
    pub label: String,
    pub leaves: Vec<i64>,
    /// The properties whose stored values differ from (or are missing against) the digest.
    pub reason: String,
}

/// What `verify --graph` found.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct GraphCheck {
    pub graph: String,
    pub log_size: u64,
    pub nodes_checked: u64,
    /// The size of the latest signed checkpoint, when the graph's log has one.
    pub checkpoint_size: Option<u64>,
    /// Whether the log's root is the one its latest signed checkpoint holds, or extends it by
    /// a consistency proof. A log with no checkpoint yet (its first ingest still goes on)
    /// contradicts none: it matches, and all its leaves are `pending`.
    pub checkpoint_matches: bool,
    /// Leaves appended since the latest signed checkpoint (all of them before the first):
    /// records logged and their nodes checked against them, but under no signed checkpoint
    /// yet, so no auditor can have been shown them. Not a disagreement (as `log_status`).
    pub pending: u64,
    pub mismatches: Vec<Mismatch>,
}

/// Where the time of one `verify --graph` went (its benchmark prints them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VerifyTimings {
    /// Pages read.
    pub pages: u64,
    /// Reading pages: each query, its reply and its decoding, summed.
    pub read: Duration,
    /// Re-hashing nodes on the worker, summed.
    pub hash: Duration,
    /// Waiting for a page that hashing did not hide (the first page included).
    pub waited: Duration,
    /// Reading the leaves that kept lines hash to, and comparing them.
    pub leaves: Duration,
    /// The whole check, from the log's head to the answer.
    pub total: Duration,
}

/// Node ids read per query by `verify --graph`. A page of 50,000 statement-like nodes is a
/// reply of some tens of megabytes that FalkorDB answers well inside its time limit.
const VERIFY_PAGE: i64 = 50_000;

/// What was found of a node on a page, before the log says whether its leaves are there.
struct Found {
    /// Its stored properties no longer hash to its digest, or its line to its leaves.
    changed: bool,
    /// It names a leaf past the log as it was when the check began (a node written since,
    /// while an ingest goes on, is not a mismatch: looked at again at the end).
    past: bool,
}

/// A node that keeps its line: the leaf rebuilt from it must be one of its leaves.
struct Line {
    id: i64,
    name: String,
    label: String,
    leaves: Vec<i64>,
    rebuilt: Hash,
}

/// One page re-hashed.
#[derive(Default)]
struct Page {
    checked: u64,
    found: Vec<(i64, Found, Mismatch)>,
    lines: Vec<Line>,
}

fn page_query(lo: i64, hi: i64) -> String {
    format!(
        "MATCH (n) WHERE ID(n) >= {lo} AND ID(n) < {hi} AND n.{DIGEST_PROP} IS NOT NULL \
         RETURN ID(n), labels(n)[0], properties(n)"
    )
}

/// Re-hashes one page's nodes (`ID(n), labels(n)[0], properties(n)` rows) against their
/// digests, for a log of `size` leaves.
fn check_rows(rows: Vec<Vec<Value>>, size: u64) -> Page {
    let mut page = Page { checked: rows.len() as u64, ..Page::default() };
    for row in rows {
        let mut cols = row.into_iter();
        let (Some(id), Some(label), Some(Value::Object(props))) = (cols.next(), cols.next(), cols.next())
        else {
            continue;
        };
        let id = id.as_i64().unwrap_or(-1);
        let text = |k: &str| props.get(k).and_then(Value::as_str).map(str::to_owned);
        let leaves: Vec<i64> = match props.get(LEAVES_PROP) {
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_i64).collect(),
            _ => Vec::new(),
        };
        let name = text(NAME).unwrap_or_default();
        let label = label.as_str().unwrap_or_default().to_owned();
        let digest = props.get(DIGEST_PROP).and_then(Value::as_str).unwrap_or_default();
        let past = leaves.iter().any(|l| *l < 0 || *l as u64 >= size);
        let changed = !crate::tlog::digest_matches(digest, &props);
        if past || changed {
            let reason = "its stored properties differ from what its records gave it".to_owned();
            page.found.push((id, Found { changed, past }, Mismatch { name, label, leaves, reason }));
            continue;
        }
        let (Some(source), Some(received)) =
            (text(SOURCE_PROP), props.get(RECEIVED_PROP).and_then(Value::as_i64))
        else {
            continue;
        };
        if leaves.is_empty() {
            continue;
        }
        let props = Value::Object(props);
        if let Some(line) = record_line(&props) {
            let rebuilt = crate::tlog::leaf_hash(&source, received as u64, line.as_bytes());
            page.lines.push(Line { id, name, label, leaves, rebuilt });
        }
    }
    page
}

impl Provex {
    /// Re-hashes what each node of the graph holds against the digest its records gave it,
    /// rebuilds the leaves of the nodes that keep their line, and checks the log against its
    /// latest signed checkpoint.
    pub async fn verify_graph_log(&self, graph: &str) -> Result<GraphCheck> {
        Ok(self.verify_graph_log_timed(graph).await?.0)
    }

    /// [`Provex::verify_graph_log`] with where its time went.
    pub async fn verify_graph_log_timed(&self, graph: &str) -> Result<(GraphCheck, VerifyTimings)> {
        let started = Instant::now();
        let mut t = VerifyTimings::default();
        // The checkpoint before the head: an ingest signs its checkpoint after appending its
        // leaves, so the log read afterwards holds at least what the checkpoint covers.
        let kept = self.store.log_checkpoint(graph).await?;
        let (size, root) = self.log_head(graph).await?;
        let (checkpoint_size, checkpoint_matches) = match kept {
            Some(note) => {
                let key = self.log_key()?;
                match checkpoint::open(&note, Some(&key.verifier_key())) {
                    Ok(cp) => (Some(cp.size), self.log_extends(graph, &cp, size, root).await?),
                    Err(_) => (None, false),
                }
            }
            // Leaves before a first checkpoint are pending: the first ingest still goes on.
            None => (None, true),
        };
        let pending = if checkpoint_matches { size.saturating_sub(checkpoint_size.unwrap_or(0)) } else { 0 };
        // Paged by node id: one query over a million nodes outlasts the server's time limit.
        let max_id = self
            .store
            .compact_ro(graph, "MATCH (n) RETURN max(ID(n))")
            .await?
            .first()
            .and_then(|r| r.first())
            .and_then(Value::as_i64)
            .unwrap_or(-1);
        let step = match self.logs.verify_page.load(std::sync::atomic::Ordering::Relaxed) {
            0 => VERIFY_PAGE,
            n => n,
        };
        let read = |lo: i64| async move {
            let at = Instant::now();
            let rows = self.store.compact_ro(graph, &page_query(lo, lo.saturating_add(step))).await?;
            Ok::<_, Error>((rows, at.elapsed()))
        };
        let mut found = Vec::new();
        let mut checked = 0u64;
        let mut lo = 0i64;
        let mut current = None;
        if lo <= max_id {
            let (rows, took) = read(lo).await?;
            (t.read, t.waited) = (took, took);
            current = Some(rows);
            lo = lo.saturating_add(step);
        }
        while let Some(rows) = current.take() {
            t.pages += 1;
            // This page is re-hashed on a worker while the next one is read.
            let more = lo <= max_id;
            let round = Instant::now();
            let hashing = tokio::task::spawn_blocking(move || {
                let at = Instant::now();
                (check_rows(rows, size), at.elapsed())
            });
            let reading = async {
                if more {
                    Some(read(lo).await)
                } else {
                    None
                }
            };
            let (hashed, next) = tokio::join!(hashing, reading);
            let (page, took) = hashed.map_err(|e| Error::Server(format!("verify --graph worker: {e}")))?;
            t.hash += took;
            t.waited += round.elapsed().saturating_sub(took);
            checked += page.checked;
            found.extend(page.found);
            let at = Instant::now();
            found.extend(self.lines_against_leaves(graph, page.lines).await?);
            t.leaves += at.elapsed();
            if let Some(next) = next {
                let (rows, took) = next?;
                t.read += took;
                current = Some(rows);
                lo = lo.saturating_add(step);
            }
        }
        let mismatches = self.settle_past(graph, found).await?;
        t.total = started.elapsed();
        let check = GraphCheck {
            graph: graph.to_owned(),
            log_size: size,
            nodes_checked: checked,
            checkpoint_size,
            checkpoint_matches,
            pending,
            mismatches,
        };
        Ok((check, t))
    }

    /// The nodes of `lines` whose rebuilt leaf is none of their leaves, read from the log
    /// in one round trip.
    async fn lines_against_leaves(
        &self,
        graph: &str,
        lines: Vec<Line>,
    ) -> Result<Vec<(i64, Found, Mismatch)>> {
        let indexes: Vec<u64> =
            lines.iter().flat_map(|l| l.leaves.iter().map(|&i| stored_hash_index(0, i as u64))).collect();
        let hashes = self.store.log_read(graph, &indexes).await?;
        let mut hashes = hashes.into_iter();
        let mut out = Vec::new();
        for l in lines {
            let mine: Vec<Hash> = hashes.by_ref().take(l.leaves.len()).collect();
            if !mine.contains(&l.rebuilt) {
                let reason = format!(
                    "the line it keeps no longer hashes to its leaf {}",
                    l.leaves.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
                );
                let found = Found { changed: true, past: false };
                out.push((l.id, found, Mismatch { name: l.name, label: l.label, leaves: l.leaves, reason }));
            }
        }
        Ok(out)
    }

    /// The mismatches in node id order. A node naming leaves past the log as it was when
    /// the check began is one only if the log has not grown to hold them since (an ingest
    /// appends its leaves before it writes their nodes).
    async fn settle_past(
        &self,
        graph: &str,
        mut found: Vec<(i64, Found, Mismatch)>,
    ) -> Result<Vec<Mismatch>> {
        if found.iter().any(|(_, f, _)| f.past) {
            let (now, _) = self.log_head(graph).await?;
            found.retain_mut(|(_, f, m)| {
                f.past = m.leaves.iter().any(|l| *l < 0 || *l as u64 >= now);
                if f.past {
                    m.reason = format!("names leaves past the log's {now}");
                }
                f.past || f.changed
            });
        }
        found.sort_by_key(|(id, _, _)| *id);
        Ok(found.into_iter().map(|(_, _, m)| m).collect())
    }
}
