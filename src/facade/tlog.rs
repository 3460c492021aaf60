//! A session's side of the graphs' tamper-evident logs (src/tlog/, docs/FORMATS.md
//! "Tamper-evident log"): each graph's frontier kept in memory (appending a batch's leaves
//! before its nodes are written is `log_append.rs`); signed checkpoints; inclusion and
//! consistency proofs; and re-hashing what a graph holds against what its records gave it.

use std::collections::HashMap;
use std::path::PathBuf;

use tlog_tiles::{prove_record, prove_tree, stored_hash_index};

use super::Provex;
use crate::error::{Error, Result};
use crate::tlog::checkpoint::{self, InstanceKey};
use crate::tlog::proof::{encode_hash, Consistency, Inclusion, CONSISTENCY_TYPE, INCLUSION_TYPE};
use crate::tlog::{Fetched, Frontier, Hash, Wanted};

/// The frontier of one graph's log as this session last saw it (none until read), behind a
/// lock of its own: an append holds it through its round trip, so writers of one graph take
/// turns while writers of other graphs do not wait for them.
pub(super) type OpenLog = std::sync::Arc<tokio::sync::Mutex<Option<Frontier>>>;

/// The frontiers of the logs this session appended to or read.
#[derive(Default)]
pub(crate) struct Logs {
    pub(super) open: std::sync::Mutex<HashMap<String, OpenLog>>,
    /// Where the instance key is kept, when not in the data folder.
    key_dir: std::sync::Mutex<Option<PathBuf>>,
    /// Ingests append no leaves (see [`Provex::set_log_enabled`]).
    off: std::sync::atomic::AtomicBool,
    /// The verifier keys of the logs this instance witnesses (`serve --witness-log`).
    pub(crate) witnessed: std::sync::Mutex<Vec<String>>,
    /// Nodes re-hashed per query by `verify --graph` (0: [`VERIFY_PAGE`]).
    pub(super) verify_page: std::sync::atomic::AtomicI64,
}

fn tlog_err(e: tlog_tiles::Error) -> Error {
    Error::Query(format!("log: {e}"))
}

impl Provex {
    /// The folder of the instance key: the data folder, or the default one.
    pub(crate) fn key_dir(&self) -> Result<PathBuf> {
        if let Some(d) = self.logs.key_dir.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone() {
            return Ok(d);
        }
        match &self.data_dir {
            Some(d) => Ok(d.clone()),
            None => Ok(crate::store::server::ServerOptions::app_default()?
                .data_dir
                .parent()
                .map(std::path::Path::to_path_buf)
                .unwrap_or_default()),
        }
    }

    /// Keeps the instance key in `dir` instead of the data folder (a session on a shared
    /// server has none of its own).
    pub fn set_log_key_dir(&self, dir: PathBuf) {
        *self.logs.key_dir.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(dir);
    }

    /// Turns the log off (or on again) for this session's ingests: only to measure what the
    /// log costs an ingest (`examples/bench_tlog_ingest.rs`). What is ingested while it is
    /// off names no leaves and is not covered by `verify --graph`.
    pub fn set_log_enabled(&self, on: bool) {
        self.logs.off.store(!on, std::sync::atomic::Ordering::Relaxed);
    }

    /// Re-hashes `n` nodes per query in `verify --graph` (tests of its paging).
    #[doc(hidden)]
    pub fn set_log_verify_page(&self, n: i64) {
        self.logs.verify_page.store(n.max(1), std::sync::atomic::Ordering::Relaxed);
    }

