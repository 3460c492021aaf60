//! One test per storage rule of docs/FORMATS.md "OpenTelemetry traces".

use opentelemetry_proto::tonic::common::v1::{any_value::Value as Any, AnyValue, ArrayValue, KeyValueList};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::span::{Event as SpanEvent, Link};
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Status};

use super::*;
use crate::model::{Edge, Node};

fn kv(k: &str, v: &str) -> KeyValue {
    KeyValue {
        key: k.into(),
        value: Some(AnyValue { value: Some(Any::StringValue(v.into())) }),
        ..Default::default()
    }
}

fn id(n: u8) -> Vec<u8> {
    vec![0, 0, 0, 0, 0, 0, 0, n]
}

fn span(n: u8, parent: Option<u8>, attrs: Vec<KeyValue>) -> Span {
    Span {
        trace_id: vec![0x11; 16],
        span_id: id(n),
        parent_span_id: parent.map(id).unwrap_or_default(),
        name: format!("s{n}"),
        kind: 3,
        start_time_unix_nano: 1_700_000_000_123_456_789,
        end_time_unix_nano: 1_700_000_001_123_456_789,
        attributes: attrs,
        status: Some(Status { code: 2, message: "boom".into() }),
        ..Default::default()
    }
}

fn req_with(resource: Vec<KeyValue>, spans: Vec<Span>) -> ExportTraceServiceRequest {
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource { attributes: resource, ..Default::default() }),
            scope_spans: vec![ScopeSpans { spans, ..Default::default() }],
            ..Default::default()
        }],
    }
}

fn req(spans: Vec<Span>) -> ExportTraceServiceRequest {
    req_with(vec![kv("service.name", "svc")], spans)
}

fn run(r: &ExportTraceServiceRequest) -> (GraphDelta, SpanCounts) {
    let mut d = GraphDelta::new();
    let c = normalise(r, &mut d);
    (d, c)
}

fn name(n: u8) -> String {
    format!("otel:{}:00000000000000{n:02x}", "11".repeat(16))
}

fn node<'a>(d: &'a GraphDelta, name: &str) -> &'a Node {
    d.nodes().find(|n| n.name == name).unwrap_or_else(|| panic!("no node {name}: {d:?}"))
}

fn edges<'a>(d: &'a GraphDelta, from: &str, to: &str) -> Vec<&'a Edge> {
    d.edges().filter(|e| e.source.name == from && e.target.name == to).collect()
}

fn s(v: &PropValue) -> &str {
    v.as_str().unwrap()
}

