//! Property tests of the RFC 8785 canonicaliser (`a2ap::canonical`): on random JSON values it
//! agrees byte for byte with the `serde_json_canonicalizer` crate, its output is JSON that
//! canonicalises to itself, and every finite double it writes reads back as the same double.
//! The random JSON values are shared with the parser properties (`props_parsers`).

use proptest::prelude::*;
use provex::sources::statements::canonical::{canonical_string, format_number};
use serde_json::{Map, Number, Value};

/// Strings that stress escaping and UTF-16 key order: controls, the escaped characters,
/// DEL, U+2028, characters just below and above the surrogate range, astral characters.
pub fn json_string() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[\\x00-\\x20\"\\\\/a-c\\x7f\u{80}\u{2028}\u{fb33}\u{ffff}\u{1f600}\u{10ffff}]{0,8}",
        1 => any::<String>(),
    ]
}

/// Finite doubles: any bit pattern (subnormals, huge, tiny), round decimals, integers.
pub fn json_number() -> impl Strategy<Value = Number> {
    prop_oneof![
        any::<u64>().prop_map(f64::from_bits).prop_filter_map("finite", Number::from_f64),
        (-1_000_000i64..1_000_000, 0u32..12)
            .prop_filter_map("finite", |(m, e)| Number::from_f64(m as f64 / 10f64.powi(e as i32))),
        any::<i64>().prop_map(Number::from),
        any::<u64>().prop_map(Number::from),
        (-(1i64 << 53)..=(1i64 << 53)).prop_map(Number::from),
    ]
}

/// Any JSON value, up to a few levels deep.
pub fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        json_number().prop_map(Value::Number),
        json_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((json_string(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn canonical_agrees_with_serde_json_canonicalizer(value in json_value()) {
        let ours = canonical_string(&value);
        let theirs = serde_json_canonicalizer::to_string(&value).expect("reference canonicaliser");
        prop_assert_eq!(ours, theirs);
    }

    #[test]
    fn canonical_output_is_a_fixed_point(value in json_value()) {
        let once = canonical_string(&value);
        let back: Value = serde_json::from_str(&once).expect("canonical output is JSON");
        prop_assert_eq!(canonical_string(&back), once);
    }

    #[test]
    fn canonical_of_parsed_text_matches_the_value(value in json_value()) {
        // What a producer writes (any key order, whitespace) canonicalises as the value does.
        let text = serde_json::to_string_pretty(&value).unwrap();
        let parsed: Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(canonical_string(&parsed), canonical_string(&value));
    }

    #[test]
    fn numbers_read_back_exactly(bits in any::<u64>()) {
        let v = f64::from_bits(bits);
        prop_assume!(v.is_finite());
        let text = format_number(v);
        let back: f64 = text.parse().expect("a number");
        prop_assert!(back == v, "{v:e} written {text} reads back {back:e}");
        let reference = serde_json_canonicalizer::to_string(&v).unwrap();
        prop_assert_eq!(text, reference);
    }
}
