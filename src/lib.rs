//! Provex core: ingest provenance from AI systems into FalkorDB under W3C PROV semantics,
//! query and trace it, and lay it out. The CLI, the HTTP server and the desktop shell all
//! go through [`facade::Provex`].

pub mod error;
pub mod model;

pub use error::{Error, Result};
