//! What every source's GraphQL resolvers read (`statements/graphql.rs`, `knowledge/graphql.rs`):
//! the session, the graph a request is about, `knowledge/query`'s bounds and the request's
//! budget of rows and bytes. It sits here, below the sources' resolvers, so that a source's
//! schema lives in its folder; the schema's root, the engine and the guards are
//! `crate::graphql`'s, above the sources.

pub mod budget;

use std::ops::Deref;
use std::sync::Arc;

use super::Session;

/// The session a request runs in: the facade's `Provex`, which dereferences to the
/// sources' [`Session`].
pub type SessionRef = Arc<dyn Deref<Target = Session> + Send + Sync>;

/// What every resolver reads: the session and the graph the request is about.
#[derive(Clone)]
pub struct Ctx {
    pub session: SessionRef,
    pub graph: String,
    /// What `knowledge/query` asked of every answer.
    pub bounds: Bounds,
    /// The rows and bytes the request may still return, shared by all its resolvers.
    pub budget: Arc<budget::Budget>,
}

impl Ctx {
    /// Charges `items` (a list a resolver holds) to the request's budget.
    pub fn charged<T>(&self, field: &str, items: Vec<T>) -> async_graphql::Result<Vec<T>> {
        self.budget.charge_rows(field, items.len())?;
        Ok(items)
    }
}

/// `knowledge/query`'s `requiredCertainty` and `maxAgeSeconds`, applied to every answer of
/// one request.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bounds {
    /// `triples` answers no statement below it.
    pub required_certainty: Option<f64>,
    /// Only statements made at or after this time (milliseconds since the epoch): for
    /// `triples`, the update that last added the statement; for A2AP's statements, their
    /// `generatedAtTime` (a statement without one is left out).
    pub since_ms: Option<i64>,
}

impl Bounds {
    /// The bounds of `requiredCertainty` and `maxAgeSeconds`, the age counted back from now.
    pub fn new(required_certainty: Option<f64>, max_age_seconds: Option<u64>) -> Bounds {
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        let since_ms = max_age_seconds
            .map(|a| now_ms.saturating_sub(i64::try_from(a.saturating_mul(1000)).unwrap_or(i64::MAX)));
        Bounds { required_certainty, since_ms }
    }

    /// Whether an A2AP statement made at `generated_at` (RFC 3339) is young enough.
    pub fn admits_time(&self, generated_at: Option<&str>) -> bool {
        let Some(since) = self.since_ms else { return true };
        generated_at
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
            .is_some_and(|t| t.timestamp_millis() >= since)
    }
}
