//! Reads JSON-lines files (once, or following a growing file like `tail -f`), keeping each
//! line's number so that every rejected record can be reported with file, line and reason.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// One line of input, before it is parsed.
pub struct RawLine<'a> {
    /// 1-based line number.
    pub number: u64,
    pub bytes: &'a [u8],
}

/// How a reader should treat the end of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndOfFile {
    /// Stop at the end.
    Stop,
    /// Wait for more lines, polling at this interval, until `keep_going` says no.
    Follow(Duration),
}

/// What the line callback asks the reader to do next.
pub enum Flow {
    Continue,
    Stop,
}

/// Receives the lines of a file.
pub trait LineSink {
    /// One non-blank line; `offset` is the number of bytes read so far.
    fn line(&mut self, line: RawLine<'_>, offset: u64) -> Flow;
    /// A line longer than the cap: `len` is its length in bytes (without the newline),
    /// `head` its first [`HEAD_BYTES`] bytes and `digest` the SHA-256 of all of it; the rest
    /// was skipped, never held in memory.
    fn too_long(&mut self, number: u64, len: u64, head: &[u8], digest: &[u8; 32], offset: u64) -> Flow;
    /// A following reader has caught up with the writer: flush buffered work.
    fn idle(&mut self) -> Flow;
}

/// How much of an over-long line is kept to show in the rejects file.
pub const HEAD_BYTES: usize = 1024;

/// The line being read: its bytes while it is within the cap, only its head past it.
#[derive(Default)]
pub(crate) struct Partial {
    bytes: Vec<u8>,
    /// Bytes of the line read so far, the newline included.
    len: u64,
    /// Past the cap: `bytes` holds the head only.
    over: bool,
    /// The last piece ended with a newline.
    ended: bool,
    /// Past the cap: the hash of the line so far (its newline left out).
    hash: Option<Sha256>,
}

impl Partial {
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes held for the line (its buffer's capacity).
    pub(crate) fn held(&self) -> usize {
        self.bytes.capacity()
    }

    /// Whether `more` bytes would still be held whole (the line stays within the cap).
    pub(crate) fn fits(&self, more: usize, max: usize) -> bool {
        !self.over && self.bytes.len() + more <= max.saturating_add(2)
    }

    /// Makes room for `more` bytes, doubling (as `Vec` does) but never past the cap.
    pub(crate) fn reserve(&mut self, more: usize, max: usize) {
        let need = self.bytes.len() + more;
        if need > self.bytes.capacity() {
            let target = need.max(self.bytes.capacity() * 2).min(max.saturating_add(2)).max(need);
            self.bytes.reserve_exact(target - self.bytes.len());
        }
    }

    pub(crate) fn push(&mut self, piece: &[u8], max: usize) {
        self.len += piece.len() as u64;
        self.ended = piece.last() == Some(&b'\n');
        let body = if self.ended { &piece[..piece.len() - 1] } else { piece };
        if let Some(h) = self.hash.as_mut() {
            h.update(body);
        }
        if self.over {
            return;
        }
        // Room for a "\r\n" ending beyond the cap; past that the line is over it for sure.
        if self.bytes.len() + piece.len() > max.saturating_add(2) {
            let mut h = Sha256::new();
            h.update(&self.bytes);
            h.update(body);
            self.hash = Some(h);
            // The head, never the newline that ends the line.
            let keep = HEAD_BYTES.saturating_sub(self.bytes.len()).min(body.len());
            self.bytes.extend_from_slice(&body[..keep]);
            self.bytes.truncate(HEAD_BYTES);
            self.bytes.shrink_to(HEAD_BYTES.max(4096));
            self.over = true;
        } else {
            self.bytes.extend_from_slice(piece);
        }
    }

    pub(crate) fn clear(&mut self) {
        self.bytes.clear();
        self.len = 0;
        self.over = false;
        self.ended = false;
        self.hash = None;
    }

    /// Lets go of a large buffer between lines, keeping at most `keep` bytes of it.
    pub(crate) fn shrink(&mut self, keep: usize) {
        if self.bytes.capacity() > keep {
            self.bytes.shrink_to(keep);
        }
    }
}

/// Reads up to and including the next newline into `line` (without buffering past the cap).
/// Returns the bytes consumed and whether a newline ended the line.
fn read_piece(reader: &mut impl BufRead, line: &mut Partial, max: usize) -> std::io::Result<(usize, bool)> {
    let mut total = 0;
    loop {
        let avail = match reader.fill_buf() {
            Ok(a) => a,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            return Ok((total, false));
        }
        let (used, done) = match avail.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (avail.len(), false),
        };
        line.push(&avail[..used], max);
        reader.consume(used);
        total += used;
        if done {
            return Ok((total, true));
        }
    }
}

/// Calls `sink.line` for every non-blank line of `path`, and `sink.idle` whenever a following
/// reader has caught up with the writer (so buffered work can be flushed). A final line
/// without a newline is passed on at the end of a non-following read (it may be truncated:
/// the parser decides), but held back while following, since the writer may not be done.
/// A line longer than `max_line` bytes goes to `sink.too_long` instead, and only its head
/// is kept in memory: the reader skips to the next newline.
pub fn read_lines(path: &Path, eof: EndOfFile, max_line: usize, sink: &mut impl LineSink) -> Result<()> {
    let open =
        || File::open(path).map(|f| BufReader::with_capacity(1 << 20, f)).map_err(|e| Error::io(path, e));
    let reader = open()?;
    match eof {
        EndOfFile::Stop => pump(path, reader, max_line, sink, AtEnd::Stop),
        EndOfFile::Follow(poll) => {
            // A truncated file (log rotation) restarts from the top.
            let mut restarted = |reader: &mut BufReader<File>, offset: u64| -> Result<bool> {
                let len = reader.get_ref().metadata().map(|m| m.len()).unwrap_or(offset);
                if len < offset {
                    *reader = open()?;
                }
                Ok(len < offset)
            };
            pump(path, reader, max_line, sink, AtEnd::Follow(poll, &mut restarted))
        }
    }
}

/// Calls `sink.line` for every non-blank line of a stream (standard input, a request body)
/// as it arrives, and `sink.idle` whenever the stream has nothing new for now (its reader
/// answers `WouldBlock`). The end of the stream ends the read; a last
/// line without a newline is passed on (it may be truncated: the parser decides).
pub fn read_stream(name: &Path, reader: impl Read, max_line: usize, sink: &mut impl LineSink) -> Result<()> {
    pump(name, BufReader::with_capacity(1 << 16, reader), max_line, sink, AtEnd::Stop)
}

/// What a read does at the end of what was written so far.
enum AtEnd<'f, R> {
    /// The input is done: its last line, if any, is passed on.
    Stop,
    /// More may come (a followed file): `sink.idle`, wait, and read on; the function says
    /// (given the bytes read so far) whether the input started again from the top, after
    /// putting a new reader in place.
    Follow(Duration, &'f mut dyn FnMut(&mut R, u64) -> Result<bool>),
}

/// The one read loop of files and streams. A reader that answers `WouldBlock` (a stream
/// with nothing new for now) gets `sink.idle`, then is read again.
fn pump<R: BufRead>(
    name: &Path,
    mut reader: R,
    max_line: usize,
    sink: &mut impl LineSink,
    mut at_end: AtEnd<'_, R>,
) -> Result<()> {
    let mut line = Partial::default();
    let (mut number, mut offset) = (0u64, 0u64);
    loop {
        let (n, complete) = match read_piece(&mut reader, &mut line, max_line) {
            Ok(read) => read,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if let Flow::Stop = sink.idle() {
                    return Ok(());
                }
                continue;
            }
            Err(e) => return Err(Error::io(name, e)),
        };
        offset += n as u64;
        if complete {
            number += 1;
            if let Flow::Stop = emit(&line, number, offset, max_line, sink) {
                return Ok(());
            }
            line.clear();
            continue;
        }
        match &mut at_end {
            AtEnd::Stop => {
                if line.len > 0 {
                    number += 1;
                    emit(&line, number, offset, max_line, sink);
                }
                return Ok(());
            }
            AtEnd::Follow(poll, restarted) => {
                if let Flow::Stop = sink.idle() {
                    return Ok(());
                }
                std::thread::sleep(*poll);
                if restarted(&mut reader, offset)? {
                    line.clear();
                    offset = 0;
                }
            }
        }
    }
}