    pub(crate) fn log_enabled(&self) -> bool {
        !self.logs.off.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The instance's checkpoint key (made on first use).
    pub fn log_key(&self) -> Result<InstanceKey> {
        load_or_create_key(&self.key_dir()?)
    }

    pub(super) async fn load_frontier(&self, graph: &str) -> Result<Frontier> {
        let stored = self.store.log_stored(graph).await?;
        let size = crate::tlog::size_for_stored(stored).ok_or_else(|| {
            Error::Query(format!("the log of graph {graph} is damaged: {stored} stored hashes"))
        })?;
        let hashes = self.store.log_read(graph, &Frontier::indexes(size)).await?;
        Frontier::from_hashes(size, hashes)
            .ok_or_else(|| Error::Query(format!("the log of graph {graph} is damaged")))
    }

    /// The current size and root of a graph's log, as the server holds it now: the frontier
    /// kept in memory is read again when the log no longer ends where it does (another
    /// Provex on the same server appended since), so that a session that only reads a log
    /// never compares a checkpoint or a node with a log it saw earlier.
    pub async fn log_head(&self, graph: &str) -> Result<(u64, Hash)> {
        let log = self.open_log(graph);
        let mut kept = log.lock().await;
        let stored = self.store.log_stored(graph).await?;
        let f = match kept.as_ref() {
            Some(f) if tlog_tiles::stored_hash_count(f.size()) == stored => f.clone(),
            _ => {
                let f = self.load_frontier(graph).await?;
                *kept = Some(f.clone());
                f
            }
        };
        Ok((f.size(), f.root()))
    }

    /// Signs and keeps a checkpoint of a graph's log as it is now; returns its note. When the
    /// latest kept checkpoint is of the log as it is now, it is returned as kept, with the
    /// witnesses' cosignatures it carries (the instance's signature of one size and root is
    /// the same bytes each time).
    pub async fn log_checkpoint(&self, graph: &str) -> Result<Vec<u8>> {
        crate::store::validate_graph_name(graph)?;
        let (size, root) = self.log_head(graph).await?;
        let key = self.log_key()?;
        if let Some(kept) = self.store.log_checkpoint(graph).await? {
            let same = checkpoint::open(&kept, Some(&key.verifier_key())).is_ok_and(|cp| {
                cp.size == size && cp.root == root && cp.origin == checkpoint::origin(key.name(), graph)
            });
            if same {
                return Ok(kept);
            }
        }
        let note = key.sign(graph, size, root)?;
        self.store.log_set_checkpoint(graph, &note).await?;
        Ok(note)
    }

    /// The hashes of a proof: which ones it needs is found first, then they are read in
    /// one round trip.
    pub(crate) async fn fetch_for<T>(
        &self,
        graph: &str,
        build: impl Fn(&ReadFn<'_>) -> Result<T, tlog_tiles::Error>,
    ) -> Result<T> {
        let wanted = Wanted::default();
        build(&|i| tlog_tiles::HashReader::read_hashes(&wanted, i)).map_err(tlog_err)?;
        let indexes = wanted.0.into_inner();
        let hashes = self.store.log_read(graph, &indexes).await?;
        let fetched = Fetched(indexes.into_iter().zip(hashes).collect());
        build(&|i| tlog_tiles::HashReader::read_hashes(&fetched, i)).map_err(tlog_err)
    }

    /// Whether the log as it is now (`size`, `root`) is the checkpoint's tree or extends it,
    /// by a consistency proof read from the store (an empty checkpoint is extended by any log).
    pub(crate) async fn log_extends(
        &self,
        graph: &str,
        cp: &checkpoint::Opened,
        size: u64,
        root: Hash,
    ) -> Result<bool> {
        if cp.size == size {
            return Ok(cp.root == root);
        }
        if cp.size == 0 || cp.size > size {
            return Ok(cp.size == 0);
        }
        let now = checkpoint::Opened { origin: cp.origin.clone(), size, root, signed_by: vec![] };
        let path = self.consistency_path(graph, size, cp.size).await?;
        Ok(crate::tlog::proof::check_consistency(cp, &now, &path).is_ok())
    }

    /// The consistency path from the log's first `n` leaves to its first `t`.
    pub(crate) async fn consistency_path(&self, graph: &str, t: u64, n: u64) -> Result<Vec<Hash>> {
        if n == 0 || n >= t {
            return Ok(Vec::new());
        }
        self.fetch_for(graph, |r| prove_tree(t, n, &Reader(r))).await
    }

    /// An inclusion proof of leaf `index` at a new checkpoint of the graph's log.
    pub async fn log_prove(&self, graph: &str, index: u64) -> Result<Inclusion> {
        let note = self.log_checkpoint(graph).await?;
        let cp = checkpoint::open(&note, None).map_err(|e| Error::Query(e.to_string()))?;
        if index >= cp.size {
            return Err(Error::NotFound {
                what: "log leaf",
                name: format!("{index} (the log has {} leaves)", cp.size),
            });
        }
        let size = cp.size;
        let path = self.fetch_for(graph, |r| prove_record(size, index, &Reader(r))).await?;
        let leaf = self.store.log_read(graph, &[stored_hash_index(0, index)]).await?[0];
        Ok(Inclusion {
            kind: INCLUSION_TYPE.into(),
            checkpoint: String::from_utf8_lossy(&note).into_owned(),
            index,
            leaf_hash: encode_hash(&leaf),
            path: path.iter().map(encode_hash).collect(),
        })
    }

    /// A consistency proof from an earlier checkpoint of the graph's log to a new one.
    pub async fn log_consistency(&self, graph: &str, old_note: &[u8]) -> Result<Consistency> {
        let old = checkpoint::open(old_note, None)
            .map_err(|e| Error::BadRequest(format!("the earlier checkpoint: {e}")))?;
        let note = self.log_checkpoint(graph).await?;
        let new = checkpoint::open(&note, None).map_err(|e| Error::Query(e.to_string()))?;
        if old.size > new.size {
            return Err(Error::BadRequest(format!(
                "the earlier checkpoint has {} leaves, more than the log's {}",
                old.size, new.size
            )));
        }
        let path = self.consistency_path(graph, new.size, old.size).await?;
        Ok(Consistency {
            kind: CONSISTENCY_TYPE.into(),
            old: String::from_utf8_lossy(old_note).into_owned(),
            new: String::from_utf8_lossy(&note).into_owned(),
            path: path.iter().map(encode_hash).collect(),
        })
    }
}

/// A [`tlog_tiles::HashReader`] over a closure.
pub(crate) struct Reader<'a>(pub(crate) &'a ReadFn<'a>);

/// Reads stored hashes by index.
pub(crate) type ReadFn<'a> = dyn Fn(&[u64]) -> Result<Vec<Hash>, tlog_tiles::Error> + 'a;

impl tlog_tiles::HashReader for Reader<'_> {
    fn read_hashes(&self, indexes: &[u64]) -> Result<Vec<Hash>, tlog_tiles::Error> {
        (self.0)(indexes)
    }
}

impl Provex {
    /// The log section of an audit bundle of `graph` (none when the graph has no log): a new
    /// signed checkpoint, each document's line and inclusion proof, and with `since` (a
    /// checkpoint or an earlier bundle an auditor kept) the consistency proof from it.
    pub(crate) async fn bundle_log(
        &self,
        graph: &str,
        bundle: &crate::sources::statements::bundle::AuditBundle,
        since: Option<&[u8]>,
    ) -> Result<Option<crate::sources::statements::bundle::BundleLog>> {
        use crate::sources::statements::bundle::log::{Since, SinceProof};
        use crate::tlog::{LINE_PROP, RECEIVED_PROP, SOURCE_PROP};
        let since = since
            .map(Since::from_bytes)
            .transpose()
            .map_err(|e| Error::BadRequest(format!("the earlier checkpoint: {e}")))?;
        if self.log_head(graph).await?.0 == 0 {
            return match since {
                Some(_) => {
                    Err(Error::BadRequest(format!("graph {graph} has no log to prove anything since")))
                }
                None => Ok(None),
            };
        }
        let note = self.log_checkpoint(graph).await?;
        let cp = checkpoint::open(&note, None).map_err(|e| Error::Query(e.to_string()))?;
        let docs: HashMap<&str, &serde_json::Value> =
            bundle.documents.iter().filter_map(|d| Some((d.get("@id")?.as_str()?, d))).collect();
        let ids = falkordb::FalkorValue::Array(
            docs.keys().map(|id| falkordb::FalkorValue::String((*id).to_owned())).collect(),
        );
        let q = format!(
            "MATCH (n) WHERE n.name IN $ids AND n.{SOURCE_PROP} IS NOT NULL \
             RETURN n.name, n.{l}, n.{SOURCE_PROP}, n.{RECEIVED_PROP}, n.{LINE_PROP}",
            l = crate::tlog::LEAVES_PROP
        );
        let rows = self.store.run_ro(graph, &q, vec![("ids", ids)]).await?.1;
        let mut records = Vec::new();
        for row in &rows {
            let [name, leaves, source, received, line] = row.as_slice() else { continue };
            use crate::store::value::{as_i64, as_string};
            let (Some(name), Some(source), Some(received)) =
                (as_string(name), as_string(source), as_i64(received))
            else {
                continue;
            };
            let Some(index) = (match leaves {
                falkordb::FalkorValue::Array(a) => a.last().and_then(as_i64),
                _ => None,
            }) else {
                continue;
            };
            let Some(doc) = docs.get(name.as_str()) else { continue };
            let line = as_string(line).unwrap_or_else(|| serde_json::to_string(doc).unwrap_or_default());
            let (index, received) = (index as u64, received as u64);
            if index >= cp.size {
                continue;
            }
            // The proof only for a line that hashes to its leaf as stored.
            let leaf = crate::tlog::leaf_hash(&source, received, line.as_bytes());
            if self.store.log_read(graph, &[stored_hash_index(0, index)]).await?[0] != leaf {
                tracing::warn!(graph, document = %name, "its line no longer hashes to its leaf: left out of the bundle's log");
                continue;
            }
            let size = cp.size;
            let path = self.fetch_for(graph, |r| prove_record(size, index, &Reader(r))).await?;
            records.push(crate::sources::statements::bundle::LogRecord {
                document: name,
                index,
                source,
                received,
                line,
                path: path.iter().map(encode_hash).collect(),
            });
        }
        records.sort_by_key(|r| r.index);
        let consistency = match since {
            None => None,
            Some(s) => {
                let old = checkpoint::open(&s.checkpoint, None)
                    .map_err(|e| Error::BadRequest(format!("the earlier checkpoint: {e}")))?;
                if old.origin != cp.origin || old.size > cp.size {
                    return Err(Error::BadRequest(format!(
                        "the earlier checkpoint ({} at {} leaves) is not of this log ({} at {} leaves)",
                        old.origin, old.size, cp.origin, cp.size
                    )));
                }
                let path = self.consistency_path(graph, cp.size, old.size).await?;
                Some(SinceProof {
                    old: String::from_utf8_lossy(&s.checkpoint).into_owned(),
                    path: path.iter().map(encode_hash).collect(),
                })
            }
        };
        Ok(Some(crate::sources::statements::bundle::BundleLog {
            checkpoint: String::from_utf8_lossy(&note).into_owned(),
            verifier_key: self.log_key()?.verifier_key(),
            records,
            consistency,
        }))
    }
}

/// Reads the instance key from `dir`, making it (mode 0600) when there is none.
fn load_or_create_key(dir: &std::path::Path) -> Result<InstanceKey> {
    use crate::tlog::checkpoint::{instance_name, KEY_FILE};
    let name = format!("provex/{}", instance_name());
    let (file, path) = load_or_create_key_file(dir, KEY_FILE, "provex-log", &name)?;
    let key = file.signing_key().map_err(|reason| Error::Input { path: path.clone(), reason })?;
    InstanceKey::from_parts(&file.agent, key).map_err(|reason| Error::Input { path, reason })
}

/// Reads the key file `file` (the format of `provex keys generate`) from `dir`, making it
/// (mode 0600, named `name`) when there is none; the key and its path.
pub(crate) fn load_or_create_key_file(
    dir: &std::path::Path,
    file: &str,
    key_id: &str,
    name: &str,
) -> Result<(crate::sources::statements::keys::KeyFile, PathBuf)> {
    use crate::sources::statements::keys::KeyFile;
    let path = dir.join(file);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let file =
                KeyFile::from_json(&text).map_err(|reason| Error::Input { path: path.clone(), reason })?;
            Ok((file, path))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let file = KeyFile::generate(key_id, name).map_err(Error::Server)?;
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
            checkpoint::write_private(&path, file.to_json().as_bytes())?;
            Ok((file, path))
        }
        Err(e) => Err(Error::io(path, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::load_or_create_key;

    #[test]
    fn the_key_file_is_private() {
        let dir = tempfile::tempdir().unwrap();
        let a = load_or_create_key(dir.path()).unwrap();
        let b = load_or_create_key(dir.path()).unwrap();
        assert_eq!(a.verifier_key(), b.verifier_key());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(dir.path().join(crate::tlog::checkpoint::KEY_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
