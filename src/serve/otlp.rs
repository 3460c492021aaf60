//! The OTLP trace receiver's shared rules (docs/FORMATS.md, "OpenTelemetry traces of AI
//! agents", wire forms): how many exports run at once (past that, the exporter is told to
//! retry later), how large a request may be before and after decompression, how a body is
//! decoded, and what the answer says (`ExportTraceServiceResponse`, with a partial success
//! naming each rejected span, or a `google.rpc.Status` when nothing was taken). OTLP/HTTP
//! (`otlp_http`) and OTLP/gRPC (`otlp_grpc`) both go through here.

use std::io::Read as _;
use std::sync::Arc;

use flate2::read::MultiGzDecoder;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTracePartialSuccess, ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use prost::Message as _;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::AppState;
use crate::api::ErrorCode;
use crate::facade::SpanExport;
use crate::sources::otel::wire::{self, WireError};

/// The graph OTLP requests without one of their own (`POST /v1/traces`, gRPC without a
/// `provex-graph` metadata entry) write into.
pub(crate) const DEFAULT_GRAPH: &str = "otel";

/// Seconds an exporter is asked to wait before retrying when Provex is at its limit.
pub(crate) const RETRY_AFTER_SECS: u64 = 1;

/// Rejected spans named one by one in an answer's message; the rest are counted.
const NAMED_REJECTIONS: usize = 50;

/// The receiver's limits, shared by OTLP/HTTP and OTLP/gRPC.
#[derive(Clone)]
pub(crate) struct Gate {
    exports: Arc<Semaphore>,
    pub max_exports: usize,
    /// Largest body as sent (before decompression).
    pub max_body: usize,
    /// Largest request once decompressed (what is decoded).
    pub max_decoded: usize,
}

impl Gate {
    pub fn new(max_exports: usize, max_body: usize, max_decoded: usize) -> Gate {
        let max_exports = max_exports.max(1);
        Gate { exports: Arc::new(Semaphore::new(max_exports)), max_exports, max_body, max_decoded }
    }

    /// A place for one export, or the refusal that tells the exporter to retry later: exports
    /// are never queued without bound.
    pub fn enter(&self) -> Result<OwnedSemaphorePermit, Failure> {
        self.exports.clone().try_acquire_owned().map_err(|_| {
            Failure::new(
                Kind::Throttled,
                format!(
                    "Provex is storing {} OTLP exports already, the most it takes at once; retry after {} s",
                    self.max_exports, RETRY_AFTER_SECS
                ),
            )
        })
    }
}

/// What went wrong, by what the exporter should do about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The request is wrong (undecodable, a bad graph name): do not retry.
    BadRequest,
    /// No token or the wrong one.
    Unauthorized,
    /// A content type or content encoding the receiver does not read.
    Unsupported,
    /// A body over a limit, before or after decompression.
    TooLarge,
    /// The body stopped coming.
    Timeout,
    /// Provex is at its limit of exports at once: retry later.
    Throttled,
    /// The database is not reachable for now: retry later.
    Unavailable,
    /// Anything else.
    Internal,
}

/// A refused or failed export.
#[derive(Debug, Clone)]
pub(crate) struct Failure {
    pub kind: Kind,
    pub message: String,
}

impl Failure {
    pub fn new(kind: Kind, message: impl Into<String>) -> Failure {
        Failure { kind, message: message.into() }
    }

    /// The HTTP status (OTLP/HTTP: 429 and 503 are retried, with `Retry-After`).
    pub fn http_status(&self) -> u16 {
        match self.kind {
            Kind::BadRequest => 400,
            Kind::Unauthorized => 401,
            Kind::Unsupported => 415,
            Kind::TooLarge => 413,
            Kind::Timeout => 408,
            Kind::Throttled => 429,
            Kind::Unavailable => 503,
            Kind::Internal => 500,
        }
    }

    /// Whether the exporter should retry after [`RETRY_AFTER_SECS`].
    pub fn retry(&self) -> bool {
        matches!(self.kind, Kind::Throttled | Kind::Unavailable)
    }
}

