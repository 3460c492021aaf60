//! Witnesses of a graph's log (docs/FORMATS.md, "Tamper-evident log", witnesses): a second
//! party that keeps, for each log it witnesses, the size and root hash it last cosigned, and
//! cosigns a new checkpoint only when a consistency proof shows it extends them. An instance
//! that showed two histories to two auditors would need a witness to cosign both, which it
//! refuses. The request is C2SP tlog-witness's `add-checkpoint` body; the cosignature is a
//! C2SP tlog-cosignature/v1 Ed25519 note signature line, appended to the signed checkpoint.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

use super::checkpoint::{self, Opened, MAX_NOTE_BYTES};
pub use super::cosignature::{
    accept_cosignatures, append_cosignatures, cosigned_by, cosigned_message, note_text, CosignatureVerifier,
    Cosigned, WitnessKey, ALG_COSIGNATURE_V1, WITNESS_KEY_FILE,
};
use super::proof::MAX_PATH;
use super::Hash;

/// The most consistency proof lines of a request (C2SP tlog-witness).
pub const MAX_PROOF_LINES: usize = 63;
/// The most bytes of an `add-checkpoint` body: a checkpoint and its proof lines.
pub const MAX_REQUEST_BYTES: usize = MAX_NOTE_BYTES + 8 * 1024;
/// The path of the witness endpoint under a server's address.
pub const ADD_CHECKPOINT_PATH: &str = "/witness/add-checkpoint";
/// The content type of a witness's answer naming the size it last cosigned.
pub const SIZE_CONTENT_TYPE: &str = "text/x.tlog.size";

/// An `add-checkpoint` request (C2SP tlog-witness): the size the log last had cosigned by
/// this witness, the consistency proof from it, and the new signed checkpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct AddCheckpoint {
    pub old: u64,
    pub proof: Vec<Hash>,
    pub checkpoint: Vec<u8>,
}

impl AddCheckpoint {
    /// The request's body: `old N`, one base64 hash a line, a blank line, the checkpoint.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = format!("old {}\n", self.old).into_bytes();
        for h in &self.proof {
            b.extend_from_slice(STANDARD.encode(h.0).as_bytes());
            b.push(b'\n');
        }
        b.push(b'\n');
        b.extend_from_slice(&self.checkpoint);
        b
    }

    /// Reads a request's body, bounded: at most [`MAX_REQUEST_BYTES`] and
    /// [`MAX_PROOF_LINES`] hashes. The reason names the line.
    pub fn parse(body: &[u8]) -> Result<AddCheckpoint, String> {
        if body.len() > MAX_REQUEST_BYTES {
            return Err(format!(
                "the request is {} bytes, over the limit of {MAX_REQUEST_BYTES}",
                body.len()
            ));
        }
        let mut rest = body;
        let mut line_no = 0usize;
        let mut next_line = |rest: &mut &[u8]| -> Result<(usize, Vec<u8>), String> {
            line_no += 1;
            let at = rest.iter().position(|b| *b == b'\n').ok_or(format!("line {line_no} does not end"))?;
            let line = rest[..at].to_vec();
            *rest = &rest[at + 1..];
            Ok((line_no, line))
        };
        let (_, first) = next_line(&mut rest)?;
        let old = std::str::from_utf8(&first)
            .ok()
            .and_then(|l| l.strip_prefix("old "))
            .filter(|n| {
                !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && (n == &"0" || !n.starts_with('0'))
            })
            .and_then(|n| n.parse::<u64>().ok())
            .ok_or("line 1 is not `old` and the size last cosigned (a decimal)")?;
        let mut proof = Vec::new();
        loop {
            let (n, line) = next_line(&mut rest)?;
            if line.is_empty() {
                break;
            }
            if proof.len() == MAX_PROOF_LINES.min(MAX_PATH) {
                return Err(format!("line {n}: more than {MAX_PROOF_LINES} consistency proof lines"));
            }
            let hash = STANDARD
                .decode(&line)
                .ok()
                .and_then(|b| <[u8; 32]>::try_from(b).ok())
                .ok_or(format!("line {n} is not a 32-byte base64 hash"))?;
            proof.push(Hash(hash));
        }
        if rest.is_empty() {
            return Err("the request holds no checkpoint after its blank line".into());
        }
        Ok(AddCheckpoint { old, proof, checkpoint: rest.to_vec() })
    }
}

/// What a witness last cosigned of one log.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seen {
    pub size: u64,
    pub root: Hash,
}

impl Seen {
    /// As the witness keeps it: `size base64-root`.
    pub fn to_text(&self) -> String {
        format!("{} {}", self.size, STANDARD.encode(self.root.0))
    }

