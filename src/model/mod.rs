//! The PROV graph model every source is normalised into before it reaches FalkorDB.

pub mod graph;
pub mod indexes;
mod props;
pub mod vocab;

pub use graph::{Edge, GraphDelta, Node, NodeId, NodeRef, PropValue, Props, PropsExt};
pub use vocab::{A2aRelation, BaseType, EdgeKind, Label, ProvRelation, RelType};
