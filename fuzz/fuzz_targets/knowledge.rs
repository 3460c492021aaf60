//! Fuzzes the knowledge-graph statements endpoint's parsing (`knowledge::rpc`, update params, statement
//! ids, subscription documents, alignment rules): no panic, refusals with codes and reasons,
//! ids stable when read again.
#![no_main]

#[path = "../../tests/it/fuzz_regressions/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::knowledge(data));
