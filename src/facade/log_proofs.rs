//! What the explorer shows of a graph's tamper-evident log (docs/FORMATS.md, "Tamper-evident
//! log"): one node's leaves with their inclusion paths, the signed checkpoint they prove
//! against and the instance's public key, so that a browser checks the proof itself; and
//! whether the graph's store still matches its log, re-hashed page by page under a time
//! limit so that a big graph answers in bounded time instead of blocking the explorer.

use std::time::{Duration, Instant};

use falkordb::FalkorValue;
use serde::Serialize;
use tlog_tiles::{prove_record, stored_hash_index};

use super::tlog::Reader;
use super::Provex;
use crate::error::{Error, Result};
use crate::store::value::{as_i64, as_string, to_json};
use crate::tlog::checkpoint::{self, Opened};
use crate::tlog::proof::encode_hash;
use crate::tlog::{DIGEST_PROP, LEAVES_PROP, LINE_PROP, RECEIVED_PROP, SOURCE_PROP};
use serde_json::Value;

/// How long `log_status` re-hashes nodes before it answers with what it checked so far.
pub const STATUS_TIME_LIMIT: Duration = Duration::from_secs(5);
/// How many nodes one page of `log_status`'s re-hash reads.
const STATUS_PAGE: usize = 2000;
/// The most differing nodes `log_status` names (it counts them all).
pub const MAX_NAMED_MISMATCHES: usize = 200;

/// One leaf of a node, with its RFC 9162 audit path at the checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct LeafProof {
    /// The leaf's index in the graph's log.
    pub index: u64,
    /// The leaf hash as the log holds it, standard base64.
    pub leaf_hash: String,
    /// The audit path (RFC 9162 §2.1.3), standard base64 hashes.
    pub path: Vec<String>,
}

/// The record a node keeps of the line it came in on, from which its leaf is rebuilt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct LoggedRecord {
    /// The leaf it hashes to.
    pub index: u64,
    /// The file path or stream name the line came from.
    pub source: String,
    /// When it was received, Unix ms.
    #[ts(type = "number")]
    pub received: i64,
    /// The line as received, without its line break.
    pub line: String,
}

/// One property the node's digest covers, as FalkorDB holds it now, written as JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct StoredValue {
    pub name: String,
    /// Compact JSON (the text the digest hashes); `null` when the property is gone.
    pub json: String,
}

/// A node's stored form against the digest its records gave it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct StoredForm {
    /// `log_digest`: `v1:<hex SHA-256>|<names>`.
    pub digest: String,
    /// The covered properties in the digest's order.
    pub values: Vec<StoredValue>,
    /// Whether they hash to the digest (the server's answer; the explorer re-hashes them).
    pub matches: bool,
}

/// A node's place in its graph's log and everything needed to check it offline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct LogInclusion {
    pub graph: String,
    pub node: String,
    pub label: String,
    /// Its leaves; empty when it came from no logged record.
    pub leaves: Vec<LeafProof>,
    /// The signed checkpoint (a C2SP signed note) the paths prove against.
    pub checkpoint: Option<String>,
    /// When that checkpoint was signed, Unix ms (unknown for an older checkpoint).
    #[ts(type = "number | null")]
    pub checkpoint_at: Option<i64>,
    /// The checkpoint's tree size.
    pub tree_size: u64,
    /// The instance's signed-note verifier key: `<name>+<key hash>+<base64 0x01 || Ed25519 key>`.
    pub verifier_key: String,
    /// The line the node came in on, when it keeps it (A2AP documents).
    pub record: Option<LoggedRecord>,
    /// Its stored form against its digest, when it has one.
    pub stored: Option<StoredForm>,
}

/// A node whose stored form no longer matches what its records gave it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct LogMismatch {
    pub name: String,
    pub label: String,
    #[ts(type = "Array<number>")]
    pub leaves: Vec<i64>,
    pub reason: String,
}

