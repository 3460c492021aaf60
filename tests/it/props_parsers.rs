//! Property tests of the two record parsers against hostile input: the A2A line parser
//! (`ingest::normalize_line`) and the A2AP document parser (`a2ap::parse_documents`). On any
//! input they return instead of panicking, and every rejection carries a reason and the line
//! it is about. Inputs are random bytes and text, and real records from `examples/` with one
//! part replaced by a random JSON value, removed, or cut short.

use proptest::prelude::*;
use provex::ingest::{normalize_line, read_file, Format, IngestOptions, RejectsFile};
use provex::model::GraphDelta;
use provex::sources::statements::parse_documents;
use serde_json::Value;

use crate::props_canonical::json_value;

const A2A_LINES: &str = include_str!("../../examples/a2a-run.jsonl");
const A2AP_LINES: &str = include_str!("../../examples/council/council-a2ap.jsonl");

fn a2a_lines() -> Vec<&'static str> {
    A2A_LINES.lines().filter(|l| !l.trim().is_empty()).collect()
}

fn a2ap_lines() -> Vec<&'static str> {
    A2AP_LINES.lines().filter(|l| !l.trim().is_empty()).collect()
}

/// One change to a JSON value: the node reached by following `path` (each step picks a
/// child, modulo the number of children) is replaced, or removed from its parent.
#[derive(Debug, Clone)]
enum Edit {
    Replace(Vec<usize>, Value),
    Remove(Vec<usize>),
}

fn edit() -> impl Strategy<Value = Edit> {
    let path = prop::collection::vec(any::<usize>(), 1..6); // never the whole record
    prop_oneof![
        3 => (path.clone(), json_value()).prop_map(|(p, v)| Edit::Replace(p, v)),
        1 => path.prop_map(Edit::Remove),
    ]
}

fn child(value: &mut Value, step: usize) -> Option<&mut Value> {
    match value {
        Value::Array(items) if !items.is_empty() => {
            let n = items.len();
            items.get_mut(step % n)
        }
        Value::Object(map) if !map.is_empty() => {
            let n = map.len();
            map.values_mut().nth(step % n)
        }
        _ => None,
    }
}

fn apply(value: &mut Value, edit: &Edit) {
    match edit {
        Edit::Replace(path, new) => replace_at(value, path, new),
        Edit::Remove(path) => remove_at(value, path),
    }
}

fn replace_at(value: &mut Value, path: &[usize], new: &Value) {
    match path.split_first() {
        Some((step, rest)) if child(value, *step).is_some() => {
            replace_at(child(value, *step).expect("checked"), rest, new)
        }
        _ => *value = new.clone(),
    }
}

fn is_nonempty_container(value: &Value) -> bool {
    value.as_object().is_some_and(|m| !m.is_empty()) || value.as_array().is_some_and(|a| !a.is_empty())
}

fn remove_at(value: &mut Value, path: &[usize]) {
    let Some((step, rest)) = path.split_first() else { return };
    if !rest.is_empty() && child(value, *step).is_some_and(|c| is_nonempty_container(c)) {
        return remove_at(child(value, *step).expect("checked"), rest);
    }
    match value {
        Value::Object(map) if !map.is_empty() => {
            let key = map.keys().nth(step % map.len()).cloned().expect("in range");
            map.shift_remove(&key);
        }
        Value::Array(items) if !items.is_empty() => {
            let n = items.len();
            items.remove(step % n);
        }
        _ => {}
    }
}

/// A real A2A line with a few edits applied.
fn edited_a2a_line() -> impl Strategy<Value = String> {
    let lines = a2a_lines();
    (0..lines.len(), prop::collection::vec(edit(), 1..4)).prop_map(move |(i, edits)| {
        let mut value: Value = serde_json::from_str(lines[i]).unwrap();
        for e in &edits {
            apply(&mut value, e);
        }
        serde_json::to_string(&value).unwrap()
    })
}

/// A real A2AP document with a few edits applied, on one line.
fn edited_a2ap_line() -> impl Strategy<Value = String> {
    let lines = a2ap_lines();
    (0..lines.len(), prop::collection::vec(edit(), 1..4)).prop_map(move |(i, edits)| {
        let mut value: Value = serde_json::from_str(lines[i]).unwrap();
        for e in &edits {
            apply(&mut value, e);
        }
        serde_json::to_string(&value).unwrap()
    })
}

/// Text that is not one JSON value: cut short, or random characters after an opening brace.
fn garbage_line() -> impl Strategy<Value = String> {
    let lines = a2a_lines();
    prop_oneof![
        (0..lines.len(), any::<prop::sample::Index>()).prop_map(move |(i, cut)| {
            let line = lines[i];
            let mut at = cut.index(line.len());
            while !line.is_char_boundary(at) {
                at -= 1;
            }
            line[..at.max(1)].to_owned()
        }),
        "[^\n\r]{0,40}".prop_map(|s| format!("{{{s}")),
    ]
}

fn check_a2a(bytes: &[u8]) -> Result<(), TestCaseError> {
    let mut delta = GraphDelta::default();
    if let Err(reason) = normalize_line(Format::A2a, bytes, &mut delta) {
        prop_assert!(!reason.trim().is_empty(), "empty reason for {:?}", String::from_utf8_lossy(bytes));
    }
    Ok(())
}

/// One parsed record: its id, or the line and reason of its rejection.
type Outcome = Result<String, (usize, String)>;

