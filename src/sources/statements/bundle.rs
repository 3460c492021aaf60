//! Self-verifying audit bundles (docs/FORMATS.md, "Audit bundles"): one JSON-LD file holding
//! everything needed to check a set of statements without the database or the network: the A2AP documents as
//! they were received (the statements, their verification requests and responses, the
//! source documents they cite, the agents' records), the keys the verifier used (marked
//! trusted: from the key registry; untrusted: only from an agent's own record), a SHA-256 of
//! every cited byte range and of every source, and the verification report those documents
//! give. `verify` replays the documents through a fresh ledger with the trusted keys and
//! reports every place where the bundle disagrees with itself; `sign` signs the bundle as a
//! whole (Ed25519 over its RFC 8785 canonical form without the signature).
//!
//! A bundle carries its own keys, so on its own it shows only that whoever holds those keys
//! made it: `verify` names every key the bundle rests on by fingerprint, and calls the bundle
//! pinned only when a trust file the auditor already holds pins them all ([`super::trust`]).
//!
//! This module holds the format and how a bundle is made and signed; [`check`] how it is
//! verified, [`log`] the proofs that its documents are in the graph's tamper-evident log.

pub mod check;
mod finding;
pub mod log;

use std::collections::{BTreeSet, HashSet};

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::Signer;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub use check::{verify, verify_since, verify_with, verify_witnessed, BundleCheck, Finding};
pub use log::{BundleLog, LogRecord};

use super::canonical::canonical_string;
use super::consensus::ConsensusConfig;
use super::document::Document;
use super::evidence::sha256_tag;
use super::keys::{KeyEntry, KeyFile, KeyRegistry};
use super::ledger::Ledger;
use super::report::VerifyReport;

/// The `@type` of a bundle.
pub const BUNDLE_TYPE: &str = "provex:AuditBundle";

/// A key the bundle's documents were checked with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BundleKey {
    pub key_id: String,
    pub agent: String,
    pub public_key: String,
    /// From the verifier's key registry (else only from the agent's own record).
    pub trusted: bool,
}

/// The SHA-256 of one cited byte range of a source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Slice {
    pub statement: String,
    pub chunk_id: String,
    pub source_document: String,
    pub byte_start: u64,
    pub byte_end: u64,
    pub sha256: String,
}

/// The SHA-256 of a source document's whole text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceHash {
    pub id: String,
    pub sha256: String,
}

/// The exporter's signature over the whole bundle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BundleSignature {
    pub key_id: String,
    pub agent: String,
    pub public_key: String,
    /// Base64 Ed25519 signature of the canonical bundle without this field.
    pub value: String,
}

/// See the module docs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditBundle {
    #[serde(rename = "@context")]
    pub context: Value,
    #[serde(rename = "@type")]
    pub kind: String,
    #[serde(rename = "provex:graph")]
    pub graph: String,
    #[serde(rename = "provex:statements")]
    pub statements: Vec<String>,
    #[serde(rename = "provex:documents")]
    pub documents: Vec<Value>,
    #[serde(rename = "provex:keys")]
    pub keys: Vec<BundleKey>,
    #[serde(rename = "provex:sources")]
    pub sources: Vec<SourceHash>,
    #[serde(rename = "provex:slices")]
    pub slices: Vec<Slice>,
    #[serde(rename = "provex:report")]
    pub report: VerifyReport,
    /// Proofs that the documents are in the graph's tamper-evident log, when it has one.
    #[serde(rename = "provex:log", default, skip_serializing_if = "Option::is_none")]
    pub log: Option<BundleLog>,
    #[serde(rename = "provex:signature", default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<BundleSignature>,
}

fn context() -> Value {
    json!({
        "prov": "http://www.w3.org/ns/prov#",
        "a2ap": "https://a2ap.org/ns#",
        "provex": "https://provex.dev/ns#",
        "xsd": "http://www.w3.org/2001/XMLSchema#"
    })
}

/// A ledger of the bundle's documents under its trusted keys, as `verify` builds it.
pub(crate) fn replay(documents: &[Value], keys: &[BundleKey]) -> Result<Ledger, String> {
    let mut registry = KeyRegistry::new();
    for k in keys.iter().filter(|k| k.trusted) {
        let entry =
            KeyEntry { key_id: k.key_id.clone(), agent: k.agent.clone(), public_key: k.public_key.clone() };
        registry.add_entry(&entry).map_err(|e| format!("key {}: {e}", k.key_id))?;
    }
    let mut ledger = Ledger::new(registry, ConsensusConfig::default());
    let text = serde_json::to_string(documents).map_err(|e| e.to_string())?;
    ledger.ingest_text(&text);
    Ok(ledger)
}

/// The hashes of every byte range the statements cite, from the sources in the ledger.
fn slices(ledger: &Ledger, statements: &[String]) -> Vec<Slice> {
    let mut out = Vec::new();
    for id in statements {
        let Some(st) = ledger.statement(id) else { continue };
        for ev in &st.evidence {
            let Some(src) = ledger.source(&ev.source_document) else { continue };
            let bytes = src.text.as_bytes();
            let (s, e) = (ev.byte_range.start as usize, ev.byte_range.end as usize);
            let Some(slice) = bytes.get(s.min(e)..e) else { continue };
            out.push(Slice {
                statement: id.clone(),
                chunk_id: ev.chunk_id.clone(),
                source_document: ev.source_document.clone(),
                byte_start: ev.byte_range.start,
                byte_end: ev.byte_range.end,
                sha256: sha256_tag(slice),
            });
        }
    }
    out
}

