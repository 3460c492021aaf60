//! Self-verifying audit bundles : one JSON-LD file holding everything needed to
//! check a set of statements without the database or the network: the A2AP documents as
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

use std::collections::{BTreeSet, HashSet};

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::{Signature, Signer};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::canonical::canonical_string;
use super::consensus::ConsensusConfig;
use super::document::Document;
use super::evidence::sha256_tag;
use super::keys::{decode_public_key, KeyEntry, KeyFile, KeyRegistry, KeyResolution};
use super::ledger::Ledger;
use super::report::VerifyReport;
use super::trust::{fingerprint, record_use, KeyUse, TrustStatus, TrustedKeys};

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
fn replay(documents: &[Value], keys: &[BundleKey]) -> Result<Ledger, String> {
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

fn source_hashes(ledger: &Ledger) -> Vec<SourceHash> {
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
        signature: None,
    })
}

/// The bytes a bundle's signature covers: its canonical form without the signature.
fn signed_bytes(bundle: &AuditBundle) -> Result<Vec<u8>, String> {
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

/// One place where a bundle disagrees with itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Where: `provex:report.documents[3].signature`, `provex:slices[2]`, `provex:signature`.
    pub place: String,
    pub reason: String,
}

/// What checking a bundle found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BundleCheck {
    /// The verdict: `pinned`, `not_pinned` or `failed`.
    pub trust: TrustStatus,
    /// The verdict in one line, as the command line and the explorer show it.
    pub headline: String,
    /// Why the verdict is `failed`.
    pub reason: Option<String>,
    /// Signed, and its content agrees with itself (every finding is a reason it does not).
    pub intact: bool,
    pub statements: usize,
    pub documents: usize,
    /// Who signed the bundle, when it is signed and the signature holds.
    pub signed_by: Option<String>,
    /// The key the bundle's signature names, when it decodes (whether or not it holds).
    pub signer: Option<KeyUse>,
    /// The keys the bundle's documents' valid signatures hold under, by agent.
    pub keys: Vec<KeyUse>,
    pub findings: Vec<Finding>,
    /// The report the documents give now (what the bundle's own report must equal).
    pub report: VerifyReport,
}

impl BundleCheck {
    /// The check of a text that is not a bundle at all (`reason` names where and why).
    pub fn unreadable(reason: String) -> Self {
        let mut c = BundleCheck {
            trust: TrustStatus::Failed,
            headline: String::new(),
            reason: Some(reason.clone()),
            intact: false,
            statements: 0,
            documents: 0,
            signed_by: None,
            signer: None,
            keys: Vec::new(),
            findings: vec![finding("file", reason)],
            report: Ledger::default().report(),
        };
        c.headline = c.make_headline();
        c
    }

    /// The keys a trust file given does not pin (the signer's first).
    pub fn untrusted(&self) -> impl Iterator<Item = &KeyUse> {
        self.signer.iter().chain(&self.keys).filter(|k| k.pinned == Some(false))
    }

    fn make_headline(&self) -> String {
        let signer = self.signer.as_ref().map(KeyUse::describe).unwrap_or_default();
        match self.trust {
            TrustStatus::Pinned => format!("signature valid, signer pinned: {signer}"),
            TrustStatus::NotPinned => format!("signature valid, signer not pinned: {signer}"),
            TrustStatus::Failed => {
                format!("verification failed: {}", self.reason.as_deref().unwrap_or("unknown reason"))
            }
        }
    }

    /// Sets the verdict, its reason and headline from the findings and the keys' pins.
    fn decide(&mut self, trusted: bool) {
        self.intact = self.findings.is_empty();
        let untrusted: Vec<String> = self.untrusted().map(KeyUse::describe).collect();
        (self.trust, self.reason) = if let Some(f) = self.findings.first() {
            let more = match self.findings.len() {
                1 => String::new(),
                n => format!(" (and {} more findings)", n - 1),
            };
            (TrustStatus::Failed, Some(format!("{}: {}{more}", f.place, f.reason)))
        } else if !untrusted.is_empty() {
            (TrustStatus::Failed, Some(format!("not in the trust file: {}", untrusted.join("; "))))
        } else if trusted {
            (TrustStatus::Pinned, None)
        } else {
            (TrustStatus::NotPinned, None)
        };
        self.headline = self.make_headline();
    }
}

