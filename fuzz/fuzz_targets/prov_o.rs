//! Fuzzes the PROV-O Turtle importer (`prov::turtle`): any text is read without panicking,
//! what it refuses or rejects names a line and a reason, and a Turtle export of what it kept
//! imports again without rejections.
#![no_main]

#[path = "../../tests/it/fuzz_regressions/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::prov_o(data));
