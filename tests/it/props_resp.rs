//! Property tests of the RESP reply reader that whole-graph reads use (`store::resp`): any
//! value FalkorDB's compact format can carry comes back as the JSON it encodes, a reply cut
//! short anywhere is an error and never a panic, and random bytes never panic.

use proptest::prelude::*;
use provex::store::resp::compact_rows;
use serde_json::{Number, Value};

use crate::fuzz_regressions::checks;
use crate::props_canonical::json_value;

fn bulk(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(format!("${}\r\n{s}\r\n", s.len()).as_bytes());
}

/// A JSON value in FalkorDB's compact format: `[type, value]`.
fn encode(out: &mut Vec<u8>, v: &Value) {
    out.extend_from_slice(b"*2\r\n");
    match v {
        Value::Null => out.extend_from_slice(b":1\r\n$-1\r\n"),
        Value::String(s) => {
            out.extend_from_slice(b":2\r\n");
            bulk(out, s);
        }
        Value::Bool(b) => {
            out.extend_from_slice(b":4\r\n");
            bulk(out, if *b { "true" } else { "false" });
        }
        Value::Number(n) => match n.as_i64() {
            Some(i) => out.extend_from_slice(format!(":3\r\n:{i}\r\n").as_bytes()),
            None => {
                out.extend_from_slice(b":5\r\n");
                bulk(out, &n.as_f64().unwrap().to_string());
            }
        },
        Value::Array(items) => {
            out.extend_from_slice(format!(":6\r\n*{}\r\n", items.len()).as_bytes());
            for i in items {
                encode(out, i);
            }
        }
        Value::Object(m) => {
            out.extend_from_slice(format!(":10\r\n*{}\r\n", m.len() * 2).as_bytes());
            for (k, v) in m {
                bulk(out, k);
                encode(out, v);
            }
        }
    }
}

/// What the reader gives for `v`: numbers that are not i64 come back as doubles.
fn expected(v: &Value) -> Value {
    match v {
        Value::Number(n) if n.as_i64().is_none() => {
            Number::from_f64(n.as_f64().unwrap()).map(Value::Number).unwrap_or(Value::Null)
        }
        Value::Array(items) => Value::Array(items.iter().map(expected).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), expected(v))).collect()),
        other => other.clone(),
    }
}

/// A whole compact reply: a header, the rows, and statistics.
fn reply(rows: &[Vec<Value>]) -> Vec<u8> {
    let mut out = b"*3\r\n*1\r\n*2\r\n:1\r\n$1\r\nc\r\n".to_vec();
    out.extend_from_slice(format!("*{}\r\n", rows.len()).as_bytes());
    for r in rows {
        out.extend_from_slice(format!("*{}\r\n", r.len()).as_bytes());
        for v in r {
            encode(&mut out, v);
        }
    }
    out.extend_from_slice(b"*1\r\n$40\r\nQuery internal execution time: 1.0 ms ok\r\n");
    out
}

fn rows() -> impl Strategy<Value = Vec<Vec<Value>>> {
    prop::collection::vec(prop::collection::vec(json_value(), 1..4), 0..5)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn compact_rows_come_back_as_the_json_they_encode(rows in rows()) {
        let bytes = reply(&rows);
        let got = compact_rows(&mut std::io::Cursor::new(&bytes)).unwrap().unwrap();
        let want: Vec<Vec<Value>> = rows.iter().map(|r| r.iter().map(expected).collect()).collect();
        prop_assert_eq!(got, want);
        checks::resp_reply(&bytes);
    }

    #[test]
    fn a_reply_cut_short_is_an_error(rows in rows(), cut in any::<prop::sample::Index>()) {
        let bytes = reply(&rows);
        let at = cut.index(bytes.len());
        prop_assert!(compact_rows(&mut std::io::Cursor::new(&bytes[..at])).is_err(), "cut at {} of {}", at, bytes.len());
        checks::resp_reply(&bytes[..at]);
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        checks::resp_reply(&bytes);
    }
}
