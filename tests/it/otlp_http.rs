//! OTLP/HTTP trace export into a real `provex serve` and a real FalkorDB: protobuf and JSON
//! bodies made from opentelemetry-proto's types, gzip (and a gzip bomb), the refusals
//! (415, 400, 401, 413, other origins), partial success with a bad span among good ones,
//! re-exports that change nothing, and 429 with `Retry-After` under backpressure. Every
//! span acknowledged is looked up in the graph.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::sync::Arc;

use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, KeyValue};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message as _;
use provex::facade::Provex;
use provex::serve::ServeLimits;
use reqwest::StatusCode;

use crate::common;
use crate::raw_http::Raw;
use crate::serve::{anonymous, client, serve_with, TOKEN};

/// A trace id for test `n` (different in each test, so graphs shared by tests keep apart).
pub(crate) fn trace(n: u8) -> [u8; 16] {
    let pid = std::process::id().to_be_bytes();
    [0x7e, n, pid[0], pid[1], pid[2], pid[3], 1, 2, 3, 4, 5, 6, 7, 8, 9, n]
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn attr(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: Some(AnyValue { value: Some(any_value::Value::StringValue(value.into())) }),
        ..Default::default()
    }
}

/// A span of `trace` with id `[id; 8]`, child of `[parent; 8]`, doing GenAI operation `op`.
pub(crate) fn span(trace: [u8; 16], id: u8, parent: Option<u8>, name: &str, op: &str) -> Span {
    Span {
        trace_id: trace.to_vec(),
        span_id: vec![id; 8],
        parent_span_id: parent.map(|p| vec![p; 8]).unwrap_or_default(),
        name: name.into(),
        kind: 1,
        start_time_unix_nano: 1_700_000_000_000_000_000 + u64::from(id) * 1_000_000,
        end_time_unix_nano: 1_700_000_000_500_000_000 + u64::from(id) * 1_000_000,
        attributes: vec![attr("gen_ai.operation.name", op), attr("gen_ai.agent.name", "planner")],
        ..Default::default()
    }
}

/// A request of one service holding `spans`.
pub(crate) fn request(spans: Vec<Span>) -> ExportTraceServiceRequest {
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![attr("service.name", "otlp-test")],
                ..Default::default()
            }),
            scope_spans: vec![ScopeSpans { spans, ..Default::default() }],
            ..Default::default()
        }],
    }
}

/// An agent invocation, its chat call and a tool call, in `trace`.
pub(crate) fn three_spans(trace: [u8; 16]) -> Vec<Span> {
    vec![
        span(trace, 2, Some(1), "chat gpt-4o", "chat"),
        span(trace, 3, Some(1), "execute_tool lookup", "execute_tool"),
        span(trace, 1, None, "invoke_agent planner", "invoke_agent"),
    ]
}

/// The names (`otel:<trace>:<span>`) of the spans stored whole in `graph` (not placeholders:
/// they carry the span's own name).
pub(crate) async fn stored(provex: &Provex, graph: &str) -> BTreeSet<String> {
    let Ok(rows) = provex.query(graph, "MATCH (n) WHERE n.`otel:name` IS NOT NULL RETURN n.name").await
    else {
        return BTreeSet::new();
    };
    rows.rows.iter().map(|r| r[0].as_str().unwrap().to_owned()).collect()
}

/// The names the spans of `spans` are stored under.
pub(crate) fn names(spans: &[Span]) -> BTreeSet<String> {
    spans.iter().map(|s| format!("otel:{}:{}", hex(&s.trace_id), hex(&s.span_id))).collect()
}

pub(crate) fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

async fn start(test: &str, limits: ServeLimits) -> (Arc<Provex>, String, provex::serve::Running, String) {
    let (provex, graph) = common::open(test).await;
    let provex = Arc::new(provex);
    let (running, base) = serve_with(provex.clone(), None, limits).await;
    (provex, graph, running, base)
}

async fn post(url: &str, content_type: &str, body: Vec<u8>, gzipped: bool) -> reqwest::Response {
    let mut r = client().post(url).header("content-type", content_type).body(body);
    if gzipped {
        r = r.header("content-encoding", "gzip");
    }
    r.send().await.unwrap()
}

