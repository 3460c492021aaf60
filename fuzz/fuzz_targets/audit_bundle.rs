//! Fuzzes the audit bundle reader and check (`provex verify BUNDLE`) and the trust file
//! reader (`--trust FILE`): see `checks::audit_bundle`.
#![no_main]

#[path = "../../tests/it/fuzz_regressions/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::audit_bundle(data));
