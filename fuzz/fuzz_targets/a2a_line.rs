//! Fuzzes the A2A line parser: one JSONL line of a runtime `ProvEvent` into a graph delta.
//! It must never panic, and a rejected line must come with a reason.
#![no_main]

#[path = "../../tests/it/fuzz_regressions/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::a2a_line(data));