/// A refusal's `google.rpc.Status` message, in the encoding of `content_type`.
async fn refusal(r: reqwest::Response, content_type: &str) -> String {
    assert_eq!(r.headers()["content-type"], content_type);
    let bytes = r.bytes().await.unwrap();
    if content_type == "application/json" {
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert!(v["code"].is_i64(), "{v}");
        v["message"].as_str().unwrap().to_owned()
    } else {
        // google.rpc.Status: field 2 is the message.
        #[derive(prost::Message)]
        struct Status {
            #[prost(int32, tag = "1")]
            code: i32,
            #[prost(string, tag = "2")]
            message: String,
        }
        Status::decode(&bytes[..]).unwrap().message
    }
}

#[tokio::test]
async fn otlp_http_protobuf_json_and_gzip_are_stored_and_reexports_change_nothing() {
    let (provex, graph, _running, base) = start("otlp_http_forms", ServeLimits::default()).await;
    let url = format!("{base}/otlp/{graph}/v1/traces");
    let (a, b, c) = (three_spans(trace(1)), three_spans(trace(2)), three_spans(trace(3)));

    let r = post(&url, "application/x-protobuf", request(a.clone()).encode_to_vec(), false).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "application/x-protobuf");
    let res = ExportTraceServiceResponse::decode(r.bytes().await.unwrap()).unwrap();
    assert_eq!(res.partial_success, None);
    assert_eq!(stored(&provex, &graph).await, names(&a));

    // OTLP JSON (hex ids, lowerCamelCase), gzip-encoded.
    let json = serde_json::to_vec(&request(b.clone())).unwrap();
    assert!(String::from_utf8_lossy(&json).contains(&hex(&trace(2))), "hex trace ids");
    let r = post(&url, "application/json", gzip(&json), true).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "application/json");
    let v: serde_json::Value = r.json().await.unwrap();
    assert!(v.get("partialSuccess").is_none(), "{v}");

    // Protobuf, gzip-encoded, with a charset parameter.
    let r =
        post(&url, "application/x-protobuf; charset=binary", gzip(&request(c.clone()).encode_to_vec()), true)
            .await;
    assert_eq!(r.status(), StatusCode::OK);
    let all: BTreeSet<String> = names(&a).into_iter().chain(names(&b)).chain(names(&c)).collect();
    assert_eq!(stored(&provex, &graph).await, all);

    // A large body (decoded off the answering threads).
    let mut big = three_spans(trace(11));
    big[0].attributes.push(attr("gen_ai.output.text", &"y".repeat(400 << 10)));
    let r = post(&url, "application/x-protobuf", request(big.clone()).encode_to_vec(), false).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert!(names(&big).is_subset(&stored(&provex, &graph).await));
    let all: BTreeSet<String> = all.into_iter().chain(names(&big)).collect();
    assert_eq!(stored(&provex, &graph).await, all);

    // Exporters retry: the same spans again change nothing.
    let before = common::graph_text(&provex, &graph).await;
    for (body, ct) in [
        (request(a.clone()).encode_to_vec(), "application/x-protobuf"),
        (serde_json::to_vec(&request(b.clone())).unwrap(), "application/json"),
    ] {
        let r = post(&url, ct, body, false).await;
        assert_eq!(r.status(), StatusCode::OK);
    }
    assert_eq!(common::graph_text(&provex, &graph).await, before);
    let _ = provex.delete_graph(&graph).await;
}

