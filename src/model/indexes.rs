//! Properties the store indexes besides every label's `name`: lookups a source's read views
//! rely on, kept in the shared vocabulary so the store creates them without knowing sources.

use super::vocab::Label;

/// The property holding a span's trace id (docs/FORMATS.md "OpenTelemetry traces").
pub const OTEL_TRACE_ID: &str = "otel:trace_id";

/// Every label a span's node may have, the placeholder's `Span` first: each has an index on
/// [`OTEL_TRACE_ID`], so a trace's spans are found without a scan.
pub const TRACE_LABELS: &[Label] = &[
    Label::Span,
    Label::LlmCall,
    Label::ToolCall,
    Label::AgentInvocation,
    Label::Retrieval,
    Label::Embedding,
    Label::Evaluation,
];

/// Each `(label, property)` pair with an index of its own.
pub fn property_indexes() -> impl Iterator<Item = (Label, &'static str)> {
    TRACE_LABELS.iter().map(|l| (*l, OTEL_TRACE_ID))
}
