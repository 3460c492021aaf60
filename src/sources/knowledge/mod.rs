//! Knowledge-graph statements of the A2A knowledge extension (docs/FORMATS.md "Knowledge-graph statements"): their wire types,
//! the id that makes the same triple in the same graph one node, the storage as PROV, the
//! alignment rules an update is checked against, the change events subscribers get, and the
//! operations that update statements and read them back (`ops`).

pub mod alignment;
pub mod card;
pub mod graphql;
pub mod model;
pub mod ops;
pub mod rpc;
pub mod store;
pub mod subscription;

pub use alignment::{Alignment, Violation};
pub use model::{
    statement_id, ChangeEvent, KgObject, KgPredicate, KgStatement, KgSubject, Patch, PatchOp, TripleFilter,
    UpdateParams, UpdateResult,
};
