//! The id Provex gives a prompt a `LineageInput` record brings untracked, doing the agent's
//! work (docs/FORMATS.md, "Prompt lineage"): UUIDv5 in the namespace the agent uses (RFC 4122's DNS one) of
//! `"<session_id>|<timestamp as written>|<sha256 hex of the prompt content>"`, so the same
//! record ingested twice is the same node.

use sha2::{Digest, Sha256};
use uuid::Uuid;

/// The namespace `docs/FORMATS.md`, "Prompt lineage" names: `6ba7b810-…`, RFC 4122's DNS namespace.
pub const NAMESPACE: Uuid = Uuid::from_u128(0x6ba7b810_9dad_11d1_80b4_00c04fd430c8);

/// The node id of prompt `content` from session `session_id` at `timestamp` (as written in
/// the record, not reformatted).
pub fn prompt_id(session_id: &str, timestamp: &str, content: &str) -> Uuid {
    let digest = Sha256::digest(content.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    Uuid::new_v5(&NAMESPACE, format!("{session_id}|{timestamp}|{hex}").as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_python_uuid5_over_the_same_name() {
        // python3: uuid.uuid5(uuid.NAMESPACE_DNS, "sess-1|2025-10-14T18:02:11Z|" + sha256(content).hexdigest())
        let id = prompt_id(
            "sess-1",
            "2025-10-14T18:02:11Z",
            "Summarise the council meeting in five bullet points.",
        );
        assert_eq!(id.to_string(), "ebef5154-228b-51ae-be13-d91c8f277280");
        assert_eq!(NAMESPACE, Uuid::NAMESPACE_DNS);
    }

    #[test]
    fn the_timestamp_is_taken_as_written() {
        let a = prompt_id("s", "2025-10-14T18:02:11Z", "p");
        assert_ne!(a, prompt_id("s", "2025-10-14T18:02:11+00:00", "p"), "no reformatting");
        assert_eq!(a, prompt_id("s", "2025-10-14T18:02:11Z", "p"), "stable");
        assert_ne!(a, prompt_id("s", "2025-10-14T18:02:11Z", "q"));
        assert_ne!(a, prompt_id("t", "2025-10-14T18:02:11Z", "p"));
    }
}