/// Whether a graph's store matches its log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct LogStatus {
    pub graph: String,
    /// Leaves in the log now.
    pub tree_size: u64,
    /// The latest signed checkpoint's size and when it was signed (Unix ms).
    pub checkpoint_size: Option<u64>,
    #[ts(type = "number | null")]
    pub checkpoint_at: Option<i64>,
    /// The log's root is the checkpoint's, or extends it by a consistency proof (a log not
    /// signed yet, while its first ingest goes on, contradicts no checkpoint).
    pub checkpoint_matches: bool,
    /// Leaves appended since the latest signed checkpoint (all of them before the first):
    /// records of an ingest still going on, which signs a checkpoint when it ends. Being
    /// written, not a disagreement.
    pub pending: u64,
    /// Nodes re-hashed.
    pub nodes_checked: u64,
    /// False when the time limit stopped the re-hash before every node was checked.
    pub complete: bool,
    /// How many of the checked nodes differ from their digest.
    pub differing: u64,
    /// The differing nodes, at most [`MAX_NAMED_MISMATCHES`].
    pub mismatches: Vec<LogMismatch>,
}

pub(super) fn leaves_of(v: &FalkorValue) -> Vec<i64> {
    match v {
        FalkorValue::Array(a) => a.iter().filter_map(as_i64).collect(),
        _ => Vec::new(),
    }
}

/// The stored values a digest names, and whether they hash to it.
pub(super) fn stored_form(digest: &str, props: &serde_json::Value) -> StoredForm {
    let pairs: Vec<(String, serde_json::Value)> = crate::tlog::listed_names(digest)
        .into_iter()
        .map(|k| {
            let v = props.get(k.as_ref()).cloned().unwrap_or(serde_json::Value::Null);
            (k.into_owned(), v)
        })
        .collect();
    let matches = crate::tlog::digest_pairs(pairs.iter().cloned()) == digest;
    // The text the digest hashes, which the explorer hashes again.
    let values = pairs
        .into_iter()
        .map(|(name, v)| StoredValue { name, json: crate::tlog::as_given_back(v).to_string() })
        .collect();
    StoredForm { digest: digest.to_owned(), values, matches }
}

/// The line a node keeps: `log_line`, else its stored A2AP document written as compact JSON.
pub(super) fn record_line(props: &serde_json::Value) -> Option<String> {
    if let Some(line) = props.get(LINE_PROP).and_then(|v| v.as_str()) {
        return Some(line.to_owned());
    }
    let text = props.get(crate::sources::statements::stored::DOCUMENT)?.as_str()?;
    let env: crate::sources::statements::stored::Envelope = serde_json::from_str(text).ok()?;
    serde_json::to_string(&env.document).ok()
}

impl Provex {
    /// The latest signed checkpoint if it is the instance's and covers leaf `need`, else a
    /// new one; with when it was signed.
    async fn checkpoint_covering(&self, graph: &str, need: u64) -> Result<(Vec<u8>, Opened, Option<i64>)> {
        let vkey = self.log_key()?.verifier_key();
        if let Some((note, at)) = self.store.log_checkpoint_signed_at(graph).await? {
            if let Ok(cp) = checkpoint::open(&note, Some(&vkey)) {
                if cp.size > need {
                    return Ok((note, cp, at));
                }
            }
        }
        let note = self.log_checkpoint(graph).await?;
        let at = self.store.log_checkpoint_signed_at(graph).await?.and_then(|(_, at)| at);
        let cp = checkpoint::open(&note, None).map_err(|e| Error::Query(e.to_string()))?;
        Ok((note, cp, at))
    }

