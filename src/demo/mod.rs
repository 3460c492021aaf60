//! Demonstration data the CLI can generate: reproducible streams that exercise the ingesters
//! and checks end to end.

pub mod council;
