//! Public keys the verifier trusts (the key registry of `docs/FORMATS.md`, "A2AP documents", plus `prov:SoftwareAgent`
//! records with a `publicKey`) and the secret key files `provex sign` and `provex keys
//! generate` use.
//!
//! Key file format (one JSON object, written by `provex keys generate`, keep it private):
//! `{"key_id":"urn:agent:x#key-1","agent":"urn:agent:x","algorithm":"ed25519",
//!   "secret_key":"<standard base64 of the 32-byte Ed25519 seed>",
//!   "public_key":"<standard base64 of the 32-byte public key>"}`.

use std::collections::HashMap;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::{SigningKey, VerifyingKey};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::document::{parse_strict, SoftwareAgent};

/// The prefix of a key written into a document itself.
pub const EMBEDDED_PREFIX: &str = "ed25519:";

/// One registry entry as it appears in the registry file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyEntry {
    pub key_id: String,
    pub agent: String,
    /// Standard base64 of the 32 key bytes.
    pub public_key: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct RegistryFile {
    keys: Vec<KeyEntry>,
}

/// Decodes an Ed25519 public key from standard base64 (with padding).
pub fn decode_public_key(b64: &str) -> Result<VerifyingKey, String> {
    let bytes = STANDARD.decode(b64).map_err(|e| format!("public key is not base64: {e}"))?;
    let bytes: [u8; 32] =
        bytes.try_into().map_err(|b: Vec<u8>| format!("public key has {} bytes, not 32", b.len()))?;
    VerifyingKey::from_bytes(&bytes).map_err(|_| "public key is not a valid Ed25519 point".into())
}

/// Writes a public key as `ed25519:<base64>`, the form a document can embed.
pub fn embedded_form(key: &VerifyingKey) -> String {
    format!("{EMBEDDED_PREFIX}{}", STANDARD.encode(key.as_bytes()))
}

/// What a document's `signature.publicKey` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyResolution {
    /// A key id of the registry, with the agent it is registered for.
    Registered { key: VerifyingKey, agent: String },
    /// A key embedded in the document (`ed25519:<base64>`).
    Embedded(VerifyingKey),
    /// A key id the registry does not know.
    Unknown,
    /// An embedded key that cannot be decoded.
    Malformed(String),
}

/// The keys the verifier trusts, by key id, and which agent each belongs to.
#[derive(Debug, Clone, Default)]
pub struct KeyRegistry {
    by_id: IndexMap<String, (VerifyingKey, String)>,
    by_agent: HashMap<String, Vec<VerifyingKey>>,
}

impl KeyRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads a registry file `{"keys":[{"key_id","agent","public_key"}]}`. Any bad entry
    /// fails the whole file: a half-read trust anchor would make results depend on it.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let value = parse_strict(text)?;
        let file: RegistryFile =
            serde_json::from_value(value).map_err(|e| format!("invalid key registry: {e}"))?;
        let mut registry = KeyRegistry::new();
        for (i, entry) in file.keys.iter().enumerate() {
            registry.add_entry(entry).map_err(|e| format!("key registry entry {}: {e}", i + 1))?;
        }
        Ok(registry)
    }

    /// The registry as its JSON file (pretty, entries in insertion order).
    pub fn to_json(&self) -> String {
        let file = RegistryFile { keys: self.entries() };
        serde_json::to_string_pretty(&file).unwrap_or_default() + "\n"
    }

    pub fn entries(&self) -> Vec<KeyEntry> {
        self.by_id
            .iter()
            .map(|(id, (key, agent))| KeyEntry {
                key_id: id.clone(),
                agent: agent.clone(),
                public_key: STANDARD.encode(key.as_bytes()),
            })
            .collect()
    }

    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    pub fn add_entry(&mut self, entry: &KeyEntry) -> Result<(), String> {
        let key = decode_public_key(&entry.public_key)?;
        self.add(&entry.key_id, &entry.agent, key)
    }

    /// Registers a key. Re-registering the same key for the same agent is a no-op; a key id
    /// that already names another key or agent is refused.
    pub fn add(&mut self, key_id: &str, agent: &str, key: VerifyingKey) -> Result<(), String> {
        if key_id.is_empty() || agent.is_empty() {
            return Err("key_id and agent must not be empty".into());
        }
        if let Some((old, old_agent)) = self.by_id.get(key_id) {
            if *old == key && old_agent == agent {
                return Ok(());
            }
            return Err(format!("key id {key_id} is already registered with another key or agent"));
        }
        self.by_id.insert(key_id.to_owned(), (key, agent.to_owned()));
        let keys = self.by_agent.entry(agent.to_owned()).or_default();
        if !keys.contains(&key) {
            keys.push(key);
        }
        Ok(())
    }

    /// Registers the `publicKey` of a `prov:SoftwareAgent` record under its `keyId`, or under
    /// the key's embedded form when it has none. Returns whether a key was added.
    pub fn add_agent_record(&mut self, agent: &SoftwareAgent) -> Result<bool, String> {
        let Some(text) = agent.public_key.as_deref() else {
            return Ok(false);
        };
        let key = decode_public_key(text.strip_prefix(EMBEDDED_PREFIX).unwrap_or(text))?;
        let key_id = agent.key_id.clone().unwrap_or_else(|| embedded_form(&key));
        let before = self.len();
        self.add(&key_id, &agent.info.id, key)?;
        Ok(self.len() > before)
    }

    /// Resolves a document's `signature.publicKey`.
    pub fn resolve(&self, key_ref: &str) -> KeyResolution {
        if let Some((key, agent)) = self.by_id.get(key_ref) {
            return KeyResolution::Registered { key: *key, agent: agent.clone() };
        }
        match key_ref.strip_prefix(EMBEDDED_PREFIX) {
            Some(b64) => match decode_public_key(b64) {
                Ok(key) => KeyResolution::Embedded(key),
                Err(e) => KeyResolution::Malformed(e),
            },
            None => KeyResolution::Unknown,
        }
    }

    /// Whether the registry lists this key for this agent.
    pub fn is_registered_for(&self, agent: &str, key: &VerifyingKey) -> bool {
        self.by_agent.get(agent).is_some_and(|keys| keys.contains(key))
    }
}

