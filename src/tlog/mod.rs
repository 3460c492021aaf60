//! The tamper-evident log of each graph (docs/FORMATS.md, "Tamper-evident log"): every
//! record Provex accepts becomes a leaf of an append-only Merkle tree hashed as RFC 9162
//! does (SHA-256, `0x00` leaves, `0x01` interior nodes), so that a signed checkpoint of the
//! tree proves later that nothing was removed or rewritten. The tree's hashes are kept in
//! FalkorDB beside the graph (`store/log.rs`); this module keeps the frontier in memory so
//! that appending never re-reads or re-hashes the tree.

pub mod checkpoint;
pub mod cosignature;
pub mod proof;
pub mod witness;

use std::borrow::Cow;

use sha2::{Digest, Sha256};
use tlog_tiles::{stored_hash_index, stored_hashes_for_record_hash, sub_tree_index, tree_hash, HashReader};

pub use tlog_tiles::{check_record, check_tree, prove_record, prove_tree, Hash};

/// The node properties a log's leaves and digest are stamped on (the model names them, so
/// that a delta stamps them without knowing this module).
pub use crate::model::vocab::{DIGEST_PROP, LEAVES_PROP};
/// The node property naming the source a document's line came from (the leaf's source).
pub const SOURCE_PROP: &str = "log_source";
/// The node property holding when the line was received (Unix ms, the leaf's time).
pub const RECEIVED_PROP: &str = "log_received";
/// The node property holding the line as received, when it is not the stored document
/// written as compact JSON (then the document gives the line back).
pub const LINE_PROP: &str = "log_line";
/// Every property the log keeps on a node (its bookkeeping, not the node's content).
pub const BOOKKEEPING_PROPS: [&str; 5] = [LEAVES_PROP, DIGEST_PROP, SOURCE_PROP, RECEIVED_PROP, LINE_PROP];

/// The digest of a node's properties as its records gave them (docs/FORMATS.md,
/// "Tamper-evident log"): `v1:` then the lowercase hex SHA-256 of, for each property in
/// name order, its name, a NUL, its value as JSON (as FalkorDB gives it back) and a line
/// break; then the names, space-separated after a `|`, so that the stored form can be
/// re-hashed property by property.
pub fn props_digest(props: &crate::model::Props) -> String {
    use crate::store::shapes::{stored_key, stored_value};
    let mut pairs: Vec<(String, serde_json::Value)> = props
        .iter()
        .map(|(k, v)| {
            let v = crate::store::value::prop_param(&stored_value(v));
            (stored_key(k).into_owned(), crate::store::value::to_json(&v))
        })
        .collect();
    // As stored: a name FalkorDB cannot hold is escaped, and may then sort elsewhere.
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    digest_pairs(pairs.into_iter())
}

/// The digest of named JSON values, in the order given (names sorted by the caller).
pub fn digest_pairs(pairs: impl Iterator<Item = (String, serde_json::Value)>) -> String {
    let mut h = Sha256::new();
    let mut names = Vec::new();
    for (k, v) in pairs {
        h.update(k.as_bytes());
        h.update([0]);
        h.update(as_given_back(v).to_string().as_bytes());
        h.update(b"\n");
        names.push(k);
    }
    let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    let listed: Vec<Cow<str>> = names.iter().map(|n| list_name(n)).collect();
    format!("v1:{hex}|{}", listed.join(" "))
}

/// A property name as the digest's list writes it: `%` as `%25` and a space as `%20`, so a
/// name holding a space is one name (docs/FORMATS.md "Tamper-evident log").
pub fn list_name(name: &str) -> Cow<'_, str> {
    if name.contains(['%', ' ']) {
        Cow::Owned(name.replace('%', "%25").replace(' ', "%20"))
    } else {
        Cow::Borrowed(name)
    }
}

/// The property names a digest lists, as [`list_name`] wrote them, in order.
pub fn listed_names(digest: &str) -> Vec<Cow<'_, str>> {
    let names = digest.split_once('|').map_or("", |(_, n)| n);
    names.split(' ').filter(|s| !s.is_empty()).map(unlist_name).collect()
}

fn unlist_name(s: &str) -> Cow<'_, str> {
    if !s.contains('%') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix("%20") {
            out.push(' ');
            rest = after;
        } else if let Some(after) = tail.strip_prefix("%25") {
            out.push('%');
            rest = after;
        } else {
            out.push('%');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// A value as FalkorDB gives it back: a double with 15 significant digits (`%.15g`), so the
/// digest made before a write matches the stored form read again (a confidence such as
/// 0.03379049890677806 comes back as 0.0337904989067781). Idempotent.
pub fn as_given_back(v: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Number(n) if n.is_f64() => n
            .as_f64()
            .and_then(|f| format!("{f:.14e}").parse::<f64>().ok())
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Number(n), Value::Number),
        Value::Array(items) => Value::Array(items.into_iter().map(as_given_back).collect()),
        other => other,
    }
}

