//! Typed errors of the layout module (bad graph files, unknown ids).

use thiserror::Error;

/// Everything that can go wrong when building or extending a layout.
#[derive(Debug, Error)]
pub enum LayoutError {
    /// The graph file is not valid JSON of the expected shape.
    #[error("graph file is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// Two nodes share an id.
    #[error("duplicate node id `{0}`")]
    DuplicateNode(String),
    /// An edge names a node that does not exist.
    #[error("edge {edge} ({source_id} -> {target_id}) names unknown node `{missing}`")]
    UnknownNode {
        /// Position of the edge in its list.
        edge: usize,
        /// The edge's source id.
        source_id: String,
        /// The edge's target id.
        target_id: String,
        /// The id that was not found.
        missing: String,
    },
    /// A node id given to a view does not exist.
    #[error("no node with id `{0}`")]
    NoSuchNode(String),
    /// A `time` string that is neither a number nor an ISO 8601 date-time.
    #[error("node `{node}` has an unreadable time `{time}`")]
    BadTime {
        /// The node id.
        node: String,
        /// The time text.
        time: String,
    },
}
