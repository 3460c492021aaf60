//! Knowledge-graph statements of the knowledge-graph extension's A2A extension (docs/FORMATS.md, "Knowledge-graph statements"): their wire types,
//! the id that makes the same triple in the same graph one node, the storage as PROV, the
//! alignment rules an update is checked against, and the change events subscribers get.

pub mod alignment;
pub mod model;
pub mod store;

pub use alignment::{Alignment, Violation};
pub use model::{
    statement_id, ChangeEvent, KgObject, KgPredicate, KgStatement, KgSubject, Patch, PatchOp, TripleFilter,
    UpdateParams, UpdateResult,
};
