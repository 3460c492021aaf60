//! Fuzzes the RESP reply reader of whole-graph reads (`provex diff`): any bytes from the
//! server are read without panicking, and what it reads as compact graph rows the generic
//! parser and the compact decoder read the same.
#![no_main]

#[path = "../../tests/it/fuzz_regressions/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::resp_reply(data));
