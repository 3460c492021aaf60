//! Fuzzes the FalkorDB URL (`--falkordb`: one server, or a Redis Cluster by its seed nodes,
//! with `read_from`): see `url_checks::cluster_url`.
#![no_main]

#[path = "../../tests/it/fuzz_regressions/url_checks.rs"]
mod url_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| url_checks::cluster_url(data));
