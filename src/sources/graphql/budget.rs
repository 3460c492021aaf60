//! What one GraphQL request may return, shared by all its resolvers: a number of list items
//! (rows, summed over aliases and nesting) and of bytes. The complexity limit counts fields
//! selected, not rows read: 50 aliases of `triples` pass it and each may read 10,000
//! statements, all resolved at once. Each list resolver reserves its rows from the request's
//! budget before it reads anything (so a request past it fails before it allocates), gives
//! back what it did not use, and charges the bytes of what it returns.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The most list items one request may return, over all its fields.
pub const MAX_ROWS: usize = 20_000;
/// The most bytes of statement text one request may return.
pub const MAX_BYTES: usize = 32 << 20;

/// A request's remaining rows and bytes.
#[derive(Debug)]
pub struct Budget {
    rows: AtomicUsize,
    bytes: AtomicUsize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new(MAX_ROWS, MAX_BYTES)
    }
}

/// Takes up to `want` from `pool`; what it got.
fn take(pool: &AtomicUsize, want: usize) -> usize {
    let mut got = 0;
    let _ = pool.fetch_update(Ordering::AcqRel, Ordering::Acquire, |left| {
        got = left.min(want);
        Some(left - got)
    });
    got
}

impl Budget {
    pub fn new(rows: usize, bytes: usize) -> Budget {
        Budget { rows: AtomicUsize::new(rows), bytes: AtomicUsize::new(bytes) }
    }

    fn exhausted(what: &str) -> String {
        format!(
            "this request's answer is past its budget ({MAX_ROWS} list items and {} MiB over all \
             its fields) at {what}: ask for fewer aliases, or narrow the arguments",
            MAX_BYTES >> 20
        )
    }

    /// Reserves up to `want` rows for a list field; an error when none are left.
    pub fn reserve(&self, field: &str, want: usize) -> Result<usize, String> {
        match take(&self.rows, want) {
            0 if want > 0 => Err(Budget::exhausted(field)),
            got => Ok(got),
        }
    }

    /// Charges `n` rows a list field already holds; an error when they are past the budget.
    pub fn charge_rows(&self, field: &str, n: usize) -> Result<(), String> {
        if take(&self.rows, n) < n {
            self.rows.store(0, Ordering::Release);
            return Err(Budget::exhausted(field));
        }
        Ok(())
    }

    /// Gives back rows reserved and not used.
    pub fn refund(&self, rows: usize) {
        self.rows.fetch_add(rows, Ordering::AcqRel);
    }

    /// Charges the bytes of what a field returns; an error when they are past the budget.
    pub fn charge_bytes(&self, field: &str, bytes: usize) -> Result<(), String> {
        if take(&self.bytes, bytes) < bytes {
            self.bytes.store(0, Ordering::Release);
            return Err(Budget::exhausted(field));
        }
        Ok(())
    }

    /// The rows left (for tests).
    pub fn rows_left(&self) -> usize {
        self.rows.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_share_one_pool() {
        let b = Budget::new(25, 100);
        assert_eq!(b.reserve("a", 10), Ok(10));
        assert_eq!(b.reserve("b", 10), Ok(10));
        assert_eq!(b.reserve("c", 10), Ok(5), "what is left");
        assert!(b.reserve("d", 10).unwrap_err().contains("at d"));
        b.refund(3);
        assert_eq!(b.rows_left(), 3);
        assert_eq!(b.reserve("e", 0), Ok(0), "nothing asked, nothing refused");
        assert!(b.charge_bytes("f", 60).is_ok());
        assert!(b.charge_bytes("g", 60).is_err());
        assert!(b.charge_bytes("h", 1).is_err(), "spent");
    }
}