#[test]
fn a_span_is_an_activity_with_its_ids_times_status_and_attributes() {
    let mut sp = span(1, None, vec![kv("gen_ai.operation.name", "chat")]);
    sp.attributes.push(KeyValue {
        key: "list".into(),
        value: Some(AnyValue {
            value: Some(Any::ArrayValue(ArrayValue {
                values: vec![AnyValue { value: Some(Any::IntValue(i64::MAX)) }],
            })),
        }),
        ..Default::default()
    });
    sp.attributes.push(KeyValue {
        key: "map".into(),
        value: Some(AnyValue { value: Some(Any::KvlistValue(KeyValueList { values: vec![kv("a", "b")] })) }),
        ..Default::default()
    });
    let (d, c) = run(&req(vec![sp]));
    assert_eq!((c.accepted, c.rejected.len()), (1, 0));
    let n = node(&d, &name(1));
    assert_eq!(n.label, Label::LlmCall);
    assert_eq!(s(&n.props[prop::TRACE_ID]), "11".repeat(16));
    assert_eq!(s(&n.props[prop::SPAN_ID]), "0000000000000001");
    assert_eq!(s(&n.props[prop::KIND]), "client");
    assert_eq!(s(&n.props[prop::STATUS]), "error");
    assert_eq!(s(&n.props[prop::STATUS_MESSAGE]), "boom");
    assert_eq!(n.props[prop::START_NS], PropValue::Int(1_700_000_000_123_456_789));
    assert_eq!(n.props[prop::START_TIME], PropValue::Int(1_700_000_000_123));
    assert_eq!(n.props[prop::END_TIME], PropValue::Int(1_700_000_001_123));
    assert_eq!(s(&n.props["otel:gen_ai.operation.name"]), "chat");
    assert_eq!(n.props["otel:list"], PropValue::List(vec![PropValue::Int(i64::MAX)]));
    assert_eq!(s(&n.props["otel:map"]), r#"{"a":"b"}"#);
    assert!(!n.props.contains_key(prop::PARENT_SPAN_ID));
}

#[test]
fn a_parent_in_the_request_gets_its_label_one_elsewhere_is_a_bare_span() {
    let tool = span(2, Some(1), vec![kv("gen_ai.operation.name", "execute_tool")]);
    let llm = span(3, Some(9), vec![kv("gen_ai.operation.name", "chat")]);
    let agent = span(1, None, vec![kv("gen_ai.operation.name", "invoke_agent")]);
    let (d, _) = run(&req(vec![tool, llm, agent]));
    assert_eq!(node(&d, &name(1)).label, Label::AgentInvocation);
    let e = edges(&d, &name(1), &name(2));
    assert_eq!((e.len(), e[0].rel, e[0].kind), (1, RelType::WasExecutedBy, EdgeKind::Plain));
    assert_eq!(s(&e[0].props[prop::RELATION]), OTEL_PARENT);
    let placeholder = node(&d, &name(9));
    assert_eq!(placeholder.label, Label::Span);
    assert!(placeholder.props.is_empty());
    assert_eq!(edges(&d, &name(9), &name(3))[0].rel, RelType::WasInvokedBy);
    assert_eq!(s(&node(&d, &name(3)).props[prop::PARENT_SPAN_ID]), "0000000000000009");
}

#[test]
fn links_are_informed_by_edges_with_their_attributes() {
    let mut a = span(1, None, vec![]);
    a.links = vec![
        Link {
            trace_id: vec![0x11; 16],
            span_id: id(2),
            attributes: vec![kv("why", "review")],
            ..Default::default()
        },
        Link { trace_id: vec![0x22; 16], span_id: id(3), ..Default::default() },
    ];
    let (d, _) = run(&req(vec![a, span(2, None, vec![kv("openinference.span.kind", "LLM")])]));
    let e = edges(&d, &name(1), &name(2));
    assert_eq!(e[0].rel, RelType::WasInformedBy);
    assert_eq!(e[0].kind, EdgeKind::Prov(Prov::WasInformedBy));
    assert_eq!(s(&e[0].props[prop::RELATION]), OTEL_LINK);
    assert_eq!(s(&e[0].props["otel:why"]), "review");
    assert_eq!(node(&d, &name(2)).label, Label::LlmCall);
    let other = format!("otel:{}:0000000000000003", "22".repeat(16));
    assert_eq!(node(&d, &other).label, Label::Span);
    assert_eq!(edges(&d, &name(1), &other).len(), 1);
}

#[test]
fn exception_events_are_properties_and_other_events_a_json_list() {
    let mut a = span(1, None, vec![]);
    a.events = vec![
        SpanEvent {
            name: "exception".into(),
            attributes: vec![
                kv("exception.type", "ValueError"),
                kv("exception.message", "bad"),
                kv("exception.stacktrace", "tb"),
            ],
            ..Default::default()
        },
        SpanEvent {
            name: "retry".into(),
            time_unix_nano: 5,
            attributes: vec![kv("n", "1")],
            ..Default::default()
        },
    ];
    let (d, _) = run(&req(vec![a]));
    let p = &node(&d, &name(1)).props;
    assert_eq!(s(&p[prop::EXCEPTION_TYPE]), "ValueError");
    assert_eq!(s(&p[prop::EXCEPTION_MESSAGE]), "bad");
    assert_eq!(s(&p[prop::EXCEPTION_STACKTRACE]), "tb");
    assert_eq!(s(&p[prop::EVENTS]), r#"[{"name":"retry","time_unix_nano":5,"attributes":{"n":"1"}}]"#);
}

#[test]
fn the_resource_is_a_service_agent_named_by_namespace_and_name() {
    let (d, _) = run(&req_with(
        vec![kv("service.name", "api"), kv("service.namespace", "shop"), kv("host.name", "h")],
        vec![span(1, None, vec![])],
    ));
    let svc = node(&d, "service:shop/api");
    assert_eq!(svc.label, Label::Service);
    assert_eq!(s(&svc.props["otel:host.name"]), "h");
    assert_eq!(edges(&d, &name(1), "service:shop/api")[0].rel, RelType::WasAssociatedWith);
    let (d, _) = run(&req_with(vec![], vec![span(1, None, vec![])]));
    node(&d, "service:unknown_service");
}

#[test]
fn agents_models_and_hand_offs() {
    let a = span(
        1,
        None,
        vec![
            kv("graph.node.id", "writer"),
            kv("graph.node.parent_id", "triage"),
            kv("llm.model_name", "claude"),
            kv("llm.provider", "anthropic"),
        ],
    );
    let (d, _) = run(&req(vec![a]));
    assert_eq!(node(&d, "agent:writer").label, Label::Agent);
    assert_eq!(edges(&d, &name(1), "agent:writer")[0].rel, RelType::WasAssociatedWith);
    assert_eq!(edges(&d, "agent:writer", "agent:triage")[0].rel, RelType::ActedOnBehalfOf);
    let m = edges(&d, &name(1), "model:anthropic/claude");
    assert_eq!(s(&m[0].props[prop::PROV_ROLE]), "model");
}

#[test]
fn messages_flow_in_and_out_by_content_and_tool_messages_derive_from_results() {
    let call = span(
        1,
        None,
        vec![
            kv("gen_ai.operation.name", "chat"),
            kv(
                "gen_ai.input.messages",
                r#"[{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":{"x":1}}]}]"#,
            ),
            kv(
                "gen_ai.output.messages",
                r#"[{"role":"assistant","parts":[{"type":"text","content":"done"}],"finish_reason":"stop"}]"#,
            ),
        ],
    );
    let tool = span(
        2,
        None,
        vec![
            kv("gen_ai.operation.name", "execute_tool"),
            kv("gen_ai.tool.call.arguments", r#"{"q":"x"}"#),
            kv("gen_ai.tool.call.result", r#"{"x":1}"#),
        ],
    );
    let (d, _) = run(&req(vec![call, tool]));
    let input = d.edges().find(|e| e.rel == RelType::WasConsumedBy).unwrap();
    assert_eq!((input.source.name.as_str(), input.kind), (name(1).as_str(), EdgeKind::Prov(Prov::Used)));
    assert_eq!(s(&input.props[prop::PROV_ROLE]), "input_message");
    assert_eq!(input.props[prop::INDEX], PropValue::Int(0));
    let result = d.nodes().find(|n| n.label == Label::ToolResult).unwrap();
    assert_eq!(edges(&d, &input.target.name, &result.name)[0].rel, RelType::WasDerivedFrom);
    assert_eq!(edges(&d, &result.name, &name(2))[0].rel, RelType::WasGeneratedBy);
    let args = d.nodes().find(|n| n.label == Label::ToolArgs).unwrap();
    assert_eq!(s(&edges(&d, &name(2), &args.name)[0].props[prop::PROV_ROLE]), "a2a:args");
    let out =
        d.nodes().find(|n| n.label == Label::Message && s(&n.props[prop::ROLE]) == "assistant").unwrap();
    assert_eq!(
        out.name,
        messages::message_name(&json!({"role": "assistant", "parts": [{"type": "text", "content": "done"}]}))
    );
    assert_eq!(edges(&d, &out.name, &name(1))[0].rel, RelType::WasGeneratedBy);
}

#[test]
fn a2a_task_conversation_and_other_sources_are_tied() {
    let a = span(
        1,
        Some(5),
        vec![
            kv("gen_ai.operation.name", "execute_tool"),
            kv("a2a.task.id", "t1"),
            kv("gen_ai.conversation.id", "ctx"),
            kv("source", "prompt:p-7"),
            kv("claim", "urn:uuid:123e4567-e89b-12d3-a456-426614174000"),
        ],
    );
    let (d, _) = run(&req(vec![a]));
    assert_eq!(s(&node(&d, &name(1)).props[prop::CONTEXT_ID]), "ctx");
    let t = edges(&d, "task:t1", &name(1));
    assert_eq!((t[0].rel, t[0].kind), (RelType::WasExecutedBy, EdgeKind::A2a(A2aRelation::TaskCall)));
    assert_eq!(node(&d, "task:t1").label, Label::A2ATask);
    assert_eq!(node(&d, "prompt:p-7").label, Label::Prompt);
    assert_eq!(s(&edges(&d, &name(1), "prompt:p-7")[0].props[prop::RELATION]), OTEL_REFERENCE);
    assert_eq!(node(&d, "urn:uuid:123e4567-e89b-12d3-a456-426614174000").label, Label::Explain);
}

#[test]
fn bad_spans_are_refused_with_their_reason_and_the_rest_kept() {
    let mut short_trace = span(1, None, vec![]);
    short_trace.trace_id = vec![1; 8];
    let mut zero = span(2, None, vec![]);
    zero.span_id = vec![0; 8];
    let mut parent = span(3, None, vec![]);
    parent.parent_span_id = vec![1, 2];
    let mut backwards = span(4, None, vec![]);
    backwards.end_time_unix_nano = 0;
    let mut link = span(5, None, vec![]);
    link.links = vec![Link { trace_id: vec![1; 16], span_id: vec![], ..Default::default() }];
    let (d, c) = run(&req(vec![short_trace, zero, parent, backwards, link, span(6, None, vec![])]));
    assert_eq!(c.accepted, 1);
    let reasons: Vec<&str> = c.rejected.iter().map(|r| r.reason.as_str()).collect();
    assert!(reasons[0].starts_with("trace id is 8 bytes"), "{reasons:?}");
    assert!(reasons[1].starts_with("span id is 8 bytes, not 8 (or all zero)"), "{reasons:?}");
    assert!(reasons[2].starts_with("parent span id is 2 bytes"), "{reasons:?}");
    assert!(reasons[3].starts_with("ends before it starts"), "{reasons:?}");
    assert!(reasons[4].starts_with("link 0 has a bad"), "{reasons:?}");
    assert_eq!(c.rejected[2].span_id, "0000000000000003");
    assert_eq!(rejected(&req(vec![])), vec![]);
    assert!(d.nodes().all(|n| !n.name.starts_with("otel:") || n.name == name(6)));
}

#[test]
fn the_same_request_twice_changes_nothing() {
    let r = req(vec![span(
        2,
        Some(1),
        vec![
            kv("gen_ai.operation.name", "chat"),
            kv("gen_ai.input.messages", r#"[{"role":"user","parts":[]}]"#),
        ],
    )]);
    let (once, _) = run(&r);
    let mut twice = GraphDelta::new();
    normalise(&r, &mut twice);
    normalise(&r, &mut twice);
    assert_eq!(format!("{once:?}"), format!("{twice:?}"));
}

#[test]
fn a_tool_message_derives_from_the_result_of_the_call_it_answers_by_id() {
    let call = span(
        1,
        None,
        vec![
            kv("gen_ai.operation.name", "chat"),
            kv(
                "gen_ai.input.messages",
                r#"[{"role":"tool","parts":[{"type":"tool_call_response","id":"c9","response":"sunny, 21C"}]}]"#,
            ),
        ],
    );
    let tool = span(
        2,
        None,
        vec![
            kv("gen_ai.operation.name", "execute_tool"),
            kv("gen_ai.tool.call.id", "c9"),
            kv("gen_ai.tool.call.result", r#"{"sky":"sunny"}"#),
        ],
    );
    let (d, _) = run(&req(vec![call, tool]));
    let results: Vec<&Node> = d.nodes().filter(|n| n.label == Label::ToolResult).collect();
    assert_eq!(results.len(), 1, "{d:?}");
    let msg = d.nodes().find(|n| n.label == Label::Message).unwrap();
    assert_eq!(edges(&d, &msg.name, &results[0].name)[0].rel, RelType::WasDerivedFrom);
    assert_eq!(edges(&d, &results[0].name, &name(2))[0].rel, RelType::WasGeneratedBy);
}

/// Finding: a message a call held twice in its input list (the user saying the same thing
/// twice) kept one edge with the last ordinal only. The edge now has every ordinal; a
/// message two calls consumed is one edge from each.
#[test]
fn a_message_consumed_twice_keeps_every_ordinal_and_one_edge_per_call() {
    let again = r#"{"role":"user","parts":[{"type":"text","content":"go on"}]}"#;
    let reply = r#"{"role":"assistant","parts":[{"type":"text","content":"more"}]}"#;
    let first = span(
        1,
        None,
        vec![kv("gen_ai.operation.name", "chat"), kv("gen_ai.input.messages", &format!("[{again}]"))],
    );
    let second = span(
        2,
        None,
        vec![
            kv("gen_ai.operation.name", "chat"),
            kv("gen_ai.input.messages", &format!("[{again},{reply},{again}]")),
            kv("gen_ai.output.messages", &format!("[{reply},{reply}]")),
        ],
    );
    // Long lists (looked up by name) keep every ordinal too.
    let long: Vec<String> = (0..40)
        .map(|i| {
            if i % 2 == 0 {
                again.to_owned()
            } else {
                format!(r#"{{"role":"user","parts":[{{"type":"text","content":"{i}"}}]}}"#)
            }
        })
        .collect();
    let third = span(
        3,
        None,
        vec![
            kv("gen_ai.operation.name", "chat"),
            kv("gen_ai.input.messages", &format!("[{}]", long.join(","))),
        ],
    );
    let (d, _) = run(&req(vec![first, second, third]));
    let msg = messages::message_name(&serde_json::from_str(again).unwrap());
    let ordinals = |e: &Edge| (e.props[prop::INDEX].clone(), e.props[prop::INDEXES].clone());
    let ints = |v: &[i64]| PropValue::List(v.iter().map(|i| PropValue::Int(*i)).collect());
    let one = edges(&d, &name(1), &msg);
    assert_eq!(one.len(), 1);
    assert_eq!(ordinals(one[0]), (PropValue::Int(0), ints(&[0])));
    let two = edges(&d, &name(2), &msg);
    assert_eq!(two.len(), 1, "one edge per consuming call");
    assert_eq!(ordinals(two[0]), (PropValue::Int(0), ints(&[0, 2])));
    let out = messages::message_name(&serde_json::from_str(reply).unwrap());
    let produced = edges(&d, &out, &name(2));
    assert_eq!(produced.len(), 1);
    assert_eq!(ordinals(produced[0]), (PropValue::Int(0), ints(&[0, 1])));
    let consumed = edges(&d, &name(2), &out);
    assert_eq!(ordinals(consumed[0]), (PropValue::Int(1), ints(&[1])));
    let three = edges(&d, &name(3), &msg);
    let even: Vec<i64> = (0..40).step_by(2).collect();
    assert_eq!(ordinals(three[0]), (PropValue::Int(0), ints(&even)));
    assert_eq!(
        d.edges().filter(|e| e.source.name == name(3)).filter(|e| e.rel == RelType::WasConsumedBy).count(),
        21
    );
}

/// Attributes go to properties straight from the request (not through their JSON): every
/// kind of value as its JSON would give it, a later duplicate key over an earlier one (one
/// without a value leaving none), and the span's own properties over attributes of their name.
#[test]
fn attribute_values_of_every_kind_and_duplicate_keys_become_properties_as_their_json_would() {
    let any = |v: Any| Some(AnyValue { value: Some(v) });
    let attr = |k: &str, value: Option<AnyValue>| KeyValue { key: k.into(), value, ..Default::default() };
    let sp = span(
        1,
        None,
        vec![
            attr("b", any(Any::BoolValue(true))),
            attr("i", any(Any::IntValue(-7))),
            attr("f", any(Any::DoubleValue(2.0))),
            attr("nan", any(Any::DoubleValue(f64::NAN))),
            attr("bytes", any(Any::BytesValue(vec![0xab, 0x01]))),
            attr("strindex", any(Any::StringValueStrindex(3))),
            attr("none", None),
            attr("empty", Some(AnyValue { value: None })),
            attr("twice", any(Any::StringValue("first".into()))),
            attr("twice", any(Any::StringValue("second".into()))),
            attr("gone", any(Any::StringValue("kept?".into()))),
            attr("gone", None),
            attr("span_id", any(Any::StringValue("not the span's".into()))),
            attr("mixed", any(Any::ArrayValue(ArrayValue { values: vec![AnyValue { value: None }] }))),
        ],
    );
    let (d, _) = run(&req(vec![sp]));
    let p = &node(&d, &name(1)).props;
    assert_eq!(p["otel:b"], PropValue::Bool(true));
    assert_eq!(p["otel:i"], PropValue::Int(-7));
    assert_eq!(p["otel:f"], PropValue::Float(2.0));
    assert_eq!(p["otel:bytes"], PropValue::Str("ab01".into()));
    assert_eq!(p["otel:strindex"], PropValue::Int(3));
    assert_eq!(p["otel:twice"], PropValue::Str("second".into()));
    assert_eq!(p[prop::SPAN_ID], PropValue::Str("0000000000000001".into()));
    assert_eq!(p["otel:mixed"], PropValue::Str("[null]".into()));
    for absent in ["otel:nan", "otel:none", "otel:empty", "otel:gone"] {
        assert!(!p.contains_key(absent), "{absent}: {p:?}");
    }
}
