//! OTLP/gRPC trace export (`TraceService/Export`) into a real `provex serve --otlp-grpc` and a
//! real FalkorDB, with tonic's client from opentelemetry-proto: the token in metadata, the
//! graph named in metadata, gzip, a message that inflates past the limit, partial success,
//! and `UNAVAILABLE` with a retry delay while the export places (shared with OTLP/HTTP) are
//! taken. Every span acknowledged is looked up in the graph.

use std::sync::Arc;

use opentelemetry_proto::tonic::collector::trace::v1::trace_service_client::TraceServiceClient;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message as _;
use provex::serve::{Running, ServeLimits, OTLP_GRAPH_METADATA};
use tonic::codec::CompressionEncoding;
use tonic::transport::Channel;
use tonic::Code;

use crate::common;
use crate::otlp_http::{hex, names, request, span, stored, three_spans, trace, Held};
use crate::serve::{serve_with, TOKEN};

async fn start(
    test: &str,
    limits: ServeLimits,
) -> (Arc<provex::facade::Provex>, String, Running, String, String) {
    let (provex, graph) = common::open(test).await;
    let provex = Arc::new(provex);
    let (mut running, base) = serve_with(provex.clone(), None, limits).await;
    let addr = running.start_otlp_grpc("127.0.0.1:0".parse().unwrap()).await.expect("OTLP/gRPC");
    assert_eq!(running.otlp_grpc_addr(), Some(addr));
    (provex, graph, running, base, format!("http://{addr}"))
}

async fn client(endpoint: &str) -> TraceServiceClient<Channel> {
    TraceServiceClient::connect(endpoint.to_owned())
        .await
        .expect("connect")
        .send_compressed(CompressionEncoding::Gzip)
}

/// An export with `token` and the graph `graph` in its metadata.
fn call(
    req: ExportTraceServiceRequest,
    token: Option<&str>,
    graph: Option<&str>,
) -> tonic::Request<ExportTraceServiceRequest> {
    let mut r = tonic::Request::new(req);
    if let Some(t) = token {
        r.metadata_mut().insert("authorization", format!("Bearer {t}").parse().unwrap());
    }
    if let Some(g) = graph {
        r.metadata_mut().insert(OTLP_GRAPH_METADATA, g.parse().unwrap());
    }
    r
}

#[tokio::test]
async fn otlp_grpc_export_stores_spans_and_reports_bad_ones() {
    let (provex, graph, running, _base, endpoint) = start("otlp_grpc_export", ServeLimits::default()).await;
    let mut c = client(&endpoint).await;
    let good = three_spans(trace(20));
    let res =
        c.export(call(request(good.clone()), Some(TOKEN), Some(&graph))).await.expect("export").into_inner();
    assert_eq!(res.partial_success, None);
    assert_eq!(stored(&provex, &graph).await, names(&good));

    // Re-exported (a retry) with a bad span next to new good ones.
    let t = trace(21);
    let more = three_spans(t);
    let mut bad = span(t, 9, Some(1), "broken", "chat");
    bad.span_id = vec![9, 9, 9];
    let mut spans = more.clone();
    spans.push(bad);
    spans.extend(good.clone());
    let res = c.export(call(request(spans), Some(TOKEN), Some(&graph))).await.expect("export").into_inner();
    let p = res.partial_success.expect("partial success");
    assert_eq!(p.rejected_spans, 1, "{}", p.error_message);
    assert!(p.error_message.contains(&hex(&t)) && p.error_message.contains("090909"), "{}", p.error_message);
    let all: std::collections::BTreeSet<String> = names(&good).into_iter().chain(names(&more)).collect();
    assert_eq!(stored(&provex, &graph).await, all);

    // No token, the wrong one, a bad graph name: refused, nothing stored.
    let other = three_spans(trace(22));
    for (token, g, code) in [
        (None, graph.as_str(), Code::Unauthenticated),
        (Some("not-the-token-of-this-server"), graph.as_str(), Code::Unauthenticated),
        (Some(TOKEN), "bad name", Code::InvalidArgument),
    ] {
        let e = c.export(call(request(other.clone()), token, Some(g))).await.unwrap_err();
        assert_eq!(e.code(), code, "{e:?}");
    }
    assert_eq!(stored(&provex, &graph).await, all);

    // Without a graph in the metadata: the graph `otel`.
    c.export(call(request(other.clone()), Some(TOKEN), None)).await.expect("export");
    assert!(names(&other).is_subset(&stored(&provex, "otel").await));
    running.stop().await;
    let _ = provex.delete_graph(&graph).await;
}

