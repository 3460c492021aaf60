//! Fuzzes the A2AP document parser (JSON Lines or a JSON array of documents). It must never
//! panic, and every rejected record must say why and on which line of the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use provex::a2ap::parse_documents;

fuzz_target!(|text: &str| {
    let lines = text.split('\n').count();
    for result in parse_documents(text) {
        if let Err(e) = result {
            assert!(!e.reason.trim().is_empty(), "rejected without a reason");
            assert!(e.position.line >= 1 && e.position.line <= lines, "line {} of {lines}", e.position.line);
        }
    }
});
