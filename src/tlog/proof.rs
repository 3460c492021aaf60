//! Inclusion and consistency proofs of a graph's log as files an auditor keeps and checks
//! offline (docs/FORMATS.md, "Tamper-evident log"): JSON objects that carry the signed
//! checkpoint(s) they prove against and the RFC 9162 audit path or consistency path as
//! base64 hashes. Parsing is bounded: a proof file is at most [`MAX_PROOF_BYTES`], a path
//! at most 64 hashes (the height of a tree of 2^64 leaves).

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use tlog_tiles::{check_record, check_tree};

use super::checkpoint::{self, CheckpointError, Opened};
use super::Hash;

/// The `type` of an inclusion proof file.
pub const INCLUSION_TYPE: &str = "provex-log-inclusion/v1";
/// The `type` of a consistency proof file.
pub const CONSISTENCY_TYPE: &str = "provex-log-consistency/v1";
/// The most bytes of a proof file read.
pub const MAX_PROOF_BYTES: usize = 256 * 1024;
/// The most hashes of a path: the height of the largest tree.
pub const MAX_PATH: usize = 64;

/// That a leaf is in the log at a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Inclusion {
    #[serde(rename = "type")]
    pub kind: String,
    /// The signed checkpoint, as its note's text.
    pub checkpoint: String,
    /// The leaf's index in the log.
    pub index: u64,
    /// The leaf's hash, standard base64.
    pub leaf_hash: String,
    /// The audit path (RFC 9162 §2.1.3), standard base64 hashes.
    pub path: Vec<String>,
}

/// That the log at checkpoint `new` extends the log at checkpoint `old`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Consistency {
    #[serde(rename = "type")]
    pub kind: String,
    pub old: String,
    pub new: String,
    /// The consistency path (RFC 9162 §2.1.4), standard base64 hashes.
    pub path: Vec<String>,
}

/// A proof file of either kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProofFile {
    Inclusion(Inclusion),
    Consistency(Consistency),
}

/// Why a proof was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProofError {
    #[error("the proof is {0} bytes, over the limit of {MAX_PROOF_BYTES}")]
    TooLarge(usize),
    #[error("not a proof file: {0}")]
    Malformed(String),
    #[error("the path has {0} hashes, over the limit of {MAX_PATH}")]
    PathTooLong(usize),
    #[error("hash {0} of the path is not 32 bytes of standard base64")]
    BadHash(usize),
    #[error("checkpoint: {0}")]
    Checkpoint(#[from] CheckpointError),
    #[error("the checkpoints are of two logs: {0} and {1}")]
    OtherLog(String, String),
    #[error("the proof does not hold: {0}")]
    Invalid(String),
}

/// Reads a proof file (either kind).
pub fn parse(bytes: &[u8]) -> Result<ProofFile, ProofError> {
    if bytes.len() > MAX_PROOF_BYTES {
        return Err(ProofError::TooLarge(bytes.len()));
    }
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| ProofError::Malformed(e.to_string()))?;
    let kind = value.get("type").and_then(|t| t.as_str()).unwrap_or_default().to_owned();
    let file = match kind.as_str() {
        INCLUSION_TYPE => ProofFile::Inclusion(
            serde_json::from_value(value).map_err(|e| ProofError::Malformed(e.to_string()))?,
        ),
        CONSISTENCY_TYPE => ProofFile::Consistency(
            serde_json::from_value(value).map_err(|e| ProofError::Malformed(e.to_string()))?,
        ),
        other => {
            return Err(ProofError::Malformed(format!(
                "type {other:?} is neither {INCLUSION_TYPE} nor {CONSISTENCY_TYPE}"
            )))
        }
    };
    let path = match &file {
        ProofFile::Inclusion(p) => &p.path,
        ProofFile::Consistency(p) => &p.path,
    };
    if path.len() > MAX_PATH {
        return Err(ProofError::PathTooLong(path.len()));
    }
    Ok(file)
}

pub fn encode_hash(h: &Hash) -> String {
    STANDARD.encode(h.0)
}

