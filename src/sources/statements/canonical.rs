//! RFC 8785 (JSON Canonicalization Scheme): the exact bytes an A2AP signature covers
//! (`docs/FORMATS.md`, "A2AP documents").
//!
//! Numbers are formatted by `ryu-js` (ECMAScript `Number.prototype.toString()`, the format
//! RFC 8785 prescribes). The rest, `JSON.stringify` string escaping and object members sorted
//! by their UTF-16 code units, is written here rather than by `serde_json_canonicalizer`
//! (which stays the test oracle), because a signature check must canonicalise a document
//! without some of its members (`canonicalize_except`: the signature value, the verification
//! status), which the crate cannot do without a pruned copy of every document, and because the
//! crate buffers each member and parses every key again as JSON to sort it: on the council
//! example's documents ours takes 8 µs a document and the crate 46–50 µs, and for the signed
//! bytes 7 µs against 60–68 µs on a pruned copy (`bash bench/canonical.sh`, release, one core;
//! `docs/BENCHMARKS.md`, "Canonical JSON").
//! Neither fails: a parsed `serde_json::Value` has no non-finite number, and its depth is
//! bounded by the parser (128 levels) before it gets here.

use serde_json::{Map, Value};

/// The RFC 8785 serialisation of a JSON value, as UTF-8 bytes.
pub fn canonicalize(value: &Value) -> Vec<u8> {
    canonical_string(value).into_bytes()
}

/// The RFC 8785 serialisation of a JSON value, as text.
pub fn canonical_string(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

/// The RFC 8785 serialisation of a JSON value, appended to `out` (a buffer a caller reuses
/// across many values).
pub fn canonicalize_into(out: &mut String, value: &Value) {
    write_value(out, value);
}

/// The RFC 8785 serialisation of `value` without some of its members, written straight from
/// the parsed value (no copy of it is made): `top` names members of the top-level object to
/// leave out, and `inner` = (member, names) leaves `names` out of that member when it is an
/// object. A value that is not an object is written whole.
pub fn canonicalize_except(value: &Value, top: &[&str], inner: (&str, &[&str])) -> Vec<u8> {
    let mut out = String::with_capacity(1024);
    match value {
        Value::Object(map) => write_object(&mut out, map, top, Some(inner)),
        other => write_value(&mut out, other),
    }
    out.into_bytes()
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => write_json_number(out, n),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => write_object(out, map, &[], None),
    }
}

/// The RFC 8785 form of a parsed JSON number (for other trees of parsed JSON).
pub(crate) fn write_json_number(out: &mut String, n: &serde_json::Number) {
    // JSON numbers are IEEE doubles under RFC 8785 (I-JSON): integers past 2^53 lose
    // precision exactly as they would in the producer's JavaScript.
    match n.as_i64() {
        Some(i) if i.unsigned_abs() <= MAX_EXACT_INT => write_int(out, i),
        _ => write_number(out, n.as_f64().unwrap_or(f64::NAN)),
    }
}

/// An object with its members sorted by UTF-16 code units, leaving out the members named in
/// `skip` and, inside the member `inner.0` when it is an object, those named in `inner.1`.
fn write_object(out: &mut String, map: &Map<String, Value>, skip: &[&str], inner: Option<(&str, &[&str])>) {
    let mut members: Vec<(&String, &Value)> =
        map.iter().filter(|(k, _)| !skip.contains(&k.as_str())).collect();
    members.sort_unstable_by(|a, b| utf16_cmp(a.0, b.0));
    out.push('{');
    for (i, (key, item)) in members.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(out, key);
        out.push(':');
        match (inner, item) {
            (Some((name, names)), Value::Object(m)) if key == name => write_object(out, m, names, None),
            _ => write_value(out, item),
        }
    }
    out.push('}');
}

/// Orders two strings by their UTF-16 code units. UTF-8 bytes sort the same way as code
/// points, which agree with UTF-16 code units except past U+FFFF, so ASCII keys (nearly all)
/// are compared as bytes.
pub(crate) fn utf16_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    if a.is_ascii() && b.is_ascii() {
        a.as_bytes().cmp(b.as_bytes())
    } else {
        a.encode_utf16().cmp(b.encode_utf16())
    }
}