pub(crate) fn emit(
    partial: &Partial,
    number: u64,
    offset: u64,
    max_line: usize,
    sink: &mut (impl LineSink + ?Sized),
) -> Flow {
    if partial.over {
        let len = partial.len - u64::from(partial.ended);
        let digest = partial.hash.clone().expect("hashed past the cap").finalize().into();
        return sink.too_long(number, len, &partial.bytes, &digest, offset);
    }
    emit_bytes(&partial.bytes, number, offset, max_line, sink)
}

/// Passes on one whole line held in memory (its newline, if any, included).
pub(crate) fn emit_bytes(
    bytes: &[u8],
    number: u64,
    offset: u64,
    max_line: usize,
    sink: &mut (impl LineSink + ?Sized),
) -> Flow {
    let mut line = bytes;
    // One "\n" or "\r\n" ends the line (as the cap counts them).
    if let Some(rest) = line.strip_suffix(b"\n") {
        line = rest.strip_suffix(b"\r").unwrap_or(rest);
    }
    if line.iter().all(u8::is_ascii_whitespace) {
        return Flow::Continue;
    }
    if line.len() > max_line {
        let digest = Sha256::digest(line).into();
        return sink.too_long(
            number,
            line.len() as u64,
            &line[..line.len().min(HEAD_BYTES)],
            &digest,
            offset,
        );
    }
    sink.line(RawLine { number, bytes: line }, offset)
}

