//! Whom an auditor trusts when checking an audit bundle (docs/FORMATS.md, "Audit bundles"):
//! the keys a trust file pins (`provex verify BUNDLE --trust FILE`), key fingerprints, and
//! the one verdict a bundle check ends in. A bundle carries its own keys, so on its own it
//! only shows that whoever holds those keys made it; it is trusted only when the auditor
//! already holds the keys it rests on.
//!
//! A trust file is one of:
//! - a key registry `{"keys":[{"key_id","agent","public_key"}]}` (the format `--keys` reads):
//!   each key is pinned for its agent;
//! - one registry entry `{"key_id","agent","public_key"}`: that key for that agent;
//! - public keys as text, one a line, `ed25519:<base64>` or bare standard base64 of the 32
//!   key bytes (blank lines and lines starting with `#` are skipped): each key is pinned for
//!   whatever agent signs with it.

use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use base64::Engine as _;
use ed25519_dalek::VerifyingKey;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::keys::{decode_public_key, KeyEntry, KeyRegistry, EMBEDDED_PREFIX};
use super::parse::parse_strict;

/// The prefix of a key fingerprint.
pub const FINGERPRINT_PREFIX: &str = "SHA256:";

/// A public key's fingerprint: `SHA256:` and the unpadded standard base64 of the SHA-256 of
/// the 32 raw Ed25519 public key bytes (43 characters after the prefix).
pub fn fingerprint(key: &VerifyingKey) -> String {
    format!("{FINGERPRINT_PREFIX}{}", STANDARD_NO_PAD.encode(Sha256::digest(key.as_bytes())))
}

/// The fingerprint of a key written as standard base64 (or `ed25519:<base64>`), when it is
/// a valid Ed25519 key.
pub fn fingerprint_of(text: &str) -> Option<String> {
    decode_public_key(text.strip_prefix(EMBEDDED_PREFIX).unwrap_or(text)).ok().map(|k| fingerprint(&k))
}

/// The keys an auditor pins (see the module docs for the file forms).
#[derive(Debug, Clone, Default)]
pub struct TrustedKeys {
    /// Keys pinned for one agent each.
    registry: KeyRegistry,
    /// Keys pinned for any agent (a bare public key names none).
    any_agent: Vec<VerifyingKey>,
}

impl TrustedKeys {
    /// Reads a trust file's text. Anything unreadable fails the whole file, naming the line
    /// for key lists: a half-read trust anchor would make results depend on it.
    pub fn from_text(text: &str) -> Result<Self, String> {
        let text = text.trim_start_matches('\u{feff}');
        if text.trim().is_empty() {
            return Err("empty: no key registry and no public key".into());
        }
        let trusted = if text.trim_start().starts_with('{') {
            Self::from_json(text)?
        } else {
            let mut any_agent = Vec::new();
            for (i, line) in text.lines().enumerate() {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                let key = decode_public_key(line.strip_prefix(EMBEDDED_PREFIX).unwrap_or(line))
                    .map_err(|e| format!("line {}: {e}", i + 1))?;
                any_agent.push(key);
            }
            TrustedKeys { registry: KeyRegistry::new(), any_agent }
        };
        if trusted.is_empty() {
            return Err("no keys: it would trust nothing".into());
        }
        Ok(trusted)
    }

    fn from_json(text: &str) -> Result<Self, String> {
        let value = parse_strict(text)?;
        let Value::Object(obj) = &value else {
            return Err("neither a key registry nor a registry entry: not a JSON object".into());
        };
        if obj.contains_key("keys") {
            return Ok(TrustedKeys { registry: KeyRegistry::from_json(text)?, any_agent: Vec::new() });
        }
        if obj.contains_key("secret_key") {
            return Err("this is a secret key file: pin its public key instead \
                 (`provex keys add KEYFILE --registry REGISTRY`, then --trust REGISTRY)"
                .into());
        }
        let entry: KeyEntry = serde_json::from_value(value)
            .map_err(|e| format!("neither a key registry {{\"keys\":[…]}} nor a registry entry: {e}"))?;
        let mut registry = KeyRegistry::new();
        registry.add_entry(&entry)?;
        Ok(TrustedKeys { registry, any_agent: Vec::new() })
    }

    /// A trust file of a registry's keys.
    pub fn from_registry(registry: KeyRegistry) -> Self {
        TrustedKeys { registry, any_agent: Vec::new() }
    }

    /// How many keys are pinned.
    pub fn len(&self) -> usize {
        self.registry.len() + self.any_agent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether `key` is pinned for `agent`.
    pub fn pins(&self, agent: &str, key: &VerifyingKey) -> bool {
        self.any_agent.contains(key) || self.registry.is_registered_for(agent, key)
    }
}

/// The one verdict a bundle check ends in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrustStatus {
    /// Intact, its signature valid, and every key it rests on pinned by the trust file.
    Pinned,
    /// Intact and its signature valid, but no trust file was given: it proves only that
    /// whoever holds its keys made it.
    NotPinned,
    /// Unreadable, unsigned, tampered with, or resting on a key the trust file does not pin.
    Failed,
}

impl TrustStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            TrustStatus::Pinned => "pinned",
            TrustStatus::NotPinned => "not_pinned",
            TrustStatus::Failed => "failed",
        }
    }
}

/// A key a bundle rests on: its signer's, or one that a document's signature holds under.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyUse {
    pub agent: String,
    /// The key id (`embedded` for a key written into the document itself).
    pub key_id: String,
    /// See [`fingerprint`].
    pub fingerprint: String,
    /// Whether the trust file pins it for the agent; `None` without a trust file.
    pub pinned: Option<bool>,
    /// How many of the bundle's documents are signed with it (0 for the bundle's signer).
    pub documents: usize,
}

