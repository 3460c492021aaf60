//! Tests of the rows of a group write split by property names, and of the names and values
//! written into queries.

use super::*;
use proptest::prelude::*;

fn unescape(stored: &str) -> Option<String> {
    let body = stored.strip_suffix('%')?;
    let (mut out, mut rest) = (String::new(), body);
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        out.push(match &rest[at..at + 3] {
            "%25" => '%',
            "%60" => '`',
            "%00" => '\0',
            other => panic!("not an escape: {other}"),
        });
        rest = &rest[at + 3..];
    }
    out.push_str(rest);
    Some(out)
}

#[test]
fn names_falkordb_cannot_read_are_escaped_and_the_rest_kept() {
    assert_eq!(stored_key("otel:gen_ai.usage"), "otel:gen_ai.usage");
    assert_eq!(stored_key("a b'\\\n\"}) DETACH DELETE n //"), "a b'\\\n\"}) DETACH DELETE n //");
    assert_eq!(stored_key("otel:a`b"), "otel:a%60b%");
    assert_eq!(stored_key("x` = 1 DETACH DELETE n //"), "x%60 = 1 DETACH DELETE n //%");
    assert_eq!(stored_key("a\0b"), "a%00b%");
    assert_eq!(stored_key(""), "%");
    assert_eq!(stored_key("cpu%"), "cpu%25%");
    assert_eq!(stored_key("100% sure"), "100% sure");
}

proptest! {
    #[test]
    fn stored_names_are_readable_in_a_query_and_never_shared(a in ".{0,12}", b in "[`%\0a]{0,6}") {
        for k in [&a, &b] {
            let s = stored_key(k);
            prop_assert!(!s.is_empty() && !s.contains(['`', '\0']), "{s:?}");
            // Escaped names end with a lone `%`, and only they do.
            match unescape(&s) {
                Some(back) => prop_assert_eq!(&back, k),
                None => prop_assert_eq!(s.as_ref(), k.as_str()),
            }
        }
        if a != b {
            prop_assert_ne!(stored_key(&a), stored_key(&b));
        }
    }

    #[test]
    fn strings_are_written_as_the_falkordb_crate_writes_them(s in "[^\\x00]{0,24}") {
        let mut out = String::new();
        push_str(&mut out, &s);
        prop_assert_eq!(out, falkordb::to_cypher_param(s.as_str()).unwrap());
    }
}

#[test]
fn a_nul_in_a_value_is_written_as_the_replacement_character() {
    let mut out = String::new();
    push_value(
        &mut out,
        &PropValue::List(vec!["a\0b".into(), PropValue::Float(f64::NAN), 2.5.into(), true.into()]),
    );
    assert_eq!(out, "['a\u{FFFD}b', 'NaN', 2.5, true]");
}

fn row_of<'a>(lead: &'a [&'a str], props: &'a [(&'a str, PropValue)]) -> Row<'a> {
    Row { lead, props: props.iter().map(|(k, v)| (*k, v)).collect() }
}

#[test]
fn most_key_sets_get_their_own_query_and_the_others_share_one() {
    let names: Vec<String> = (0..20).map(|i| format!("k{i:02}")).collect();
    // Shape i has keys k00..=k(i): 20 key sets, shape 0 with most rows.
    let props: Vec<Vec<(&str, PropValue)>> = (0..20)
        .map(|i| names[..=i].iter().map(|k| (k.as_str(), PropValue::Int(i as i64))).collect())
        .collect();
    let lead = ["n"];
    let mut rows = Vec::new();
    for (i, p) in props.iter().enumerate() {
        for _ in 0..(30 - i) {
            rows.push(row_of(&lead, p));
        }
    }
    let parts = parts(&rows, "n");
    assert_eq!(parts.len(), MAX_SHAPES + 1);
    assert_eq!(parts[0].rows.len(), 30);
    assert_eq!(parts[0].set, "SET n.`k00` = r[1]");
    assert!(!parts[..MAX_SHAPES].iter().any(|p| p.set.contains("+=")));
    // The shared part: every row has k00..k08, the rest go in a map.
    let shared = &parts[MAX_SHAPES];
    let columns: Vec<String> = (0..=MAX_SHAPES).map(|i| format!("n.`k{i:02}` = r[{}]", i + 1)).collect();
    assert_eq!(shared.set, format!("SET {} SET n += r[{}]", columns.join(", "), MAX_SHAPES + 2));
    assert_eq!(shared.rows.len(), (MAX_SHAPES..20).map(|i| 30 - i).sum::<usize>());
    assert_eq!(shared.rows[0], "['n', 8, 8, 8, 8, 8, 8, 8, 8, 8, {}]");
    assert!(shared.rows.last().unwrap().ends_with(", 19, {`k09`: 19, `k10`: 19, `k11`: 19, `k12`: 19, `k13`: 19, `k14`: 19, `k15`: 19, `k16`: 19, `k17`: 19, `k18`: 19, `k19`: 19}]"));
    assert_eq!(parts.iter().map(|p| p.rows.len()).sum::<usize>(), rows.len());
}

#[test]
fn a_key_set_too_long_for_one_query_goes_to_the_shared_one() {
    let names: Vec<String> = (0..MAX_COLUMNS + 10).map(|i| format!("k{i:03}")).collect();
    let long: Vec<(&str, PropValue)> = names.iter().map(|k| (k.as_str(), PropValue::Bool(true))).collect();
    let lead = ["s", "t"];
    let rows = vec![row_of(&lead, &long)];
    let parts = parts(&rows, "e");
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].set.matches(" = r[").count(), MAX_COLUMNS);
    assert!(parts[0].set.ends_with(&format!("SET e += r[{}]", MAX_COLUMNS + 2)), "{}", parts[0].set);
    assert!(parts[0].rows[0].starts_with("['s', 't', true"));
    assert_eq!(parts[0].rows[0].matches(": true").count(), 10);
}

#[test]
fn names_in_queries_and_maps_are_quoted_and_escaped() {
    let props = [("a`b", PropValue::Int(1)), ("c d", PropValue::Int(2))];
    let lead = ["x'y"];
    let parts = parts(&[row_of(&lead, &props)], "n");
    assert_eq!(parts[0].set, "SET n.`a%60b%` = r[1], n.`c d` = r[2]");
    assert_eq!(parts[0].rows[0], "['x\\'y', 1, 2]");
}