/// Whether a node's stored properties (`props`, as FalkorDB gives them back) hash to its
/// `digest` ([`props_digest`]'s form): the same answer as re-hashing with [`digest_pairs`]
/// the properties the digest names, without copying a value (`verify --graph` re-hashes a
/// million nodes this way).
pub fn digest_matches(digest: &str, props: &serde_json::Map<String, serde_json::Value>) -> bool {
    let Some(hex) = digest.strip_prefix("v1:").and_then(|d| d.get(..64)) else { return false };
    let names = digest.split_once('|').map_or("", |(_, n)| n);
    let mut h = Sha256::new();
    let mut text = Vec::with_capacity(256);
    let mut joined = String::with_capacity(names.len());
    for listed in names.split(' ').filter(|s| !s.is_empty()) {
        let name = unlist_name(listed);
        let name = name.as_ref();
        text.clear();
        write_given_back(props.get(name).unwrap_or(&serde_json::Value::Null), &mut text);
        h.update(name.as_bytes());
        h.update([0]);
        h.update(&text);
        h.update(b"\n");
        if !joined.is_empty() {
            joined.push(' ');
        }
        joined.push_str(&list_name(name));
    }
    let sum = h.finalize();
    // Equal to `digest_pairs`'s `v1:<hex>|<names joined by one space>` only if both parts are.
    const HEX: &[u8; 16] = b"0123456789abcdef";
    digest.get(3 + 64..).and_then(|rest| rest.strip_prefix('|')) == Some(joined.as_str())
        && sum
            .iter()
            .zip(hex.as_bytes().chunks(2))
            .all(|(b, pair)| pair[0] == HEX[(b >> 4) as usize] && pair[1] == HEX[(b & 15) as usize])
}

/// A value written as compact JSON the way [`as_given_back`] then `to_string` write it.
fn write_given_back(v: &serde_json::Value, out: &mut Vec<u8>) {
    use serde_json::Value;
    match v {
        Value::Number(n) if n.is_f64() => {
            let back = as_given_back(Value::Number(n.clone()));
            serde_json::to_writer(&mut *out, &back).expect("writing JSON to memory");
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_given_back(item, out);
            }
            out.push(b']');
        }
        other => serde_json::to_writer(&mut *out, other).expect("writing JSON to memory"),
    }
}

/// The bytes of one stored hash.
pub const HASH_BYTES: u64 = 32;

/// The leaf hash of one record as received (docs/FORMATS.md, "Tamper-evident log"):
/// `SHA-256(0x00 || entry)` where `entry` is the big-endian `u16` length of the source's
/// UTF-8 name, that name, the big-endian `u64` time of receipt in Unix milliseconds, and the
/// record's bytes (its line without the line break, or the request body's line).
pub fn leaf_hash(source: &str, received_ms: u64, record: &[u8]) -> Hash {
    let name = source.as_bytes();
    let name = &name[..name.len().min(u16::MAX as usize)];
    let mut h = Sha256::new();
    h.update([0x00]);
    h.update((name.len() as u16).to_be_bytes());
    h.update(name);
    h.update(received_ms.to_be_bytes());
    h.update(record);
    Hash(h.finalize().into())
}

/// The entry [`leaf_hash`] hashes, spelled out (for verifiers and tests).
pub fn leaf_entry(source: &str, received_ms: u64, record: &[u8]) -> Vec<u8> {
    let name = source.as_bytes();
    let name = &name[..name.len().min(u16::MAX as usize)];
    let mut e = Vec::with_capacity(2 + name.len() + 8 + record.len());
    e.extend_from_slice(&(name.len() as u16).to_be_bytes());
    e.extend_from_slice(name);
    e.extend_from_slice(&received_ms.to_be_bytes());
    e.extend_from_slice(record);
    e
}

/// The right edge of a log: its size and the hashes of its complete subtrees, largest
/// first (at most 64), with their stored-hash indexes. Enough to append and to compute the
/// root hash without reading anything else.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Frontier {
    size: u64,
    nodes: Vec<(u64, Hash)>,
}

impl HashReader for Frontier {
    fn read_hashes(&self, indexes: &[u64]) -> Result<Vec<Hash>, tlog_tiles::Error> {
        indexes
            .iter()
            .map(|i| {
                self.nodes
                    .iter()
                    .find(|(at, _)| at == i)
                    .map(|(_, h)| *h)
                    .ok_or(tlog_tiles::Error::IndexesNotInTree)
            })
            .collect()
    }
}