    pub fn from_text(s: &str) -> Option<Seen> {
        let (size, root) = s.trim().split_once(' ')?;
        let root = <[u8; 32]>::try_from(STANDARD.decode(root).ok()?).ok()?;
        Some(Seen { size: size.parse().ok()?, root: Hash(root) })
    }
}

/// Why a witness refused to cosign (C2SP tlog-witness's statuses).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// 400: not a request, or an old size past the checkpoint's.
    #[error("{0}")]
    Malformed(String),
    /// 404: no log of this origin is witnessed here.
    #[error(
        "this witness witnesses no log of origin {0} (start it with --witness-log naming the log's key)"
    )]
    UnknownLog(String),
    /// 403: not signed by the key pinned for the origin.
    #[error("the checkpoint of {origin} is not signed by the key this witness pins for it ({reason})")]
    Unsigned { origin: String, reason: String },
    /// 409: the request builds on another size than the one last cosigned.
    #[error("this witness last cosigned {have} leaves of {origin}; the request builds on {old} (send a consistency proof from {have})")]
    Stale { origin: String, have: u64, old: u64 },
    /// 409: another root for a size already cosigned.
    #[error(
        "this witness cosigned another root hash for {size} leaves of {origin}: the log shows two histories"
    )]
    Fork { origin: String, size: u64 },
    /// 422: the consistency proof does not hold.
    #[error("the checkpoint of {size} leaves of {origin} does not extend the {have} leaves this witness cosigned: {reason}")]
    Inconsistent { origin: String, size: u64, have: u64, reason: String },
}

impl Refusal {
    /// The HTTP status C2SP tlog-witness gives it.
    pub fn status(&self) -> u16 {
        match self {
            Refusal::Malformed(_) => 400,
            Refusal::UnknownLog(_) => 404,
            Refusal::Unsigned { .. } => 403,
            Refusal::Stale { .. } | Refusal::Fork { .. } => 409,
            Refusal::Inconsistent { .. } => 422,
        }
    }
}

/// The log keys a witness trusts whose name the origin starts with (`provex/<instance>`
/// signs `provex/<instance>/<graph>`).
fn keys_for<'a>(origin: &str, logs: &'a [String]) -> Vec<&'a str> {
    logs.iter()
        .map(String::as_str)
        .filter(|k| {
            let name = k.split('+').next().unwrap_or_default();
            origin.strip_prefix(name).is_some_and(|rest| rest.starts_with('/') || rest.is_empty())
        })
        .collect()
}