impl From<crate::error::Error> for Failure {
    fn from(e: crate::error::Error) -> Failure {
        let kind = match e.code() {
            ErrorCode::Connection | ErrorCode::ConnectionLost | ErrorCode::Closing | ErrorCode::Busy => {
                Kind::Unavailable
            }
            ErrorCode::Usage | ErrorCode::Input | ErrorCode::BadRequest => Kind::BadRequest,
            ErrorCode::PayloadTooLarge => Kind::TooLarge,
            _ => Kind::Internal,
        };
        Failure::new(kind, e.to_string())
    }
}

/// How a body is encoded (and the answer with it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    Protobuf,
    Json,
}

/// Inflates a gzip body, refusing it as soon as it would be larger than `max` bytes: a small
/// body that inflates without end is cut at the limit, never held whole.
pub(crate) fn gunzip(body: &[u8], max: usize) -> Result<Vec<u8>, Failure> {
    let mut out = Vec::with_capacity(body.len().saturating_mul(4).min(max));
    let mut reader = MultiGzDecoder::new(body).take(max as u64 + 1);
    reader
        .read_to_end(&mut out)
        .map_err(|e| Failure::new(Kind::BadRequest, format!("the body is not valid gzip: {e}")))?;
    if out.len() > max {
        return Err(Failure::new(
            Kind::TooLarge,
            format!("the body inflates to more than {} MiB, the most an OTLP request may hold", max >> 20),
        ));
    }
    Ok(out)
}

/// Decodes an `ExportTraceServiceRequest` (protobuf, or OTLP's JSON mapping) with the
/// OpenTelemetry source's decoders.
pub(crate) fn decode(body: &[u8], encoding: Encoding) -> Result<ExportTraceServiceRequest, Failure> {
    let decoded = match encoding {
        Encoding::Protobuf => wire::decode_protobuf(body),
        Encoding::Json => wire::decode_json(body),
    };
    decoded.map_err(|e| {
        let kind = match e {
            WireError::TooLarge(_) => Kind::TooLarge,
            _ => Kind::BadRequest,
        };
        Failure::new(kind, format!("the body cannot be decoded: {e}"))
    })
}

/// Validates the graph name (as every route does) and stores the request's spans; `body` is
/// the request as received (an HTTP body or a gRPC message, gzip undone), which its log
/// leaf hashes.
pub(crate) async fn export(
    state: &AppState,
    graph: &str,
    request: ExportTraceServiceRequest,
    body: &[u8],
) -> Result<ExportTraceServiceResponse, Failure> {
    crate::store::validate_graph_name(graph)?;
    let done = state.provex.export_received(graph, request, body).await?;
    Ok(response(&done))
}

/// The answer to an export: empty when every span was taken, else a partial success that
/// counts the rejected spans and names each (trace id, span id, reason).
pub(crate) fn response(done: &SpanExport) -> ExportTraceServiceResponse {
    if done.rejected.is_empty() {
        return ExportTraceServiceResponse { partial_success: None };
    }
    let n = done.rejected.len();
    let mut message =
        format!("{n} span{} rejected, {} stored: ", if n == 1 { "" } else { "s" }, done.accepted);
    for (i, r) in done.rejected.iter().take(NAMED_REJECTIONS).enumerate() {
        if i > 0 {
            message.push_str("; ");
        }
        message.push_str(&format!("trace {} span {}: {}", r.trace_id, r.span_id, r.reason));
    }
    if n > NAMED_REJECTIONS {
        message.push_str(&format!("; and {} more", n - NAMED_REJECTIONS));
    }
    ExportTraceServiceResponse {
        partial_success: Some(ExportTracePartialSuccess {
            rejected_spans: i64::try_from(n).unwrap_or(i64::MAX),
            error_message: message,
        }),
    }
}

/// The answer in the request's encoding (OTLP's JSON mapping: lowerCamelCase keys, 64-bit
/// integers as strings).
pub(crate) fn encode_response(res: &ExportTraceServiceResponse, encoding: Encoding) -> Vec<u8> {
    match encoding {
        Encoding::Protobuf => res.encode_to_vec(),
        Encoding::Json => {
            let value = match &res.partial_success {
                None => serde_json::json!({}),
                Some(p) => serde_json::json!({
                    "partialSuccess": {
                        "rejectedSpans": p.rejected_spans.to_string(),
                        "errorMessage": p.error_message,
                    }
                }),
            };
            value.to_string().into_bytes()
        }
    }
}