/// A standard base64 hash, if it is one.
pub fn decode(s: &str) -> Option<Hash> {
    decode_hash(0, s).ok()
}

fn decode_hash(i: usize, s: &str) -> Result<Hash, ProofError> {
    let bytes = STANDARD.decode(s).map_err(|_| ProofError::BadHash(i))?;
    Ok(Hash(bytes.try_into().map_err(|_| ProofError::BadHash(i))?))
}

fn decode_path(path: &[String]) -> Result<Vec<Hash>, ProofError> {
    if path.len() > MAX_PATH {
        return Err(ProofError::PathTooLong(path.len()));
    }
    path.iter().enumerate().map(|(i, s)| decode_hash(i, s)).collect()
}

/// Checks an inclusion proof: its checkpoint (signed by `verifier` when given) has the
/// leaf at its index. Returns the checkpoint.
pub fn verify_inclusion(p: &Inclusion, verifier: Option<&str>) -> Result<Opened, ProofError> {
    let cp = checkpoint::open(p.checkpoint.as_bytes(), verifier)?;
    let leaf = decode_hash(0, &p.leaf_hash)?;
    let path = decode_path(&p.path)?;
    if p.index >= cp.size {
        return Err(ProofError::Invalid(format!(
            "leaf {} is past the checkpoint's {} leaves",
            p.index, cp.size
        )));
    }
    check_record(&path, cp.size, cp.root, p.index, leaf).map_err(|e| {
        ProofError::Invalid(format!("leaf {} is not in the log of {} leaves ({e})", p.index, cp.size))
    })?;
    Ok(cp)
}

/// Checks a consistency proof: checkpoint `new` extends checkpoint `old` of the same log
/// (both signed by `verifier` when given). Returns both checkpoints.
pub fn verify_consistency(p: &Consistency, verifier: Option<&str>) -> Result<(Opened, Opened), ProofError> {
    let old = checkpoint::open(p.old.as_bytes(), verifier)?;
    let new = checkpoint::open(p.new.as_bytes(), verifier)?;
    check_consistency(&old, &new, &decode_path(&p.path)?)?;
    Ok((old, new))
}

/// Checks that `new` extends `old` by the consistency path `path`.
pub fn check_consistency(old: &Opened, new: &Opened, path: &[Hash]) -> Result<(), ProofError> {
    if old.origin != new.origin {
        return Err(ProofError::OtherLog(old.origin.clone(), new.origin.clone()));
    }
    if old.size > new.size {
        return Err(ProofError::Invalid(format!(
            "the later checkpoint has {} leaves, fewer than the earlier's {}",
            new.size, old.size
        )));
    }
    if old.size == 0 {
        return if path.is_empty() {
            Ok(())
        } else {
            Err(ProofError::Invalid("a path from the empty log".into()))
        };
    }
    if old.size == new.size {
        return if path.is_empty() && old.root == new.root {
            Ok(())
        } else {
            Err(ProofError::Invalid(format!("two different logs of {} leaves", old.size)))
        };
    }
    check_tree(&path.to_vec(), new.size, new.root, old.size, old.root).map_err(|e| {
        ProofError::Invalid(format!(
            "the log of {} leaves does not extend the log of {} leaves ({e})",
            new.size, old.size
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn over_long_paths_and_unknown_types_are_refused() {
        let path: Vec<String> = (0..65).map(|_| STANDARD.encode([0u8; 32])).collect();
        let p = serde_json::json!({"type": INCLUSION_TYPE, "checkpoint": "x", "index": 0, "leaf_hash": "", "path": path});
        assert_eq!(parse(p.to_string().as_bytes()), Err(ProofError::PathTooLong(65)));
        let p = serde_json::json!({"type": "nope"});
        assert!(matches!(parse(p.to_string().as_bytes()), Err(ProofError::Malformed(_))));
        let deep = "[".repeat(100_000);
        assert!(matches!(parse(deep.as_bytes()), Err(ProofError::Malformed(_))));
        assert!(matches!(parse(&vec![b' '; MAX_PROOF_BYTES + 1]), Err(ProofError::TooLarge(_))));
    }
}
