//! A read-only query under a time limit of its own, shorter than [`super::QUERY_TIMEOUT_MS`]:
//! for overviews that read many graphs one after another (the Runs view), where one slow
//! graph must cost a bounded time and say so rather than hold up the whole list.

use std::time::Duration;

use falkordb::FalkorValue;

use super::{classify, missing_graph, Store};
use crate::error::{Error, Result};

/// How long past its own limit the server's answer is waited for (it may be queued behind
/// other queries before its limit starts).
const GRACE: Duration = Duration::from_millis(500);

/// Whether a query error is FalkorDB's "Query timed out".
pub fn is_timeout(e: &Error) -> bool {
    match e {
        Error::Timeout(_) => true,
        Error::Query(m) => m.to_ascii_lowercase().contains("timed out"),
        _ => false,
    }
}

impl Store {
    /// Runs a read-only query that the server ends after `limit` (and this side stops
    /// waiting for shortly after); either way the error is [`Error::Timeout`].
    pub async fn run_ro_within(
        &self,
        graph: &str,
        cypher: &str,
        params: Vec<(&str, FalkorValue)>,
        limit: Duration,
    ) -> Result<Vec<Vec<FalkorValue>>> {
        let ms = i64::try_from(limit.as_millis()).unwrap_or(i64::MAX).max(1);
        let said = || Error::Timeout(format!("graph {graph} did not answer within {ms} ms"));
        let params = &params;
        let run = self.retrying(None, || async move {
            let mut g = self.graph(graph).await?;
            let _planned = self.shared(graph).await;
            let mut q = g.ro_query(cypher).with_timeout(ms);
            for (k, v) in params.clone() {
                q = q.with_param(k, v);
            }
            let result = q.execute().await.map_err(|e| missing_graph(classify(e, &self.url()), graph))?;
            Ok(result.data.into_values_lossy().collect::<Vec<_>>())
        });
        match tokio::time::timeout(limit + GRACE, run).await {
            Ok(Err(e)) if is_timeout(&e) => Err(said()),
            Ok(r) => r,
            Err(_) => Err(said()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn falkordbs_time_out_is_a_timeout_and_other_errors_are_not() {
        assert!(is_timeout(&Error::Query("Query timed out".into())));
        assert!(is_timeout(&Error::Timeout("x".into())));
        assert!(!is_timeout(&Error::Query("Invalid input".into())));
        assert!(!is_timeout(&Error::NotFound { what: "graph", name: "g".into() }));
    }
}