/// Reads the first non-blank line of a file (for format detection).
pub fn first_line(path: &Path) -> Result<Option<String>> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut reader = BufReader::new(file.take(16 << 20));
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            return Ok(None);
        }
        if !line.iter().all(u8::is_ascii_whitespace) {
            return Ok(Some(String::from_utf8_lossy(&line).trim().to_owned()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Collect {
        lines: Vec<(u64, String)>,
        long: Vec<(u64, u64, Vec<u8>)>,
    }

    impl LineSink for Collect {
        fn line(&mut self, line: RawLine<'_>, _offset: u64) -> Flow {
            self.lines.push((line.number, String::from_utf8_lossy(line.bytes).into_owned()));
            Flow::Continue
        }
        fn too_long(&mut self, number: u64, len: u64, head: &[u8], _digest: &[u8; 32], _offset: u64) -> Flow {
            self.long.push((number, len, head.to_vec()));
            Flow::Continue
        }
        fn idle(&mut self) -> Flow {
            Flow::Stop
        }
    }

    fn read(text: &[u8], max: usize) -> Collect {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.jsonl");
        std::fs::write(&path, text).unwrap();
        let mut sink = Collect::default();
        read_lines(&path, EndOfFile::Stop, max, &mut sink).unwrap();
        sink
    }

    /// Regression: lines had no length cap.
    #[test]
    fn a_line_over_the_cap_is_reported_and_the_good_ones_around_it_kept() {
        let long = "x".repeat(3_000_000);
        let text = format!("ok1\n{long}\nok3\r\n\n12345678\n123456789\n{long}");
        let sink = read(text.as_bytes(), 8);
        assert_eq!(
            sink.lines,
            vec![(1, "ok1".to_owned()), (3, "ok3".to_owned()), (5, "12345678".to_owned())]
        );
        let long_head = vec![b'x'; HEAD_BYTES];
        assert_eq!(
            sink.long,
            vec![(2, 3_000_000, long_head.clone()), (6, 9, b"123456789".to_vec()), (7, 3_000_000, long_head)]
        );
    }

    #[test]
    fn the_default_cap_lets_long_lines_through() {
        let long = "y".repeat(2_000_000);
        let sink = read(format!("{long}\nz\n").as_bytes(), 64 << 20);
        assert_eq!(sink.lines.len(), 2);
        assert_eq!(sink.lines[0].1.len(), 2_000_000);
        assert!(sink.long.is_empty());
    }

    /// Past the cap only the head is held, however long the line grows.
    #[test]
    fn an_over_long_line_is_not_buffered() {
        let mut line = Partial::default();
        let piece = vec![b'a'; 1 << 20];
        for _ in 0..64 {
            line.push(&piece, 100);
        }
        assert!(line.over);
        assert_eq!(line.bytes.len(), HEAD_BYTES);
        assert!(line.bytes.capacity() <= 4096, "{}", line.bytes.capacity());
        assert_eq!(line.len, 64 << 20);
    }
}
