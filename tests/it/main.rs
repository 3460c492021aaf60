//! Integration tests against a real FalkorDB server (one per test binary).

mod common;

mod a2a_mapping;
mod a2ap;
mod ask;
mod bulk;
mod bundle;
mod cli;
mod clusters;
mod clusters_live;
mod council;
mod diff;
mod durable;
mod events;
mod fuzz_regressions;
mod ingest;
mod knowledge;
mod knowledge_client;
mod layout;
mod lineage;
mod live;
mod modules;
mod paths;
mod props_canonical;
mod props_knowledge;
mod props_lineage;
mod props_parsers;
mod props_prov;
mod props_resp;
mod props_trustgraph;
mod prov_export;
mod prov_import;
mod reads;
mod serve;
mod server;
mod trustgraph;
