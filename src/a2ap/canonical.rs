//! RFC 8785 (JSON Canonicalization Scheme): the exact bytes an A2AP signature covers.
//!
//! Written here rather than taken from a crate so that the rules the signatures depend on
//! sit next to the RFC's own test cases: ECMAScript number formatting of IEEE doubles,
//! `JSON.stringify` string escaping, and object members sorted by their UTF-16 code units.

use serde_json::Value;

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

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        // JSON numbers are IEEE doubles under RFC 8785 (I-JSON): integers past 2^53 lose
        // precision exactly as they would in the producer's JavaScript.
        Value::Number(n) => out.push_str(&format_number(n.as_f64().unwrap_or(f64::NAN))),
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
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            members.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            out.push('{');
            for (i, (key, item)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, key);
                out.push(':');
                write_value(out, item);
            }
            out.push('}');
        }
    }
}

/// `JSON.stringify` string escaping: the two mandatory escapes, the five short control
/// escapes, `\u00xx` (lowercase hex) for the other controls, everything else literal.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// ECMAScript `Number.prototype.toString()` for a finite double (ECMA-262 §7.1.12.1), the
/// number format RFC 8785 prescribes. Non-finite values cannot come out of a JSON parser;
/// they are written `null` rather than panicking.
pub fn format_number(v: f64) -> String {
    if !v.is_finite() {
        return "null".to_owned();
    }
    if v == 0.0 {
        return "0".to_owned(); // also -0
    }
    if v < 0.0 {
        return format!("-{}", format_number(-v));
    }
    let (digits, exp) = shortest_digits(v);
    let k = digits.len() as i32;
    let n = exp + 1; // value = 0.digits × 10^n
    if k <= n && n <= 21 {
        let mut s = digits;
        s.extend(std::iter::repeat_n('0', (n - k) as usize));
        s
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{}", "0".repeat((-n) as usize), digits)
    } else {
        let e = n - 1;
        let sign = if e < 0 { '-' } else { '+' };
        if k == 1 {
            format!("{digits}e{sign}{}", e.abs())
        } else {
            format!("{}.{}e{sign}{}", &digits[..1], &digits[1..], e.abs())
        }
    }
}

/// Splits Rust's `{:e}` output "d[.ddd]e<exp>" into its digits and exponent.
fn split_sci(sci: &str) -> (String, i32) {
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    (digits, exp.parse().unwrap_or(0))
}

/// The shortest decimal digits that read back as `v` (> 0), and the exponent of the first
/// digit. Rust's `{:e}` gives the shortest digits, nearest to `v`; when two candidates are
/// equally near (the exact value ends in a 5 just past them) ECMAScript takes the even one,
/// which is settled here against the exact expansion of `v` (a double has at most 767
/// significant decimal digits, so 800 are exact).
fn shortest_digits(v: f64) -> (String, i32) {
    let (digits, exp) = split_sci(&format!("{v:e}"));
    let (exact, exact_exp) = split_sci(&format!("{v:.800e}"));
    let exact = exact.trim_end_matches('0');
    let k = digits.len();
    if exact_exp == exp && exact.len() == k + 1 && exact.ends_with('5') {
        let down = exact[..k].to_owned();
        let even = down.bytes().last().is_some_and(|d| (d - b'0') % 2 == 0);
        let candidate = if even { Some(down) } else { increment(&down) };
        if let Some(c) = candidate {
            let back: Option<f64> = format!("{}.{}e{exp}", &c[..1], &c[1..]).parse().ok();
            if back == Some(v) {
                return (c, exp);
            }
        }
    }
    (digits, exp)
}

/// Adds one to a decimal digit string; `None` when that would add a digit.
fn increment(digits: &str) -> Option<String> {
    let mut bytes = digits.as_bytes().to_vec();
    for b in bytes.iter_mut().rev() {
        if *b == b'9' {
            *b = b'0';
        } else {
            *b += 1;
            return String::from_utf8(bytes).ok();
        }
    }
    None
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
}