impl Frontier {
    /// The stored-hash indexes of the frontier of a log of `size` leaves (what
    /// [`Frontier::from_hashes`] takes, in that order).
    pub fn indexes(size: u64) -> Vec<u64> {
        sub_tree_index(0, size, Vec::new())
    }

    /// The frontier of a log of `size` leaves from the hashes at [`Frontier::indexes`].
    pub fn from_hashes(size: u64, hashes: Vec<Hash>) -> Option<Frontier> {
        let indexes = Self::indexes(size);
        (indexes.len() == hashes.len())
            .then(|| Frontier { size, nodes: indexes.into_iter().zip(hashes).collect() })
    }

    /// How many leaves the log has.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Appends a leaf; its stored hashes (the leaf's, then those of the subtrees it
    /// completes) are added to `out` as raw bytes, to be written at
    /// `stored_hash_index(0, size)` (the end of what is stored).
    pub fn append(&mut self, leaf: Hash, out: &mut Vec<u8>) {
        let n = self.size;
        let hashes =
            stored_hashes_for_record_hash(n, leaf, self).expect("the frontier holds every completed subtree");
        let completed = hashes.len() - 1;
        self.nodes.truncate(self.nodes.len() - completed);
        let top = *hashes.last().expect("at least the leaf");
        self.nodes.push((stored_hash_index(completed as u8, n >> completed), top));
        for h in &hashes {
            out.extend_from_slice(&h.0);
        }
        self.size += 1;
    }

    /// The root hash of the tree (RFC 9162 §2.1.1; the empty tree's is SHA-256 of nothing).
    pub fn root(&self) -> Hash {
        tree_hash(self.size, self).expect("the frontier holds the tree's subtrees")
    }
}

/// The number of leaves of a log whose stored hashes take `stored` hashes, or `None` when
/// no log size stores exactly that many (a damaged log).
pub fn size_for_stored(stored: u64) -> Option<u64> {
    let (mut lo, mut hi) = (0u64, stored);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if tlog_tiles::stored_hash_count(mid) < stored {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    (tlog_tiles::stored_hash_count(lo) == stored).then_some(lo)
}

/// Reads hashes from stored hashes laid out as the store keeps them (32 bytes each).
pub struct StoredHashes<'a>(pub &'a [u8]);

impl HashReader for StoredHashes<'_> {
    fn read_hashes(&self, indexes: &[u64]) -> Result<Vec<Hash>, tlog_tiles::Error> {
        indexes
            .iter()
            .map(|&i| {
                let at = usize::try_from(i)
                    .ok()
                    .and_then(|i| i.checked_mul(32))
                    .ok_or(tlog_tiles::Error::IndexesNotInTree)?;
                let b = self.0.get(at..at + 32).ok_or(tlog_tiles::Error::IndexesNotInTree)?;
                Ok(Hash(b.try_into().expect("32 bytes")))
            })
            .collect()
    }
}

/// Reads hashes from a map of those already fetched (after [`Wanted`] named them).
pub struct Fetched(pub std::collections::HashMap<u64, Hash>);

impl HashReader for Fetched {
    fn read_hashes(&self, indexes: &[u64]) -> Result<Vec<Hash>, tlog_tiles::Error> {
        indexes.iter().map(|i| self.0.get(i).copied().ok_or(tlog_tiles::Error::IndexesNotInTree)).collect()
    }
}

/// Records which stored hashes a proof needs, answering with zeros: which hashes a
/// proof reads depends on the sizes alone, so a first run names them and a second, after
/// they were fetched in one round trip, builds the proof.
#[derive(Default)]
pub struct Wanted(pub std::cell::RefCell<Vec<u64>>);

