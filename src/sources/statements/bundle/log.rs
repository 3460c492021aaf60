//! The log proofs an audit bundle carries (docs/FORMATS.md, "Audit bundles" and
//! "Tamper-evident log"): the signed checkpoint of the graph's log it was made at; for each
//! document that came in on a line, that line as received and the inclusion proof of its
//! leaf; and, when made since an earlier checkpoint, the consistency proof from it. All are
//! checked offline: each leaf is hashed again from its line, the line must hold the very
//! document the bundle holds, its path must lead to the checkpoint's root, and the
//! checkpoint must be signed by the key the bundle names, which must be the key of an
//! earlier checkpoint the auditor kept when one is given (`--since`). Given an earlier
//! bundle instead, its logged documents about the statements this bundle holds must all be
//! here, at the same leaves.

use std::collections::{HashMap, HashSet};

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::finding::{finding, Finding};
use super::AuditBundle;
use crate::sources::statements::document::Document;
use crate::sources::statements::trust::{fingerprint, KeyUse, TrustedKeys};
use crate::tlog::checkpoint::{self, Opened};
use crate::tlog::proof::{check_consistency, decode, MAX_PATH};
use crate::tlog::Hash;

/// The log section of a bundle (`provex:log`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BundleLog {
    /// The signed checkpoint (C2SP signed note) the proofs lead to.
    pub checkpoint: String,
    /// The signed-note verifier key of the instance that signed it.
    pub verifier_key: String,
    pub records: Vec<LogRecord>,
    /// From an earlier checkpoint to this one, when the bundle was made `--since` it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consistency: Option<SinceProof>,
}

/// One document's line as received and where it is in the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LogRecord {
    /// The document's `@id`.
    pub document: String,
    /// The leaf's index in the log.
    pub index: u64,
    /// What the leaf hashes: the source name, the time of receipt (Unix ms) and the line.
    pub source: String,
    pub received: u64,
    pub line: String,
    /// The RFC 9162 audit path to the checkpoint's root, standard base64 hashes.
    pub path: Vec<String>,
}

/// A consistency proof from an earlier checkpoint to the bundle's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SinceProof {
    /// The earlier signed checkpoint.
    pub old: String,
    pub path: Vec<String>,
}

/// What an auditor kept from an earlier look: a signed checkpoint, or a whole earlier bundle
/// (its checkpoint, and its logged documents).
#[derive(Debug, Clone, Default)]
pub struct Since {
    pub checkpoint: Vec<u8>,
    pub records: Vec<LogRecord>,
}

impl Since {
    /// Reads a signed checkpoint or an audit bundle.
    pub fn from_bytes(bytes: &[u8]) -> Result<Since, String> {
        let text =
            std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8 (at byte {})", e.valid_up_to()))?;
        if super::is_bundle(text) {
            let bundle = super::read(text)?;
            let log = bundle.log.ok_or("the earlier bundle carries no log proofs")?;
            return Ok(Since { checkpoint: log.checkpoint.into_bytes(), records: log.records });
        }
        checkpoint::open(bytes, None)
            .map_err(|e| format!("neither an audit bundle nor a checkpoint: {e}"))?;
        Ok(Since { checkpoint: bytes.to_vec(), records: Vec::new() })
    }
}

/// What checking a bundle's log proofs found (the failures are findings of the bundle).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogCheck {
    pub origin: String,
    /// The tree size of the bundle's checkpoint.
    pub size: u64,
    /// The key that signed the checkpoint (its agent is the key's name).
    pub signer: Option<KeyUse>,
    /// Documents whose inclusion proof holds.
    pub proven: usize,
    /// Documents with no log record (they came in no line of their own).
    pub unlogged: Vec<String>,
    /// The tree size of the earlier checkpoint this bundle's log was shown to extend.
    pub since: Option<u64>,
    /// The witnesses whose cosignature of the checkpoint was asked for and holds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub witnessed: Vec<crate::tlog::witness::Cosigned>,
}

/// The Ed25519 key of a signed-note verifier key (`name+hash+base64(0x01 || key)`).
fn verifier_public_key(vkey: &str) -> Option<(String, ed25519_dalek::VerifyingKey)> {
    let mut parts = vkey.trim().splitn(3, '+');
    let (name, _, key) = (parts.next()?, parts.next()?, parts.next()?);
    let bytes = STANDARD.decode(key).ok()?;
    let (&alg, key) = bytes.split_first()?;
    let key: [u8; 32] = key.try_into().ok()?;
    (alg == 1).then_some(())?;
    Some((name.to_owned(), ed25519_dalek::VerifyingKey::from_bytes(&key).ok()?))
}

