//! `verify --graph`: re-hashes what every node of a graph holds against the digest its
//! records gave it, page by page, and checks the log against its latest signed checkpoint
//! (docs/FORMATS.md, "Tamper-evident log"). The explorer's bounded check (`log_status`)
//! shares its re-hash ([`super::log_views`]).

use serde::Serialize;

use super::log_views::{leaves_of, stored_form};
use super::Provex;
use crate::error::Result;
use crate::tlog::checkpoint;

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
    /// Whether the log's root is the one its latest signed checkpoint holds.
    pub checkpoint_matches: bool,
    pub mismatches: Vec<Mismatch>,
}

/// Nodes re-hashed per query by `verify --graph` (by node id).
const VERIFY_PAGE: i64 = 20_000;

impl Provex {
    /// Re-hashes what each node of the graph holds against the digest its records gave it,
    /// and checks the log against its latest signed checkpoint.
    pub async fn verify_graph_log(&self, graph: &str) -> Result<GraphCheck> {
        let (size, root) = self.log_head(graph).await?;
        let checkpoint_matches = match self.store.log_checkpoint(graph).await? {
            Some(note) => {
                let key = self.log_key()?;
                match checkpoint::open(&note, Some(&key.verifier_key())) {
                    Ok(cp) => self.log_extends(graph, &cp, size, root).await?,
                    Err(_) => false,
                }
            }
            None => size == 0,
        };
        // Page by node id: one query over a million nodes outlasts the server's time limit.
        let max_id = self
            .store
            .run_ro(graph, "MATCH (n) RETURN max(ID(n))", vec![])
            .await?
            .1
            .first()
            .and_then(|r| r.first())
            .and_then(crate::store::value::as_i64)
            .unwrap_or(-1);
        let q = format!(
            "MATCH (n) WHERE ID(n) >= $lo AND ID(n) < $hi AND n.{d} IS NOT NULL \
             RETURN n.name, labels(n)[0], n.{l}, n.{d}, properties(n)",
            d = crate::tlog::DIGEST_PROP,
            l = crate::tlog::LEAVES_PROP
        );
        let mut mismatches = Vec::new();
        let mut checked = 0u64;
        let mut lo = 0i64;
        while lo <= max_id {
            let page = match self.logs.verify_page.load(std::sync::atomic::Ordering::Relaxed) {
                0 => VERIFY_PAGE,
                n => n,
            };
            let hi = lo.saturating_add(page);
            let params = vec![("lo", falkordb::FalkorValue::I64(lo)), ("hi", falkordb::FalkorValue::I64(hi))];
            let rows = self.store.run_ro(graph, &q, params).await?.1;
            checked += rows.len() as u64;
            for row in &rows {
                let [name, label, leaves, digest, props] = row.as_slice() else { continue };
                let name = crate::store::value::as_string(name).unwrap_or_default();
                let digest = crate::store::value::as_string(digest).unwrap_or_default();
                let leaves = leaves_of(leaves);
                let matches = stored_form(&digest, &crate::store::value::to_json(props)).matches;
                let out_of_log = leaves.iter().any(|l| *l < 0 || *l as u64 >= size);
                if !matches || out_of_log {
                    let reason = if out_of_log {
                        format!("names leaves past the log's {size}")
                    } else {
                        "its stored properties differ from what its records gave it".to_owned()
                    };
                    mismatches.push(Mismatch {
                        name,
                        label: crate::store::value::as_string(label).unwrap_or_default(),
                        leaves,
                        reason,
                    });
                }
            }
            lo = hi;
        }
        Ok(GraphCheck {
            graph: graph.to_owned(),
            log_size: size,
            nodes_checked: checked,
            checkpoint_matches,
            mismatches,
        })
    }
}