/// `google.rpc.Status`, the body of an OTLP/HTTP refusal (the OTLP specification asks for
/// its `message`; `code` is gRPC's code for the same refusal).
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct RpcStatus {
    #[prost(int32, tag = "1")]
    pub code: i32,
    #[prost(string, tag = "2")]
    pub message: String,
    #[prost(message, repeated, tag = "3")]
    pub details: Vec<prost_types_any::Any>,
}

/// `google.protobuf.Any` and `google.rpc.RetryInfo` (with `google.protobuf.Duration`), for
/// telling a gRPC exporter when to retry.
pub(crate) mod prost_types_any {
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Any {
        #[prost(string, tag = "1")]
        pub type_url: String,
        #[prost(bytes = "vec", tag = "2")]
        pub value: Vec<u8>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Duration {
        #[prost(int64, tag = "1")]
        pub seconds: i64,
        #[prost(int32, tag = "2")]
        pub nanos: i32,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RetryInfo {
        #[prost(message, optional, tag = "1")]
        pub retry_delay: Option<Duration>,
    }
}

impl Failure {
    /// gRPC's code for this refusal (`UNAVAILABLE` is what OTLP exporters retry).
    pub fn grpc_code(&self) -> tonic::Code {
        match self.kind {
            Kind::BadRequest => tonic::Code::InvalidArgument,
            Kind::Unauthorized => tonic::Code::Unauthenticated,
            Kind::Unsupported => tonic::Code::Unimplemented,
            Kind::TooLarge => tonic::Code::ResourceExhausted,
            Kind::Timeout => tonic::Code::DeadlineExceeded,
            Kind::Throttled | Kind::Unavailable => tonic::Code::Unavailable,
            Kind::Internal => tonic::Code::Internal,
        }
    }

    /// The `google.rpc.Status` of this refusal, with a `RetryInfo` when it is to be retried.
    pub fn rpc_status(&self) -> RpcStatus {
        let details = if self.retry() {
            let info = prost_types_any::RetryInfo {
                retry_delay: Some(prost_types_any::Duration { seconds: RETRY_AFTER_SECS as i64, nanos: 0 }),
            };
            vec![prost_types_any::Any {
                type_url: "type.googleapis.com/google.rpc.RetryInfo".into(),
                value: info.encode_to_vec(),
            }]
        } else {
            Vec::new()
        };
        RpcStatus { code: self.grpc_code() as i32, message: self.message.clone(), details }
    }

    /// The refusal's body in `encoding` (JSON: `{"code", "message"}` as the protobuf JSON
    /// mapping writes a `google.rpc.Status`).
    pub fn body(&self, encoding: Encoding) -> Vec<u8> {
        match encoding {
            Encoding::Protobuf => self.rpc_status().encode_to_vec(),
            Encoding::Json => serde_json::json!({ "code": self.grpc_code() as i32, "message": self.message })
                .to_string()
                .into_bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facade::RejectedSpan;
    use std::io::Write as _;

    fn gz(bytes: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn gzip_is_inflated_up_to_the_limit_only() {
        assert_eq!(gunzip(&gz(b"hello"), 5).unwrap(), b"hello");
        let bomb = gz(&vec![0u8; 8 << 20]);
        assert!(bomb.len() < 64 << 10, "{}", bomb.len());
        let e = gunzip(&bomb, 1 << 20).unwrap_err();
        assert_eq!(e.kind, Kind::TooLarge, "{e:?}");
        assert_eq!(e.http_status(), 413);
        let e = gunzip(b"not gzip at all", 1 << 20).unwrap_err();
        assert_eq!(e.http_status(), 400, "{e:?}");
        // Two gzip members one after the other are one body.
        let mut two = gz(b"ab");
        two.extend(gz(b"cd"));
        assert_eq!(gunzip(&two, 10).unwrap(), b"abcd");
    }

    proptest::proptest! {
        /// A gzip body comes back whole when it fits, and is refused as too large when not.
        #[test]
        fn gzip_fits_or_is_refused(data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..4096), max in 0usize..8192) {
            match gunzip(&gz(&data), max) {
                Ok(out) => {
                    proptest::prop_assert!(data.len() <= max);
                    proptest::prop_assert_eq!(out, data);
                }
                Err(e) => {
                    proptest::prop_assert!(data.len() > max);
                    proptest::prop_assert_eq!(e.kind, Kind::TooLarge);
                }
            }
        }

        /// Whatever the bytes, nothing longer than the limit comes out, and no panic.
        #[test]
        fn any_bytes_inflate_within_the_limit(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..2048), max in 0usize..4096) {
            if let Ok(out) = gunzip(&bytes, max) {
                proptest::prop_assert!(out.len() <= max);
            }
        }
    }

    #[test]
    fn undecodable_bodies_are_bad_requests() {
        for (body, enc) in [
            (&b"\xff\xff\xff"[..], Encoding::Protobuf),
            (b"{\"resourceSpans\": 3}", Encoding::Json),
            (b"not json", Encoding::Json),
        ] {
            let e = decode(body, enc).unwrap_err();
            assert_eq!(e.http_status(), 400, "{e:?}");
            assert!(e.message.contains("not an OTLP"), "{}", e.message);
        }
        assert!(decode(b"", Encoding::Protobuf).unwrap().resource_spans.is_empty());
        assert!(decode(br#"{"resourceSpans": []}"#, Encoding::Json).unwrap().resource_spans.is_empty());
    }

    #[test]
    fn answers_name_each_rejected_span() {
        let ok = SpanExport { accepted: 3, rejected: Vec::new() };
        assert_eq!(encode_response(&response(&ok), Encoding::Json), b"{}");
        assert!(encode_response(&response(&ok), Encoding::Protobuf).is_empty());
        let bad = SpanExport {
            accepted: 2,
            rejected: vec![RejectedSpan {
                trace_id: "0af7651916cd43dd8448eb211c80319c".into(),
                span_id: "b7ad6b7169203331".into(),
                reason: "the span id is not 8 bytes".into(),
            }],
        };
        let res = response(&bad);
        let p = res.partial_success.as_ref().unwrap();
        assert_eq!(p.rejected_spans, 1);
        assert!(p
            .error_message
            .contains("trace 0af7651916cd43dd8448eb211c80319c span b7ad6b7169203331: the span id"));
        let json: serde_json::Value = serde_json::from_slice(&encode_response(&res, Encoding::Json)).unwrap();
        assert_eq!(json["partialSuccess"]["rejectedSpans"], "1");
        let back =
            ExportTraceServiceResponse::decode(&encode_response(&res, Encoding::Protobuf)[..]).unwrap();
        assert_eq!(back, res);
    }

    #[test]
    fn a_database_out_of_reach_is_retried_later() {
        let lost = crate::error::Error::ConnectionLost { during: "a write".into(), reason: "reset".into() };
        let f = Failure::from(lost);
        assert_eq!((f.http_status(), f.grpc_code(), f.retry()), (503, tonic::Code::Unavailable, true));
        let f = Failure::from(crate::error::Error::Usage("invalid graph name".into()));
        assert_eq!((f.http_status(), f.retry()), (400, false));
        let f = Failure::from(crate::error::Error::NotStored("disk full".into()));
        assert_eq!((f.http_status(), f.retry()), (500, false));
    }

    #[test]
    fn throttling_says_when_to_retry() {
        let gate = Gate::new(1, 10, 10);
        let held = gate.enter().unwrap();
        let e = gate.enter().unwrap_err();
        assert_eq!((e.http_status(), e.grpc_code(), e.retry()), (429, tonic::Code::Unavailable, true));
        let status = RpcStatus::decode(&e.body(Encoding::Protobuf)[..]).unwrap();
        assert_eq!(status.details[0].type_url, "type.googleapis.com/google.rpc.RetryInfo");
        drop(held);
        assert!(gate.enter().is_ok());
    }
}
