//! Reads a stream (a request body, standard input) as its bytes arrive, on the async
//! runtime: a stream that sends nothing holds no thread, only its state. Lines are split as
//! the bytes come; a line that ends inside the bytes at hand is read where it lies, one that
//! spans pieces is gathered in a buffer counted against a [`LineBudget`] shared by every
//! stream of the server, so that many long lines at once cannot take all the memory. A line
//! over the length cap is rejected (only its head and hash are kept) and the stream goes on.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::{Stream, StreamExt};
use tokio::sync::mpsc;

use super::reader::{self, Flow, LineSink, Partial};
use super::{Chunk, FileIngest, FileReport, IngestOptions, RejectsFile};
use crate::error::{Error, Result};

/// The memory every stream's unfinished lines may hold together, in bytes.
#[derive(Debug, Clone)]
pub struct LineBudget {
    limit: usize,
    used: Arc<AtomicUsize>,
}

impl LineBudget {
    pub fn new(limit: usize) -> LineBudget {
        LineBudget { limit, used: Arc::new(AtomicUsize::new(0)) }
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Bytes held now.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    fn take(&self, n: usize) -> bool {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |u| {
                u.checked_add(n).filter(|t| *t <= self.limit)
            })
            .is_ok()
    }

    fn give(&self, n: usize) {
        self.used.fetch_sub(n, Ordering::AcqRel);
    }
}

/// Below this, a line's buffer is kept between lines (and counted as held).
const KEEP_BUFFER: usize = 64 << 10;

/// Bytes at hand past which parsing leaves the async worker (`block_in_place`).
const HEAVY: usize = 1 << 20;

/// A line that did not fit the budget.
struct OverBudget {
    line: u64,
}

/// Splits pieces of a stream into lines, holding the unfinished one under the budget.
struct Splitter {
    line: Partial,
    number: u64,
    offset: u64,
    max: usize,
    budget: Option<LineBudget>,
    /// Bytes of the budget this stream holds.
    reserved: usize,
}

impl Splitter {
    /// Gives back what the buffer no longer holds.
    fn settle(&mut self) {
        let held = self.line.held();
        if held < self.reserved {
            if let Some(b) = &self.budget {
                b.give(self.reserved - held);
            }
            self.reserved = held;
        }
    }

    fn feed(&mut self, data: &[u8], sink: &mut (impl LineSink + ?Sized)) -> Result<Flow, OverBudget> {
        let mut rest = data;
        while !rest.is_empty() {
            let (piece, done) = match rest.iter().position(|b| *b == b'\n') {
                Some(i) => (&rest[..=i], true),
                None => (rest, false),
            };
            rest = &rest[piece.len()..];
            self.offset += piece.len() as u64;
            // A whole line within the cap is read where it lies (a longer one goes the way of
            // a long line, so that the verdict does not depend on where pieces were cut).
            if done && self.line.is_empty() && piece.len() <= self.max.saturating_add(2) {
                self.number += 1;
                if let Flow::Stop = reader::emit_bytes(piece, self.number, self.offset, self.max, sink) {
                    return Ok(Flow::Stop);
                }
                continue;
            }
            if self.line.fits(piece.len(), self.max) {
                let before = self.line.held();
                self.line.reserve(piece.len(), self.max);
                let grown = self.line.held().saturating_sub(before);
                if grown > 0 {
                    if let Some(b) = &self.budget {
                        if !b.take(grown) {
                            self.line.shrink(before);
                            return Err(OverBudget { line: self.number + 1 });
                        }
                    }
                    self.reserved += grown;
                }
            }
            self.line.push(piece, self.max);
            self.settle();
            if done {
                self.number += 1;
                let flow = reader::emit(&self.line, self.number, self.offset, self.max, sink);
                self.line.clear();
                self.line.shrink(KEEP_BUFFER);
                self.settle();
                if let Flow::Stop = flow {
                    return Ok(Flow::Stop);
                }
            }
        }
        Ok(Flow::Continue)
    }

    /// The end of the stream: a last line without a newline is passed on.
    fn end(&mut self, sink: &mut (impl LineSink + ?Sized)) {
        if !self.line.is_empty() {
            self.number += 1;
            reader::emit(&self.line, self.number, self.offset, self.max, sink);
            self.line.clear();
        }
    }
}

impl Drop for Splitter {
    fn drop(&mut self) {
        if let Some(b) = &self.budget {
            b.give(self.reserved);
        }
    }
}

