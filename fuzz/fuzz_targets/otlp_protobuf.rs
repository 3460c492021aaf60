//! Fuzzes the OTLP protobuf decoder and the span normaliser (docs/FORMATS.md
//! "OpenTelemetry traces"): no panic, every span taken or refused with a reason, and a
//! decoded request reads the same after encoding it again.
#![no_main]

#[path = "../../tests/it/fuzz_regressions/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::otlp_protobuf(data));