/// `JSON.stringify` string escaping: the two mandatory escapes, the five short control
/// escapes, `\u00xx` (lowercase hex) for the other controls, everything else literal.
/// Runs without escapes are copied whole.
pub(crate) fn write_string(out: &mut String, s: &str) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut from = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            0x0c => "\\f",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        // Every escaped byte is ASCII, so `from..i` ends on a character boundary.
        out.push_str(&s[from..i]);
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(HEX[(b >> 4) as usize] as char);
            out.push(HEX[(b & 0xf) as usize] as char);
        } else {
            out.push_str(escape);
        }
        from = i + 1;
    }
    out.push_str(&s[from..]);
    out.push('"');
}

/// The largest integer a double holds exactly together with all smaller ones (2^53).
const MAX_EXACT_INT: u64 = 1 << 53;

fn write_int(out: &mut String, i: i64) {
    use std::fmt::Write as _;
    let _ = write!(out, "{i}");
}

/// ECMAScript `Number.prototype.toString()` for a finite double (ECMA-262, Number::toString),
/// the number format RFC 8785 prescribes, by `ryu-js` (the formatter the reference
/// canonicaliser `serde_json_canonicalizer` uses too). Non-finite values cannot come out of a
/// JSON parser; they are written `null` rather than panicking.
pub fn format_number(v: f64) -> String {
    let mut out = String::new();
    write_number(&mut out, v);
    out
}

