//! Property tests of the OTLP decoder and the span normaliser (docs/FORMATS.md
//! "OpenTelemetry traces"): on any bytes the decoders return instead of panicking;
//! generated requests round-trip through protobuf and OTLP JSON unchanged; and spans in any
//! order, split into any number of requests, give the same graph once the placeholders of
//! parents in other requests are filled (as the store folds them).

use std::collections::BTreeMap;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{
    any_value::Value as Any, AnyValue, ArrayValue, KeyValue, KeyValueList,
};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{span::Link, ResourceSpans, ScopeSpans, Span, Status};
use proptest::prelude::*;
use provex::model::{GraphDelta, Label};
use provex::sources::otel::normalise;
use provex::sources::otel::wire::{decode_json, decode_protobuf, encode_json, encode_protobuf};

const OPS: &[&str] = &["chat", "execute_tool", "invoke_agent", "retrieval", "embeddings", "other"];

fn any_value() -> impl Strategy<Value = AnyValue> {
    let leaf = prop_oneof![
        any::<String>().prop_map(Any::StringValue),
        any::<bool>().prop_map(Any::BoolValue),
        any::<i64>().prop_map(Any::IntValue),
        (-1e12f64..1e12).prop_map(Any::DoubleValue),
        proptest::collection::vec(any::<u8>(), 0..8).prop_map(Any::BytesValue),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(|v| Any::ArrayValue(ArrayValue {
                values: v.into_iter().map(|x| AnyValue { value: Some(x) }).collect()
            })),
            proptest::collection::vec(("[a-z.]{1,8}", inner), 0..4).prop_map(|v| Any::KvlistValue(
                KeyValueList {
                    values: v
                        .into_iter()
                        .map(|(k, x)| KeyValue {
                            key: k,
                            value: Some(AnyValue { value: Some(x) }),
                            ..Default::default()
                        })
                        .collect()
                }
            )),
        ]
    })
    .prop_map(|v| AnyValue { value: Some(v) })
}

fn kv(k: &str, v: &str) -> KeyValue {
    KeyValue {
        key: k.into(),
        value: Some(AnyValue { value: Some(Any::StringValue(v.into())) }),
        ..Default::default()
    }
}

/// A trace of up to 12 spans: span `i`'s parent is one of the spans before it, links go to
/// any span of the trace, content is shared between calls.
fn trace() -> impl Strategy<Value = Vec<Span>> {
    proptest::collection::vec(
        (
            any::<prop::sample::Index>(),
            0..OPS.len(),
            0..3usize,
            proptest::collection::vec(any::<prop::sample::Index>(), 0..3),
            proptest::collection::vec(("[a-z]{1,6}", any_value()), 0..3),
            0u64..1_000_000,
        ),
        1..12,
    )
    .prop_map(|specs| {
        specs
            .iter()
            .enumerate()
            .map(|(i, (parent, op, msg, links, extra, dur))| {
                let id = |n: usize| vec![0, 0, 0, 0, 0, 0, 1, n as u8 + 1];
                let mut attrs = vec![
                    kv("gen_ai.operation.name", OPS[*op]),
                    kv("gen_ai.agent.id", &format!("a{}", i % 2)),
                ];
                let text = format!("message {msg}");
                attrs.push(kv(
                    "gen_ai.input.messages",
                    &format!(r#"[{{"role":"user","parts":[{{"type":"text","content":"{text}"}}]}}]"#),
                ));
                attrs.push(kv("gen_ai.tool.call.result", &format!(r#"{{"n":{msg}}}"#)));
                attrs.extend(extra.iter().map(|(k, v)| KeyValue {
                    key: format!("x.{k}"),
                    value: Some(v.clone()),
                    ..Default::default()
                }));
                Span {
                    trace_id: vec![7; 16],
                    span_id: id(i),
                    parent_span_id: if i == 0 { Vec::new() } else { id(parent.index(i)) },
                    name: format!("span {i}"),
                    kind: (i % 6) as i32,
                    start_time_unix_nano: 1_000 + i as u64,
                    end_time_unix_nano: 1_000 + i as u64 + dur,
                    attributes: attrs,
                    links: links
                        .iter()
                        .map(|l| Link {
                            trace_id: vec![7; 16],
                            span_id: id(l.index(specs.len())),
                            ..Default::default()
                        })
                        .collect(),
                    status: Some(Status { code: (i % 3) as i32, message: String::new() }),
                    ..Default::default()
                }
            })
            .collect()
    })
}

fn request(spans: Vec<Span>) -> ExportTraceServiceRequest {
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource { attributes: vec![kv("service.name", "svc")], ..Default::default() }),
            scope_spans: vec![ScopeSpans { spans, ..Default::default() }],
            ..Default::default()
        }],
    }
}

