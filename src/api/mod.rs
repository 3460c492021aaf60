//! The contract between the core and every UI: how operations are declared (`ops`), their
//! requests (`requests`), the responses and stream messages (`contract`) and the error
//! codes (`crate::error::ErrorCode`) that cross the HTTP boundary of `provex serve` and the
//! IPC boundary of the desktop shell. It sits below the facade and the sources: the
//! operations are declared once where what they run is in reach (`facade::calls`), from
//! this module's machinery. The TypeScript the UI compiles against, its client and the
//! desktop's capability list are generated from those declarations (`typescript`, with
//! the types registry `registry`), and a test fails when a committed copy is stale.

mod columns;
mod columns_kept;
mod contract;
pub mod ops;
pub mod registry;
mod requests;
pub mod typescript;

pub use crate::error::ErrorCode;
pub use columns::*;
pub use columns_kept::Columns;
pub use contract::*;
pub use requests::*;
