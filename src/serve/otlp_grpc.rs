//! OTLP/gRPC trace export (docs/FORMATS.md, "OpenTelemetry traces of AI agents", wire
//! forms): opentelemetry-proto's `TraceService/Export` on its own address
//! (`provex serve --otlp-grpc ADDR`), under the same limits and token rule as OTLP/HTTP:
//! metadata `authorization: Bearer <token>`, gzip accepted, messages bounded before and
//! after decompression, `UNAVAILABLE` with a `RetryInfo` when Provex is at its limit. The
//! graph is `otel`, or the one named by the metadata entry `provex-graph`. HTTP/2 only, so
//! no web page can reach it. The service is served with a codec of its own rather than the
//! generated server's, so that each export keeps its message's bytes as received (gzip
//! undone): the record its log leaf hashes, not a re-encoding of what was decoded.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::task::{Context, Poll};

use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::SERVICE_NAME;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use prost::bytes::{Buf as _, Bytes};
use prost::Message as _;
use tokio::net::TcpListener;
use tokio::sync::{oneshot, OwnedSemaphorePermit};
use tonic::codec::{
    Codec, CompressionEncoding, DecodeBuf, Decoder, EnabledCompressionEncodings, EncodeBuf, Encoder,
};
use tonic::codegen::{http, BoxFuture, Service, StdError};
use tonic::metadata::MetadataMap;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::server::TcpIncoming;

use super::otlp::{self, Encoding, Failure, Kind};
use super::{auth, AppState};
use crate::error::{Error, Result};

/// The metadata entry that names the graph an export writes into.
pub const GRAPH_METADATA: &str = "provex-graph";

struct Receiver {
    state: AppState,
}

fn status(f: &Failure) -> tonic::Status {
    let details = f.rpc_status().encode_to_vec();
    tonic::Status::with_details(f.grpc_code(), f.message.clone(), details.into())
}

/// One export's place, taken (with the token checked) before its message is read, so that
/// unauthenticated or surplus calls are refused before anything is decompressed or decoded.
#[derive(Clone)]
struct Place(#[allow(dead_code)] Arc<OwnedSemaphorePermit>);

/// The graph the call names (`provex-graph`), else `otel`.
fn graph(metadata: &MetadataMap) -> std::result::Result<String, Failure> {
    let graph = match metadata.get(GRAPH_METADATA) {
        Some(v) => v
            .to_str()
            .map_err(|_| Failure::new(Kind::BadRequest, "the provex-graph metadata is not text"))?
            .to_owned(),
        None => otlp::DEFAULT_GRAPH.to_owned(),
    };
    crate::store::validate_graph_name(&graph)?;
    Ok(graph)
}

/// Checks a call's token and graph and takes its place, before its message is read.
fn admit(
    state: &AppState,
    mut req: tonic::Request<()>,
) -> std::result::Result<tonic::Request<()>, tonic::Status> {
    let headers = req.metadata().clone().into_headers();
    auth::token(state, &headers, None, None).map_err(|why| status(&Failure::new(Kind::Unauthorized, why)))?;
    graph(req.metadata()).map_err(|f| status(&f))?;
    let place = state.limits.otlp.enter().map_err(|f| status(&f))?;
    req.extensions_mut().insert(Place(Arc::new(place)));
    Ok(req)
}

/// An export's message: decoded, and its bytes as received (gzip undone).
pub(crate) struct Received {
    request: ExportTraceServiceRequest,
    body: Bytes,
}

/// The codec of `TraceService/Export`: protobuf both ways, the request kept as received too.
#[derive(Clone, Copy, Default)]
struct ExportCodec;

impl Codec for ExportCodec {
    type Encode = ExportTraceServiceResponse;
    type Decode = Received;
    type Encoder = ExportCodec;
    type Decoder = ExportCodec;

    fn encoder(&mut self) -> Self::Encoder {
        ExportCodec
    }

    fn decoder(&mut self) -> Self::Decoder {
        ExportCodec
    }
}

impl Encoder for ExportCodec {
    type Item = ExportTraceServiceResponse;
    type Error = tonic::Status;

    fn encode(&mut self, item: Self::Item, dst: &mut EncodeBuf<'_>) -> std::result::Result<(), Self::Error> {
        item.encode(dst).map_err(|e| tonic::Status::internal(format!("the answer cannot be encoded: {e}")))
    }
}

impl Decoder for ExportCodec {
    type Item = Received;
    type Error = tonic::Status;

    /// `src` holds exactly one message, its size already checked against the limit and its
    /// gzip undone by tonic.
    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> std::result::Result<Option<Received>, Self::Error> {
        let body = src.copy_to_bytes(src.remaining());
        let request = otlp::decode(&body, Encoding::Protobuf).map_err(|f| status(&f))?;
        Ok(Some(Received { request, body }))
    }
}

impl Receiver {
    async fn export(
        &self,
        mut request: tonic::Request<Received>,
    ) -> std::result::Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        // Admitted by `admit`, which holds the place until the export is stored.
        let Some(_place) = request.extensions_mut().remove::<Place>() else {
            return Err(status(&Failure::new(Kind::Internal, "an export was not admitted")));
        };
        let graph = graph(request.metadata()).map_err(|f| status(&f))?;
        let Received { request, body } = request.into_inner();
        let res = otlp::export(&self.state, &graph, request, &body).await.map_err(|f| status(&f))?;
        Ok(tonic::Response::new(res))
    }
}

