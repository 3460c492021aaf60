//! Fuzzes the A2A line parser: one JSONL line of a runtime `ProvEvent` into a graph delta.
//! It must never panic, and a rejected line must come with a reason.
#![no_main]

use libfuzzer_sys::fuzz_target;
use provex::ingest::{normalize_line, Format};
use provex::model::GraphDelta;

fuzz_target!(|data: &[u8]| {
    let mut delta = GraphDelta::default();
    if let Err(reason) = normalize_line(Format::A2a, data, &mut delta) {
        assert!(!reason.trim().is_empty(), "rejected without a reason");
    }
});
