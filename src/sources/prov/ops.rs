//! The PROV operation: a graph exported as W3C PROV, read whole as it is stored, mapped to a
//! PROV document (`prov::doc`) and written in the format asked for.

use crate::error::Result;
use crate::sources::prov::{Document, ProvFormat};
use crate::sources::Session;

impl Session {
    /// Graph `graph` as a PROV document in `format`.
    pub async fn export_prov(&self, graph: &str, format: ProvFormat) -> Result<String> {
        let (nodes, edges) = self.store.read_all(graph).await?;
        let doc = Document::from_graph(graph, &nodes, &edges);
        Ok(format.write(&doc))
    }
}