/// The path of the one method served.
const EXPORT: &str = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";

/// `TraceService` as opentelemetry-proto's generated server serves it (its one method
/// `Export`, gzip accepted and sent, messages bounded), with [`ExportCodec`].
#[derive(Clone)]
struct ExportService {
    receiver: Arc<Receiver>,
    max_decoded: usize,
}

/// One `Export` call.
struct ExportCall(Arc<Receiver>);

impl tonic::server::UnaryService<Received> for ExportCall {
    type Response = ExportTraceServiceResponse;
    type Future = BoxFuture<tonic::Response<Self::Response>, tonic::Status>;

    fn call(&mut self, request: tonic::Request<Received>) -> Self::Future {
        let receiver = self.0.clone();
        Box::pin(async move { receiver.export(request).await })
    }
}

impl tonic::server::NamedService for ExportService {
    const NAME: &'static str = SERVICE_NAME;
}

impl<B> Service<http::Request<B>> for ExportService
where
    B: tonic::codegen::Body + Send + 'static,
    B::Error: Into<StdError> + Send + 'static,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<std::result::Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        if req.uri().path() != EXPORT {
            return Box::pin(async move {
                let mut response = http::Response::new(tonic::body::Body::default());
                let headers = response.headers_mut();
                headers.insert(tonic::Status::GRPC_STATUS, (tonic::Code::Unimplemented as i32).into());
                headers.insert(http::header::CONTENT_TYPE, tonic::metadata::GRPC_CONTENT_TYPE);
                Ok(response)
            });
        }
        let (receiver, max) = (self.receiver.clone(), self.max_decoded);
        Box::pin(async move {
            let mut gzip = EnabledCompressionEncodings::default();
            gzip.enable(CompressionEncoding::Gzip);
            let mut grpc = tonic::server::Grpc::new(ExportCodec)
                .apply_compression_config(gzip, gzip)
                .apply_max_message_size_config(Some(max), None);
            Ok(grpc.unary(ExportCall(receiver), req).await)
        })
    }
}

/// A running OTLP/gRPC receiver.
pub(crate) struct GrpcServer {
    pub addr: SocketAddr,
    stop: oneshot::Sender<()>,
    task: tokio::task::JoinHandle<std::result::Result<(), tonic::transport::Error>>,
}

impl GrpcServer {
    /// Listens on `addr` and serves in the background.
    pub async fn start(state: AppState, addr: SocketAddr) -> Result<GrpcServer> {
        let listener = TcpListener::bind(addr).await.map_err(|e| Error::io(addr.to_string(), e))?;
        let bound = listener.local_addr().map_err(|e| Error::io(addr.to_string(), e))?;
        let max = state.limits.otlp.max_decoded;
        // A call holds its place from its headers on: one that is not done in four body
        // time-outs (2 min by default) is cancelled, and the exporter sends it again.
        let deadline = state.limits.body_idle.saturating_mul(4).max(std::time::Duration::from_secs(60));
        let gate = state.clone();
        let service = ExportService { receiver: Arc::new(Receiver { state }), max_decoded: max };
        let service = InterceptedService::new(service, move |req| admit(&gate, req));
        let (tx, rx) = oneshot::channel::<()>();
        let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
        let task = tokio::spawn(
            tonic::transport::Server::builder()
                .accept_http1(false)
                .timeout(deadline)
                .add_service(service)
                .serve_with_incoming_shutdown(incoming, async move {
                    let _ = rx.await;
                }),
        );
        Ok(GrpcServer { addr: bound, stop: tx, task })
    }

    /// Stops accepting and lets open calls finish for `grace`.
    pub async fn stop(self, grace: std::time::Duration) {
        let _ = self.stop.send(());
        let mut task = self.task;
        if tokio::time::timeout(grace, &mut task).await.is_err() {
            task.abort();
            let _ = task.await;
        }
    }
}
