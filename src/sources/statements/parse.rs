//! Parsing A2AP documents from JSON Lines or a JSON array with per-record results,
//! rejecting records with duplicate keys (at any depth) as ambiguous. Finding each record's
//! line reads the text once, however many records an array holds.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::document::{DocType, Document, Position, Record, RecordError};

/// Parses a time such as `2025-10-14T10:30:00Z` (RFC 3339).
pub fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text).ok().map(|t| t.with_timezone(&Utc))
}

/// Parses A2AP documents: a JSON array of objects, or one object per line (blank lines are
/// skipped). Each record gives its own result, in input order, so that good records around a
/// bad one survive. A syntax error inside a JSON array ends that array (where the next
/// element starts cannot be known); in JSON Lines it costs only its line.
pub fn parse_documents(text: &str) -> Vec<Result<Record, RecordError>> {
    let trimmed = text.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if trimmed.starts_with('[') {
        parse_array(text, text.len() - trimmed.len())
    } else {
        parse_lines(text)
    }
}

fn parse_lines(text: &str) -> Vec<Result<Record, RecordError>> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_start_matches('\u{feff}');
        if line.trim().is_empty() {
            continue;
        }
        let position = Position { line: n + 1, index: out.len() };
        let result = match serde_json::from_str::<Checked>(line) {
            Ok(checked) => record_from_checked(position, checked),
            Err(e) => Err(RecordError { position, reason: format!("invalid JSON: {e}") }),
        };
        out.push(result);
    }
    out
}

/// The line of an offset, counting only the bytes after the previous offset asked: offsets
/// into an array only grow, so finding every record's line reads the text once.
struct Lines<'a> {
    text: &'a [u8],
    offset: usize,
    line: usize,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        Lines { text: text.as_bytes(), offset: 0, line: 1 }
    }

    fn line_of(&mut self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        if offset < self.offset {
            // Not expected (offsets grow), but stay right: count again from the start.
            *self = Lines { text: self.text, offset: 0, line: 1 };
        }
        self.line += self.text[self.offset..offset].iter().filter(|b| **b == b'\n').count();
        self.offset = offset;
        self.line
    }
}

fn skip_ws(text: &str, mut pos: usize) -> usize {
    let bytes = text.as_bytes();
    while pos < bytes.len() && matches!(bytes[pos], b' ' | b'\t' | b'\n' | b'\r') {
        pos += 1;
    }
    pos
}

fn parse_array(text: &str, open: usize) -> Vec<Result<Record, RecordError>> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut pos = skip_ws(text, open + 1);
    let mut lines = Lines::new(text);
    fn fail(out: &mut Vec<Result<Record, RecordError>>, lines: &mut Lines, pos: usize, reason: String) {
        let position = Position { line: lines.line_of(pos), index: out.len() };
        out.push(Err(RecordError { position, reason }));
    }
    if bytes.get(pos) == Some(&b']') {
        pos = skip_ws(text, pos + 1);
        if pos < bytes.len() {
            fail(&mut out, &mut lines, pos, "trailing characters after the JSON array".into());
        }
        return out;
    }
    loop {
        let position = Position { line: lines.line_of(pos), index: out.len() };
        let mut stream = serde_json::Deserializer::from_str(&text[pos..]).into_iter::<Checked>();
        match stream.next() {
            Some(Ok(checked)) => {
                pos += stream.byte_offset();
                out.push(record_from_checked(position, checked));
            }
            Some(Err(e)) => {
                out.push(Err(RecordError {
                    position,
                    reason: format!("invalid JSON, the rest of the array is skipped: {e}"),
                }));
                return out;
            }
            None => {
                fail(&mut out, &mut lines, pos, "unterminated JSON array".into());
                return out;
            }
        }
        pos = skip_ws(text, pos);
        match bytes.get(pos) {
            Some(b',') => pos = skip_ws(text, pos + 1),
            Some(b']') => {
                pos = skip_ws(text, pos + 1);
                if pos < bytes.len() {
                    fail(&mut out, &mut lines, pos, "trailing characters after the JSON array".into());
                }
                return out;
            }
            _ => {
                fail(&mut out, &mut lines, pos, "expected ',' or ']' in the JSON array".into());
                return out;
            }
        }
    }
}