fn decode_path(path: &[String]) -> Result<Vec<Hash>, String> {
    if path.len() > MAX_PATH {
        return Err(format!("the path has {} hashes, over the limit of {MAX_PATH}", path.len()));
    }
    path.iter()
        .enumerate()
        .map(|(i, h)| decode(h).ok_or_else(|| format!("hash {i} of the path is not 32 bytes of base64")))
        .collect()
}

/// Whether `line` holds the document `doc` of id `id` (a line may hold several).
fn line_holds(line: &str, id: &str, doc: &Value) -> bool {
    crate::sources::statements::parse_documents(line)
        .into_iter()
        .flatten()
        .any(|r| r.id() == id && &r.value == doc)
}

/// The statements a logged line is about: a statement's own id, the statement a request or
/// a verification targets.
fn statements_of(line: &str) -> Vec<String> {
    crate::sources::statements::parse_documents(line)
        .into_iter()
        .flatten()
        .filter_map(|r| match r.document {
            Document::Statement(s) => Some(s.id),
            Document::Response(r) => Some(r.target_statement),
            Document::Request(r) => Some(r.target_statement),
            _ => None,
        })
        .collect()
}

/// Checks a bundle's log proofs, and that its checkpoint carries a valid cosignature of each
/// of `witnesses` (tlog-cosignature/v1 verifier keys); failures go to `findings`. `None`
/// when the bundle carries none (then `since` or `witnesses` given is a finding: nothing
/// shows it extends that checkpoint, nor that a witness saw its log).
pub fn check(
    bundle: &AuditBundle,
    trust: Option<&TrustedKeys>,
    since: Option<&Since>,
    witnesses: &[String],
    findings: &mut Vec<Finding>,
) -> Option<LogCheck> {
    let Some(log) = &bundle.log else {
        if since.is_some() {
            findings.push(finding(
                "provex:log",
                "the bundle carries no log proofs: nothing shows its documents are in the log the earlier checkpoint was of",
            ));
        }
        if !witnesses.is_empty() {
            findings.push(finding(
                "provex:log",
                "the bundle carries no log checkpoint for a witness to have cosigned",
            ));
        }
        return None;
    };
    let signer = verifier_public_key(&log.verifier_key).map(|(name, key)| KeyUse {
        pinned: trust.map(|t| t.pins(&name, &key)),
        agent: name,
        key_id: "log checkpoint key".into(),
        fingerprint: fingerprint(&key),
        documents: 0,
    });
    let cp = match checkpoint::open(log.checkpoint.as_bytes(), Some(&log.verifier_key)) {
        Ok(cp) => cp,
        Err(e) => {
            findings.push(finding("provex:log.checkpoint", e.to_string()));
            return None;
        }
    };
    if !cp.origin.ends_with(&format!("/{}", bundle.graph)) {
        findings.push(finding(
            "provex:log.checkpoint",
            format!("the checkpoint is of the log {}, not of graph {}", cp.origin, bundle.graph),
        ));
    }
    let docs: HashMap<&str, &Value> =
        bundle.documents.iter().filter_map(|d| Some((d.get("@id")?.as_str()?, d))).collect();
    let mut proven = HashSet::new();
    for (i, r) in log.records.iter().enumerate() {
        let place = format!("provex:log.records[{i}]");
        let Some(doc) = docs.get(r.document.as_str()) else {
            findings.push(finding(place, format!("{} is not among the bundle's documents", r.document)));
            continue;
        };
        if !line_holds(&r.line, &r.document, doc) {
            findings.push(finding(
                place,
                format!(
                    "the line logged at leaf {} does not hold the bundle's document {}",
                    r.index, r.document
                ),
            ));
            continue;
        }
        let leaf = crate::tlog::leaf_hash(&r.source, r.received, r.line.as_bytes());
        let holds = decode_path(&r.path).and_then(|path| {
            if r.index >= cp.size {
                return Err(format!("leaf {} is past the checkpoint's {} leaves", r.index, cp.size));
            }
            tlog_tiles::check_record(&path, cp.size, cp.root, r.index, leaf).map_err(|e| {
                format!(
                    "{} is not leaf {} of the log at the checkpoint of {} leaves ({e})",
                    r.document, r.index, cp.size
                )
            })
        });
        match holds {
            Ok(()) => {
                proven.insert(r.document.as_str());
            }
            Err(reason) => findings.push(finding(place, reason)),
        }
    }
    let unlogged = docs.keys().filter(|id| !proven.contains(*id)).map(|id| (*id).to_owned()).collect();
    let since_size = since.and_then(|s| check_since(bundle, log, &cp, s, findings));
    let mut witnessed = Vec::new();
    for w in witnesses {
        match crate::tlog::witness::cosigned_by(log.checkpoint.as_bytes(), w) {
            Ok(c) => witnessed.push(c),
            Err(reason) => findings.push(finding("provex:log.checkpoint (witness)", reason)),
        }
    }
    Some(LogCheck {
        origin: cp.origin,
        size: cp.size,
        signer,
        proven: proven.len(),
        unlogged,
        since: since_size,
        witnessed,
    })
}

