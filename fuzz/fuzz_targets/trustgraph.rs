//! Fuzzes the TrustGraph stream reader (`trustgraph::StreamState`): any lines are read
//! without panicking, refusals carry a reason, edges join nodes that exist, labels come from
//! the vocabulary only, and the same lines give the same graph.
#![no_main]

#[path = "../../tests/it/fuzz_regressions/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::trustgraph(data));