    /// A node's leaves with their inclusion paths at a signed checkpoint, the instance's key,
    /// the line it keeps and its stored form against its digest: what the explorer needs to
    /// check, in the browser, that the node is in the log and unchanged.
    pub async fn log_inclusion(&self, graph: &str, name: &str) -> Result<LogInclusion> {
        crate::store::validate_graph_name(graph)?;
        // The node as the explorer reads it (NotFound when there is none), then by its label,
        // so that the name's index finds it instead of a scan of every node.
        let found = self.store.node(graph, name).await?;
        let label = found.label.replace('`', "");
        let q = format!(
            "MATCH (n:`{label}`) WHERE n.name = $id RETURN labels(n)[0], n.{LEAVES_PROP}, n.{DIGEST_PROP}, \
             n.{SOURCE_PROP}, n.{RECEIVED_PROP}, properties(n) ORDER BY n.{LEAVES_PROP} IS NULL LIMIT 1"
        );
        let rows = self.store.run_ro(graph, &q, vec![("id", FalkorValue::String(name.to_owned()))]).await?.1;
        let Some([label, leaves, digest, source, received, props]) = rows.first().map(Vec::as_slice) else {
            return Err(Error::NotFound { what: "node", name: name.to_owned() });
        };
        let label = as_string(label).unwrap_or_default();
        let leaves: Vec<u64> = leaves_of(leaves).into_iter().filter_map(|l| u64::try_from(l).ok()).collect();
        let props = to_json(props);
        let stored = as_string(digest).map(|d| stored_form(&d, &props));
        let verifier_key = self.log_key()?.verifier_key();
        let mut out = LogInclusion {
            graph: graph.to_owned(),
            node: name.to_owned(),
            label,
            leaves: Vec::new(),
            checkpoint: None,
            checkpoint_at: None,
            tree_size: 0,
            verifier_key,
            record: None,
            stored,
        };
        let Some(&last) = leaves.iter().max() else { return Ok(out) };
        let (size, _) = self.log_head(graph).await?;
        if last >= size {
            return Err(Error::Query(format!(
                "node {name} names leaf {last}, past the log's {size} leaves: its log is damaged or was replaced"
            )));
        }
        let (note, cp, at) = self.checkpoint_covering(graph, last).await?;
        for &index in &leaves {
            let n = cp.size;
            let path = self.fetch_for(graph, |r| prove_record(n, index, &Reader(r))).await?;
            let leaf = self.store.log_read(graph, &[stored_hash_index(0, index)]).await?[0];
            out.leaves.push(LeafProof {
                index,
                leaf_hash: encode_hash(&leaf),
                path: path.iter().map(encode_hash).collect(),
            });
        }
        if let (Some(source), Some(received), Some(line)) =
            (as_string(source), as_i64(received), record_line(&props))
        {
            out.record = Some(LoggedRecord { index: last, source, received, line });
        }
        out.checkpoint = Some(String::from_utf8_lossy(&note).into_owned());
        out.checkpoint_at = at;
        out.tree_size = cp.size;
        Ok(out)
    }

    /// Whether a graph's store matches its log: the log's size, its latest checkpoint (and
    /// whether the log still extends it), and the nodes whose stored form differs from their
    /// digest. The re-hash reads [`STATUS_PAGE`] nodes at a time and stops after
    /// [`STATUS_TIME_LIMIT`], saying so (`complete: false`), so a big graph never holds the
    /// explorer; nothing is cached, so an edit made a moment ago is seen.
    pub async fn log_status(&self, graph: &str) -> Result<LogStatus> {
        self.log_status_within(graph, STATUS_TIME_LIMIT).await
    }

