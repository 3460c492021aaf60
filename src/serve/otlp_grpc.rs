//! OTLP/gRPC trace export (docs/FORMATS.md, "OpenTelemetry traces of AI agents", wire
//! forms): opentelemetry-proto's `TraceService/Export` on its own address
//! (`provex serve --otlp-grpc ADDR`), under the same limits and token rule as OTLP/HTTP:
//! metadata `authorization: Bearer <token>`, gzip accepted, messages bounded before and
//! after decompression, `UNAVAILABLE` with a `RetryInfo` when Provex is at its limit. The
//! graph is `otel`, or the one named by the metadata entry `provex-graph`. HTTP/2 only, so
//! no web page can reach it.

use std::net::SocketAddr;
use std::sync::Arc;

use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use prost::Message as _;
use tokio::net::TcpListener;
use tokio::sync::{oneshot, OwnedSemaphorePermit};
use tonic::codec::CompressionEncoding;
use tonic::metadata::MetadataMap;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::server::TcpIncoming;

use super::otlp::{self, Failure, Kind};
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

#[tonic::async_trait]
impl TraceService for Receiver {
    async fn export(
        &self,
        mut request: tonic::Request<ExportTraceServiceRequest>,
    ) -> std::result::Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        // Admitted by `admit`, which holds the place until the export is stored.
        let Some(_place) = request.extensions_mut().remove::<Place>() else {
            return Err(status(&Failure::new(Kind::Internal, "an export was not admitted")));
        };
        let graph = graph(request.metadata()).map_err(|f| status(&f))?;
        let res =
            otlp::export(&self.state, &graph, request.into_inner(), None).await.map_err(|f| status(&f))?;
        Ok(tonic::Response::new(res))
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
        let service = TraceServiceServer::new(Receiver { state })
            .accept_compressed(CompressionEncoding::Gzip)
            .send_compressed(CompressionEncoding::Gzip)
            .max_decoding_message_size(max);
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