#[tokio::test]
async fn otlp_http_default_route_writes_the_otel_graph() {
    let (provex, _graph, _running, base) = start("otlp_http_default", ServeLimits::default()).await;
    let spans = three_spans(trace(4));
    let r = post(
        &format!("{base}/v1/traces"),
        "application/x-protobuf",
        request(spans.clone()).encode_to_vec(),
        false,
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    let there = stored(&provex, "otel").await;
    assert!(names(&spans).is_subset(&there), "{there:?}");
}

#[tokio::test]
async fn otlp_http_partial_success_names_the_bad_span_and_keeps_the_rest() {
    let (provex, graph, _running, base) = start("otlp_http_partial", ServeLimits::default()).await;
    let t = trace(5);
    let good = three_spans(t);
    let mut bad = span(t, 9, Some(1), "broken", "chat");
    bad.span_id = vec![9, 9, 9];
    let mut spans = good.clone();
    spans.insert(1, bad);
    let url = format!("{base}/otlp/{graph}/v1/traces");
    for (ct, body) in [
        ("application/x-protobuf", request(spans.clone()).encode_to_vec()),
        ("application/json", serde_json::to_vec(&request(spans.clone())).unwrap()),
    ] {
        let r = post(&url, ct, body, false).await;
        assert_eq!(r.status(), StatusCode::OK, "{ct}");
        let (rejected, message) = if ct == "application/json" {
            let v: serde_json::Value = r.json().await.unwrap();
            let p = &v["partialSuccess"];
            (
                p["rejectedSpans"].as_str().unwrap().parse::<i64>().unwrap(),
                p["errorMessage"].as_str().unwrap().to_owned(),
            )
        } else {
            let p = ExportTraceServiceResponse::decode(r.bytes().await.unwrap())
                .unwrap()
                .partial_success
                .unwrap();
            (p.rejected_spans, p.error_message)
        };
        assert_eq!(rejected, 1, "{message}");
        assert!(message.contains(&hex(&t)), "names the trace: {message}");
        assert!(message.contains("090909"), "names the span: {message}");
        assert_eq!(stored(&provex, &graph).await, names(&good), "the good spans are stored");
    }
    let _ = provex.delete_graph(&graph).await;
}

#[tokio::test]
async fn otlp_http_refusals_store_nothing() {
    let limits =
        ServeLimits { otlp_max_body_bytes: 64 << 10, otlp_max_decoded_bytes: 1 << 20, ..Default::default() };
    let (provex, graph, _running, base) = start("otlp_http_refusals", limits).await;
    let url = format!("{base}/otlp/{graph}/v1/traces");
    let body = request(three_spans(trace(6))).encode_to_vec();

    // Content types and encodings it does not read.
    for ct in ["text/plain", "application/x-www-form-urlencoded", "application/octet-stream"] {
        let r = post(&url, ct, body.clone(), false).await;
        assert_eq!(r.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE, "{ct}");
        assert!(refusal(r, "application/json").await.contains("application/x-protobuf"));
    }
    let r = client()
        .post(&url)
        .header("content-type", "application/x-protobuf")
        .header("content-encoding", "br")
        .body(body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(refusal(r, "application/x-protobuf").await.contains("br"));

    // Bodies that cannot be decoded.
    let r = post(&url, "application/x-protobuf", b"\xff\xff\xff\xff".to_vec(), false).await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert!(refusal(r, "application/x-protobuf").await.contains("not an OTLP"));
    let r = post(&url, "application/json", b"{\"resourceSpans\": 7}".to_vec(), false).await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert!(refusal(r, "application/json").await.contains("not an OTLP"));
    let r = post(&url, "application/json", b"not gzip".to_vec(), true).await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert!(refusal(r, "application/json").await.contains("gzip"));

    // No token, or the wrong one.
    for auth in [None, Some("Bearer not-the-token-at-all")] {
        let mut r =
            anonymous().post(&url).header("content-type", "application/x-protobuf").body(body.clone());
        if let Some(a) = auth {
            r = r.header("authorization", a);
        }
        let r = r.send().await.unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{auth:?}");
    }

    // A graph name the other routes refuse too.
    let r = post(&format!("{base}/otlp/bad%20name/v1/traces"), "application/x-protobuf", body.clone(), false)
        .await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert!(refusal(r, "application/x-protobuf").await.contains("graph name"));

    // Too large as sent, and a gzip bomb: 4 KiB that would inflate to 16 MiB.
    let r = post(&url, "application/x-protobuf", vec![0u8; 65 << 10], false).await;
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let mut huge = three_spans(trace(6));
    huge[0].name = "x".repeat(16 << 20);
    let bomb = gzip(&request(huge).encode_to_vec());
    assert!(bomb.len() < 64 << 10, "{}", bomb.len());
    let r = post(&url, "application/x-protobuf", bomb, true).await;
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert!(refusal(r, "application/x-protobuf").await.contains("MiB"));

    // Only POST.
    let r = client().get(&url).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::METHOD_NOT_ALLOWED);

    assert!(stored(&provex, &graph).await.is_empty());
    // What was refused did not hold a place: a good export still goes through.
    let r = post(&url, "application/x-protobuf", body, false).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(stored(&provex, &graph).await, names(&three_spans(trace(6))));
    let _ = provex.delete_graph(&graph).await;
}

#[tokio::test]
async fn otlp_http_pages_on_other_origins_are_refused() {
    let (provex, graph, _running, base) = start("otlp_http_origin", ServeLimits::default()).await;
    let url = format!("{base}/otlp/{graph}/v1/traces");
    let body = request(three_spans(trace(7))).encode_to_vec();
    let json = serde_json::to_vec(&request(three_spans(trace(7)))).unwrap();
    // A page elsewhere, even with the token (it cannot have it, but it must not matter).
    for (headers, body) in [
        (vec![("origin", "http://evil.example"), ("content-type", "application/x-protobuf")], body.clone()),
        (vec![("origin", "http://evil.example"), ("content-type", "application/json")], json.clone()),
        (vec![("sec-fetch-site", "cross-site"), ("content-type", "application/json")], json.clone()),
        (vec![("origin", "http://127.0.0.1:1"), ("content-type", "application/x-protobuf")], body.clone()),
    ] {
        let mut r = client().post(&url).body(body);
        for (k, v) in &headers {
            r = r.header(*k, *v);
        }
        let r = r.send().await.unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "{headers:?}");
    }
    // The simple request a page may send without asking: text/plain, no Authorization.
    for headers in [
        vec![("origin", "http://evil.example"), ("content-type", "text/plain")],
        vec![("content-type", "text/plain")],
    ] {
        let mut r = anonymous().post(&url).body(json.clone());
        for (k, v) in &headers {
            r = r.header(*k, *v);
        }
        let r = r.send().await.unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "{headers:?}");
    }
    assert!(stored(&provex, &graph).await.is_empty());
    // An exporter sends no Origin.
    let r = post(&url, "application/json", json, false).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(stored(&provex, &graph).await, names(&three_spans(trace(7))));
    let _ = provex.delete_graph(&graph).await;
}

