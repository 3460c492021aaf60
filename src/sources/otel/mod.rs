//! OpenTelemetry traces of AI agents (docs/FORMATS.md "OpenTelemetry traces"): what the
//! explorer reads back from the stored spans.

pub mod views;