fn record_from_checked(position: Position, checked: Checked) -> Result<Record, RecordError> {
    if !checked.duplicates.is_empty() {
        return Err(RecordError {
            position,
            reason: format!(
                "ambiguous document: duplicate key{} {}",
                if checked.duplicates.len() > 1 { "s" } else { "" },
                checked.duplicates.join(", ")
            ),
        });
    }
    parse_value(checked.value)
        .map_err(|reason| RecordError { position, reason })
        .map(|(value, document)| Record { position, value, document })
}

/// Reads one document from a JSON value already known to be free of duplicate keys. Returns
/// the value back with its typed reading, or why it is not a document.
pub fn parse_value(value: Value) -> Result<(Value, Document), String> {
    let obj = value.as_object().ok_or("a document must be a JSON object")?;
    let ty = match obj.get("@type") {
        Some(Value::String(t)) => t.as_str(),
        Some(_) => return Err("\"@type\" must be a string".into()),
        None => return Err("missing \"@type\"".into()),
    };
    let doc_type = DocType::parse(ty).ok_or_else(|| format!("unsupported @type {ty:?}"))?;
    match obj.get("@id") {
        Some(Value::String(id)) if !id.trim().is_empty() => {}
        Some(_) => return Err("\"@id\" must be a non-empty string".into()),
        None => return Err("missing \"@id\"".into()),
    }
    fn typed<T: serde::de::DeserializeOwned>(v: &Value, ty: DocType) -> Result<T, String> {
        T::deserialize(v).map_err(|e| format!("invalid {ty}: {e}"))
    }
    let document = match doc_type {
        DocType::Statement => Document::Statement(typed(&value, doc_type)?),
        DocType::VerificationRequest => Document::Request(typed(&value, doc_type)?),
        DocType::VerificationResponse => Document::Response(typed(&value, doc_type)?),
        DocType::SourceDocument => Document::Source(typed(&value, doc_type)?),
        DocType::SoftwareAgent => Document::Agent(typed(&value, doc_type)?),
    };
    Ok((value, document))
}

/// Parses one JSON text into a value, rejecting duplicate keys at any depth.
pub fn parse_strict(text: &str) -> Result<Value, String> {
    let checked: Checked = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
    if checked.duplicates.is_empty() {
        Ok(checked.value)
    } else {
        Err(format!("ambiguous JSON: duplicate keys {}", checked.duplicates.join(", ")))
    }
}

/// A JSON value with the JSON-pointer paths of the keys that occurred more than once in an
/// object (serde_json alone silently keeps the last).
struct Checked {
    value: Value,
    duplicates: Vec<String>,
}

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        CheckedSeed.deserialize(deserializer)
    }
}

struct CheckedSeed;

impl<'de> DeserializeSeed<'de> for CheckedSeed {
    type Value = Checked;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Checked, D::Error> {
        deserializer.deserialize_any(CheckedVisitor)
    }
}

struct CheckedVisitor;

fn leaf(value: Value) -> Checked {
    Checked { value, duplicates: Vec::new() }
}

fn pointer_escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