pub(crate) fn source_hashes(ledger: &Ledger) -> Vec<SourceHash> {
    ledger
        .entries()
        .iter()
        .filter_map(|e| match e.document() {
            Document::Source(s) => {
                Some(SourceHash { id: s.id.clone(), sha256: sha256_tag(s.text.as_bytes()) })
            }
            _ => None,
        })
        .collect()
}

/// The bundle of `statements` (all of them when empty) out of a graph's ledger.
pub fn make(ledger: &Ledger, graph: &str, statements: &[String]) -> Result<AuditBundle, String> {
    let chosen: Vec<String> = if statements.is_empty() {
        ledger.statement_ids().into_iter().map(str::to_owned).collect()
    } else {
        for s in statements {
            if ledger.statement(s).is_none() {
                return Err(format!("no statement {s} in graph {graph}"));
            }
        }
        statements.to_vec()
    };
    // The documents: each statement, its requests and responses, the sources it cites and
    // the agents behind them, each once, in the order the ledger received them.
    let mut wanted: HashSet<String> = HashSet::new();
    let mut agents: BTreeSet<String> = BTreeSet::new();
    for id in &chosen {
        wanted.insert(id.clone());
        if let Some(st) = ledger.statement(id) {
            agents.insert(st.agent.id().to_owned());
            wanted.extend(st.evidence.iter().map(|e| e.source_document.clone()));
        }
        for (e, _) in ledger.requests_for(id) {
            wanted.insert(e.id().to_owned());
        }
        for (e, r) in ledger.responses_for(id) {
            wanted.insert(e.id().to_owned());
            agents.insert(r.responding_agent.clone());
        }
    }
    let mut documents = Vec::new();
    let mut untrusted = Vec::new();
    for e in ledger.entries().iter().filter(|e| !e.shadowed) {
        let keep = match e.document() {
            Document::Agent(a) => {
                let keep = agents.contains(&a.info.id);
                if let (true, Some(k)) = (keep, &a.public_key) {
                    untrusted.push((a.info.id.clone(), k.clone(), a.key_id.clone()));
                }
                keep
            }
            _ => wanted.contains(e.id()),
        };
        if keep {
            documents.push(e.record.value.clone());
        }
    }
    let registry = ledger.registry().entries();
    let mut keys: Vec<BundleKey> = registry
        .iter()
        .filter(|k| agents.contains(&k.agent))
        .map(|k| BundleKey {
            key_id: k.key_id.clone(),
            agent: k.agent.clone(),
            public_key: k.public_key.clone(),
            trusted: true,
        })
        .collect();
    for (agent, key, key_id) in untrusted {
        let key = key.trim_start_matches(super::keys::EMBEDDED_PREFIX).to_owned();
        if !keys.iter().any(|k| k.public_key == key) {
            let key_id = key_id.unwrap_or_else(|| format!("{agent}#key"));
            keys.push(BundleKey { key_id, agent, public_key: key, trusted: false });
        }
    }
    let replayed = replay(&documents, &keys)?;
    Ok(AuditBundle {
        context: context(),
        kind: BUNDLE_TYPE.to_owned(),
        graph: graph.to_owned(),
        slices: slices(&replayed, &chosen),
        sources: source_hashes(&replayed),
        statements: chosen,
        documents,
        keys,
        report: replayed.report(),
        log: None,
        signature: None,
    })
}

/// The bytes a bundle's signature covers: its canonical form without the signature.
pub(crate) fn signed_bytes(bundle: &AuditBundle) -> Result<Vec<u8>, String> {
    let mut v = serde_json::to_value(bundle).map_err(|e| e.to_string())?;
    if let Some(o) = v.as_object_mut() {
        o.remove("provex:signature");
    }
    Ok(canonical_string(&v).into_bytes())
}

/// Signs a bundle as a whole with the exporter's key.
pub fn sign(bundle: &mut AuditBundle, key: &KeyFile) -> Result<(), String> {
    bundle.signature = None;
    let sig = key.signing_key()?.sign(&signed_bytes(bundle)?);
    bundle.signature = Some(BundleSignature {
        key_id: key.key_id.clone(),
        agent: key.agent.clone(),
        public_key: key.public_key.clone(),
        value: STANDARD.encode(sig.to_bytes()),
    });
    Ok(())
}

/// Reads a bundle's text, or says where (line and column) and why it is not one.
pub(crate) fn read(text: &str) -> Result<AuditBundle, String> {
    if text.trim_start_matches('\u{feff}').trim().is_empty() {
        return Err("empty file: no audit bundle (and no documents) to verify".into());
    }
    let bundle: AuditBundle = serde_json::from_str(text).map_err(|e| {
        let msg = e.to_string();
        let what = msg.rsplit_once(" at line ").map_or(msg.as_str(), |(m, _)| m);
        format!("line {}, column {}: not an audit bundle: {what}", e.line(), e.column())
    })?;
    if bundle.kind != BUNDLE_TYPE {
        return Err(format!("not an audit bundle: @type is {:?}", bundle.kind));
    }
    Ok(bundle)
}

/// Whether a JSON text is an audit bundle (its `@type`), read cheaply from the first bytes.
pub fn is_bundle(text: &str) -> bool {
    text.get(..4096.min(text.len())).is_some_and(|head| head.contains(BUNDLE_TYPE))
        || serde_json::from_str::<Value>(text).ok().and_then(|v| v.get("@type").cloned())
            == Some(Value::String(BUNDLE_TYPE.into()))
}
