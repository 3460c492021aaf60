//! Fuzzes the RFC 8785 canonicaliser: any JSON value is canonicalised without panicking, the
//! output is JSON that canonicalises to itself, and it agrees byte for byte with the
//! `serde_json_canonicalizer` crate.
#![no_main]

use libfuzzer_sys::fuzz_target;
use provex::a2ap::canonical::canonical_string;

fuzz_target!(|text: &str| {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else { return };
    let ours = canonical_string(&value);
    let again: serde_json::Value = serde_json::from_str(&ours).expect("canonical output is JSON");
    assert_eq!(canonical_string(&again), ours, "not idempotent");
    if let Ok(theirs) = serde_json_canonicalizer::to_string(&value) {
        assert_eq!(ours, theirs, "disagrees with serde_json_canonicalizer");
    }
});
