//! Prompt lineage (seed 002, formats.md §4): how prompts evolve. For now the agent's records
//! read and checked one by one (`records`), the confidence of an evolution edge and the id of
//! an untracked prompt, exactly as formats.md §4 defines them; storage, the graph constraints
//! and the `provex lineage` commands build on them (issue 13).

pub mod confidence;
pub mod ids;
pub mod records;

pub use confidence::{compare, confidence, cosine, edit_ratio, jaccard, tokens, Breakdown};
pub use ids::prompt_id;
pub use records::{parse_record, Code, EvolutionType, LineageRecord, RecordError, Version};
