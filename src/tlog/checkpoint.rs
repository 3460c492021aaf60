//! Signed checkpoints of a graph's log in the C2SP `tlog-checkpoint` format, inside a C2SP
//! `signed-note` (docs/FORMATS.md, "Tamper-evident log"): the origin
//! `provex/<instance>/<graph>`, the tree size, the base64 root hash, and an Ed25519 signature
//! line by the instance's key, whose file (`log-key.json`, mode 0600) lives in the data
//! folder.

use std::path::PathBuf;

use ed25519_dalek::{Signer as _, SigningKey};
use signed_note::{Note, StandardVerifier, Verifier as _, VerifierList};
use tlog_tiles::Checkpoint;

use super::Hash;
use crate::error::{Error, Result};

/// The name of the instance key's file in the data folder.
pub const KEY_FILE: &str = "log-key.json";

/// The signed-note algorithm byte of Ed25519.
const ALG_ED25519: u8 = 0x01;

/// The most bytes of a signed checkpoint read (the note parser's own limit is 1 MB).
pub const MAX_NOTE_BYTES: usize = 64 * 1024;

/// The key a Provex instance signs its checkpoints with, and its name (`provex/<instance>`).
pub struct InstanceKey {
    name: String,
    key: SigningKey,
    id: u32,
}

impl std::fmt::Debug for InstanceKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InstanceKey").field("name", &self.name).finish_non_exhaustive()
    }
}

/// The instance's name: `PROVEX_INSTANCE`, else the host's name, reduced to the characters a
/// signed-note key name may hold.
pub fn instance_name() -> String {
    let raw = std::env::var("PROVEX_INSTANCE")
        .ok()
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
        .unwrap_or_default();
    let clean: String = raw
        .trim()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .take(64)
        .collect();
    if clean.is_empty() {
        "local".into()
    } else {
        clean
    }
}

/// The origin line of a graph's checkpoints.
pub fn origin(instance_key_name: &str, graph: &str) -> String {
    format!("{instance_key_name}/{graph}")
}

impl InstanceKey {
    /// The instance key named `name` (a signed-note key name, `provex/<instance>`).
    pub fn from_parts(name: &str, key: SigningKey) -> Result<InstanceKey, String> {
        if !signed_note::is_key_name_valid(name) {
            return Err(format!("{name:?} is not a valid signed-note key name"));
        }
        let id = signed_note::key_id(name, &encoded_public(&key));
        Ok(InstanceKey { name: name.to_owned(), key, id })
    }

    /// The instance key named `name` made from a 32-byte seed (tests and fuzz inputs).
    pub fn from_seed(name: &str, seed: [u8; 32]) -> Result<InstanceKey, String> {
        InstanceKey::from_parts(name, SigningKey::from_bytes(&seed))
    }

    /// The key's name, `provex/<instance>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The verifier key an auditor keeps: `<name>+<key hash>+<base64 of 0x01 || public key>`.
    pub fn verifier_key(&self) -> String {
        signed_note::new_ed25519_verifier_key(&self.name, &self.key.verifying_key())
    }

    /// The signed checkpoint of a graph's log of `size` leaves with root hash `root`.
    pub fn sign(&self, graph: &str, size: u64, root: Hash) -> Result<Vec<u8>> {
        let cp = Checkpoint::new(&origin(&self.name, graph), size, root, "")
            .map_err(|e| Error::Usage(format!("checkpoint of graph {graph}: {e}")))?;
        let mut note =
            Note::new(&cp.to_bytes(), &[]).map_err(|e| Error::Usage(format!("checkpoint: {e}")))?;
        note.add_sigs(&[self]).map_err(|e| Error::Usage(format!("checkpoint signature: {e}")))?;
        Ok(note.to_bytes())
    }
}

/// The signed-note encoding of an Ed25519 public key: the algorithm byte, then the key.
fn encoded_public(key: &SigningKey) -> Vec<u8> {
    let mut v = vec![ALG_ED25519];
    v.extend_from_slice(key.verifying_key().as_bytes());
    v
}

impl signed_note::Signer for InstanceKey {
    fn name(&self) -> &str {
        &self.name
    }
    fn key_id(&self) -> u32 {
        self.id
    }
    fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, ed25519_dalek::SignatureError> {
        Ok(self.key.sign(msg).to_bytes().to_vec())
    }
}

