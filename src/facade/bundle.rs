//! Audit bundles of a graph's signed statements (`provex bundle`, docs/FORMATS.md "Audit
//! bundles"): the statements, their evidence and trails from the graph's ledger
//! (`sources/statements/`), with the proofs of the graph's tamper-evident log, which the
//! session keeps (`tlog.rs`).

use std::path::Path;

use super::Provex;
use crate::error::{Error, Result};
use crate::sources::statements::KeyFile;

impl Provex {
    /// An audit bundle of `statements` (every statement when empty) of a graph, as JSON-LD
    /// text, signed with `key` when one is given.
    pub async fn bundle(&self, graph: &str, statements: &[String], key: Option<&Path>) -> Result<String> {
        self.bundle_since(graph, statements, key, None).await
    }

    /// [`Provex::bundle`] with the log's proofs since an earlier checkpoint (or bundle).
    pub async fn bundle_since(
        &self,
        graph: &str,
        statements: &[String],
        key: Option<&Path>,
        since: Option<&[u8]>,
    ) -> Result<String> {
        let key = match key {
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
                Some(
                    KeyFile::from_json(&text)
                        .map_err(|reason| Error::Input { path: path.to_owned(), reason })?,
                )
            }
            None => None,
        };
        let made = self
            .with_ledger(graph, |l| crate::sources::statements::bundle::make(l, graph, statements))
            .await?;
        let mut bundle = made.map_err(Error::Usage)?;
        if bundle.statements.is_empty() {
            return Err(Error::NotFound { what: "A2AP statements in graph", name: graph.to_owned() });
        }
        bundle.log = self.bundle_log(graph, &bundle, since).await?;
        if let Some(k) = key {
            crate::sources::statements::bundle::sign(&mut bundle, &k).map_err(Error::Usage)?;
        }
        serde_json::to_string_pretty(&bundle).map(|t| t + "\n").map_err(|e| Error::Server(e.to_string()))
    }
}
