//! Checking an audit bundle offline (docs/FORMATS.md, "Audit bundles"): its signature,
//! every signature, quote, hash and consensus figure recomputed from its own documents, the
//! keys it rests on against a trust file, and its log proofs ([`super::log`]); every place
//! where it disagrees with itself is a [`Finding`] naming where and why.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::Signature;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::finding::finding;
pub use super::finding::Finding;
use super::log::{LogCheck, Since};
use super::{read, replay, signed_bytes, source_hashes, AuditBundle};
use crate::sources::statements::evidence::sha256_tag;
use crate::sources::statements::keys::{decode_public_key, KeyResolution};
use crate::sources::statements::ledger::Ledger;
use crate::sources::statements::report::VerifyReport;
use crate::sources::statements::trust::{fingerprint, record_use, KeyUse, TrustStatus, TrustedKeys};

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
    /// What its log proofs showed, when it carries them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<LogCheck>,
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
            log: None,
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

/// Checks a bundle's text: every signature, quote, hash and consensus figure recomputed from
/// its own documents, its signature (a bundle without one fails), and, with `trust`, that
/// the trust file pins the bundle's signer and every key a document's valid signature holds
/// under. `Err` when the text is not a bundle at all (line and column, and why).
pub fn verify_with(text: &str, trust: Option<&TrustedKeys>) -> Result<BundleCheck, String> {
    verify_since(text, trust, None)
}

/// [`verify_with`], and the bundle's log proofs ([`super::log`]): with `since` (what the
/// auditor kept from an earlier look), that its log extends that checkpoint and still shows
/// what an earlier bundle showed of its statements.
pub fn verify_since(
    text: &str,
    trust: Option<&TrustedKeys>,
    since: Option<&Since>,
) -> Result<BundleCheck, String> {
    verify_witnessed(text, trust, since, &[])
}

/// [`verify_since`], and that the bundle's log checkpoint carries a valid cosignature of each
/// of `witnesses` (their tlog-cosignature/v1 verifier keys).
pub fn verify_witnessed(
    text: &str,
    trust: Option<&TrustedKeys>,
    since: Option<&Since>,
    witnesses: &[String],
) -> Result<BundleCheck, String> {
    let bundle = read(text)?;
    let mut findings = Vec::new();
    let (signed_by, signer) = check_signature(&bundle, trust, &mut findings);
    let ledger = replay(&bundle.documents, &bundle.keys)?;
    for (i, r) in ledger.rejected().iter().enumerate() {
        findings.push(finding(format!("provex:documents (rejected {i})"), r.reason.clone()));
    }
    let now = ledger.report();
    check_report(&bundle.report, &now, &mut findings)?;
    check_slices(&bundle, &ledger, &mut findings);
    check_sources(&bundle, &ledger, &mut findings);
    let log = super::log::check(&bundle, trust, since, witnesses, &mut findings);
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
        log,
    };
    check.decide(trust.is_some());
    Ok(check)
}

/// The bundle's own signature: who signed it, when it holds (`signed_by`), and the key it
/// names, when that decodes (`signer`); a missing or failing signature is a finding.
fn check_signature(
    bundle: &AuditBundle,
    trust: Option<&TrustedKeys>,
    findings: &mut Vec<Finding>,
) -> (Option<String>, Option<KeyUse>) {
    let Some(sig) = &bundle.signature else {
        findings.push(finding(
            "provex:signature",
            "the bundle is not signed: nothing shows who made it or that it is whole",
        ));
        return (None, None);
    };
    let signer = decode_public_key(&sig.public_key).ok().map(|key| KeyUse {
        agent: sig.agent.clone(),
        key_id: sig.key_id.clone(),
        fingerprint: fingerprint(&key),
        pinned: trust.map(|t| t.pins(&sig.agent, &key)),
        documents: 0,
    });
    let ok = (|| -> Result<bool, String> {
        let key = decode_public_key(&sig.public_key)?;
        let bytes = STANDARD.decode(&sig.value).map_err(|e| format!("signature is not base64: {e}"))?;
        let sig_bytes: [u8; 64] = bytes.try_into().map_err(|_| "signature is not 64 bytes".to_owned())?;
        Ok(key.verify_strict(&signed_bytes(bundle)?, &Signature::from_bytes(&sig_bytes)).is_ok())
    })();
    let mut signed_by = None;
    match ok {
        Ok(true) => signed_by = Some(format!("{} ({})", sig.agent, sig.key_id)),
        Ok(false) => {
            findings.push(finding("provex:signature", "the bundle's signature does not match its content"))
        }
        Err(e) => findings.push(finding("provex:signature", e)),
    }
    (signed_by, signer)
}

/// The report the bundle carries against the one its documents give now: each document's
/// report on its own, named by its id; then the rest (summary, rejected).
fn check_report(said: &VerifyReport, now: &VerifyReport, findings: &mut Vec<Finding>) -> Result<(), String> {
    let (mut said, mut got) = (
        serde_json::to_value(said).map_err(|e| e.to_string())?,
        serde_json::to_value(now).map_err(|e| e.to_string())?,
    );
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
    Ok(())
}

/// Each quoted slice hashes as the bundle says, from the bytes of its source document.
fn check_slices(bundle: &AuditBundle, ledger: &Ledger, findings: &mut Vec<Finding>) {
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
}

/// Each source's hash is its document's, and each statement named is among the documents.
fn check_sources(bundle: &AuditBundle, ledger: &Ledger, findings: &mut Vec<Finding>) {
    let sources = source_hashes(ledger);
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
}

/// The keys the valid signatures of a replayed bundle's documents hold under, by agent.
fn document_keys(ledger: &Ledger, trust: Option<&TrustedKeys>) -> Vec<KeyUse> {
    let mut uses = Vec::new();
    for e in ledger.entries() {
        let (Some(sig), Some(agent)) = (&e.signature, e.document().signer()) else { continue };
        if sig.status != crate::sources::statements::SignatureStatus::Valid {
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
