//! A place where an audit bundle disagrees with itself: what its checks (`check`, `log`) report.

use serde::{Deserialize, Serialize};

/// One place where a bundle disagrees with itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Where: `provex:report.documents[3].signature`, `provex:slices[2]`, `provex:signature`.
    pub place: String,
    pub reason: String,
}

pub(crate) fn finding(place: impl Into<String>, reason: impl Into<String>) -> Finding {
    Finding { place: place.into(), reason: reason.into() }
}
