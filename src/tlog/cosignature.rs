//! Cosignatures of checkpoints (docs/FORMATS.md, "Tamper-evident log", witnesses): C2SP
//! tlog-cosignature/v1 Ed25519 note signature lines a witness appends to a signed checkpoint,
//! its key and verifier key (signed-note key type 0x04), and checking them.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::{Signer as _, SigningKey, VerifyingKey};
use signed_note::{Note, VerifierList};

use super::checkpoint::MAX_NOTE_BYTES;

/// The signed-note key type of an Ed25519 tlog-cosignature/v1 key.
pub const ALG_COSIGNATURE_V1: u8 = 0x04;
/// The name of the witness key's file in the data folder.
pub const WITNESS_KEY_FILE: &str = "witness-key.json";

/// The key a witness cosigns with, and its name.
pub struct WitnessKey {
    name: String,
    key: SigningKey,
    id: u32,
}

impl std::fmt::Debug for WitnessKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WitnessKey").field("name", &self.name).finish_non_exhaustive()
    }
}

/// The key ID of a cosigner: the first four bytes of `SHA-256(name || 0x0A || 0x04 || key)`.
fn cosigner_key_id(name: &str, key: &VerifyingKey) -> u32 {
    let mut encoded = vec![ALG_COSIGNATURE_V1];
    encoded.extend_from_slice(key.as_bytes());
    signed_note::key_id(name, &encoded)
}

/// What a tlog-cosignature/v1 signs: its header line, the time line, then the note's text.
pub fn cosigned_message(time: u64, text: &[u8]) -> Vec<u8> {
    let mut m = format!("cosignature/v1\ntime {time}\n").into_bytes();
    m.extend_from_slice(text);
    m
}

impl WitnessKey {
    /// The witness key named `name` (a signed-note key name).
    pub fn from_parts(name: &str, key: SigningKey) -> Result<WitnessKey, String> {
        if !signed_note::is_key_name_valid(name) {
            return Err(format!("{name:?} is not a valid signed-note key name"));
        }
        let id = cosigner_key_id(name, &key.verifying_key());
        Ok(WitnessKey { name: name.to_owned(), key, id })
    }

    /// The witness key named `name` made from a 32-byte seed (tests and fuzz inputs).
    pub fn from_seed(name: &str, seed: [u8; 32]) -> Result<WitnessKey, String> {
        WitnessKey::from_parts(name, SigningKey::from_bytes(&seed))
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The verifier key a log's auditors pin: `<name>+<key ID>+<base64 of 0x04 || key>`.
    pub fn verifier_key(&self) -> String {
        let mut encoded = vec![ALG_COSIGNATURE_V1];
        encoded.extend_from_slice(self.key.verifying_key().as_bytes());
        format!("{}+{:08x}+{}", self.name, self.id, STANDARD.encode(encoded))
    }

    /// The cosignature line of a checkpoint's text at `time` (POSIX seconds).
    pub fn cosign(&self, text: &[u8], time: u64) -> String {
        let sig = self.key.sign(&cosigned_message(time, text));
        let mut bytes = self.id.to_be_bytes().to_vec();
        bytes.extend_from_slice(&time.to_be_bytes());
        bytes.extend_from_slice(&sig.to_bytes());
        format!("— {} {}\n", self.name, STANDARD.encode(bytes))
    }
}

/// Checks tlog-cosignature/v1 signatures of one cosigner, as a signed-note verifier.
pub struct CosignatureVerifier {
    name: String,
    id: u32,
    key: VerifyingKey,
}

impl CosignatureVerifier {
    /// The verifier of a witness's verifier key (`name+id+base64(0x04 || key)`).
    pub fn new(vkey: &str) -> Result<CosignatureVerifier, String> {
        let mut parts = vkey.trim().splitn(3, '+');
        let (Some(name), Some(id), Some(key)) = (parts.next(), parts.next(), parts.next()) else {
            return Err("a witness key is NAME+KEYID+BASE64".into());
        };
        if !signed_note::is_key_name_valid(name) {
            return Err(format!("{name:?} is not a valid key name"));
        }
        let bytes = STANDARD.decode(key).map_err(|_| "the witness key's key is not base64".to_owned())?;
        let Some((&ALG_COSIGNATURE_V1, key)) = bytes.split_first() else {
            return Err("not a tlog-cosignature/v1 Ed25519 key (type 0x04)".into());
        };
        let key: [u8; 32] = key.try_into().map_err(|_| "the witness key is not 32 bytes".to_owned())?;
        let key =
            VerifyingKey::from_bytes(&key).map_err(|_| "the witness key is not an Ed25519 key".to_owned())?;
        let want = cosigner_key_id(name, &key);
        if u32::from_str_radix(id, 16).ok() != Some(want) || id.len() != 8 {
            return Err(format!("the witness key's ID {id} is not its key's ({want:08x})"));
        }
        Ok(CosignatureVerifier { name: name.to_owned(), id: want, key })
    }

