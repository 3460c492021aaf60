use serde_json::{json, Map, Value};

use super::*;
use crate::sources::otel::messages::message_name;

/// GenAI message lists of odd shapes: content as a string or as parts, roles missing or
/// not strings, parts before roles, repeated members, escapes (some not UTF-8-safe), the
/// older shape without parts, tool responses, texts that are no list, deep and huge ones.
fn odd_lists() -> Vec<String> {
    let mut v: Vec<String> = [
        r#"[{"role":"user","parts":[{"type":"text","content":"hi"}]}]"#,
        r#"[{"parts":[{"type":"text","content":"hi"}],"role":"user"}]"#,
        r#"[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","parts":[{"type":"text","content":"c"}]}]"#,
        r#"[{"content":"no role"},{"parts":[]},{"role":5,"parts":"p"},{"role":null,"parts":[1,2.50,-0,1e3]},7,"x",null]"#,
        r#"[{"role":"user","parts":[1],"role":"assistant","extra":{"b":1,"a":2}}]"#,
        r#"[{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":"{\"hits\":3}"}]}]"#,
        r#"[{"role":"tool","content":"3","tool_call_id":"c1"}]"#,
        r#"[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","function":{"name":"f","arguments":"{\"a\":1}"}}]}]"#,
        r#"[{"role":"user","content":[{"type":"text","text":"x"},"y",{"type":"image"}]}]"#,
        r#"[{"role":"user","parts":[{"type":"text","content":"\u00e9\ud83d\ude00 \"q\" \\ \n\u0001 urn:uuid:123e4567-e89b-12d3-a456-426614174000"}]}]"#,
        r#"[{"role":"user","parts":[{"type":"text","content":"lone \ud800"}]}]"#,
        r#"[{"role":"user","parts":[{"$serde_json::private::RawValue":"[1]"}]}]"#,
        r#"[{"$serde_json::private::RawValue":"[{\"role\":\"user\",\"parts\":[]}]"}]"#,
        r#"{"role":"user","parts":[]}"#,
        r#" [{"role":"user","parts":[]}]"#,
        r#"[{"role":"user","parts":[]}"#,
        "not json",
        "",
        "[]",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let deep = |n: usize| format!(r#"[{{"role":"user","parts":{}1{}}}]"#, "[".repeat(n), "]".repeat(n));
    v.extend([deep(10), deep(125), deep(126), deep(127), deep(300)]);
    let many: Vec<String> = (0..500)
        .map(|i| format!(r#"{{"role":"user","parts":[{{"type":"text","content":"m{}"}}]}}"#, i % 7))
        .collect();
    v.push(format!("[{}]", many.join(",")));
    let members: Vec<String> = (0..200).map(|i| format!(r#""k{}":{i}"#, i % 50)).collect();
    v.push(format!(r#"[{{"role":"user","parts":[{{{}}}]}}]"#, members.join(",")));
    v
}

fn attrs(pairs: &[(&str, Value)]) -> Map<String, Value> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}

/// What the normaliser used to read (`messages::extract` of every attribute as JSON) against
/// what it reads now (the lists as text, read in place), message by message and by name.
fn assert_same(all: &Map<String, Value>, events: &[Event<'_>], values: bool) {
    let old = messages::extract(all, events, values);
    let lists: Lists<'_> = MESSAGE_LISTS.map(|k| all.get(k).and_then(Value::as_str));
    let rest: Map<String, Value> = all
        .iter()
        .filter(|(k, _)| !MESSAGE_LISTS.iter().zip(&lists).any(|(key, l)| l.is_some() && *k == key))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let new = extract(&rest, lists, events, values);
    for (old, new) in [(&old.inputs, &new.inputs), (&old.outputs, &new.outputs)] {
        let got: Vec<Value> = new.iter().map(Msg::to_value).collect();
        assert_eq!(&got, old, "{all:?}");
        for (o, n) in old.iter().zip(new) {
            let mut name = String::new();
            n.push_name(&mut name, &mut String::new(), "otel-msg:");
            assert_eq!(name, message_name(o));
            let mut text = Vec::new();
            serde_json::to_writer(&mut text, &n.parts).unwrap();
            assert_eq!(text, serde_json::to_vec(&o["parts"]).unwrap());
            assert_eq!(n.role(), messages::role(o));
            assert_eq!(n.has_text_role(), o["role"].is_string());
        }
    }
}

#[test]
fn lists_read_in_place_give_the_messages_the_value_reading_gave() {
    for text in odd_lists() {
        for key in MESSAGE_LISTS {
            assert_same(&attrs(&[(key, json!(text))]), &[], true);
        }
        // Beside the other spellings, in the order they come.
        let all = attrs(&[
            ("gen_ai.system_instructions", json!("be brief")),
            ("gen_ai.input.messages", json!(text)),
            ("gen_ai.output.messages", json!(text)),
            ("gen_ai.prompt.0.role", json!("user")),
            ("gen_ai.prompt.0.content", json!("old")),
            ("input.value", json!("in")),
            ("output.value", json!("out")),
        ]);
        let events = [Event { name: "gen_ai.user.message", attributes: attrs(&[("content", json!("ev"))]) }];
        assert_same(&all, &events, true);
        assert_same(&all, &[], false);
    }
}

#[test]
fn lists_given_as_json_rather_than_text_are_read_as_before() {
    let list = json!([{"role": "user", "parts": [{"type": "text", "content": "hi"}]}, {"role": "x", "content": "y"}]);
    for v in [list, json!(5), json!(null), json!({"role": "user"})] {
        assert_same(&attrs(&[("gen_ai.input.messages", v.clone()), ("output.value", json!("o"))]), &[], true);
    }
    assert_same(&attrs(&[("input.value", json!("only"))]), &[], true);
    assert_same(&Map::new(), &[], true);
}
