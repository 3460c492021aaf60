//! Fuzzes the prompt-lineage reader (`lineage::parse_record` + `lineage::apply`): any lines
//! are read without panicking, rejections carry the seed's codes, and what is kept keeps the
//! graph constraints and is the same when read again.
#![no_main]

#[path = "../../tests/it/fuzz_regressions/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::lineage(data));
