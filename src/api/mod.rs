//! The contract between the core and every UI: the operations (`ops`), their requests
//! (`requests`), the responses and stream messages (`contract`) and the error codes
//! (`errors`) that cross the HTTP boundary of `provex serve` and the IPC boundary of the
//! desktop shell, declared once here. The TypeScript the UI compiles against, its client
//! and the desktop's capability list are generated from these declarations
//! (`typescript`), and a test fails when a committed copy is stale.

mod contract;
pub mod ops;
mod requests;
pub mod typescript;

pub use contract::*;
pub use crate::error::ErrorCode;
pub use requests::*;