/// Decides an `add-checkpoint` request: the checkpoint is signed by a key in `logs` (signed-note
/// verifier keys) for its origin, and extends `seen` (what was last cosigned of that log).
/// The opened checkpoint, to cosign and keep.
pub fn decide(req: &AddCheckpoint, logs: &[String], seen: Option<Seen>) -> Result<Opened, Refusal> {
    let unsigned = checkpoint::open(&req.checkpoint, None).map_err(|e| Refusal::Malformed(e.to_string()))?;
    let origin = unsigned.origin.clone();
    let keys = keys_for(&origin, logs);
    if keys.is_empty() {
        return Err(Refusal::UnknownLog(origin));
    }
    let mut reasons = Vec::new();
    let mut opened = None;
    for k in keys {
        match checkpoint::open(&req.checkpoint, Some(k)) {
            Ok(cp) => {
                opened = Some(cp);
                break;
            }
            Err(e) => reasons.push(e.to_string()),
        }
    }
    let cp =
        opened.ok_or_else(|| Refusal::Unsigned { origin: origin.clone(), reason: reasons.join("; ") })?;
    if req.old > cp.size {
        return Err(Refusal::Malformed(format!(
            "the old size {} is larger than the checkpoint's {}",
            req.old, cp.size
        )));
    }
    let have = seen.map_or(0, |s| s.size);
    if req.old != have {
        return Err(Refusal::Stale { origin, have, old: req.old });
    }
    let Some(seen) = seen.filter(|s| s.size > 0) else {
        return if req.proof.is_empty() {
            Ok(cp)
        } else {
            Err(Refusal::Inconsistent {
                origin,
                size: cp.size,
                have,
                reason: "a proof from the empty log must be empty".into(),
            })
        };
    };
    if seen.size == cp.size {
        return if seen.root == cp.root { Ok(cp) } else { Err(Refusal::Fork { origin, size: cp.size }) };
    }
    let old = Opened { origin: origin.clone(), size: seen.size, root: seen.root, signed_by: Vec::new() };
    super::proof::check_consistency(&old, &cp, &req.proof).map_err(|e| Refusal::Inconsistent {
        origin,
        size: cp.size,
        have,
        reason: e.to_string(),
    })?;
    Ok(cp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tlog::checkpoint::InstanceKey;
    use crate::tlog::{leaf_hash, Frontier};
    use ed25519_dalek::SigningKey;

    fn log_key() -> InstanceKey {
        InstanceKey::from_parts("provex/a", SigningKey::from_bytes(&[1; 32])).unwrap()
    }

    /// A log of `n` leaves named `tag`, its frontier and stored hashes.
    fn log(n: u64, tag: &str) -> (Frontier, Vec<u8>) {
        let mut f = Frontier::default();
        let mut stored = Vec::new();
        for i in 0..n {
            f.append(leaf_hash(tag, i, b"x"), &mut stored);
        }
        (f, stored)
    }

    fn request(old: u64, n: u64, tag: &str) -> AddCheckpoint {
        let (f, stored) = log(n, tag);
        let proof = if old == 0 || old >= n {
            Vec::new()
        } else {
            tlog_tiles::prove_tree(n, old, &crate::tlog::StoredHashes(&stored)).unwrap()
        };
        AddCheckpoint { old, proof, checkpoint: log_key().sign("g", n, f.root()).unwrap() }
    }

    #[test]
    fn requests_round_trip_and_are_bounded() {
        let r = request(3, 10, "a");
        assert_eq!(AddCheckpoint::parse(&r.to_bytes()).unwrap(), r);
        for (body, why) in [
            (&b"old 01\n\nx"[..], "line 1"),
            (b"old\n\nx", "line 1"),
            (b"old 1\nnot-base64\n\nx", "line 2"),
            (b"old 1\n", "does not end"),
            (b"old 1\n\n", "no checkpoint"),
        ] {
            let e = AddCheckpoint::parse(body).unwrap_err();
            assert!(e.contains(why), "{e}");
        }
        let mut many = b"old 1\n".to_vec();
        for _ in 0..64 {
            many.extend_from_slice(STANDARD.encode([0u8; 32]).as_bytes());
            many.push(b'\n');
        }
        many.extend_from_slice(b"\nx");
        assert!(AddCheckpoint::parse(&many).unwrap_err().contains("more than 63"));
        assert!(AddCheckpoint::parse(&vec![b'\n'; MAX_REQUEST_BYTES + 1])
            .unwrap_err()
            .contains("over the limit"));
    }

    #[test]
    fn a_witness_cosigns_only_what_extends_what_it_saw() {
        let logs = vec![log_key().verifier_key()];
        let seen = |n: u64, tag: &str| Some(Seen { size: n, root: log(n, tag).0.root() });
        // First sight, then growth with a proof.
        assert_eq!(decide(&request(0, 5, "a"), &logs, None).unwrap().size, 5);
        assert_eq!(decide(&request(5, 9, "a"), &logs, seen(5, "a")).unwrap().size, 9);
        assert_eq!(decide(&request(5, 5, "a"), &logs, seen(5, "a")).unwrap().size, 5);
        // Another history: same size, another root; or a larger tree that does not extend.
        assert!(matches!(
            decide(&request(5, 5, "b"), &logs, seen(5, "a")),
            Err(Refusal::Fork { size: 5, .. })
        ));
        assert!(matches!(
            decide(&request(5, 9, "b"), &logs, seen(5, "a")),
            Err(Refusal::Inconsistent { size: 9, have: 5, .. })
        ));
        // A smaller tree, or a stale old size: the witness names what it has.
        assert!(matches!(
            decide(&request(3, 3, "a"), &logs, seen(5, "a")),
            Err(Refusal::Stale { have: 5, old: 3, .. })
        ));
        assert!(matches!(decide(&request(9, 5, "a"), &logs, seen(9, "a")), Err(Refusal::Malformed(_))));
        // Unknown origin, or another key under the same name.
        assert!(matches!(decide(&request(0, 5, "a"), &[], None), Err(Refusal::UnknownLog(_))));
        let impostor = InstanceKey::from_parts("provex/a", SigningKey::from_bytes(&[9; 32])).unwrap();
        assert!(matches!(
            decide(&request(0, 5, "a"), &[impostor.verifier_key()], None),
            Err(Refusal::Unsigned { .. })
        ));
        // A key named provex/ab does not sign provex/a's logs, nor provex/a provex/ab's.
        assert!(keys_for("provex/ab/g", &logs).is_empty());
    }

    #[test]
    fn seen_round_trips() {
        let s = Seen { size: 42, root: Hash([7; 32]) };
        assert_eq!(Seen::from_text(&s.to_text()), Some(s));
        assert_eq!(Seen::from_text("x"), None);
    }
}