/// Every record of `text` parsed; every rejection has a reason and a line of `text`.
fn check_a2ap(text: &str) -> Result<Vec<Outcome>, TestCaseError> {
    let lines = text.split('\n').count();
    let mut out = Vec::new();
    for (i, result) in parse_documents(text).into_iter().enumerate() {
        match result {
            Ok(record) => {
                prop_assert_eq!(record.position.index, i);
                prop_assert_eq!(record.value["@id"].as_str(), Some(record.document.id()));
                out.push(Ok(record.document.id().to_owned()));
            }
            Err(e) => {
                prop_assert_eq!(e.position.index, i);
                prop_assert!(!e.reason.trim().is_empty(), "empty reason at {}", e.position);
                prop_assert!((1..=lines).contains(&e.position.line), "line {} of {lines}", e.position.line);
                out.push(Err((e.position.line, e.reason)));
            }
        }
    }
    Ok(out)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a2a_line_parser_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        check_a2a(&bytes)?;
    }

    #[test]
    fn a2a_line_parser_never_panics_on_edited_events(line in edited_a2a_line()) {
        check_a2a(line.as_bytes())?;
    }

    #[test]
    fn a2a_line_parser_rejects_garbage_with_a_reason(line in garbage_line()) {
        let mut delta = GraphDelta::default();
        let result = normalize_line(Format::A2a, line.as_bytes(), &mut delta);
        let reason = result.expect_err("not an event");
        prop_assert!(!reason.trim().is_empty());
    }

    /// Through the file reader: each rejected line is reported with its own line number.
    #[test]
    fn a2a_rejections_name_their_lines(
        rows in prop::collection::vec(prop_oneof![
            2 => (0..a2a_lines().len()).prop_map(|i| (true, a2a_lines()[i].to_owned())),
            1 => garbage_line().prop_map(|g| (false, g)),
        ], 1..12)
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let text: String = rows.iter().map(|(_, l)| format!("{l}\n")).collect();
        std::fs::write(&path, text).unwrap();
        let opts = IngestOptions { format: Format::A2a, ..IngestOptions::default() };
        let mut rejects = RejectsFile::beside(&path);
        let mut rejected = Vec::new();
        let report = read_file(&path, &opts, &mut rejects, &mut || false, &mut |chunk| {
            rejected.extend(chunk.rejected);
            true
        })
        .unwrap();
        let bad: Vec<u64> = rows.iter().enumerate().filter(|(_, (ok, _))| !ok).map(|(i, _)| i as u64 + 1).collect();
        let got: Vec<u64> = rejected.iter().map(|r| r.line).collect();
        prop_assert_eq!(got, bad.clone());
        prop_assert_eq!(report.rejected, bad.len() as u64);
        prop_assert_eq!(report.events, (rows.len() - bad.len()) as u64);
        for r in &rejected {
            prop_assert!(!r.reason.trim().is_empty());
            prop_assert_eq!(&r.text, &rows[r.line as usize - 1].1);
        }
    }

    #[test]
    fn a2ap_parser_never_panics_on_text(text in any::<String>()) {
        check_a2ap(&text)?;
    }

    #[test]
    fn a2ap_parser_never_panics_on_json_like_text(text in "[\\[\\]{}\",:0-9a-z@ \n\u{feff}\u{e9}\\\\]{0,80}") {
        check_a2ap(&text)?;
        check_a2ap(&format!("[{text}"))?;
    }

    /// JSON Lines: one result per non-blank line, each on its own line; garbage is rejected.
    #[test]
    fn a2ap_lines_reject_on_the_right_line(
        rows in prop::collection::vec(prop_oneof![
            3 => edited_a2ap_line().prop_map(|l| (true, l)),
            1 => garbage_line().prop_map(|g| (false, g)),
            1 => Just((true, "   ".to_owned())),
        ], 1..10)
    ) {
        let text: String = rows.iter().map(|(_, l)| format!("{l}\n")).collect();
        let results = check_a2ap(&text)?;
        let kept: Vec<(usize, bool)> = rows
            .iter()
            .enumerate()
            .filter(|(_, (_, l))| !l.trim().is_empty())
            .map(|(i, (ok, _))| (i + 1, *ok))
            .collect();
        prop_assert_eq!(results.len(), kept.len());
        for (result, (line, maybe_ok)) in results.iter().zip(&kept) {
            if let Err((at, _)) = result {
                prop_assert_eq!(at, line);
            } else {
                prop_assert!(*maybe_ok, "garbage on line {line} accepted");
            }
        }
    }

    /// A JSON array with one element per line: each rejection names its element's line.
    #[test]
    fn a2ap_array_rejects_on_the_right_line(lines in prop::collection::vec(edited_a2ap_line(), 1..8)) {
        let text = format!("[\n{}\n]\n", lines.join(",\n"));
        let results = check_a2ap(&text)?;
        prop_assert_eq!(results.len(), lines.len());
        for (i, result) in results.iter().enumerate() {
            if let Err((at, _)) = result {
                prop_assert_eq!(*at, i + 2);
            }
        }
    }
}

/// A JSON array after a byte-order mark is one text, as format detection says: the
/// documents are read, not each line rejected on its own.
#[test]
fn a2ap_array_after_a_byte_order_mark_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("docs.json");
    let docs = a2ap_lines();
    std::fs::write(&path, format!("\u{feff}[\n{}\n]\n", docs[..3].join(",\n"))).unwrap();
    assert_eq!(provex::ingest::detect(&path).unwrap(), Format::A2ap);
    let opts = IngestOptions { format: Format::A2ap, ..IngestOptions::default() };
    let mut rejects = RejectsFile::beside(&path);
    let mut ids = Vec::new();
    let report = read_file(&path, &opts, &mut rejects, &mut || false, &mut |chunk| {
        ids.extend(chunk.records.iter().map(|r| r.document.id().to_owned()));
        true
    })
    .unwrap();
    assert_eq!(report.rejected, 0);
    assert_eq!(report.events, 3);
    let want: Vec<String> = docs[..3]
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["@id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids, want);
}
