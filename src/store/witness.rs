//! What a witness keeps of each log it witnesses (src/tlog/witness.rs): the size and root
//! hash it last cosigned, in `provex:witness:<origin>` on its FalkorDB server. Moving it on
//! is one compare-and-set script, so two requests at once cannot roll it back (the race
//! C2SP tlog-witness warns of), and a request sent again after a lost reply changes nothing.

use redis::Value;

use super::Store;
use crate::error::Result;

/// The key of what a witness last cosigned of the log of `origin`.
pub fn witness_key(origin: &str) -> String {
    format!("provex:witness:{origin}")
}

/// Sets KEYS[1] to ARGV[2] when it holds ARGV[1] (empty: absent): 1 when set, 2 when it
/// holds ARGV[2] already (a resent request), else 0 and what it holds.
const ADVANCE: &str = r"
local now = redis.call('GET', KEYS[1])
if now == false then now = '' end
if now == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2])
  return {1, now}
end
if now == ARGV[2] then
  return {2, now}
end
return {0, now}
";

impl Store {
    /// What the witness last cosigned of the log of `origin` (`None`: never).
    pub async fn witness_seen(&self, origin: &str) -> Result<Option<String>> {
        let mut pipe = redis::pipe();
        pipe.cmd("GET").arg(witness_key(origin));
        let (seen,): (Option<String>,) = self.log_cmd(&pipe, false).await?;
        Ok(seen)
    }

    /// Moves what the witness keeps of `origin` from `old` (`None`: nothing) to `new`;
    /// `Err` with what it holds instead when another request moved it first.
    pub async fn witness_advance(
        &self,
        origin: &str,
        old: Option<&str>,
        new: &str,
    ) -> Result<std::result::Result<(), Option<String>>> {
        let mut pipe = redis::pipe();
        pipe.cmd("EVAL").arg(ADVANCE).arg(1).arg(witness_key(origin)).arg(old.unwrap_or("")).arg(new);
        let ((done, now),): ((i64, Value),) = self.log_cmd(&pipe, true).await?;
        if done != 0 {
            return Ok(Ok(()));
        }
        let now = match now {
            Value::BulkString(b) if !b.is_empty() => Some(String::from_utf8_lossy(&b).into_owned()),
            _ => None,
        };
        Ok(Err(now))
    }
}