fn finding(place: impl Into<String>, reason: impl Into<String>) -> Finding {
    Finding { place: place.into(), reason: reason.into() }
}

/// Where two JSON values first differ, as a path under `at`.
fn first_difference(at: &str, a: &Value, b: &Value) -> Option<(String, String)> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                let (va, vb) = (x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null));
                if let Some(d) = first_difference(&format!("{at}.{k}"), va, vb) {
                    return Some(d);
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (va, vb))| first_difference(&format!("{at}[{i}]"), va, vb)),
        _ if a == b => None,
        _ => Some((at.to_owned(), format!("the bundle says {a}, its documents give {b}"))),
    }
}

/// Checks a bundle's text with no trust file: see [`verify_with`].
pub fn verify(text: &str) -> Result<BundleCheck, String> {
    verify_with(text, None)
}

/// Reads a bundle's text, or says where (line and column) and why it is not one.
fn read(text: &str) -> Result<AuditBundle, String> {
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

/// Checks a bundle's text: every signature, quote, hash and consensus figure recomputed from
/// its own documents, its signature (a bundle without one fails), and, with `trust`, that
/// the trust file pins the bundle's signer and every key a document's valid signature holds
/// under. `Err` when the text is not a bundle at all (line and column, and why).
pub fn verify_with(text: &str, trust: Option<&TrustedKeys>) -> Result<BundleCheck, String> {
    let bundle = read(text)?;
    let mut findings = Vec::new();
    let mut signed_by = None;
    let mut signer = None;
    match &bundle.signature {
        None => findings.push(finding(
            "provex:signature",
            "the bundle is not signed: nothing shows who made it or that it is whole",
        )),
        Some(sig) => {
            if let Ok(key) = decode_public_key(&sig.public_key) {
                signer = Some(KeyUse {
                    agent: sig.agent.clone(),
                    key_id: sig.key_id.clone(),
                    fingerprint: fingerprint(&key),
                    pinned: trust.map(|t| t.pins(&sig.agent, &key)),
                    documents: 0,
                });
            }
        }
    }
    if let Some(sig) = &bundle.signature {
        let ok = (|| -> Result<bool, String> {
            let key = decode_public_key(&sig.public_key)?;
            let bytes = STANDARD.decode(&sig.value).map_err(|e| format!("signature is not base64: {e}"))?;
            let sig_bytes: [u8; 64] = bytes.try_into().map_err(|_| "signature is not 64 bytes".to_owned())?;
            Ok(key.verify_strict(&signed_bytes(&bundle)?, &Signature::from_bytes(&sig_bytes)).is_ok())
        })();
        match ok {
            Ok(true) => signed_by = Some(format!("{} ({})", sig.agent, sig.key_id)),
            Ok(false) => findings
                .push(finding("provex:signature", "the bundle's signature does not match its content")),
            Err(e) => findings.push(finding("provex:signature", e)),
        }
    }
    let ledger = replay(&bundle.documents, &bundle.keys)?;
    for (i, r) in ledger.rejected().iter().enumerate() {
        findings.push(finding(format!("provex:documents (rejected {i})"), r.reason.clone()));
    }
    let now = ledger.report();
    let (mut said, mut got) = (
        serde_json::to_value(&bundle.report).map_err(|e| e.to_string())?,
        serde_json::to_value(&now).map_err(|e| e.to_string())?,
    );
    // Each document's report on its own, named by its id; then the rest (summary, rejected).
    let docs = |v: &mut Value| match v.get_mut("documents").map(Value::take) {
        Some(Value::Array(d)) => d,
        _ => Vec::new(),
    };
    let (said_docs, got_docs) = (docs(&mut said), docs(&mut got));
    if said_docs.len() != got_docs.len() {
        findings.push(finding(
            "provex:report.documents",
            format!("the bundle reports {} documents, it holds {}", said_docs.len(), got_docs.len()),
        ));
    }
    for (i, (a, b)) in said_docs.iter().zip(&got_docs).enumerate() {
        let id = b.get("id").and_then(Value::as_str).unwrap_or("?");
        if let Some((place, reason)) = first_difference(&format!("provex:report.documents[{i}]"), a, b) {
            findings.push(finding(place, format!("{id}: {reason}")));
        }
    }
    if let Some((place, reason)) = first_difference("provex:report", &said, &got) {
        findings.push(finding(place, reason));
    }
    for (i, s) in bundle.slices.iter().enumerate() {
        let src = ledger.source(&s.source_document);
        let hash = src
            .and_then(|src| src.text.as_bytes().get(s.byte_start as usize..s.byte_end as usize))
            .map(sha256_tag);
        match hash {
            Some(h) if h == s.sha256 => {}
            Some(h) => findings.push(finding(
                format!("provex:slices[{i}]"),
                format!(
                    "bytes {}–{} of {} hash to {h}, the bundle says {}",
                    s.byte_start, s.byte_end, s.source_document, s.sha256
                ),
            )),
            None => findings.push(finding(
                format!("provex:slices[{i}]"),
                format!("{} has no bytes {}–{} in the bundle", s.source_document, s.byte_start, s.byte_end),
            )),
        }
    }
    let sources = source_hashes(&ledger);
    for (i, s) in bundle.sources.iter().enumerate() {
        match sources.iter().find(|x| x.id == s.id) {
            Some(x) if x.sha256 == s.sha256 => {}
            Some(x) => findings.push(finding(
                format!("provex:sources[{i}]"),
                format!("{} hashes to {}, the bundle says {}", s.id, x.sha256, s.sha256),
            )),
            None => findings.push(finding(
                format!("provex:sources[{i}]"),
                format!("{} is not among the bundle's documents", s.id),
            )),
        }
    }
    for id in &bundle.statements {
        if ledger.statement(id).is_none() {
            findings.push(finding("provex:statements", format!("{id} is not among the bundle's documents")));
        }
    }
    let mut check = BundleCheck {
        trust: TrustStatus::Failed,
        headline: String::new(),
        reason: None,
        intact: false,
        statements: bundle.statements.len(),
        documents: bundle.documents.len(),
        signed_by,
        signer,
        keys: document_keys(&ledger, trust),
        findings,
        report: now,
    };
    check.decide(trust.is_some());
    Ok(check)
}

/// The keys the valid signatures of a replayed bundle's documents hold under, by agent.
fn document_keys(ledger: &Ledger, trust: Option<&TrustedKeys>) -> Vec<KeyUse> {
    let mut uses = Vec::new();
    for e in ledger.entries() {
        let (Some(sig), Some(agent)) = (&e.signature, e.document().signer()) else { continue };
        if sig.status != super::SignatureStatus::Valid {
            continue;
        }
        let Some(key_ref) = sig.key.as_deref() else { continue };
        let (key, key_id) = match ledger.registry().resolve(key_ref) {
            KeyResolution::Registered { key, .. } => (key, key_ref),
            KeyResolution::Embedded(key) => (key, "embedded"),
            KeyResolution::Unknown | KeyResolution::Malformed(_) => continue,
        };
        record_use(&mut uses, agent, key_id, &key, trust);
    }
    uses
}

/// Whether a JSON text is an audit bundle (its `@type`), read cheaply from the first bytes.
pub fn is_bundle(text: &str) -> bool {
    text.get(..4096.min(text.len())).is_some_and(|head| head.contains(BUNDLE_TYPE))
        || serde_json::from_str::<Value>(text).ok().and_then(|v| v.get("@type").cloned())
            == Some(Value::String(BUNDLE_TYPE.into()))
}
