//! The sources Provex reads, one folder each: recognising a source's records, parsing them,
//! normalising them into graph deltas, and what that source keeps about them (ledgers,
//! views, store queries). Each format is described in `docs/FORMATS.md`. The vocabulary the
//! sources share is in `model/`, the database in `store/`; the ingest pipeline, the facade and
//! the transports sit above.

pub mod knowledge;
pub mod lineage;
pub mod prov;
pub mod reasoning;
pub mod runtime_events;
pub mod statements;
