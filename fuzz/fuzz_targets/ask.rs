//! Fuzzes `ask`'s reading of a chat endpoint's reply: the completion body, the Cypher taken
//! out of it and the write check (no panic, reasons given, extraction stable).
#![no_main]

#[path = "../../tests/it/fuzz_regressions/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::ask(data));
