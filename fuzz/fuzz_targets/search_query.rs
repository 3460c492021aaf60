//! Fuzzes the search-across-graphs query reader (`provex search`, `GET /api/search`): see
//! `checks::search_query`.
#![no_main]

#[path = "../../tests/it/fuzz_regressions/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::search_query(data));
