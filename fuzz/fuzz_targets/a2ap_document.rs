//! Fuzzes the A2AP document parser (JSON Lines or a JSON array of documents). It must never
//! panic, and every rejected record must say why and on which line of the input.
#![no_main]

#[path = "../../tests/it/fuzz_regressions/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::a2ap_document(data));