/// Starts an export whose body comes slowly: it holds one of the server's export places
/// until `finish` sends the rest.
pub(crate) struct Held {
    raw: Raw,
    rest: Vec<u8>,
}

impl Held {
    pub(crate) fn start(base: &str, graph: &str, body: Vec<u8>) -> Held {
        let mut raw = Raw::open(base);
        let addr = raw.addr.clone();
        raw.write(&format!(
            "POST /otlp/{graph}/v1/traces HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\n\
             Content-Type: application/x-protobuf\r\nContent-Length: {}\r\n\r\n",
            body.len()
        ));
        let (first, rest) = body.split_at(body.len() / 2);
        raw.write_bytes(first);
        Held { raw, rest: rest.to_vec() }
    }

    /// The answer, without sending the rest.
    pub(crate) fn abandon(mut self) -> u16 {
        self.raw.answer().status
    }

    pub(crate) fn finish(mut self) -> u16 {
        self.raw.write_bytes(&self.rest);
        self.raw.answer().status
    }
}

#[tokio::test]
async fn otlp_http_backpressure_answers_429_with_retry_after() {
    let limits = ServeLimits { otlp_max_exports: 1, ..Default::default() };
    let (provex, graph, _running, base) = start("otlp_http_busy", limits).await;
    let url = format!("{base}/otlp/{graph}/v1/traces");
    let (first, second) = (three_spans(trace(8)), three_spans(trace(9)));
    let held = Held::start(&base, &graph, request(first.clone()).encode_to_vec());
    // The held export has its place once the server has read its head: until then, an
    // undecodable body (refused after the place is taken, storing nothing) gets 400.
    let mut held_now = false;
    for _ in 0..200 {
        let r = post(&url, "application/x-protobuf", b"\xff\xff".to_vec(), false).await;
        if r.status() == StatusCode::TOO_MANY_REQUESTS {
            held_now = true;
            break;
        }
        assert_eq!(r.status(), StatusCode::BAD_REQUEST);
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(held_now, "429 while the only place is held");
    let r = post(&url, "application/x-protobuf", request(second.clone()).encode_to_vec(), false).await;
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(r.headers()["retry-after"], "1");
    assert!(refusal(r, "application/x-protobuf").await.contains("retry"));
    assert!(!stored(&provex, &graph).await.iter().any(|n| names(&second).contains(n)), "refused: not stored");
    let status = tokio::task::spawn_blocking(move || held.finish()).await.unwrap();
    assert_eq!(status, 200);
    // The place is free again: the exporter's retry goes through.
    let r = post(&url, "application/x-protobuf", request(second.clone()).encode_to_vec(), false).await;
    assert_eq!(r.status(), StatusCode::OK);
    let both: BTreeSet<String> = names(&first).into_iter().chain(names(&second)).collect();
    assert_eq!(stored(&provex, &graph).await, both);
    let _ = provex.delete_graph(&graph).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn otlp_http_concurrent_exporters_every_acknowledged_span_is_stored() {
    let (provex, graph, _running, base) = start("otlp_http_concurrent", ServeLimits::default()).await;
    let url = format!("{base}/otlp/{graph}/v1/traces");
    let mut tasks = Vec::new();
    for e in 0..8u8 {
        let url = url.clone();
        tasks.push(tokio::spawn(async move {
            let mut acked = BTreeSet::new();
            for b in 0..5u8 {
                let mut t = trace(100 + e);
                t[15] = b;
                let spans: Vec<Span> = (1..=20u8)
                    .map(|i| span(t, i, if i == 1 { None } else { Some(1) }, &format!("s{i}"), "chat"))
                    .collect();
                let r =
                    post(&url, "application/x-protobuf", request(spans.clone()).encode_to_vec(), false).await;
                if r.status() == StatusCode::OK {
                    let res = ExportTraceServiceResponse::decode(r.bytes().await.unwrap()).unwrap();
                    assert_eq!(res.partial_success, None);
                    acked.extend(names(&spans));
                }
            }
            acked
        }));
    }
    let mut acked = BTreeSet::new();
    for t in tasks {
        acked.extend(t.await.unwrap());
    }
    assert_eq!(acked.len(), 8 * 5 * 20, "none refused under the default limit");
    let there = stored(&provex, &graph).await;
    let missing: Vec<&String> = acked.difference(&there).collect();
    assert!(
        missing.is_empty(),
        "{} acknowledged spans not stored: {:?}",
        missing.len(),
        &missing[..missing.len().min(5)]
    );
    let _ = provex.delete_graph(&graph).await;
}

#[tokio::test]
async fn otlp_http_a_silent_body_is_cut_and_frees_its_place() {
    let limits = ServeLimits {
        otlp_max_exports: 1,
        body_idle: std::time::Duration::from_millis(1500),
        ..Default::default()
    };
    let (provex, graph, _running, base) = start("otlp_http_silent", limits).await;
    let spans = three_spans(trace(10));
    let held = Held::start(&base, &graph, request(spans.clone()).encode_to_vec());
    let status = tokio::task::spawn_blocking(move || held.abandon()).await.unwrap();
    assert_eq!(status, 408);
    assert!(stored(&provex, &graph).await.is_empty());
    let r = post(
        &format!("{base}/otlp/{graph}/v1/traces"),
        "application/x-protobuf",
        request(spans.clone()).encode_to_vec(),
        false,
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(stored(&provex, &graph).await, names(&spans));
    let _ = provex.delete_graph(&graph).await;
}
