//! Fuzzes what the tamper-evident log's witnessing reads from outside: `add-checkpoint`
//! requests, cosigned checkpoints, a witness's answers, and bundles checked with
//! `verify --witness`: see `tlog_checks::tlog_witness`.
#![no_main]

#[path = "../../tests/it/fuzz_regressions/tlog_checks.rs"]
mod tlog_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| tlog_checks::tlog_witness(data));
