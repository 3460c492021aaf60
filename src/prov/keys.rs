//! Where each member of a PROV-JSON document's outer objects is in its text, found in one
//! pass: the import reports a rejected record on the line of its key, and searching the text
//! for each key it rejects (from the start of its section) made a document of many rejected
//! records quadratic. The index covers the objects a PROV-JSON document nests its records in:
//! the document, its sections, `bundle`, each bundle and the bundles' sections
//! (docs/FORMATS.md, "W3C PROV-JSON"). The text is JSON that serde_json has already read.

use std::collections::HashMap;

/// The deepest object whose members are indexed: document (1), section or `bundle` (2),
/// a bundle (3), a bundle's section (4).
const DEPTH: usize = 4;

/// A member of an object: where its key starts and where its value starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    pub key: usize,
    pub value: usize,
}

/// The members of the document's outer objects, by (where their object starts, key).
#[derive(Debug, Default)]
pub struct Keys {
    members: HashMap<(usize, String), Member>,
    /// Bytes looked at while indexing (for the linearity test).
    pub steps: usize,
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// The end (one past the closing quote) of the string starting at `i`.
fn string_end(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() && b[i] != b'"' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    i + 1
}

impl Keys {
    /// Indexes `text` (a JSON text), without recursion.
    pub fn new(text: &str) -> Keys {
        let b = text.as_bytes();
        let mut keys = Keys::default();
        // Open containers: where each starts, and whether it is an object expecting a key.
        let mut open: Vec<(usize, bool)> = Vec::new();
        let mut i = skip_ws(b, 0);
        while i < b.len() {
            keys.steps += 1;
            match b[i] {
                b'{' => {
                    open.push((i, true));
                    i += 1;
                }
                b'[' => {
                    open.push((i, false));
                    i += 1;
                }
                b'}' | b']' => {
                    open.pop();
                    i += 1;
                }
                b',' => {
                    if let Some(top) = open.last_mut() {
                        top.1 = b[top.0] == b'{';
                    }
                    i += 1;
                }
                b'"' => {
                    let end = string_end(b, i);
                    keys.steps += end - i;
                    match open.last_mut() {
                        Some(top) if top.1 => {
                            top.1 = false;
                            let (object, depth) = (top.0, open.len());
                            if depth <= DEPTH {
                                let raw = &text[i..end.min(text.len())];
                                let key = if raw.contains('\\') {
                                    serde_json::from_str::<String>(raw).unwrap_or_default()
                                } else {
                                    raw[1..raw.len().saturating_sub(1).max(1)].to_owned()
                                };
                                // The colon, then the value.
                                let value = skip_ws(b, skip_ws(b, end) + 1);
                                // A key given twice: serde_json keeps the last, so does this.
                                keys.members.insert((object, key), Member { key: i, value });
                            }
                        }
                        _ => {}
                    }
                    i = end;
                }
                _ => i += 1,
            }
        }
        keys
    }

    /// Where the top-level value starts.
    pub fn root(text: &str) -> usize {
        skip_ws(text.as_bytes(), 0)
    }

    /// The member `key` of the object starting at byte `object`.
    pub fn get(&self, object: usize, key: &str) -> Option<Member> {
        self.members.get(&(object, key.to_owned())).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_of_the_outer_objects() {
        let text = "{\n \"entity\": {\"ex:a\": {\"x\": \"ex:b\"},\n  \"ex:b\": {}},\n \"bundle\": {\"ex:B\": {\"entity\": {\"e\\u0078:c\": [{}]}}}}";
        let k = Keys::new(text);
        let root = Keys::root(text);
        let entity = k.get(root, "entity").unwrap();
        assert_eq!(&text[entity.key..entity.key + 8], "\"entity\"");
        let b = k.get(entity.value, "ex:b").unwrap();
        assert_eq!(&text[b.key..b.key + 6], "\"ex:b\"", "the key, not the value that names it");
        let bundle = k.get(root, "bundle").unwrap();
        let one = k.get(bundle.value, "ex:B").unwrap();
        let section = k.get(one.value, "entity").unwrap();
        let c = k.get(section.value, "ex:c").unwrap();
        assert_eq!(&text[c.value..c.value + 1], "[", "an escaped key is read as JSON reads it");
        assert_eq!(k.get(c.value, "x"), None);
    }

    #[test]
    fn the_text_is_read_once() {
        // The bytes looked at grow with the text, not with the records times the text.
        for n in [1_000, 8_000] {
            let records: Vec<String> =
                (0..n).map(|i| format!("\"undeclared:e{i}\": {{\"a\": [1, {{}}]}}")).collect();
            let doc = format!("{{\"entity\": {{\n{}\n}}}}", records.join(",\n"));
            let k = Keys::new(&doc);
            assert!(k.steps <= 2 * doc.len(), "{} steps for {} bytes", k.steps, doc.len());
            // "entity", each record, and each record body's member (depth 3 is indexed too).
            assert_eq!(k.members.len(), 2 * n + 1);
        }
    }
}