    /// [`Provex::log_status`] with another time limit.
    pub async fn log_status_within(&self, graph: &str, limit: Duration) -> Result<LogStatus> {
        crate::store::validate_graph_name(graph)?;
        let started = Instant::now();
        // The checkpoint before the head: an ingest signs its checkpoint after appending its
        // leaves, so the log read afterwards holds at least what the checkpoint covers.
        let vkey = self.log_key()?.verifier_key();
        let kept = self.store.log_checkpoint_signed_at(graph).await?;
        let (size, root) = self.log_head(graph).await?;
        let (checkpoint_size, checkpoint_at, checkpoint_matches) = match &kept {
            // Leaves before a first checkpoint are pending: the first ingest still goes on.
            None => (None, None, true),
            Some((note, at)) => match checkpoint::open(note, Some(&vkey)) {
                Err(_) => (None, *at, false),
                Ok(cp) => {
                    let ok = self.log_extends(graph, &cp, size, root).await?;
                    (Some(cp.size), *at, ok)
                }
            },
        };
        let pending = match (checkpoint_matches, checkpoint_size) {
            (false, _) => 0,
            (true, signed) => size.saturating_sub(signed.unwrap_or(0)),
        };
        let mut status = LogStatus {
            graph: graph.to_owned(),
            tree_size: size,
            checkpoint_size,
            checkpoint_at,
            checkpoint_matches,
            pending,
            nodes_checked: 0,
            complete: true,
            differing: 0,
            mismatches: Vec::new(),
        };
        // A graph not made yet holds nothing to check: a page opened before its first record,
        // or while an ingest has logged its first records but not yet written their nodes.
        if !self.store.graphs_list().await?.iter().any(|g| g == graph) {
            return Ok(status);
        }
        // Nodes naming leaves past the log as read above: written since by an ingest going
        // on (its leaves are appended before its nodes), unless the log still ends before them
        // once the pages are read.
        let mut past: Vec<(bool, LogMismatch, Vec<String>)> = Vec::new();
        let mut after = -1i64;
        loop {
            // Pages from where the last one ended, so the time limit is checked between pages.
            // `ID(n) > after` is planned as a node-by-id range seek, which walks ids upwards,
            // so a page reads only its own nodes; an `ORDER BY ID(n)` would sort every node
            // left on each page (4.6 times slower over 200,000 nodes). Read in the compact
            // reply format, as `verify --graph` reads.
            let q = format!(
                "MATCH (n) WHERE ID(n) > {after} AND n.{DIGEST_PROP} IS NOT NULL \
                 RETURN ID(n), labels(n)[0], properties(n) LIMIT {STATUS_PAGE}"
            );
            let rows = self.store.compact_ro(graph, &q).await?;
            let full = rows.len() >= STATUS_PAGE;
            for row in rows {
                let mut cols = row.into_iter();
                let (Some(id), Some(label), Some(props)) = (cols.next(), cols.next(), cols.next()) else {
                    continue;
                };
                after = after.max(id.as_i64().unwrap_or(after));
                status.nodes_checked += 1;
                let Value::Object(map) = &props else { continue };
                let leaves: Vec<i64> = match map.get(LEAVES_PROP) {
                    Some(Value::Array(a)) => a.iter().filter_map(Value::as_i64).collect(),
                    _ => Vec::new(),
                };
                let digest = map.get(DIGEST_PROP).and_then(Value::as_str).unwrap_or_default();
                let out_of_log = leaves.iter().any(|l| *l < 0 || *l as u64 >= size);
                let changed = !crate::tlog::digest_matches(digest, map);
                if !changed && !out_of_log {
                    continue;
                }
                let names = if changed {
                    stored_form(digest, &props).values.into_iter().map(|v| v.name).collect()
                } else {
                    Vec::new()
                };
                let m = LogMismatch {
                    name: map
                        .get(crate::model::vocab::NAME)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    label: label.as_str().unwrap_or_default().to_owned(),
                    leaves,
                    reason: String::new(),
                };
                if out_of_log {
                    past.push((changed, m, names));
                } else {
                    status.differ(m, None, &names);
                }
            }
            if !full {
                break;
            }
            if started.elapsed() >= limit {
                status.complete = false;
                break;
            }
        }
        if !past.is_empty() {
            let (now, _) = self.log_head(graph).await?;
            for (changed, m, names) in past {
                let still = m.leaves.iter().any(|l| *l < 0 || *l as u64 >= now);
                if still || changed {
                    status.differ(m, still.then_some(now), &names);
                }
            }
        }
        Ok(status)
    }
}

impl LogStatus {
    /// Counts a differing node, and names it while fewer than [`MAX_NAMED_MISMATCHES`] are:
    /// past a log of `past` leaves, or changed in one of `names`.
    fn differ(&mut self, mut m: LogMismatch, past: Option<u64>, names: &[String]) {
        self.differing += 1;
        if self.mismatches.len() >= MAX_NAMED_MISMATCHES {
            return;
        }
        m.reason = match past {
            Some(size) => format!("names leaves past the log's {size}"),
            None => format!(
                "its stored properties differ from what its records gave it (one of: {})",
                names.join(", ")
            ),
        };
        self.mismatches.push(m);
    }
}
