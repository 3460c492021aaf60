//! Prompt lineage (seed 002, formats.md §4): how prompts evolve. For now the confidence of an
//! evolution edge and the id of an untracked prompt, exactly as formats.md §4 defines them;
//! ingest, constraints and the `provex lineage` commands build on them (issue 13).

pub mod confidence;
pub mod ids;

pub use confidence::{compare, confidence, cosine, edit_ratio, jaccard, tokens, Breakdown};
pub use ids::prompt_id;
