//! Evidence integrity (docs/FORMATS.md, "A2AP documents"): each evidence segment against its source document's
//! bytes, content hashes, and the deterministic ids of the A2AP specification's appendix A.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::document::{EvidenceSegment, SourceDocument, Statement};
use super::Problem;

/// The namespace of A2AP's deterministic ids (the A2AP specification's appendix A).
pub const ID_NAMESPACE: Uuid = Uuid::from_u128(0x6ba7b810_9dad_11d1_80b4_00c04fd430c8);

/// `urn:uuid:` + UUIDv5(namespace, `<agent id>|<claim text>`).
pub fn statement_id(agent_id: &str, claim_text: &str) -> String {
    let name = format!("{agent_id}|{claim_text}");
    format!("urn:uuid:{}", Uuid::new_v5(&ID_NAMESPACE, name.as_bytes()))
}

/// `urn:chunk:` + UUIDv5(namespace, `<doc id>|<byte offset>`).
pub fn chunk_id(doc_id: &str, byte_offset: u64) -> String {
    let name = format!("{doc_id}|{byte_offset}");
    format!("urn:chunk:{}", Uuid::new_v5(&ID_NAMESPACE, name.as_bytes()))
}

/// `sha256:<lowercase hex>` of some bytes.
pub fn sha256_tag(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    push_hex(&mut out, &digest);
    out
}

/// Appends the lowercase hex of some bytes.
pub(super) fn push_hex(out: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for &b in bytes {
        out.push(HEX[usize::from(b >> 4)] as char);
        out.push(HEX[usize::from(b & 0xf)] as char);
    }
}

/// The outcome of one evidence segment's check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceStatus {
    /// The byte range is inside the document and the quote (and hash, when given) equal it.
    Match,
    /// The range is out of bounds or splits a character, or the quote or hash differ.
    Mismatch,
    /// The source document is not available, or the segment gives nothing to compare.
    Unchecked,
}

impl EvidenceStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            EvidenceStatus::Match => "match",
            EvidenceStatus::Mismatch => "mismatch",
            EvidenceStatus::Unchecked => "unchecked",
        }
    }
}

impl std::fmt::Display for EvidenceStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One evidence segment's check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceCheck {
    pub chunk_id: String,
    pub source_document: String,
    pub status: EvidenceStatus,
    /// Why the status is not `match`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
}

/// Checks a segment against its source document (`None` when it is absent).
pub fn check_segment(segment: &EvidenceSegment, document: Option<&SourceDocument>) -> EvidenceCheck {
    let mut check = EvidenceCheck {
        chunk_id: segment.chunk_id.clone(),
        source_document: segment.source_document.clone(),
        status: EvidenceStatus::Unchecked,
        reasons: Vec::new(),
    };
    let Some(document) = document else {
        check.reasons.push(format!("source document {} is not available", segment.source_document));
        return check;
    };
    let text = &document.text;
    let (start, end) = (segment.byte_range.start, segment.byte_range.end);
    let slice = if start > end {
        Err(format!("byte range {start}..{end} is reversed"))
    } else if end > text.len() as u64 {
        Err(format!("byte range {start}..{end} is past the end of the document ({} bytes)", text.len()))
    } else {
        text.get(start as usize..end as usize)
            .ok_or_else(|| format!("byte range {start}..{end} splits a UTF-8 character"))
    };
    let slice = match slice {
        Ok(s) => s,
        Err(reason) => {
            check.status = EvidenceStatus::Mismatch;
            check.reasons.push(reason);
            return check;
        }
    };
    if segment.quote_text.is_none() && segment.content_hash.is_none() {
        check.reasons.push("the segment gives neither quoteText nor contentHash".into());
        return check;
    }
    let mut reasons = Vec::new();
    if let Some(quote) = &segment.quote_text {
        if quote != slice {
            reasons.push(format!("quoteText differs from the document's bytes {start}..{end}: {slice:?}"));
        }
    }
    if let Some(hash) = &segment.content_hash {
        let actual = sha256_tag(slice.as_bytes());
        if *hash != actual {
            reasons.push(format!("contentHash {hash} differs from the bytes' {actual}"));
        }
    }
    check.status = if reasons.is_empty() { EvidenceStatus::Match } else { EvidenceStatus::Mismatch };
    check.reasons = reasons;
    check
}

/// Checks all of a statement's segments against the documents `lookup` finds by id.
pub fn check_statement_evidence<'a>(
    statement: &Statement,
    lookup: impl Fn(&str) -> Option<&'a SourceDocument>,
) -> Vec<EvidenceCheck> {
    statement.evidence.iter().map(|seg| check_segment(seg, lookup(&seg.source_document))).collect()
}