fn write_number(out: &mut String, v: f64) {
    if v.is_finite() {
        out.push_str(ryu_js::Buffer::new().format_finite(v));
    } else {
        out.push_str("null");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(text: &str) -> String {
        canonical_string(&serde_json::from_str(text).unwrap())
    }

    /// RFC 8785 appendix B: IEEE 754 bit patterns and their required serialisation.
    #[test]
    fn rfc8785_appendix_b_numbers() {
        let cases: &[(u64, &str)] = &[
            (0x0000000000000000, "0"),
            (0x8000000000000000, "0"),
            (0x0000000000000001, "5e-324"),
            (0x8000000000000001, "-5e-324"),
            (0x7fefffffffffffff, "1.7976931348623157e+308"),
            (0xffefffffffffffff, "-1.7976931348623157e+308"),
            (0x4340000000000000, "9007199254740992"),
            (0xc340000000000000, "-9007199254740992"),
            (0x4430000000000000, "295147905179352830000"),
            (0x44b52d02c7e14af5, "9.999999999999997e+22"),
            (0x44b52d02c7e14af6, "1e+23"),
            (0x44b52d02c7e14af7, "1.0000000000000001e+23"),
            (0x444b1ae4d6e2ef4e, "999999999999999700000"),
            (0x444b1ae4d6e2ef4f, "999999999999999900000"),
            (0x444b1ae4d6e2ef50, "1e+21"),
            (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
            (0x3eb0c6f7a0b5ed8d, "0.000001"),
            (0x41b3de4355555553, "333333333.3333332"),
            (0x41b3de4355555554, "333333333.33333325"),
            (0x41b3de4355555555, "333333333.3333333"),
            (0x41b3de4355555556, "333333333.3333334"),
            (0x41b3de4355555557, "333333333.33333343"),
            (0xbecbf647612f3696, "-0.0000033333333333333333"),
            (0x43143ff3c1cb0959, "1424953923781206.2"),
        ];
        for (bits, want) in cases {
            assert_eq!(format_number(f64::from_bits(*bits)), *want, "bits {bits:#018x}");
        }
    }

    #[test]
    fn numbers_from_json_text() {
        assert_eq!(
            canon("[1e21, 1e-7, -0, 333333333.33333329, 1E30, 4.50, 2e-3, 100, 1e20]"),
            "[1e+21,1e-7,0,333333333.3333333,1e+30,4.5,0.002,100,100000000000000000000]"
        );
        assert_eq!(
            canon("[0.000001, 0.0000001, 123456789012345678901234]"),
            "[0.000001,1e-7,1.2345678901234569e+23]"
        );
    }

    /// RFC 8785 §3.2.2 (the main example, via §3.2.3's output).
    #[test]
    fn rfc8785_main_example() {
        let input = r#"{
          "numbers": [333333333.33333329, 1E30, 4.50,
                      2e-3, 0.000000000000000000000000001],
          "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
          "literals": [null, true, false]
        }"#;
        let want = "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],\"string\":\"€$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}";
        assert_eq!(canon(input), want);
    }

    /// RFC 8785 §3.2.3: property sorting by UTF-16 code units. The emoji (U+1F600, the
    /// surrogate pair D83D DE00) sorts before U+FB33, unlike in code-point order.
    #[test]
    fn rfc8785_sorting_example() {
        let input = r#"{
          "\u20ac": "Euro Sign",
          "\r": "Carriage Return",
          "\ufb33": "Hebrew Letter Dalet With Dagesh",
          "1": "One",
          "\ud83d\ude00": "Emoji: Grinning Face",
          "\u0080": "Control",
          "\u00f6": "Latin Small Letter O With Diaeresis"
        }"#;
        let value: Value = serde_json::from_str(input).unwrap();
        let out = canonical_string(&value);
        let back: Value = serde_json::from_str(&out).unwrap();
        let keys: Vec<String> = back.as_object().unwrap().keys().cloned().collect();
        let names: Vec<&str> = keys.iter().map(|k| value[k].as_str().unwrap()).collect();
        assert_eq!(
            names,
            [
                "Carriage Return",
                "One",
                "Control",
                "Latin Small Letter O With Diaeresis",
                "Euro Sign",
                "Emoji: Grinning Face",
                "Hebrew Letter Dalet With Dagesh"
            ]
        );
        assert!(out.starts_with("{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u{80}\":"));
    }

    #[test]
    fn escapes_and_literals() {
        assert_eq!(
            canon(r#""\u0000\u001f\u007f\u2028\/\b\f\n\r\t""#),
            "\"\\u0000\\u001f\u{7f}\u{2028}/\\b\\f\\n\\r\\t\""
        );
        assert_eq!(canon(r#"{"b":[],"a":{},"c":[{}]}"#), r#"{"a":{},"b":[],"c":[{}]}"#);
        assert_eq!(canon("  {\n\"a\" : 1 ,\"b\":\t[ true , null ] }"), r#"{"a":1,"b":[true,null]}"#);
    }

    /// The fast paths (integers, doubles whose exact expansion is too long for a tie) agree
    /// with the reference canonicaliser, around the f < 26 boundary of the tie check too.
    #[test]
    fn number_fast_paths_agree_with_the_reference() {
        let mut values = vec![0.5, 1.5, 2.5, 0.9, 0.8, 5e-324, 9007199254740992.0, 9007199254740994.0, 1e21];
        for f in 1..40 {
            for m in [1u64, 3, 5, 7, 12345, 999_999_999, (1 << 52) + 1] {
                values.push(m as f64 / 2f64.powi(f));
            }
        }
        let mut x = 0x9e3779b97f4a7c15u64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push(f64::from_bits(x));
        }
        for v in values.into_iter().filter(|v| v.is_finite()) {
            for v in [v, -v] {
                let reference = serde_json_canonicalizer::to_string(&v).unwrap();
                assert_eq!(format_number(v), reference, "{v:e}");
            }
        }
    }

    /// Leaving members out while writing gives the bytes of a copy without them.
    #[test]
    fn canonicalize_except_matches_a_pruned_copy() {
        let doc: Value = serde_json::from_str(
            r#"{"z":1,"verificationStatus":"x","signature":{"value":"v","b":[1,{"value":2}]},"a":{"value":3}}"#,
        )
        .unwrap();
        let got = canonicalize_except(&doc, &["verificationStatus"], ("signature", &["value"]));
        assert_eq!(
            String::from_utf8(got).unwrap(),
            r#"{"a":{"value":3},"signature":{"b":[1,{"value":2}]},"z":1}"#
        );
        let not_object: Value = serde_json::from_str(r#"{"signature":"s","value":1}"#).unwrap();
        let got = canonicalize_except(&not_object, &[], ("signature", &["value"]));
        assert_eq!(String::from_utf8(got).unwrap(), r#"{"signature":"s","value":1}"#);
    }
}