/// Runs `f` off the async worker when the runtime allows it (a multi-threaded one): parsing
/// a long line, or asking an embeddings endpoint, must not hold up other requests.
fn off_worker<T>(heavy: bool, f: impl FnOnce() -> T) -> T {
    let multi = tokio::runtime::Handle::try_current()
        .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
    if heavy && multi {
        tokio::task::block_in_place(f)
    } else {
        f()
    }
}

/// What a body error means for the client.
fn body_error(name: &Path, e: std::io::Error) -> Error {
    match e.kind() {
        std::io::ErrorKind::TimedOut => Error::Timeout(e.to_string()),
        std::io::ErrorKind::FileTooLarge => Error::PayloadTooLarge(e.to_string()),
        _ => Error::BadRequest(format!("{}: the body could not be read: {e}", name.display())),
    }
}

/// Reads `source` as it arrives and sends batches to `tx`, as [`super::read_stream`] does on
/// a thread. An error of the stream (a malformed body, an idle one cut by the server) or a
/// line that does not fit the budget ends the read with an error, once every whole line
/// before it was sent on; the error says how many there were.
pub async fn read<B: AsRef<[u8]>>(
    name: &Path,
    mut source: impl Stream<Item = std::io::Result<B>> + Unpin,
    opts: &IngestOptions,
    rejects: &mut RejectsFile,
    keep_following: &mut (dyn FnMut() -> bool + Send),
    tx: &mpsc::Sender<Chunk>,
) -> Result<FileReport> {
    let outbox: Arc<Mutex<Vec<Chunk>>> = Arc::default();
    let (out, closed) = (outbox.clone(), tx.clone());
    let mut send = move |c: Chunk| {
        out.lock().unwrap_or_else(PoisonError::into_inner).push(c);
        !closed.is_closed()
    };
    let mut state = FileIngest::new(name, opts.format, opts, true, rejects, keep_following, &mut send);
    let mut split = Splitter {
        line: Partial::default(),
        number: 0,
        offset: 0,
        max: opts.max_line_bytes,
        budget: opts.line_budget.clone(),
        reserved: 0,
    };
    let blocking = opts.lineage.as_ref().is_some_and(|l| l.blocks);
    let poll = opts.poll.max(Duration::from_millis(5));
    let mut failure = None;
    loop {
        let flow = match tokio::time::timeout(poll, source.next()).await {
            // Nothing new for now: what is buffered goes out.
            Err(_) => state.idle(),
            Ok(None) => break,
            Ok(Some(Err(e))) => {
                failure = Some(body_error(name, e));
                break;
            }
            Ok(Some(Ok(bytes))) => {
                let bytes = bytes.as_ref();
                let heavy = blocking || bytes.len() + split.line.held() >= HEAVY;
                match off_worker(heavy, || split.feed(bytes, &mut state)) {
                    Ok(flow) => flow,
                    Err(OverBudget { line }) => {
                        let budget = opts.line_budget.as_ref().map_or(0, LineBudget::limit);
                        failure = Some(Error::Busy(format!(
                            "{}: line {line} does not fit in the memory this server gives all lines in \
                             flight together ({:.1} MiB, taken by other requests now); the body was read \
                             up to the line before it",
                            name.display(),
                            budget as f64 / f64::from(1 << 20)
                        )));
                        break;
                    }
                }
            }
        };
        deliver(&outbox, tx).await?;
        if let Flow::Stop = flow {
            break;
        }
    }
    if failure.is_none() {
        off_worker(blocking, || split.end(&mut state));
    }
    drop(split);
    off_worker(blocking, || state.end());
    let report = state.finish();
    deliver(&outbox, tx).await?;
    let report = report?;
    match failure {
        None => Ok(report),
        Some(e) => Err(with_progress(e, &report)),
    }
}

/// Sends what the ingest queued, waiting while the writer is behind.
async fn deliver(outbox: &Mutex<Vec<Chunk>>, tx: &mpsc::Sender<Chunk>) -> Result<()> {
    loop {
        let next = {
            let mut q = outbox.lock().unwrap_or_else(PoisonError::into_inner);
            if q.is_empty() {
                return Ok(());
            }
            q.remove(0)
        };
        if tx.send(next).await.is_err() {
            // The writer stopped (it failed or was cancelled); it says why.
            outbox.lock().unwrap_or_else(PoisonError::into_inner).clear();
            return Ok(());
        }
    }
}