/// Whether the claim's `contentHash` (when given) is the hash of its text; `None` if absent.
pub fn claim_hash_matches(statement: &Statement) -> Option<bool> {
    let hash = statement.claim.content_hash.as_deref()?;
    Some(hash == sha256_tag(statement.claim.text.as_bytes()))
}

/// Problems with a statement's integrity that are reported but are no evidence status: its
/// claim hash, and its deterministic statement and chunk ids.
pub fn statement_problems(statement: &Statement) -> Vec<Problem> {
    let mut problems = Vec::new();
    if claim_hash_matches(statement) == Some(false) {
        problems.push(Problem::new(
            "claim_hash_mismatch",
            format!("claim.contentHash is not {}", sha256_tag(statement.claim.text.as_bytes())),
        ));
    }
    let expected = statement_id(statement.agent.id(), &statement.claim.text);
    if statement.id != expected {
        problems.push(Problem::new(
            "statement_id_mismatch",
            format!("@id {} is not the deterministic id {expected}", statement.id),
        ));
    }
    for seg in &statement.evidence {
        let expected = chunk_id(&seg.source_document, seg.byte_range.start);
        if seg.chunk_id != expected {
            problems.push(Problem::new(
                "chunk_id_mismatch",
                format!("chunkId {} is not the deterministic id {expected}", seg.chunk_id),
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2ap::document::ByteRange;

    fn doc(text: &str) -> SourceDocument {
        SourceDocument { id: "urn:doc:t".into(), title: None, text: text.into(), source: None }
    }

    fn seg(start: u64, end: u64, quote: Option<&str>, hash: Option<String>) -> EvidenceSegment {
        EvidenceSegment {
            source_document: "urn:doc:t".into(),
            chunk_id: chunk_id("urn:doc:t", start),
            byte_range: ByteRange { start, end },
            timestamp: None,
            quote_text: quote.map(str::to_owned),
            relevance_score: None,
            content_hash: hash,
        }
    }

    #[test]
    fn deterministic_ids_follow_appendix_a() {
        // Python: uuid.uuid5(uuid.UUID('6ba7b810-9dad-11d1-80b4-00c04fd430c8'), 'python.org')
        // is the documented 886313e1-3b8a-5372-9b90-0c9aee199e5d (the namespace is NAMESPACE_DNS).
        assert_eq!(
            Uuid::new_v5(&ID_NAMESPACE, b"python.org").to_string(),
            "886313e1-3b8a-5372-9b90-0c9aee199e5d"
        );
        let a = statement_id("urn:agent:a", "claim");
        assert!(a.starts_with("urn:uuid:"));
        assert_eq!(a, statement_id("urn:agent:a", "claim"));
        assert_ne!(a, statement_id("urn:agent:a", "claim."));
        assert_ne!(chunk_id("urn:doc:t", 1), chunk_id("urn:doc:t", 2));
    }

    #[test]
    fn sha256_of_abc() {
        assert_eq!(
            sha256_tag(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn every_status_and_reason() {
        let d = doc("Ünïcode text here");
        let good = sha256_tag("text".as_bytes());
        let start = "Ünïcode ".len() as u64;
        let check = |s: EvidenceSegment, d: Option<&SourceDocument>| check_segment(&s, d);
        assert_eq!(
            check(seg(start, start + 4, Some("text"), Some(good.clone())), Some(&d)).status,
            EvidenceStatus::Match
        );
        assert_eq!(
            check(seg(start, start + 4, None, Some(good.clone())), Some(&d)).status,
            EvidenceStatus::Match
        );
        assert_eq!(
            check(seg(start, start + 4, Some("test"), None), Some(&d)).status,
            EvidenceStatus::Mismatch
        );
        assert_eq!(
            check(seg(start, start + 4, Some("text"), Some(sha256_tag(b"x"))), Some(&d)).status,
            EvidenceStatus::Mismatch
        );
        assert_eq!(check(seg(0, 1, Some("Ü"), None), Some(&d)).status, EvidenceStatus::Mismatch); // splits Ü
        assert_eq!(check(seg(0, 2, Some("Ü"), None), Some(&d)).status, EvidenceStatus::Match);
        assert_eq!(check(seg(5, 4, Some(""), None), Some(&d)).status, EvidenceStatus::Mismatch);
        assert_eq!(check(seg(0, 999, Some("x"), None), Some(&d)).status, EvidenceStatus::Mismatch);
        assert_eq!(check(seg(start, start + 4, Some("text"), None), None).status, EvidenceStatus::Unchecked);
        assert_eq!(check(seg(start, start + 4, None, None), Some(&d)).status, EvidenceStatus::Unchecked);
    }
}
