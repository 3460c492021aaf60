//! The ledger's indexes, so that no question about one statement, source or key scans every
//! entry: verification responses and requests by target statement, citing statements by
//! source document, signed entries by the key they name, and what changed since the graph
//! was last written.

use std::collections::{BTreeSet, HashMap};

use ed25519_dalek::VerifyingKey;

/// Entry numbers (arrival order) by what they point at.
#[derive(Debug, Clone, Default)]
pub(super) struct Index {
    /// Live verification responses by target statement.
    pub responses: HashMap<String, Vec<usize>>,
    /// Verification requests by target statement (shadowed ones too: they are stored).
    pub requests: HashMap<String, Vec<usize>>,
    /// Live statements by the source documents their evidence cites.
    pub citing: HashMap<String, Vec<usize>>,
    /// Statements by the statements they say they contradict.
    pub contradicting: HashMap<String, Vec<usize>>,
    /// Signed entries by the key their signature names: `id:<key id>` for the name as
    /// written, `pk:<hex>` for the key it resolved to.
    pub by_key: HashMap<String, Vec<usize>>,
}

pub(super) fn id_key(key_ref: &str) -> String {
    format!("id:{key_ref}")
}

pub(super) fn pk_key(key: &VerifyingKey) -> String {
    let mut s = String::with_capacity(67);
    s.push_str("pk:");
    super::evidence::push_hex(&mut s, key.as_bytes());
    s
}

impl Index {
    pub fn add(map: &mut HashMap<String, Vec<usize>>, key: &str, entry: usize) {
        let list = map.entry(key.to_owned()).or_default();
        // Entries are added in arrival order, or again when re-checked: readers de-duplicate.
        if list.last() != Some(&entry) {
            list.push(entry);
        }
    }

    pub fn get<'a>(map: &'a HashMap<String, Vec<usize>>, key: &str) -> &'a [usize] {
        map.get(key).map(Vec::as_slice).unwrap_or(&[])
    }
}

/// What changed since the graph was last written: entries whose documents or derived state
/// (signature status, evidence, consensus) must be written again, and agents whose keys or
/// reputation changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Changes {
    pub entries: BTreeSet<usize>,
    pub agents: BTreeSet<String>,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.agents.is_empty()
    }
}
