//! What each fuzz target asserts about one input, in one place: the cargo-fuzz targets in
//! fuzz/ include this file (`#[path]`), and the stable regression test feeds it every saved
//! input, so an input a fuzzer found fails the same way on stable.
#![allow(dead_code)] // each fuzz target uses one of the checks

use provex::a2ap::canonical::canonical_string;
use provex::a2ap::parse_documents;
use provex::ingest::{normalize_line, Format};
use provex::model::GraphDelta;
use serde_json::Value;

/// The A2A line parser: no panic; a rejected line has a reason.
pub fn a2a_line(data: &[u8]) {
    let mut delta = GraphDelta::default();
    if let Err(reason) = normalize_line(Format::A2a, data, &mut delta) {
        assert!(!reason.trim().is_empty(), "rejected without a reason");
    }
}

/// The A2AP document parser (the reader rejects invalid UTF-8 before it): no panic; every
/// rejected record has a reason and a line of the input.
pub fn a2ap_document(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let lines = text.split('\n').count();
    for (i, result) in parse_documents(text).into_iter().enumerate() {
        match result {
            Ok(record) => assert_eq!(record.position.index, i),
            Err(e) => {
                assert_eq!(e.position.index, i);
                assert!(!e.reason.trim().is_empty(), "rejected without a reason");
                assert!((1..=lines).contains(&e.position.line), "line {} of {lines}", e.position.line);
            }
        }
    }
}

/// The RFC 8785 canonicaliser, on any JSON text serde_json reads: no panic, the output is
/// JSON that canonicalises to itself, and it is what `serde_json_canonicalizer` writes.
pub fn canonical(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<Value>(data) else { return };
    let ours = canonical_string(&value);
    let again: Value = serde_json::from_str(&ours).expect("canonical output is JSON");
    assert_eq!(canonical_string(&again), ours, "not a fixed point");
    let theirs = serde_json_canonicalizer::to_string(&value).expect("reference canonicaliser");
    assert_eq!(ours, theirs, "disagrees with serde_json_canonicalizer");
}

/// The RESP reply reader of whole-graph reads: no panic on any bytes, and a reply it reads
/// as compact graph rows reads the same through the generic parser and the compact decoder.
pub fn resp_reply(data: &[u8]) {
    use provex::store::compact::decode;
    use provex::store::resp::{compact_rows, read_value, Value as Resp};
    let generic = read_value(&mut std::io::Cursor::new(data));
    let Ok(Ok(rows)) = compact_rows(&mut std::io::Cursor::new(data)) else { return };
    let Ok(Ok(Resp::Array(mut parts))) = generic else {
        panic!("compact rows read, but not the generic reply: {generic:?}");
    };
    if parts.len() < 3 {
        assert!(rows.is_empty());
        return;
    }
    let Resp::Array(generic_rows) = parts.swap_remove(1) else { panic!("rows are not an array") };
    let decoded: Vec<Vec<Value>> = generic_rows
        .into_iter()
        .map(|r| match r {
            Resp::Array(cols) => cols.into_iter().map(decode).collect(),
            other => panic!("a row is not an array: {other:?}"),
        })
        .collect();
    assert_eq!(decoded, rows);
}

/// The PROV-JSON importer: no panic; a refused text and every rejected record name a line
/// of the input and a reason; and what it keeps is a fixed point: exported as PROV-JSON and
/// imported again, it gives the same graph.
pub fn prov_json(data: &[u8]) {
    use provex::diff::Snapshot;
    use provex::prov::{import::import, Document, ProvFormat};
    let Ok(text) = std::str::from_utf8(data) else { return };
    let lines = text.split('\n').count() as u64;
    let imported = match import(text) {
        Ok(i) => i,
        Err((line, reason)) => {
            assert!(!reason.trim().is_empty(), "refused without a reason");
            assert!((1..=lines).contains(&line), "line {line} of {lines}");
            return;
        }
    };
    for (line, reason) in &imported.rejected {
        assert!(!reason.trim().is_empty(), "rejected without a reason");
        assert!((1..=lines).contains(line), "line {line} of {lines}: {reason}");
    }
    let exported = ProvFormat::ProvJson.write(&Document::from_delta("g", &imported.delta));
    let again = import(&exported).unwrap_or_else(|e| panic!("our export is refused: {e:?}\n{exported}"));
    assert_eq!(again.rejected, vec![], "our export has rejected records:\n{exported}");
    assert_eq!(
        Snapshot::from_delta(&again.delta),
        Snapshot::from_delta(&imported.delta),
        "not a fixed point:\n{exported}"
    );
    for f in ProvFormat::ALL {
        let _ = f.write(&Document::from_delta("g", &imported.delta));
    }
}