impl KeyUse {
    /// `urn:agent:x (key x#1) SHA256:…`, as every output names a key.
    pub fn describe(&self) -> String {
        format!("{} (key {}) {}", self.agent, self.key_id, self.fingerprint)
    }
}

/// Adds one use of (`agent`, `key`) to `uses`, pinned or not by `trust`.
pub(super) fn record_use(
    uses: &mut Vec<KeyUse>,
    agent: &str,
    key_id: &str,
    key: &VerifyingKey,
    trust: Option<&TrustedKeys>,
) {
    let fp = fingerprint(key);
    match uses.iter_mut().find(|u| u.agent == agent && u.fingerprint == fp) {
        Some(u) => u.documents += 1,
        None => uses.push(KeyUse {
            agent: agent.to_owned(),
            key_id: key_id.to_owned(),
            fingerprint: fp,
            pinned: trust.map(|t| t.pins(agent, key)),
            documents: 1,
        }),
    }
}

/// Standard base64 of a key (for messages).
pub fn key_text(key: &VerifyingKey) -> String {
    STANDARD.encode(key.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::statements::keys::KeyFile;
    use proptest::prelude::*;

    #[test]
    fn fingerprint_is_sha256_of_the_raw_key_in_unpadded_base64() {
        let k = KeyFile::from_seed("k", "urn:agent:a", [1; 32]).verifying_key().unwrap();
        let fp = fingerprint(&k);
        assert!(fp.starts_with("SHA256:") && fp.len() == 7 + 43, "{fp}");
        let expected = STANDARD_NO_PAD.encode(Sha256::digest(k.as_bytes()));
        assert_eq!(fp, format!("SHA256:{expected}"));
        assert_eq!(fingerprint_of(&key_text(&k)).as_deref(), Some(fp.as_str()));
        assert_eq!(fingerprint_of(&format!("ed25519:{}", key_text(&k))).as_deref(), Some(fp.as_str()));
        assert_eq!(fingerprint_of("AAAA"), None);
    }

    #[test]
    fn every_trust_file_form_pins_what_it_says() {
        let a = KeyFile::from_seed("k-a", "urn:agent:a", [1; 32]);
        let b = KeyFile::from_seed("k-b", "urn:agent:b", [2; 32]);
        let (ka, kb) = (a.verifying_key().unwrap(), b.verifying_key().unwrap());
        let mut reg = KeyRegistry::new();
        reg.add_entry(&a.entry()).unwrap();
        let t = TrustedKeys::from_text(&reg.to_json()).unwrap();
        assert!(t.pins("urn:agent:a", &ka));
        assert!(!t.pins("urn:agent:b", &ka), "a registry pins a key for its agent only");
        assert!(!t.pins("urn:agent:a", &kb));
        let t = TrustedKeys::from_text(&serde_json::to_string(&b.entry()).unwrap()).unwrap();
        assert!(t.pins("urn:agent:b", &kb) && !t.pins("urn:agent:a", &kb) && t.len() == 1);
        let t = TrustedKeys::from_text(&format!(
            "# auditor's keys\n\ned25519:{}\n{}\n",
            a.public_key, b.public_key
        ))
        .unwrap();
        assert!(t.pins("urn:agent:anyone", &ka) && t.pins("urn:agent:b", &kb) && t.len() == 2);
    }

    #[test]
    fn bad_trust_files_are_refused_with_the_reason() {
        let a = KeyFile::from_seed("k-a", "urn:agent:a", [1; 32]);
        for (text, says) in [
            ("", "empty"),
            (" \n\t\n", "empty"),
            ("# nothing\n", "no keys"),
            (r#"{"keys":[]}"#, "no keys"),
            (r#"{"keys":[{"key_id":"k","agent":"a","public_key":"xx"}]}"#, "entry 1"),
            ("{\"keys\":[", "line 1"),
            (r#"{"key_id":"k"}"#, "neither a key registry"),
            ("ed25519:AAAA\n", "line 1: public key has 3 bytes"),
            ("\n\nnot base64!\n", "line 3"),
        ] {
            let e = TrustedKeys::from_text(text).unwrap_err();
            assert!(e.contains(says), "{text:?}: {e}");
        }
        let e = TrustedKeys::from_text(&a.to_json()).unwrap_err();
        assert!(e.contains("secret key file"), "{e}");
    }

    proptest! {
        /// Any text: a trust file or a reason, never a panic; and what it pins survives
        /// being written out as key lines again.
        #[test]
        fn any_text_reads_or_is_refused(text in "(\\PC|\n){0,200}") {
            let _ = TrustedKeys::from_text(&text);
        }

        #[test]
        fn key_lines_round_trip(seeds in proptest::collection::vec(any::<[u8; 32]>(), 1..6), embed in any::<bool>()) {
            let keys: Vec<VerifyingKey> = seeds
                .iter()
                .map(|s| KeyFile::from_seed("k", "a", *s).verifying_key().unwrap())
                .collect();
            let text: String = keys
                .iter()
                .map(|k| format!("{}{}\n", if embed { EMBEDDED_PREFIX } else { "" }, key_text(k)))
                .collect();
            let t = TrustedKeys::from_text(&text).unwrap();
            for k in &keys {
                prop_assert!(t.pins("urn:agent:z", k));
            }
            let other = KeyFile::from_seed("k", "a", [0xEE; 32]).verifying_key().unwrap();
            prop_assert_eq!(t.pins("urn:agent:z", &other), keys.contains(&other));
        }
    }
}
