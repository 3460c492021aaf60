//! Fuzzes `ask`'s check against FalkorDB's own parser on a real server started for this
//! process: the server reads strings, quoted names and comments as the check's lexer does,
//! and what the check lets run plans as a bounded read (docs/ASK.md).
#![no_main]

#[path = "../../tests/it/fuzz_regressions/differential.rs"]
mod differential;

libfuzzer_sys::fuzz_target!(|data: &[u8]| differential::check(data));