impl<'de> Visitor<'de> for CheckedVisitor {
    type Value = Checked;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Checked, E> {
        Ok(leaf(Value::Bool(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Checked, E> {
        Ok(leaf(Value::from(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Checked, E> {
        Ok(leaf(Value::from(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Checked, E> {
        serde_json::Number::from_f64(v)
            .map(|n| leaf(Value::Number(n)))
            .ok_or_else(|| E::custom("non-finite number"))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Checked, E> {
        Ok(leaf(Value::String(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Checked, E> {
        Ok(leaf(Value::String(v)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Checked, E> {
        Ok(leaf(Value::Null))
    }

    fn visit_none<E: de::Error>(self) -> Result<Checked, E> {
        Ok(leaf(Value::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
        let mut items = Vec::new();
        let mut duplicates = Vec::new();
        while let Some(child) = seq.next_element_seed(CheckedSeed)? {
            let i = items.len();
            duplicates.extend(child.duplicates.into_iter().map(|d| format!("/{i}{d}")));
            items.push(child.value);
        }
        Ok(Checked { value: Value::Array(items), duplicates })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
        let mut obj = Map::new();
        let mut duplicates = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let child = map.next_value_seed(CheckedSeed)?;
            let here = format!("/{}", pointer_escape(&key));
            duplicates.extend(child.duplicates.into_iter().map(|d| format!("{here}{d}")));
            if obj.contains_key(&key) {
                duplicates.push(here);
            } else {
                obj.insert(key, child.value);
            }
        }
        Ok(Checked { value: Value::Object(obj), duplicates })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = r#"{"@type":"a2ap:SourceDocument","@id":"urn:doc:x","title":"T","text":"hello"}"#;

    #[test]
    fn jsonl_records_survive_around_bad_ones() {
        let text = format!(
            "{SOURCE}\n\nnot json\n{}\n{}\n{SOURCE}\n",
            r#"{"@type":"a2ap:SourceDocument","@id":"urn:doc:y","text":"a","text":"b"}"#,
            r#"{"@type":"a2ap:Unknown","@id":"urn:x"}"#
        );
        let results = parse_documents(&text);
        assert_eq!(results.len(), 5);
        assert!(results[0].is_ok());
        let e = results[1].as_ref().unwrap_err();
        assert_eq!(e.position.line, 3);
        assert!(e.reason.contains("invalid JSON"));
        let e = results[2].as_ref().unwrap_err();
        assert_eq!(e.position.line, 4);
        assert!(e.reason.contains("duplicate key /text"), "{}", e.reason);
        assert!(results[3].as_ref().unwrap_err().reason.contains("unsupported @type"));
        assert_eq!(results[4].as_ref().unwrap().position, Position { line: 6, index: 4 });
    }

    #[test]
    fn duplicates_are_found_at_any_depth() {
        let nested = r#"{"a":[{"b":{"c":1,"c":2}}],"d":{"e~/":1,"e~/":1}}"#;
        let err = parse_strict(nested).unwrap_err();
        assert!(err.contains("/a/0/b/c"), "{err}");
        assert!(err.contains("/d/e~0~1"), "{err}");
        assert!(parse_strict(r#"{"a":{"c":1},"b":{"c":1}}"#).is_ok());
    }

    #[test]
    fn arrays_give_line_numbers_and_per_record_results() {
        let text = format!(
            "[\n  {SOURCE},\n  {},\n  {{\"@type\":\"a2ap:SourceDocument\"}}\n]\n",
            r#"{"@type":"a2ap:SourceDocument","@id":"urn:doc:y","text":"a","title":"1","title":"2"}"#
        );
        let results = parse_documents(&text);
        assert_eq!(results.len(), 3);
        assert_eq!(results[0].as_ref().unwrap().position, Position { line: 2, index: 0 });
        assert_eq!(results[1].as_ref().unwrap_err().position.line, 3);
        let e = results[2].as_ref().unwrap_err();
        assert_eq!(e.position.line, 4);
        assert!(e.reason.contains("missing \"@id\""));
        assert!(parse_documents("[]").is_empty());
        assert!(parse_documents("[ {\"a\":1} ").last().unwrap().is_err());
    }

    #[test]
    fn a_large_array_gives_every_line_in_linear_time() {
        // 200,000 records: counting lines from the start for each took minutes; once, well
        // under a second even in a debug build.
        let n = 200_000;
        let mut text = String::from("[\n");
        for i in 0..n {
            text.push_str(&format!(
                "{{\"@type\":\"a2ap:SourceDocument\",\"@id\":\"urn:doc:{i}\",\"text\":\"t\"}}"
            ));
            text.push_str(if i + 1 < n { ",\n" } else { "\n" });
        }
        text.push_str("]\n");
        let started = std::time::Instant::now();
        let results = parse_documents(&text);
        let elapsed = started.elapsed();
        assert_eq!(results.len(), n);
        for (i, r) in results.iter().enumerate() {
            assert_eq!(r.as_ref().unwrap().position, Position { line: i + 2, index: i });
        }
        assert!(elapsed < std::time::Duration::from_secs(20), "{elapsed:?}");
    }

    #[test]
    fn lines_are_counted_once_and_stay_right_when_asked_backwards() {
        let mut lines = Lines::new("a\nb\nc\n");
        assert_eq!(lines.line_of(0), 1);
        assert_eq!(lines.line_of(2), 2);
        assert_eq!(lines.line_of(5), 3);
        assert_eq!(lines.line_of(2), 2);
        assert_eq!(lines.line_of(100), 4);
    }

    #[test]
    fn typed_reading_names_the_missing_member() {
        let results = parse_documents(
            r#"{"@type":"a2ap:ProvenanceStatement","@id":"urn:uuid:1","agent":"urn:agent:a"}"#,
        );
        let e = results[0].as_ref().unwrap_err();
        assert!(e.reason.contains("claim"), "{}", e.reason);
    }
}
