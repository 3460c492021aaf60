//! Provex core: ingest provenance from AI systems into FalkorDB under W3C PROV semantics,
//! query and trace it, and lay it out. The CLI, the HTTP server and the desktop shell all
//! go through [`facade::Provex`].

// The falkordb client's async futures nest deeply.
#![recursion_limit = "256"]

pub mod api;
pub mod ask;
pub mod demo;
pub mod diff;
pub mod error;
pub mod facade;
pub mod graphql;
pub mod model;
pub mod openai;
pub mod query_guard;

pub use error::{Error, Result};
pub mod ingest;
pub mod layout;
pub mod search;
pub mod serve;
pub mod sources;
pub mod store;
pub mod tlog;
