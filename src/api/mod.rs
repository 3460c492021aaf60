//! The contract between the core and every UI: the requests, responses and stream messages
//! that cross the HTTP boundary of `provex serve` and the IPC boundary of the desktop shell,
//! declared once here. The TypeScript the UI compiles against is generated from these types
//! (`typescript`), and a test fails when the committed file is stale.

mod contract;
pub mod typescript;

pub use contract::*;