/// Checks that the bundle's log extends the earlier checkpoint, and that an earlier
/// bundle's logged documents about this bundle's statements are all still here.
fn check_since(
    bundle: &AuditBundle,
    log: &super::BundleLog,
    cp: &Opened,
    since: &Since,
    findings: &mut Vec<Finding>,
) -> Option<u64> {
    let place = "provex:log (since)";
    let old = match checkpoint::open(&since.checkpoint, Some(&log.verifier_key)) {
        Ok(old) => old,
        Err(e) => {
            findings.push(finding(
                place,
                format!("the earlier checkpoint is not signed by the key of this bundle's log: {e}"),
            ));
            return None;
        }
    };
    let path = match (&log.consistency, old.size.cmp(&cp.size)) {
        (_, std::cmp::Ordering::Equal) => Ok(Vec::new()),
        (_, std::cmp::Ordering::Greater) => Err(format!(
            "the log has {} leaves at the bundle's checkpoint, fewer than the earlier checkpoint's {}: records were removed",
            cp.size, old.size
        )),
        (None, _) => Err(format!(
            "the bundle carries no consistency proof from the earlier checkpoint (of {} leaves)",
            old.size
        )),
        (Some(p), _) => match checkpoint::open(p.old.as_bytes(), None) {
            Ok(o) if o.size == old.size && o.root == old.root && o.origin == old.origin => decode_path(&p.path),
            _ => Err(format!(
                "the bundle's consistency proof starts at another checkpoint than the earlier one (of {} leaves)",
                old.size
            )),
        },
    };
    let holds = path.and_then(|path| {
        check_consistency(&old, cp, &path).map_err(|e| format!("{e}: records were removed or changed since"))
    });
    let extends = match holds {
        Ok(()) => Some(old.size),
        Err(reason) => {
            findings.push(finding(place, reason));
            None
        }
    };
    // An earlier bundle: what it showed of this bundle's statements is still shown, each
    // record at its leaf.
    let statements: HashSet<&str> = bundle.statements.iter().map(String::as_str).collect();
    let leaf = |r: &LogRecord| (r.index, crate::tlog::leaf_hash(&r.source, r.received, r.line.as_bytes()).0);
    let here: HashSet<(u64, [u8; 32])> = log.records.iter().map(leaf).collect();
    for r in &since.records {
        let about = statements_of(&r.line);
        let Some(statement) = about.iter().find(|s| statements.contains(s.as_str())) else { continue };
        if !here.contains(&leaf(r)) {
            findings.push(finding(
                "provex:log.records",
                format!(
                    "{} (leaf {}), in the earlier bundle about statement {statement}, is left out of this one",
                    r.document, r.index
                ),
            ));
        }
    }
    extends
}

impl LogCheck {
    /// The lines `provex verify` prints of it.
    pub fn text(&self) -> String {
        let mut s = format!(
            "  log          {} documents in {} at the checkpoint of {} leaves{}\n",
            self.proven,
            self.origin,
            self.size,
            match self.since {
                Some(n) => format!(", which extends the earlier checkpoint of {n} leaves"),
                None => String::new(),
            }
        );
        if let Some(k) = &self.signer {
            let pin = match k.pinned {
                Some(true) => ", pinned",
                Some(false) => ", not in the trust file",
                None => "",
            };
            s.push_str(&format!("  log key      {}{pin}\n", k.describe()));
        }
        for w in &self.witnessed {
            s.push_str(&format!(
                "  witness      {} cosigned the checkpoint at {} (Unix time)\n",
                w.witness, w.time
            ));
        }
        if !self.unlogged.is_empty() {
            s.push_str(&format!(
                "  not logged   {} documents came in no line of their own: {}\n",
                self.unlogged.len(),
                self.unlogged.join(", ")
            ));
        }
        s
    }
}
