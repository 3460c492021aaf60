//! Fuzzes the RFC 8785 canonicaliser: any JSON value is canonicalised without panicking, the
//! output is JSON that canonicalises to itself, and it agrees byte for byte with the
//! `serde_json_canonicalizer` crate.
#![no_main]

#[path = "../../tests/it/fuzz_regressions/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::canonical(data));