#[tokio::test]
async fn otlp_grpc_refuses_bombs_and_throttles_with_the_http_receiver() {
    let limits = ServeLimits { otlp_max_exports: 1, otlp_max_decoded_bytes: 1 << 20, ..Default::default() };
    let (provex, graph, _running, base, endpoint) = start("otlp_grpc_limits", limits).await;
    let mut c = client(&endpoint).await;

    // 2 MiB of one letter, a few KiB gzip-compressed: refused while inflating.
    let mut huge = three_spans(trace(23));
    huge[0].name = "x".repeat(2 << 20);
    let e = c.export(call(request(huge), Some(TOKEN), Some(&graph))).await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e:?}");
    assert!(stored(&provex, &graph).await.is_empty());

    // The only export place held by a slow OTLP/HTTP body: gRPC is told to come back.
    let first = three_spans(trace(24));
    let held = Held::start(&base, &graph, request(first.clone()).encode_to_vec());
    let second = three_spans(trace(25));
    let mut refused = None;
    for _ in 0..200 {
        match c.export(call(request(Vec::new()), Some(TOKEN), Some(&graph))).await {
            Err(e) if e.code() == Code::Unavailable => {
                refused = Some(e);
                break;
            }
            Ok(_) => tokio::time::sleep(std::time::Duration::from_millis(20)).await,
            Err(e) => panic!("{e:?}"),
        }
    }
    let e = refused.expect("UNAVAILABLE while the only place is held");
    assert!(e.message().contains("retry"), "{e:?}");
    // google.rpc.Status with a google.rpc.RetryInfo.
    assert!(String::from_utf8_lossy(e.details()).contains("type.googleapis.com/google.rpc.RetryInfo"));
    let e = c.export(call(request(second.clone()), Some(TOKEN), Some(&graph))).await.unwrap_err();
    assert_eq!(e.code(), Code::Unavailable);
    assert_eq!(tokio::task::spawn_blocking(move || held.finish()).await.unwrap(), 200);
    c.export(call(request(second.clone()), Some(TOKEN), Some(&graph))).await.expect("the retry goes through");
    let both: std::collections::BTreeSet<String> = names(&first).into_iter().chain(names(&second)).collect();
    assert_eq!(stored(&provex, &graph).await, both);
    let _ = provex.delete_graph(&graph).await;
}

/// `provex serve --otlp-grpc ADDR` as a process of its own: the child and the gRPC address.
fn serve_process(data: &std::path::Path) -> (std::process::Child, String) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("provex"))
        .args(["--falkordb", common::url(), "serve", "--bind", "127.0.0.1:0", "--token", TOKEN])
        .args(["--otlp-grpc", "127.0.0.1:0", "--ui"])
        .arg(data)
        .env("PROVEX_DATA_DIR", data)
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let grpc = loop {
        let mut line = String::new();
        assert!(err.read_line(&mut line).unwrap() > 0, "serve ended before listening");
        if let Some(rest) = line.split("TraceService/Export) is received on ").nth(1) {
            break format!("http://{}", rest.trim());
        }
    };
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    (child, grpc)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn otlp_grpc_flag_of_provex_serve() {
    let (provex, graph) = common::open("otlp_grpc_flag").await;
    let data = tempfile::tempdir().unwrap();
    let (mut child, endpoint) = tokio::task::block_in_place(|| serve_process(data.path()));
    let spans = three_spans(trace(26));
    let res = client(&endpoint).await.export(call(request(spans.clone()), Some(TOKEN), Some(&graph))).await;
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(res.expect("export").into_inner().partial_success, None);
    assert_eq!(stored(&provex, &graph).await, names(&spans));

    // Beyond loopback, only with a token given.
    let out = assert_cmd::Command::cargo_bin("provex")
        .unwrap()
        .args([
            "--falkordb",
            common::url(),
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--otlp-grpc",
            "0.0.0.0:0",
            "--ui",
        ])
        .arg(data.path())
        .env("PROVEX_DATA_DIR", data.path())
        .env_remove("PROVEX_TOKEN")
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--otlp-grpc 0.0.0.0:0") && err.contains("--token"), "{err}");
    let _ = provex.delete_graph(&graph).await;
}