    pub fn name(&self) -> &str {
        &self.name
    }
}

impl signed_note::Verifier for CosignatureVerifier {
    fn name(&self) -> &str {
        &self.name
    }
    fn key_id(&self) -> u32 {
        self.id
    }
    fn verify(&self, msg: &[u8], sig: &[u8]) -> bool {
        let Ok(sig) = <[u8; 72]>::try_from(sig) else { return false };
        let time = u64::from_be_bytes(sig[..8].try_into().expect("8 bytes"));
        if time > i64::MAX as u64 {
            return false;
        }
        let sig = ed25519_dalek::Signature::from_bytes(sig[8..].try_into().expect("64 bytes"));
        self.key.verify_strict(&cosigned_message(time, msg), &sig).is_ok()
    }
}

/// A checkpoint a witness cosigned: the checkpoint, the witness's name and when.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Cosigned {
    pub witness: String,
    /// When the witness cosigned it (POSIX seconds).
    pub time: u64,
}

/// Checks that a signed checkpoint carries a valid cosignature by the witness of verifier
/// key `vkey`; the cosignature's time.
pub fn cosigned_by(note: &[u8], vkey: &str) -> Result<Cosigned, String> {
    if note.len() > MAX_NOTE_BYTES {
        return Err(format!("the checkpoint is {} bytes, over the limit of {MAX_NOTE_BYTES}", note.len()));
    }
    let v = CosignatureVerifier::new(vkey)?;
    let (name, id) = (v.name.clone(), v.id);
    let parsed = Note::from_bytes(note).map_err(|e| format!("not a signed note: {e}"))?;
    let list = VerifierList::new(vec![Box::new(v)]);
    let (verified, _) = parsed.verify(&list).map_err(|e| match e {
        signed_note::NoteError::UnverifiedNote => format!("no cosignature by witness {name}"),
        e => format!("the cosignature of witness {name} does not verify: {e}"),
    })?;
    let sig = verified.iter().find(|s| s.name() == name && s.id() == id).ok_or("no cosignature")?;
    let time = u64::from_be_bytes(sig.signature()[..8].try_into().map_err(|_| "short cosignature")?);
    Ok(Cosigned { witness: name, time })
}

/// Appends cosignature lines to a signed checkpoint (those it carries already are not
/// repeated), as C2SP tlog-witness says a client may; the result must still be a note.
pub fn append_cosignatures(note: &[u8], lines: &[u8]) -> Result<Vec<u8>, String> {
    let text = std::str::from_utf8(lines).map_err(|_| "the cosignature lines are not UTF-8".to_owned())?;
    let have = String::from_utf8_lossy(note).into_owned();
    let mut out = note.to_vec();
    for line in text.lines().filter(|l| !l.is_empty()) {
        signed_note::Signature::from_bytes(line.as_bytes()).map_err(|_| {
            format!("not a note signature line: {}", line.chars().take(80).collect::<String>())
        })?;
        if !have.lines().any(|l| l == line) {
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        }
    }
    if out.len() > MAX_NOTE_BYTES {
        return Err(format!("the cosigned checkpoint would be over {MAX_NOTE_BYTES} bytes"));
    }
    Note::from_bytes(&out).map_err(|e| format!("the cosigned checkpoint is not a signed note: {e}"))?;
    Ok(out)
}