/// The error, with what was read before it.
fn with_progress(e: Error, report: &FileReport) -> Error {
    let done = format!(
        "; the {} whole lines before it were read ({} events, {} rejected) and are written",
        report.lines, report.events, report.rejected
    );
    match e {
        Error::Timeout(m) => Error::Timeout(m + &done),
        Error::Busy(m) => Error::Busy(m + &done),
        Error::BadRequest(m) => Error::BadRequest(m + &done),
        Error::PayloadTooLarge(m) => Error::PayloadTooLarge(m + &done),
        e => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Count(Vec<usize>);
    impl LineSink for Count {
        fn line(&mut self, line: reader::RawLine<'_>, _offset: u64) -> Flow {
            self.0.push(line.bytes.len());
            Flow::Continue
        }
        fn too_long(&mut self, _: u64, len: u64, _: &[u8], _: &[u8; 32], _: u64) -> Flow {
            self.0.push(len as usize + 1_000_000_000);
            Flow::Continue
        }
        fn idle(&mut self) -> Flow {
            Flow::Continue
        }
    }

    fn splitter(budget: &LineBudget, max: usize) -> Splitter {
        Splitter {
            line: Partial::default(),
            number: 0,
            offset: 0,
            max,
            budget: Some(budget.clone()),
            reserved: 0,
        }
    }

    /// Lines spanning pieces are held under the shared budget, and given back when done.
    #[test]
    fn unfinished_lines_share_the_budget() {
        let budget = LineBudget::new(3 << 19);
        let mut sink = Count(Vec::new());
        let line = vec![b'v'; 700 << 10];
        let mut a = splitter(&budget, 4 << 20);
        for piece in line.chunks(64 << 10) {
            assert!(a.feed(piece, &mut sink).is_ok());
        }
        assert!(budget.used() >= 700 << 10 && budget.used() <= 1 << 20, "{}", budget.used());
        let mut b = splitter(&budget, 4 << 20);
        let refused = line.chunks(64 << 10).any(|p| b.feed(p, &mut sink).is_err());
        assert!(refused, "two lines of 700 KiB do not fit in 1.5 MiB");
        drop(b);
        assert!(a.feed(b"tail\n", &mut sink).is_ok());
        assert_eq!(sink.0, [(700 << 10) + 4]);
        assert!(budget.used() <= KEEP_BUFFER, "{}", budget.used());
        drop(a);
        assert_eq!(budget.used(), 0);
        // Lines whole within a piece take nothing of it; one over the cap only its head.
        let mut c = splitter(&budget, 1000);
        assert!(c.feed(b"one\ntwo\n", &mut sink).is_ok());
        assert_eq!(budget.used(), 0);
        for piece in line.chunks(64 << 10) {
            assert!(c.feed(piece, &mut sink).is_ok());
        }
        assert!(budget.used() <= 8192, "{}", budget.used());
    }
}

#[cfg(test)]
mod props {
    use proptest::prelude::*;

    use super::*;

    #[derive(Default)]
    struct Lines(Vec<(u64, Vec<u8>)>);
    impl LineSink for Lines {
        fn line(&mut self, line: reader::RawLine<'_>, _offset: u64) -> Flow {
            self.0.push((line.number, line.bytes.to_vec()));
            Flow::Continue
        }
        fn too_long(&mut self, number: u64, _len: u64, _head: &[u8], _digest: &[u8; 32], _: u64) -> Flow {
            // Whether a `\r` before the newline counts in an over-long line's length depends
            // on where the cap was noticed; the line and its verdict do not.
            self.0.push((number, b"(too long)".to_vec()));
            Flow::Continue
        }
        fn idle(&mut self) -> Flow {
            Flow::Continue
        }
    }

    proptest! {
        /// However a stream is cut into pieces, the lines (numbers, bytes, which are over the
        /// cap) are those of the same bytes read whole, and the budget is all given back.
        #[test]
        fn pieces_do_not_change_the_lines(
            data in proptest::collection::vec(prop_oneof![Just(b'\n'), Just(b'\r'), Just(b' '), any::<u8>()], 0..3000),
            cuts in proptest::collection::vec(1usize..400, 1..40),
            max in 1usize..300,
        ) {
            let mut whole = Lines::default();
            reader::read_stream(Path::new("s"), &data[..], max, &mut whole).unwrap();
            let budget = LineBudget::new(1 << 20);
            let mut split = Splitter { line: Partial::default(), number: 0, offset: 0, max, budget: Some(budget.clone()), reserved: 0 };
            let mut pieces = Lines::default();
            let mut rest = &data[..];
            let mut i = 0;
            while !rest.is_empty() {
                let n = cuts[i % cuts.len()].min(rest.len());
                prop_assert!(split.feed(&rest[..n], &mut pieces).is_ok());
                rest = &rest[n..];
                i += 1;
            }
            split.end(&mut pieces);
            drop(split);
            prop_assert_eq!(whole.0, pieces.0);
            prop_assert_eq!(budget.used(), 0);
        }
    }
}
