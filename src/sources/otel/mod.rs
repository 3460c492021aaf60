//! OpenTelemetry traces of AI agents (docs/FORMATS.md "OpenTelemetry traces"): OTLP requests
//! decoded from protobuf or OTLP JSON (`wire`), the GenAI and OpenInference conventions read
//! from span attributes (`conventions`), the messages, tool arguments and results that flowed
//! (`messages`; the GenAI lists read in place by `msg` through `json_tree`), ties to other
//! sources' nodes (`links`), which spans can be stored (`check`),
//! the mapping of spans onto PROV nodes and edges (`normalise`, their attributes as
//! properties through `props`), parents that arrived after
//! their children (`placeholders`) and the source the ingest pipeline reads (`source`); what
//! the explorer reads back (`views`, `ops`, through the indexed reads of `queries`); where an
//! export's time goes (`timings`).

pub mod check;
pub mod conventions;
pub mod json_tree;
pub mod links;
pub mod messages;
pub mod msg;
pub mod normalise;
pub mod ops;
pub mod placeholders;
mod props;
pub mod queries;
pub mod source;
pub mod timings;
pub mod views;
pub mod wire;

pub use normalise::{normalise, RejectedSpan, SpanCounts};
pub use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;

#[cfg(test)]
mod golden_tests;