/// A client codec that sends a message's bytes exactly as given and reads the answer.
#[derive(Clone, Copy, Default)]
struct RawCodec;

impl tonic::codec::Codec for RawCodec {
    type Encode = Vec<u8>;
    type Decode = opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceResponse;
    type Encoder = RawCodec;
    type Decoder = RawCodec;
    fn encoder(&mut self) -> RawCodec {
        RawCodec
    }
    fn decoder(&mut self) -> RawCodec {
        RawCodec
    }
}

impl tonic::codec::Encoder for RawCodec {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn encode(&mut self, item: Vec<u8>, dst: &mut tonic::codec::EncodeBuf<'_>) -> Result<(), tonic::Status> {
        use prost::bytes::BufMut as _;
        dst.put_slice(&item);
        Ok(())
    }
}

impl tonic::codec::Decoder for RawCodec {
    type Item = opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceResponse;
    type Error = tonic::Status;
    fn decode(&mut self, src: &mut tonic::codec::DecodeBuf<'_>) -> Result<Option<Self::Item>, tonic::Status> {
        <Self::Item as prost::Message>::decode(src)
            .map(Some)
            .map_err(|e| tonic::Status::internal(e.to_string()))
    }
}

/// Finding: a gRPC export's log leaf hashed the decoded message encoded again, not the bytes
/// the exporter sent, so a message whose encoding is not prost's own (here: a field this
/// version of OTLP does not know, which decoding drops) had a leaf no one holding the sent
/// bytes could recompute. The leaf is now SHA-256(0x00 || record) of the bytes as received.
#[tokio::test]
async fn otlp_grpc_export_leaf_is_the_hash_of_the_bytes_sent() {
    let (provex, graph, running, _base, endpoint) = start("otlp_grpc_leaf", ServeLimits::default()).await;
    let spans = three_spans(trace(26));
    let mut sent = request(spans.clone()).encode_to_vec();
    // Field 99 (varint 1): unknown to OTLP, dropped by decoding, absent from a re-encoding.
    sent.extend_from_slice(&[0x98, 0x06, 0x01]);
    let reencoded = ExportTraceServiceRequest::decode(&sent[..]).unwrap().encode_to_vec();
    assert_ne!(reencoded, sent);

    let channel = Channel::from_shared(endpoint.clone()).unwrap().connect().await.expect("connect");
    let mut grpc = tonic::client::Grpc::new(channel).send_compressed(CompressionEncoding::Gzip);
    let mut req = tonic::Request::new(sent.clone());
    req.metadata_mut().insert("authorization", format!("Bearer {TOKEN}").parse().unwrap());
    req.metadata_mut().insert(OTLP_GRAPH_METADATA, graph.parse().unwrap());
    let now =
        || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    let before = now();
    grpc.ready().await.unwrap();
    let path = tonic::codegen::http::uri::PathAndQuery::from_static(
        "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
    );
    let res = grpc.unary(req, path, RawCodec).await.expect("export").into_inner();
    let after = now();
    assert_eq!(res.partial_success, None);
    assert_eq!(stored(&provex, &graph).await, names(&spans));

    let (size, _) = provex.log_head(&graph).await.unwrap();
    assert_eq!(size, 1, "one leaf for the export");
    let leaf = provex.log_prove(&graph, 0).await.unwrap().leaf_hash;
    let source = format!("OTLP export to {graph}");
    let of = |record: &[u8], ms: u64| {
        use sha2::Digest as _;
        let mut h = sha2::Sha256::new();
        h.update([0x00]);
        h.update(provex::tlog::leaf_entry(&source, ms, record));
        provex::tlog::proof::encode_hash(&provex::tlog::Hash(h.finalize().into()))
    };
    assert!((before..=after).any(|ms| of(&sent, ms) == leaf), "the leaf is of the bytes sent");
    assert!(!(before..=after).any(|ms| of(&reencoded, ms) == leaf));
    running.stop().await;
    let _ = provex.delete_graph(&graph).await;
}