/// A secret key file (see the module docs for the format).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyFile {
    pub key_id: String,
    pub agent: String,
    pub algorithm: String,
    pub secret_key: String,
    pub public_key: String,
}

impl KeyFile {
    /// A key file from a 32-byte seed (deterministic: the demo's keys are made this way).
    pub fn from_seed(key_id: &str, agent: &str, seed: [u8; 32]) -> Self {
        let signing = SigningKey::from_bytes(&seed);
        KeyFile {
            key_id: key_id.to_owned(),
            agent: agent.to_owned(),
            algorithm: "ed25519".to_owned(),
            secret_key: STANDARD.encode(seed),
            public_key: STANDARD.encode(signing.verifying_key().as_bytes()),
        }
    }

    /// A new key from the operating system's random source (`provex keys generate`).
    pub fn generate(key_id: &str, agent: &str) -> Result<Self, String> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| format!("no randomness available: {e}"))?;
        Ok(Self::from_seed(key_id, agent, seed))
    }

    /// Reads a key file, checking that the public key matches the secret one.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let value = parse_strict(text)?;
        let file: KeyFile = serde_json::from_value(value).map_err(|e| format!("invalid key file: {e}"))?;
        let signing = file.signing_key()?;
        if STANDARD.encode(signing.verifying_key().as_bytes()) != file.public_key {
            return Err("key file: public_key does not belong to secret_key".into());
        }
        Ok(file)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    pub fn signing_key(&self) -> Result<SigningKey, String> {
        if self.algorithm != "ed25519" {
            return Err(format!("unsupported key algorithm {:?}", self.algorithm));
        }
        let seed = STANDARD.decode(&self.secret_key).map_err(|e| format!("secret_key is not base64: {e}"))?;
        let seed: [u8; 32] =
            seed.try_into().map_err(|b: Vec<u8>| format!("secret_key has {} bytes, not 32", b.len()))?;
        Ok(SigningKey::from_bytes(&seed))
    }

    pub fn verifying_key(&self) -> Result<VerifyingKey, String> {
        Ok(self.signing_key()?.verifying_key())
    }

    /// The registry entry for this key (public part only).
    pub fn entry(&self) -> KeyEntry {
        KeyEntry {
            key_id: self.key_id.clone(),
            agent: self.agent.clone(),
            public_key: self.public_key.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_round_trip_and_conflicts() {
        let a = KeyFile::from_seed("k-a", "urn:agent:a", [1; 32]);
        let b = KeyFile::from_seed("k-b", "urn:agent:b", [2; 32]);
        let mut reg = KeyRegistry::new();
        reg.add_entry(&a.entry()).unwrap();
        reg.add_entry(&b.entry()).unwrap();
        reg.add_entry(&a.entry()).unwrap();
        let mut clash = b.entry();
        clash.key_id = "k-a".into();
        assert!(reg.add_entry(&clash).is_err());
        let back = KeyRegistry::from_json(&reg.to_json()).unwrap();
        assert_eq!(back.entries(), reg.entries());
        let ka = a.verifying_key().unwrap();
        assert!(back.is_registered_for("urn:agent:a", &ka));
        assert!(!back.is_registered_for("urn:agent:b", &ka));
        assert_eq!(back.resolve("nope"), KeyResolution::Unknown);
        assert_eq!(back.resolve(&embedded_form(&ka)), KeyResolution::Embedded(ka));
        assert!(matches!(back.resolve("ed25519:AAAA"), KeyResolution::Malformed(_)));
    }

    #[test]
    fn bad_registry_files_are_refused() {
        assert!(KeyRegistry::from_json(r#"{"keys":[{"key_id":"k","agent":"a","public_key":"xx"}]}"#).is_err());
        assert!(KeyRegistry::from_json(r#"{"keys":[],"keys":[]}"#).is_err());
        assert!(KeyRegistry::from_json(r#"{"keys":[{"key_id":"k"}]}"#).is_err());
    }

    #[test]
    fn key_files_generate_and_round_trip() {
        let k = KeyFile::generate("k1", "urn:agent:x").unwrap();
        let k2 = KeyFile::generate("k1", "urn:agent:x").unwrap();
        assert_ne!(k.secret_key, k2.secret_key);
        assert_eq!(KeyFile::from_json(&k.to_json()).unwrap(), k);
        let mut wrong = k.clone();
        wrong.public_key = k2.public_key.clone();
        assert!(KeyFile::from_json(&wrong.to_json()).is_err());
    }
}