impl HashReader for Wanted {
    fn read_hashes(&self, indexes: &[u64]) -> Result<Vec<Hash>, tlog_tiles::Error> {
        self.0.borrow_mut().extend_from_slice(indexes);
        Ok(vec![Hash([0; 32]); indexes.len()])
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_double_hashes_as_falkordb_gives_it_back() {
        let written = [("confidence".to_owned(), serde_json::json!(0.03379049890677806))];
        let read = [("confidence".to_owned(), serde_json::json!(0.0337904989067781))];
        assert_eq!(digest_pairs(written.into_iter()), digest_pairs(read.clone().into_iter()));
        let other = [("confidence".to_owned(), serde_json::json!(0.0337904989067782))];
        assert_ne!(digest_pairs(read.into_iter()), digest_pairs(other.into_iter()));
        let list = [("l".to_owned(), serde_json::json!([0.1, 2, 1e300, "x"]))];
        assert_eq!(as_given_back(list[0].1.clone()), list[0].1);
    }

    use super::*;

    #[test]
    fn a_property_name_holding_a_space_or_a_percent_sign_is_one_listed_name() {
        use serde_json::json;
        let props = json!({"otel:my key": "v", "otel:gen_ai.%60x%": 2, "otel:a%20b": "w", "plain": 1});
        let map = props.as_object().unwrap();
        let names = ["otel:a%20b", "otel:gen_ai.%60x%", "otel:my key", "plain"];
        let d = digest_pairs(names.iter().map(|k| ((*k).to_owned(), map[*k].clone())));
        assert!(d.ends_with("|otel:a%2520b otel:gen_ai.%2560x%25 otel:my%20key plain"), "{d}");
        assert_eq!(listed_names(&d), names);
        assert!(digest_matches(&d, map), "{d}");
        let mut changed = map.clone();
        changed.insert("otel:my key".into(), json!("edited"));
        assert!(!digest_matches(&d, &changed));
        // A name without either keeps the form digests had before.
        assert_eq!(list_name("otel:gen_ai.request.model"), "otel:gen_ai.request.model");
    }

    #[test]
    fn digest_matches_answers_as_re_hashing_the_named_values_does() {
        use serde_json::json;
        let props = json!({
            "a": "x\"y", "b": 0.03379049890677806, "c": [1, 0.1, [2.5, "z"], null], "d": 7,
            "e": true, "f": {"k": 1.0}, "name": "n"
        });
        let map = props.as_object().unwrap();
        let pick = |names: &[&str]| {
            digest_pairs(names.iter().map(|k| ((*k).to_owned(), map.get(*k).cloned().unwrap_or_default())))
        };
        for names in [&["a", "b", "c", "d", "e", "f"][..], &["b"], &[], &["missing", "a"]] {
            let d = pick(names);
            assert!(digest_matches(&d, map), "{d}");
            // Another value, another name list, a truncated or malformed digest: no match.
            let mut other = map.clone();
            other.insert("a".into(), json!("changed"));
            other.insert("b".into(), json!(0.5));
            other.insert("missing".into(), json!(1));
            assert!(!digest_matches(&d, &other) || names.is_empty(), "{d}");
            assert!(!digest_matches(&format!("{d} g"), map));
            assert!(!digest_matches(&d[..d.len() - 1], map) || names.is_empty());
            assert!(!digest_matches(&d.replacen("v1:", "v2:", 1), map));
            assert!(!digest_matches(&d.replace('|', "||"), map));
        }
        assert!(!digest_matches("", map));
        assert!(!digest_matches("v1:zz|a", map));
        // Double spaces between names are not `digest_pairs`'s form.
        let d = pick(&["a", "d"]);
        assert!(!digest_matches(&d.replace("a d", "a  d"), map));
    }

    /// The whole tree kept as stored hashes, as the store keeps it.
    fn build(n: u64) -> (Frontier, Vec<u8>) {
        let mut f = Frontier::default();
        let mut stored = Vec::new();
        for i in 0..n {
            f.append(leaf_hash("t", i, &i.to_be_bytes()), &mut stored);
        }
        (f, stored)
    }

    #[test]
    fn the_leaf_hash_is_rfc_9162s_of_the_entry() {
        let e = leaf_entry("file.jsonl", 1_700_000_000_000, b"{\"a\":1}");
        assert_eq!(leaf_hash("file.jsonl", 1_700_000_000_000, b"{\"a\":1}"), tlog_tiles::record_hash(&e));
        let mut direct = Sha256::new();
        direct.update([0u8]);
        direct.update(&e);
        assert_eq!(
            leaf_hash("file.jsonl", 1_700_000_000_000, b"{\"a\":1}").0,
            <[u8; 32]>::from(direct.finalize())
        );
    }

    #[test]
    fn stored_hashes_count_and_size_invert() {
        for n in 0..300u64 {
            let (f, stored) = build(n);
            assert_eq!(stored.len() as u64, tlog_tiles::stored_hash_count(n) * HASH_BYTES);
            assert_eq!(size_for_stored(stored.len() as u64 / HASH_BYTES), Some(n));
            assert_eq!(f.size(), n);
        }
        // Between two sizes' counts lies no size.
        assert_eq!(size_for_stored(2), None);
    }

    #[test]
    fn a_frontier_read_back_from_the_stored_hashes_goes_on_alike() {
        for n in [0u64, 1, 2, 3, 7, 8, 100, 255, 256, 1000] {
            let (f, stored) = build(n);
            let at = |i: u64| Hash(stored[(i * 32) as usize..(i * 32 + 32) as usize].try_into().unwrap());
            let again = Frontier::from_hashes(n, Frontier::indexes(n).into_iter().map(at).collect()).unwrap();
            assert_eq!(again, f);
            assert_eq!(again.root(), f.root());
        }
    }
}
