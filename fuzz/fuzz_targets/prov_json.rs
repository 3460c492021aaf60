//! Fuzzes the PROV-JSON importer (`prov::import`): any text is read without panicking, what
//! it refuses or rejects names a line and a reason, and what it keeps exports to PROV-JSON
//! that imports again to the same graph.
#![no_main]

#[path = "../../tests/it/fuzz_regressions/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::prov_json(data));
