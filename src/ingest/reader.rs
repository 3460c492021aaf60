//! Reads JSON-lines files (once, or following a growing file like `tail -f`), keeping each
//! line's number so that every rejected record can be reported with file, line and reason.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::time::Duration;

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
    /// A following reader has caught up with the writer: flush buffered work.
    fn idle(&mut self) -> Flow;
}

/// Calls `sink.line` for every non-blank line of `path`, and `sink.idle` whenever a following
/// reader has caught up with the writer (so buffered work can be flushed). A final line
/// without a newline is passed on at the end of a non-following read (it may be truncated:
/// the parser decides), but held back while following, since the writer may not be done.
pub fn read_lines(path: &Path, eof: EndOfFile, sink: &mut impl LineSink) -> Result<()> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut buf: Vec<u8> = Vec::with_capacity(4096);
    let mut number = 0u64;
    let mut offset = 0u64;
    loop {
        let n = reader.read_until(b'\n', &mut buf).map_err(|e| Error::io(path, e))?;
        offset += n as u64;
        let complete = buf.last() == Some(&b'\n');
        if n > 0 && complete {
            number += 1;
            if let Flow::Stop = emit(&buf, number, offset, sink) {
                return Ok(());
            }
            buf.clear();
            continue;
        }
        if n == 0 || !complete {
            // End of what has been written so far.
            match eof {
                EndOfFile::Stop => {
                    if !buf.is_empty() {
                        number += 1;
                        emit(&buf, number, offset, sink);
                    }
                    return Ok(());
                }
                EndOfFile::Follow(poll) => {
                    if let Flow::Stop = sink.idle() {
                        return Ok(());
                    }
                    std::thread::sleep(poll);
                    // A truncated file (log rotation) restarts from the top.
                    let len = reader.get_ref().metadata().map(|m| m.len()).unwrap_or(offset);
                    if len < offset {
                        let file = File::open(path).map_err(|e| Error::io(path, e))?;
                        reader = BufReader::with_capacity(1 << 20, file);
                        buf.clear();
                        offset = 0;
                    }
                }
            }
        }
    }
}

fn emit(buf: &[u8], number: u64, offset: u64, sink: &mut impl LineSink) -> Flow {
    let mut line = buf;
    while let Some((last, rest)) = line.split_last() {
        if *last == b'\n' || *last == b'\r' {
            line = rest;
        } else {
            break;
        }
    }
    if line.iter().all(u8::is_ascii_whitespace) {
        return Flow::Continue;
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