pub fn write_private(path: &PathBuf, bytes: &[u8]) -> Result<()> {
    use std::io::Write as _;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        opts.mode(0o600);
    }
    let mut f = opts.open(path).map_err(|e| Error::io(path, e))?;
    f.write_all(bytes).and_then(|()| f.sync_all()).map_err(|e| Error::io(path, e))
}

/// A checkpoint read from its signed note: origin, size, root.
#[derive(Debug, Clone, PartialEq)]
pub struct Opened {
    pub origin: String,
    pub size: u64,
    pub root: Hash,
    /// Names of the keys whose signatures were checked (empty when none was given).
    pub signed_by: Vec<String>,
}

/// Why a checkpoint was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointError {
    #[error("the checkpoint is {0} bytes, over the limit of {MAX_NOTE_BYTES}")]
    TooLarge(usize),
    #[error("not a signed note (text, a blank line, then signature lines): {0}")]
    NotANote(String),
    #[error("not a checkpoint (origin, tree size, base64 root hash lines)")]
    NotACheckpoint,
    #[error("the verifier key is malformed: {0}")]
    BadKey(String),
    #[error("the signature does not verify: {0}")]
    BadSignature(String),
}

/// Reads a signed checkpoint; with `verifier` (a signed-note verifier key) its signature by
/// that key must be there and valid.
pub fn open(note: &[u8], verifier: Option<&str>) -> Result<Opened, CheckpointError> {
    if note.len() > MAX_NOTE_BYTES {
        return Err(CheckpointError::TooLarge(note.len()));
    }
    let parsed = Note::from_bytes(note).map_err(|e| CheckpointError::NotANote(e.to_string()))?;
    let mut signed_by = Vec::new();
    if let Some(vkey) = verifier {
        let v = StandardVerifier::new(vkey.trim()).map_err(|e| CheckpointError::BadKey(e.to_string()))?;
        let name = v.name().to_owned();
        let list = VerifierList::new(vec![Box::new(v)]);
        parsed.verify(&list).map_err(|e| CheckpointError::BadSignature(e.to_string()))?;
        signed_by.push(name);
    }
    let cp = Checkpoint::from_bytes(parsed.text()).map_err(|_| CheckpointError::NotACheckpoint)?;
    Ok(Opened { origin: cp.origin().to_owned(), size: cp.size(), root: *cp.hash(), signed_by })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> InstanceKey {
        InstanceKey::from_parts("provex/test", SigningKey::from_bytes(&[7; 32])).unwrap()
    }

    #[test]
    fn a_checkpoint_is_a_signed_note_that_verifies_with_the_instance_key() {
        let k = key();
        let note = k.sign("g", 5, Hash([3; 32])).unwrap();
        let text = String::from_utf8(note.clone()).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("provex/test/g"));
        assert_eq!(lines.next(), Some("5"));
        assert_eq!(lines.next(), Some("AwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwM="));
        assert_eq!(lines.next(), Some(""));
        let sig = lines.next().unwrap();
        assert!(sig.starts_with("— provex/test "), "{sig}");
        let opened = open(&note, Some(&k.verifier_key())).unwrap();
        assert_eq!((opened.origin.as_str(), opened.size, opened.root), ("provex/test/g", 5, Hash([3; 32])));
        // A changed size breaks the signature.
        let forged = text.replacen("\n5\n", "\n6\n", 1);
        assert!(matches!(
            open(forged.as_bytes(), Some(&k.verifier_key())),
            Err(CheckpointError::BadSignature(_))
        ));
        // Another key's verifier finds no signature of its own.
        let other = InstanceKey::from_parts("provex/test", SigningKey::from_bytes(&[8; 32])).unwrap();
        assert!(open(&note, Some(&other.verifier_key())).is_err());
    }

    #[test]
    fn the_key_hash_is_the_signed_note_one() {
        let k = key();
        let vkey = k.verifier_key();
        let parts: Vec<&str> = vkey.split('+').collect();
        assert_eq!(parts[0], "provex/test");
        use base64::Engine as _;
        let pk = base64::engine::general_purpose::STANDARD.decode(parts[2]).unwrap();
        assert_eq!(pk[0], 1);
        let mut h = sha2::Sha256::new();
        use sha2::Digest as _;
        h.update(b"provex/test\n");
        h.update(&pk);
        let d = h.finalize();
        assert_eq!(parts[1], format!("{:08x}", u32::from_be_bytes([d[0], d[1], d[2], d[3]])));
    }
}