/// Takes a witness's answer to a signed checkpoint: only its cosignature lines by the pinned
/// witness (`vkey`) are appended (lines of other keys are ignored, as C2SP tlog-witness
/// says a client must); the cosigned checkpoint and that witness's cosignature.
pub fn accept_cosignatures(note: &[u8], answer: &[u8], vkey: &str) -> Result<(Vec<u8>, Cosigned), String> {
    let v = CosignatureVerifier::new(vkey)?;
    let text = std::str::from_utf8(answer).map_err(|_| "the answer is not UTF-8".to_owned())?;
    let mut mine = String::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        let sig = signed_note::Signature::from_bytes(line.as_bytes()).map_err(|_| {
            format!("not a note signature line: {}", line.chars().take(80).collect::<String>())
        })?;
        if sig.name() == v.name && sig.id() == v.id {
            mine.push_str(line);
            mine.push('\n');
        }
    }
    let out = append_cosignatures(note, mine.as_bytes())?;
    let by = cosigned_by(&out, vkey)?;
    Ok((out, by))
}

/// The text of a signed note (what its signatures sign).
pub fn note_text(note: &[u8]) -> Result<Vec<u8>, String> {
    Ok(Note::from_bytes(note).map_err(|e| format!("not a signed note: {e}"))?.text().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tlog::checkpoint::{self, InstanceKey};
    use crate::tlog::Hash;

    fn log_key() -> InstanceKey {
        InstanceKey::from_parts("provex/a", SigningKey::from_bytes(&[1; 32])).unwrap()
    }

    fn witness() -> WitnessKey {
        WitnessKey::from_parts("provex-witness/w", SigningKey::from_bytes(&[2; 32])).unwrap()
    }

    #[test]
    fn a_cosignature_is_tlog_cosignature_v1() {
        let w = witness();
        let note = log_key().sign("g", 3, Hash([5; 32])).unwrap();
        let text = note_text(&note).unwrap();
        let line = w.cosign(&text, 1_700_000_000);
        let cosigned = append_cosignatures(&note, line.as_bytes()).unwrap();
        let got = cosigned_by(&cosigned, &w.verifier_key()).unwrap();
        assert_eq!(got, Cosigned { witness: "provex-witness/w".into(), time: 1_700_000_000 });
        // The log's own signature still holds on the cosigned note.
        checkpoint::open(&cosigned, Some(&log_key().verifier_key())).unwrap();
        // The key ID is SHA-256(name || \n || 0x04 || key)[:4], the signature 8 + 64 bytes.
        let b64 = line.trim_end().rsplit(' ').next().unwrap();
        let raw = STANDARD.decode(b64).unwrap();
        assert_eq!(raw.len(), 4 + 8 + 64);
        assert_eq!(&raw[4..12], &1_700_000_000u64.to_be_bytes());
        let sig = ed25519_dalek::Signature::from_bytes(raw[12..].try_into().unwrap());
        let mut msg = b"cosignature/v1\ntime 1700000000\n".to_vec();
        msg.extend_from_slice(&text);
        w.key.verifying_key().verify_strict(&msg, &sig).unwrap();
        // Of an answer, only the pinned witness's lines are taken.
        let other_line = WitnessKey::from_parts("provex-witness/x", SigningKey::from_bytes(&[4; 32]))
            .unwrap()
            .cosign(&text, 5);
        let answer = format!("{other_line}{line}");
        let (taken, by) = accept_cosignatures(&note, answer.as_bytes(), &w.verifier_key()).unwrap();
        assert_eq!(by.time, 1_700_000_000);
        assert!(!String::from_utf8(taken).unwrap().contains("provex-witness/x"));
        assert!(accept_cosignatures(&note, other_line.as_bytes(), &w.verifier_key()).is_err());
        // Another witness's key finds none of its own.
        let other = WitnessKey::from_parts("provex-witness/w", SigningKey::from_bytes(&[3; 32])).unwrap();
        assert!(cosigned_by(&cosigned, &other.verifier_key()).unwrap_err().contains("no cosignature"));
        // A cosignature over another text fails.
        let forged = String::from_utf8(cosigned).unwrap().replacen("\n3\n", "\n4\n", 1);
        assert!(cosigned_by(forged.as_bytes(), &w.verifier_key()).is_err());
    }
}
