//! Fuzzes the tamper-evident log's proof files and signed checkpoints (`provex log verify
//! FILE`): see `checks::tlog_proof`.
#![no_main]

#[path = "../../tests/it/fuzz_regressions/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::tlog_proof(data));
