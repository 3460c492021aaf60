//! OTLP/HTTP exports whose attribute names and values FalkorDB cannot take as they are (a
//! backtick or a NUL in a name, a NUL in a value), into a real `provex serve` and FalkorDB:
//! the export is acknowledged, every span stored, such names escaped (docs/FORMATS.md
//! "Property names and values FalkorDB cannot hold").

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceResponse;
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, KeyValue};
use opentelemetry_proto::tonic::trace::v1::span::Link;
use prost::Message as _;
use provex::serve::ServeLimits;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common;
use crate::otlp_http::{hex, names, request, span, stored, three_spans, trace};
use crate::serve::{client, serve_with};

fn attr(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: Some(AnyValue { value: Some(any_value::Value::StringValue(value.into())) }),
        ..Default::default()
    }
}

/// The properties of the node named `name`.
async fn properties(
    provex: &provex::facade::Provex,
    graph: &str,
    name: &str,
) -> serde_json::Map<String, Value> {
    let q = format!("MATCH (n {{name: '{name}'}}) RETURN properties(n)");
    let rows = provex.query(graph, &q).await.unwrap();
    assert_eq!(rows.rows.len(), 1, "{name}: {rows:?}");
    rows.rows[0][0].as_object().unwrap().clone()
}

/// Finding: a span attribute named with a backtick failed the whole group write (the query
/// parameter encoder refuses such a name), so the export got a 5xx and none of its spans,
/// nor those of the exports written with it, was stored. Now the export is acknowledged and
/// every span stored; the name is stored escaped, a NUL in a value as U+FFFD.
#[tokio::test]
async fn otlp_an_attribute_named_with_a_backtick_fails_no_export() {
    let (provex, graph) = common::open("otlp_keys").await;
    let provex = std::sync::Arc::new(provex);
    let (_running, base) = serve_with(provex.clone(), None, ServeLimits::default()).await;
    let url = format!("{base}/otlp/{graph}/v1/traces");
    let t = trace(210);
    let mut spans = three_spans(t);
    let mut odd = span(t, 4, Some(1), "chat odd", "chat");
    odd.attributes.extend([
        attr("gen_ai.`weird", "x"),
        attr("x` = 1 DETACH DELETE n //", "y"),
        attr("a\0b", "v"),
        attr("note", "n\0ul"),
    ]);
    odd.links.push(Link {
        trace_id: t.to_vec(),
        span_id: vec![2; 8],
        attributes: vec![attr("why`", "because")],
        ..Default::default()
    });
    spans.push(odd);
    let mut req = request(spans.clone());
    req.resource_spans[0].resource.as_mut().unwrap().attributes.push(attr("host`name", "h"));

    let r = client()
        .post(&url)
        .header("content-type", "application/x-protobuf")
        .body(req.encode_to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let answer = ExportTraceServiceResponse::decode(r.bytes().await.unwrap()).unwrap();
    assert_eq!(answer.partial_success, None, "no span refused");
    assert_eq!(stored(&provex, &graph).await, names(&spans), "every span stored");

    let odd_name = format!("otel:{}:{}", hex(&t), hex(&[4; 8]));
    let p = properties(&provex, &graph, &odd_name).await;
    assert_eq!(p.get("otel:gen_ai.%60weird%"), Some(&json!("x")), "{p:?}");
    assert_eq!(p.get("otel:x%60 = 1 DETACH DELETE n //%"), Some(&json!("y")), "{p:?}");
    assert_eq!(p.get("otel:a%00b%"), Some(&json!("v")), "{p:?}");
    assert_eq!(p.get("otel:note"), Some(&json!("n\u{FFFD}ul")), "{p:?}");
    assert_eq!(p.get("otel:gen_ai.operation.name"), Some(&json!("chat")), "{p:?}");
    let service = properties(&provex, &graph, "service:otlp-test").await;
    assert_eq!(service.get("otel:host%60name%"), Some(&json!("h")), "{service:?}");
    let q = format!(
        "MATCH ({{name: '{odd_name}'}})-[e]->() WHERE e.`otel:why%60%` IS NOT NULL RETURN e.`otel:why%60%`"
    );
    let rows = provex.query(&graph, &q).await.unwrap();
    assert_eq!(rows.rows.len(), 1, "the link's attribute: {rows:?}");
    assert_eq!(rows.rows[0][0], json!("because"));

    // The same export again (an exporter's retry) changes nothing; the JSON encoding of it
    // is read alike.
    let before = common::graph_text(&provex, &graph).await;
    let r = client()
        .post(&url)
        .header("content-type", "application/json")
        .body(serde_json::to_vec(&req).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(common::graph_text(&provex, &graph).await, before);
    let _ = provex.delete_graph(&graph).await;
}

/// Finding: a node's log digest lists its property names separated by spaces, so a name
/// holding a space (an OpenTelemetry attribute key may) was read back as two names, and
/// `verify --graph` called the untouched node changed. Names are listed escaped now.
#[tokio::test]
async fn otlp_an_attribute_named_with_a_space_verifies_against_the_log() {
    let (provex, graph) = common::open("otlp_key_space").await;
    let keys = tempfile::tempdir().unwrap();
    provex.set_log_key_dir(keys.path().to_owned());
    let provex = std::sync::Arc::new(provex);
    let (_running, base) = serve_with(provex.clone(), None, ServeLimits::default()).await;
    let t = trace(211);
    let mut spans = three_spans(t);
    let mut odd = span(t, 4, Some(1), "chat spaced", "chat");
    odd.attributes.extend([attr("my key", "v"), attr("odd%20name", "w"), attr("both % and space", "z")]);
    spans.push(odd);
    let r = client()
        .post(format!("{base}/otlp/{graph}/v1/traces"))
        .header("content-type", "application/x-protobuf")
        .body(request(spans.clone()).encode_to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let p = properties(&provex, &graph, &format!("otel:{}:{}", hex(&t), hex(&[4; 8]))).await;
    assert_eq!(p.get("otel:my key"), Some(&json!("v")), "{p:?}");
    let digest = p.get("log_digest").and_then(Value::as_str).unwrap_or_default().to_owned();
    assert!(digest.contains("otel:my%20key"), "{digest}");

    let check = provex.verify_graph_log(&graph).await.unwrap();
    assert!(check.nodes_checked >= 4, "{check:?}");
    assert_eq!(check.mismatches, vec![], "an untouched graph matches its log");
    let _ = provex.delete_graph(&graph).await;
}

/// The same odd names in a file built into a fresh graph with GRAPH.BULK: stored escaped as
/// the upserts store them (before, raw, while the log's digest listed them escaped, so
/// `verify --graph` called the untouched nodes changed), and the graph matches its log.
#[tokio::test]
async fn an_otlp_file_with_odd_attribute_names_is_built_as_the_upserts_store_it() {
    let (provex, graph) = common::open("otlp_keys_bulk").await;
    let keys = tempfile::tempdir().unwrap();
    provex.set_log_key_dir(keys.path().to_owned());
    let t = trace(212);
    let mut spans = three_spans(t);
    let mut odd = span(t, 4, Some(1), "chat odd", "chat");
    odd.attributes.extend([attr("gen_ai.`weird", "x"), attr("my key", "v"), attr("note", "n\0ul")]);
    spans.push(odd);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("odd.otlp.jsonl");
    std::fs::write(&file, [serde_json::to_vec(&request(spans.clone())).unwrap(), b"\n".to_vec()].concat())
        .unwrap();
    let opts = provex::ingest::IngestOptions { bulk: true, ..Default::default() };
    let report = provex
        .ingest(
            &graph,
            &[file],
            opts,
            std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
            std::sync::Arc::new(provex::facade::Quiet),
        )
        .await
        .unwrap();
    assert_eq!((report.method.as_str(), report.rejected), ("bulk", 0), "{report:?}");
    assert_eq!(stored(&provex, &graph).await, names(&spans), "every span stored");
    let p = properties(&provex, &graph, &format!("otel:{}:{}", hex(&t), hex(&[4; 8]))).await;
    assert_eq!(p.get("otel:gen_ai.%60weird%"), Some(&json!("x")), "{p:?}");
    assert_eq!(p.get("otel:my key"), Some(&json!("v")), "{p:?}");
    assert_eq!(p.get("otel:note"), Some(&json!("n\u{FFFD}ul")), "{p:?}");
    let check = provex.verify_graph_log(&graph).await.unwrap();
    assert!(check.nodes_checked >= 4, "{check:?}");
    assert_eq!(check.mismatches, vec![], "an untouched graph matches its log");
    let _ = provex.delete_graph(&graph).await;
}