/// The graph of some deltas as the store holds it after placeholders fold: nodes by name
/// (a bare `Span` placeholder gives way to the span of that name), edges by their ends'
/// names, type and kind, with their properties.
fn folded(deltas: &[GraphDelta]) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let mut labels: BTreeMap<String, Label> = BTreeMap::new();
    let mut nodes: BTreeMap<String, String> = BTreeMap::new();
    for d in deltas {
        for n in d.nodes() {
            if n.label == Label::Span && n.props.is_empty() {
                labels.entry(n.name.clone()).or_insert(Label::Span);
                nodes.entry(n.name.clone()).or_default();
                continue;
            }
            labels.insert(n.name.clone(), n.label);
            nodes.insert(n.name.clone(), format!("{} {:?}", n.label, n.props));
        }
    }
    let mut edges = BTreeMap::new();
    for d in deltas {
        for e in d.edges() {
            let key = format!(
                "{} {}:{} {:?} {} {}",
                e.source.name, labels[&e.source.name], e.rel, e.kind, e.target.name, labels[&e.target.name]
            );
            edges.insert(key, format!("{:?}", e.props));
        }
    }
    (nodes, edges)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn decoders_never_panic_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = decode_protobuf(&bytes);
        let _ = decode_json(&bytes);
    }

    #[test]
    fn decoders_never_panic_on_cut_or_mutated_requests(spans in trace(), cut in any::<prop::sample::Index>(), flip in any::<u8>()) {
        let r = request(spans);
        let mut p = encode_protobuf(&r);
        let mut j = encode_json(&r).into_bytes();
        let (ip, ij) = (cut.index(p.len().max(1)), cut.index(j.len().max(1)));
        if !p.is_empty() { p[ip] ^= flip; }
        if !j.is_empty() { j[ij] ^= flip; }
        for bytes in [&p[..], &p[..ip], &j[..], &j[..ij]] {
            if let Ok(r) = decode_protobuf(bytes) { let _ = normalise(&r, &mut GraphDelta::new()); }
            if let Ok(r) = decode_json(bytes) { let _ = normalise(&r, &mut GraphDelta::new()); }
        }
    }

    #[test]
    fn requests_round_trip_through_protobuf_and_json(spans in trace()) {
        let r = request(spans);
        prop_assert_eq!(decode_protobuf(&encode_protobuf(&r)).unwrap(), r.clone());
        let json = encode_json(&r);
        prop_assert_eq!(decode_json(json.as_bytes()).unwrap(), r);
    }

    #[test]
    fn spans_in_any_order_and_any_split_give_the_same_graph(spans in trace(), order in any::<u64>(), cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..4)) {
        let mut whole = GraphDelta::new();
        let counts = normalise(&request(spans.clone()), &mut whole);
        prop_assert_eq!(counts.accepted as usize, spans.len());
        // Shuffle (a deterministic permutation from `order`), then cut into requests.
        let mut shuffled = spans.clone();
        let mut seed = order;
        for i in (1..shuffled.len()).rev() {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            shuffled.swap(i, (seed >> 33) as usize % (i + 1));
        }
        let mut at: Vec<usize> = cuts.iter().map(|c| c.index(shuffled.len() + 1)).collect();
        at.sort();
        let mut parts = Vec::new();
        let mut start = 0;
        for a in at.into_iter().chain([shuffled.len()]) {
            if a > start {
                let mut d = GraphDelta::new();
                normalise(&request(shuffled[start..a].to_vec()), &mut d);
                parts.push(d);
                start = a;
            }
        }
        prop_assert_eq!(folded(&parts), folded(&[whole]));
    }
}
