//! The signed statements' operations: verifying files or what a graph holds, verification
//! trails, signing and keys.
//!
//! Each graph's ledger is held in the session ([`Session`]): loaded once from the documents stored in the graph on
//! first use, then kept current as documents arrive (ingests, the demo). An ingest writes
//! only what the new documents change; trails, source texts and `verify --graph` read the
//! held ledger and verify nothing again. A graph written by another process meanwhile is
//! not seen until this session reloads it (after `delete_graph`, or a failed write).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use falkordb::FalkorValue;
use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

use crate::error::{Error, Result};
use crate::sources::statements::{
    stored, ConsensusConfig, KeyFile, KeyRef, KeyRegistry, Ledger, Record, Trail, VerifyReport,
};
use crate::sources::Session;
use crate::store::WriteStats;

/// One graph's ledger, `None` until loaded (or after a failed write, to load again).
type Slot = Arc<AsyncMutex<Option<Ledger>>>;

/// The ledgers of the graphs this session has used, by graph.
#[derive(Default)]
pub(crate) struct Ledgers {
    slots: Mutex<HashMap<String, Slot>>,
}

impl Ledgers {
    fn slot(&self, graph: &str) -> Slot {
        self.slots.lock().expect("ledgers").entry(graph.to_owned()).or_default().clone()
    }

    /// Forgets a graph's ledger (the graph was deleted).
    pub(crate) fn forget(&self, graph: &str) {
        self.slots.lock().expect("ledgers").remove(graph);
    }
}

/// Reads a key registry file.
pub fn read_registry(path: &Path) -> Result<KeyRegistry> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    KeyRegistry::from_json(&text).map_err(|reason| Error::Input { path: path.to_owned(), reason })
}

/// Verifies A2AP files (no database): signatures, evidence, ids and consensus.
pub fn verify_files(files: &[PathBuf], keys: Option<&Path>) -> Result<VerifyReport> {
    if files.is_empty() {
        return Err(Error::Usage("no input files".into()));
    }
    let registry = keys.map(read_registry).transpose()?.unwrap_or_default();
    let mut ledger = Ledger::new(registry, ConsensusConfig::default());
    for f in files {
        let text = std::fs::read(f).map_err(|e| Error::io(f, e))?;
        let text = String::from_utf8(text)
            .map_err(|e| Error::Input { path: f.clone(), reason: format!("not valid UTF-8 ({e})") })?;
        ledger.ingest_text(&text);
    }
    Ok(ledger.report())
}

/// Signs every signed document of a file with `key`; returns the signed text.
pub fn sign_file(file: &Path, key_file: &Path, embed: bool) -> Result<String> {
    let key_text = std::fs::read_to_string(key_file).map_err(|e| Error::io(key_file, e))?;
    let key =
        KeyFile::from_json(&key_text).map_err(|reason| Error::Input { path: key_file.to_owned(), reason })?;
    let text = std::fs::read_to_string(file).map_err(|e| Error::io(file, e))?;
    let key_ref = if embed { KeyRef::Embedded } else { KeyRef::KeyId };
    crate::sources::statements::sign_text(&text, &key, key_ref)
        .map_err(|reason| Error::Input { path: file.to_owned(), reason })
}

/// Reads a trust file: the keys an auditor pins (see `a2ap::trust` for its forms).
pub fn read_trust(path: &Path) -> Result<crate::sources::statements::trust::TrustedKeys> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    crate::sources::statements::trust::TrustedKeys::from_text(&text)
        .map_err(|reason| Error::Input { path: path.to_owned(), reason: format!("trust file: {reason}") })
}

/// Checks an audit bundle (`provex bundle`) with no database and no network, against the
/// keys of a trust file when one is given, and its log against an earlier checkpoint or
/// bundle when one is given. A file that is not a bundle (empty, cut short,
/// not JSON, not UTF-8) is a failed check naming the file, line and reason; only a file
/// that cannot be read, or a bad trust file, is an error.
pub fn verify_bundle_file(
    file: &Path,
    trust: Option<&Path>,
    since: Option<&Path>,
    witnesses: &[String],
) -> Result<crate::sources::statements::bundle::BundleCheck> {
    use crate::sources::statements::bundle::{verify_witnessed, BundleCheck};
    let trust = trust.map(read_trust).transpose()?;
    let since = match since {
        Some(p) => Some(std::fs::read(p).map_err(|e| Error::io(p, e)).and_then(|b| {
            crate::sources::statements::bundle::log::Since::from_bytes(&b)
                .map_err(|reason| Error::Input { path: p.to_owned(), reason })
        })?),
        None => None,
    };
    let bytes = std::fs::read(file).map_err(|e| Error::io(file, e))?;
    let check = match String::from_utf8(bytes) {
        Ok(text) => verify_witnessed(&text, trust.as_ref(), since.as_ref(), witnesses),
        Err(e) => Err(format!("not valid UTF-8 (at byte {})", e.utf8_error().valid_up_to())),
    };
    Ok(check.unwrap_or_else(|reason| BundleCheck::unreadable(format!("{}: {reason}", file.display()))))
}

