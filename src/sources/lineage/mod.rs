//! Prompt lineage (docs/FORMATS.md "Prompt lineage"): how prompts evolve. The agent's records read and
//! checked one by one (`records`), checked against the graph's lineages (`book`: no cycle,
//! one root, time order, known parents) and turned into graph upserts (`apply`); the
//! confidence of an evolution edge and the id of an untracked prompt exactly as docs/FORMATS.md "Prompt lineage"
//! defines them; an embeddings client for the semantic part; and the operations that read
//! lineages back (`ops`, `commands`).

pub mod apply;
pub mod book;
pub mod commands;
pub mod confidence;
pub mod dag;
pub mod embeddings;
pub mod ids;
pub mod ops;
pub mod records;
pub mod similar;
pub mod source;
pub mod stored;
pub mod views;

pub use apply::{apply, Applied, Semantic};
pub use book::Book;
pub use confidence::{compare, confidence, cosine, edit_ratio, jaccard, tokens, Breakdown};
pub use ids::prompt_id;
pub use records::{parse_record, Code, EvolutionType, LineageRecord, RecordError, Version};
pub use source::LineageContext;
