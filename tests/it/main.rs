//! Integration tests against a real FalkorDB server (one per test binary).

// The facade's futures (the falkordb client's) nest deeply.
#![recursion_limit = "256"]

mod common;

mod a2a_mapping;
mod a2ap;
mod ask;
mod bulk;
mod bundle;
mod chaos;
mod cli;
mod clusters;
mod clusters_live;
mod council;
mod deep_inputs;
mod diff;
mod durable;
mod events;
mod examples;
mod fuzz_regressions;
mod ingest;
mod jargon;
mod knowledge;
mod knowledge_client;
mod layout;
mod limits;
mod lineage;
mod live;
mod modules;
mod origin;
mod otel_ingest;
mod otel_ingest_props;
mod otel_producers;
mod otel_views;
mod otlp_grpc;
mod otlp_http;
mod owner;
mod paths;
mod props_ask;
mod props_canonical;
mod props_knowledge;
mod props_lineage;
mod props_parsers;
mod props_prov;
mod props_resp;
mod props_trustgraph;
mod prov_export;
mod prov_import;
mod prov_round_trip;
mod raw_http;
mod reads;
mod serve;
mod server;
mod supervise;
mod tlog;
mod tlog_bundle;
mod tlog_proofs;
mod tlog_props;
mod tlog_whole;
mod tlog_witness;
mod trustgraph;