/// Whether a file is an audit bundle rather than A2AP documents.
pub fn is_bundle_file(file: &Path) -> bool {
    std::fs::read_to_string(file).is_ok_and(|t| crate::sources::statements::bundle::is_bundle(&t))
}

/// Makes a new signing key for an agent.
pub fn generate_key(key_id: &str, agent: &str) -> Result<KeyFile> {
    KeyFile::generate(key_id, agent).map_err(Error::Usage)
}

/// Adds a key (from a key file: only its public half is kept) to a registry file,
/// creating the registry when it does not exist.
pub fn add_key(registry_path: &Path, key_file: &Path) -> Result<KeyRegistry> {
    let mut registry =
        if registry_path.exists() { read_registry(registry_path)? } else { KeyRegistry::new() };
    let text = std::fs::read_to_string(key_file).map_err(|e| Error::io(key_file, e))?;
    let key =
        KeyFile::from_json(&text).map_err(|reason| Error::Input { path: key_file.to_owned(), reason })?;
    registry.add_entry(&key.entry()).map_err(|reason| Error::Input { path: key_file.to_owned(), reason })?;
    std::fs::write(registry_path, registry.to_json()).map_err(|e| Error::io(registry_path, e))?;
    Ok(registry)
}

/// Which keys a ledger loaded from a graph trusts.
#[derive(Debug, Clone, Copy)]
pub enum Keys<'a> {
    /// The keys stored with the graph (from earlier ingests and agent records).
    Stored,
    /// The stored keys and these.
    StoredAnd(&'a KeyRegistry),
    /// Only these (and the agents' records): an auditor checking with keys of their own.
    Only(&'a KeyRegistry),
}

fn strings(rows: Vec<Vec<FalkorValue>>) -> Vec<String> {
    let mut out = Vec::new();
    for row in rows {
        for v in row {
            match v {
                FalkorValue::String(s) => out.push(s),
                FalkorValue::Array(items) => out.extend(items.into_iter().filter_map(|i| match i {
                    FalkorValue::String(s) => Some(s),
                    _ => None,
                })),
                _ => {}
            }
        }
    }
    out
}

impl Session {
    /// The ledger of the A2AP documents stored in a graph, with the keys `keys` says.
    pub async fn load_ledger(&self, graph: &str, keys: Keys<'_>) -> Result<Ledger> {
        let doc = stored::DOCUMENT;
        let q = format!(
            "MATCH (n:Statement) WHERE n.`{doc}` IS NOT NULL RETURN n.`{doc}` AS d \
             UNION ALL MATCH (n:Verification) WHERE n.`{doc}` IS NOT NULL RETURN n.`{doc}` AS d \
             UNION ALL MATCH (n:Document) WHERE n.`{doc}` IS NOT NULL RETURN n.`{doc}` AS d \
             UNION ALL MATCH (n:Agent) WHERE n.`{doc}` IS NOT NULL RETURN n.`{doc}` AS d \
             UNION ALL MATCH (n:Statement) WHERE n.`{r}` IS NOT NULL RETURN n.`{r}` AS d",
            r = stored::REQUESTS
        );
        let rows = match self.store.run_ro(graph, &q, vec![]).await {
            Ok((_, rows)) => rows,
            Err(Error::NotFound { what: "graph", .. }) => Vec::new(),
            Err(e) => return Err(e),
        };
        let (records, errors) = stored::records_from_envelopes(&strings(rows));
        let registry = match keys {
            Keys::Only(k) => k.clone(),
            Keys::Stored | Keys::StoredAnd(_) => {
                let q =
                    format!("MATCH (a:Agent) WHERE a.`{r}` IS NOT NULL RETURN a.`{r}`", r = stored::REGISTRY);
                let rows = match self.store.run_ro(graph, &q, vec![]).await {
                    Ok((_, rows)) => rows,
                    Err(Error::NotFound { what: "graph", .. }) => Vec::new(),
                    Err(e) => return Err(e),
                };
                let mut registry = KeyRegistry::new();
                for e in stored::add_stored_keys(&mut registry, &strings(rows)) {
                    tracing::warn!(graph, "{e}");
                }
                if let Keys::StoredAnd(extra) = keys {
                    for entry in extra.entries() {
                        registry.add_entry(&entry).map_err(Error::Usage)?;
                    }
                }
                registry
            }
        };
        for e in errors {
            tracing::warn!(graph, "{e}");
        }
        let mut ledger = Ledger::new(registry, ConsensusConfig::default());
        ledger.push_all(records);
        Ok(ledger)
    }

    /// Writes a ledger's whole graph (with its documents and keys) and streams it as a delta.
    pub async fn write_ledger(&self, graph: &str, ledger: &Ledger) -> Result<()> {
        self.write(graph, stored::delta_with_documents(ledger)).await
    }

    /// The graph's held ledger, loaded from the graph on first use (with the stored keys).
    async fn held_ledger(&self, graph: &str) -> Result<OwnedMutexGuard<Option<Ledger>>> {
        let mut guard = self.ledgers.slot(graph).lock_owned().await;
        if guard.is_none() {
            let mut ledger = self.load_ledger(graph, Keys::Stored).await?;
            // What was loaded is what the graph holds: nothing to write.
            ledger.take_changes();
            *guard = Some(ledger);
        }
        Ok(guard)
    }

    /// Reads the graph's held ledger (loading it on first use).
    pub async fn with_ledger<R>(&self, graph: &str, read: impl FnOnce(&Ledger) -> R) -> Result<R> {
        let guard = self.held_ledger(graph).await?;
        Ok(read(guard.as_ref().expect("loaded")))
    }

    /// Adds keys and A2AP documents to the graph's held ledger and writes what they change:
    /// the new documents, and the statements, verifications and agents whose derived state
    /// (signature status, evidence, consensus, keys) they change. `stamps` names the log
    /// leaves of the records' lines.
    pub(crate) async fn add_documents(
        &self,
        graph: &str,
        keys: Option<&KeyRegistry>,
        records: Vec<Record>,
        stamps: &crate::sources::statements::log_leaves::DocumentLeaves,
    ) -> Result<WriteStats> {
        let mut guard = self.held_ledger(graph).await?;
        let ledger = guard.as_mut().expect("loaded");
        for entry in keys.map(KeyRegistry::entries).unwrap_or_default() {
            ledger.add_key(&entry).map_err(Error::Usage)?;
        }
        ledger.push_all(records);
        if ledger.pending_changes().is_empty() {
            return Ok(WriteStats::default());
        }
        let mut delta = stored::take_delta_with_documents(ledger);
        // Each document's node names its leaf in the graph's log (src/tlog/records.rs).
        stamps.stamp(&mut delta);
        // The caller acknowledges the batch this belongs to (Store::commit).
        match self.store.write_unsynced(graph, &delta).await {
            Ok(stats) => {
                self.publish(graph, delta);
                Ok(stats)
            }
            Err(e) => {
                // The graph may hold part of it: load again next time.
                *guard = None;
                Err(e)
            }
        }
    }

    /// Verifies again everything a graph holds. With `keys`, only those keys (and the
    /// agents' records) are trusted, so the documents are read and verified again; without,
    /// the held ledger answers.
    pub async fn verify_graph(&self, graph: &str, keys: Option<&Path>) -> Result<VerifyReport> {
        let report = match keys {
            Some(path) => {
                let registry = read_registry(path)?;
                let ledger = self.load_ledger(graph, Keys::Only(&registry)).await?;
                (!ledger.entries().is_empty()).then(|| ledger.report())
            }
            None => self.with_ledger(graph, |l| (!l.entries().is_empty()).then(|| l.report())).await?,
        };
        report.ok_or_else(|| Error::NotFound { what: "A2AP documents in graph", name: graph.to_owned() })
    }

    /// A statement's verification trail: its claim, evidence chain, every verification and
    /// the consensus after each, from the graph's held ledger.
    pub async fn trail(&self, graph: &str, statement: &str) -> Result<Trail> {
        self.with_ledger(graph, |l| l.trail(statement))
            .await?
            .ok_or_else(|| Error::NotFound { what: "statement", name: statement.to_owned() })
    }

    /// How many signatures the graph's held ledger has checked (tests and benchmarks count
    /// them to show that reading verifies nothing again).
    pub async fn ledger_signature_checks(&self, graph: &str) -> Result<u64> {
        self.with_ledger(graph, Ledger::signature_checks).await
    }
}
