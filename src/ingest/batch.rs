//! The state of one input's ingest (a file or a stream): the source's reader fed line by
//! line, records counted, rejects written, and batches sent on as they fill (or, when
//! live, as they age).

use std::path::Path;
use std::time::{Duration, Instant};

use super::reader::{Flow, LineSink, RawLine};
use super::{detect_line, Chunk, FileReport, IngestOptions, Rejected, RejectsFile};
use crate::error::{Error, Result};
use crate::model::GraphDelta;
use crate::sources::statements::{KeyEntry, Record};
use crate::sources::{Context, Format, Reader, Sink, Source};

/// How long a live read holds a record before it is written.
const LIVE_BATCH_AGE: Duration = Duration::from_millis(15);

/// The state of one input's ingest, fed line by line by the reader.
pub(super) struct FileIngest<'a> {
    path: &'a Path,
    format: Format,
    /// The source's reader, once the format is known.
    reader: Option<Box<dyn Reader>>,
    ctx: Context,
    batch_events: usize,
    max_line_bytes: usize,
    pub(super) report: FileReport,
    chunk: Chunk,
    offset: u64,
    rejects: &'a mut RejectsFile,
    failure: Option<Error>,
    keep_following: &'a mut (dyn FnMut() -> bool + Send),
    send: &'a mut (dyn FnMut(Chunk) -> bool + Send),
    /// A live read (a followed file, a stream): a batch goes out at most [`LIVE_BATCH_AGE`]
    /// after its first record, even while records keep coming.
    live: bool,
    pending_since: Option<Instant>,
    /// The rejects file's unwritten count when this input started.
    unwritten_before: u64,
    /// The leaf of a document read whole, once it was read (see [`Sink::document`]).
    whole_leaf: Option<crate::tlog::Hash>,
}

impl<'a> FileIngest<'a> {
    /// The state of the ingest of `path` (a file, or what stands for a stream) read as
    /// `format` ([`Format::Auto`]: each line decides until one is recognised).
    pub(super) fn new(
        path: &'a Path,
        format: Format,
        opts: &IngestOptions,
        live: bool,
        rejects: &'a mut RejectsFile,
        keep_following: &'a mut (dyn FnMut() -> bool + Send),
        send: &'a mut (dyn FnMut(Chunk) -> bool + Send),
    ) -> Self {
        let ctx = Context { lineage: opts.lineage.clone() };
        let unwritten_before = rejects.unwritten();
        FileIngest {
            path,
            format,
            reader: crate::sources::of(format).map(|s| s.reader(&ctx)),
            ctx,
            batch_events: opts.batch_events,
            max_line_bytes: opts.max_line_bytes,
            report: FileReport {
                path: path.to_owned(),
                format: format.as_str().into(),
                ..Default::default()
            },
            chunk: Chunk { file: path.to_owned(), ..Default::default() },
            offset: 0,
            rejects,
            failure: None,
            keep_following,
            send,
            live,
            pending_since: None,
            unwritten_before,
            whole_leaf: None,
        }
    }

    /// Reads the whole file with `source` (a document rather than lines).
    pub(super) fn read_whole(&mut self, source: &dyn Source) -> Result<()> {
        let events_before = self.report.events;
        let (lines, offset) = source.read_whole(self.path, self)?;
        self.report.lines = lines;
        self.offset = offset;
        // A document that gave records is one leaf of the graph's log.
        if let Some(leaf) = self.whole_leaf.take() {
            if self.report.events > events_before || !self.chunk.delta.is_empty() {
                self.chunk.leaves.push(leaf);
            }
        }
        Ok(())
    }

    /// The input ended: the reader refuses what still waits.
    pub(super) fn end(&mut self) {
        if let Some(mut reader) = self.reader.take() {
            reader.end(self);
            self.reader = Some(reader);
        }
    }

    /// Ends the read: the last batch goes out, and the report says where rejects went.
    pub(super) fn finish(mut self) -> Result<FileReport> {
        if let Some(e) = self.failure.take() {
            return Err(e);
        }
        self.flush();
        let mut report = self.report;
        if report.rejected > 0 {
            report.rejects_file = Some(self.rejects.path().to_owned());
        }
        report.rejects_unwritten = self.rejects.unwritten() - self.unwritten_before;
        Ok(report)
    }

    fn keep_rejected(&mut self, rejected: Rejected) {
        self.report.rejected += 1;
        if let Err(e) = self.rejects.write(&rejected) {
            self.failure = Some(e);
        }
        self.chunk.rejected.push(rejected);
    }

    /// Sends what is buffered; false when the receiver is gone.
    fn flush(&mut self) -> bool {
        if self.chunk.events == 0 && self.chunk.rejected.is_empty() {
            return true;
        }
        // The next batch starts with room for as many nodes and edges as this one had.
        let delta = GraphDelta::with_capacity(self.chunk.delta.node_count(), self.chunk.delta.edge_count());
        let fresh = Chunk { file: self.path.to_owned(), delta, ..Default::default() };
        let mut full = std::mem::replace(&mut self.chunk, fresh);
        full.offset = self.offset;
        self.pending_since = None;
        (self.send)(full)
    }

    /// The reader of this input; `Err` with the reason when a stream's line does not say
    /// which source it is.
    fn recognise(&mut self, bytes: &[u8]) -> std::result::Result<Box<dyn Reader>, String> {
        if let Some(reader) = self.reader.take() {
            return Ok(reader);
        }
        // A stream: the first line that is recognised decides.
        let format = std::str::from_utf8(bytes).map_err(|e| e.to_string()).and_then(detect_line)?;
        self.format = format;
        self.report.format = format.as_str().into();
        let source = crate::sources::of(format).ok_or("cannot detect the format")?;
        Ok(source.reader(&self.ctx))
    }

    /// Sends the batch when it is full, or (live) when its first record has waited long enough.
    fn send_when_due(&mut self) -> Flow {
        if self.live && self.chunk.events > 0 {
            let since = *self.pending_since.get_or_insert_with(Instant::now);
            if since.elapsed() >= LIVE_BATCH_AGE && !self.flush() {
                return Flow::Stop;
            }
        }
        if self.chunk.events as usize >= self.batch_events && !self.flush() {
            return Flow::Stop;
        }
        Flow::Continue
    }
}

impl Sink for FileIngest<'_> {
    fn name(&self) -> &Path {
        self.path
    }

    fn delta(&mut self) -> &mut GraphDelta {
        &mut self.chunk.delta
    }

    fn accept(&mut self, records: u64) {
        self.report.events += records;
        self.chunk.events += records;
    }

    fn refuse(&mut self, line: u64, reason: String, text: &[u8]) {
        self.keep_rejected(Rejected::new(self.path.to_owned(), line, reason, text));
    }

    fn statement(&mut self, record: Record, line: Option<&str>) {
        // A line's leaf is pushed once the line is read (see `line`).
        let at = self.chunk.leaves.len() as u32;
        self.chunk
            .record_leaves
            .push(line.map(|text| crate::sources::statements::log_leaves::LineEntry::new(at, &record, text)));
        self.chunk.records.push(record);
    }

    fn trust(&mut self, keys: Vec<KeyEntry>) {
        self.chunk.keys = keys;
    }

    fn document(&mut self, bytes: &[u8]) {
        let received = received_now();
        self.whole_leaf = Some(crate::tlog::leaf_hash(&self.path.to_string_lossy(), received, bytes));
        // The nodes its records give name the leaf pushed after it was read.
        self.chunk.delta.begin_record(self.chunk.leaves.len() as u32);
    }
}

/// Now, in Unix milliseconds: a record's time of receipt in its leaf.
fn received_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

impl LineSink for FileIngest<'_> {
    fn line(&mut self, line: RawLine<'_>, offset: u64) -> Flow {
        self.report.lines += 1;
        self.offset = offset;
        let events_before = self.report.events;
        self.chunk.delta.begin_record(self.chunk.leaves.len() as u32);
        let mut reader = match self.recognise(line.bytes) {
            Ok(reader) => reader,
            Err(reason) => {
                self.refuse(line.number, reason, line.bytes);
                return if self.failure.is_some() { Flow::Stop } else { Flow::Continue };
            }
        };
        reader.line(line.number, line.bytes, self);
        self.reader = Some(reader);
        if self.report.events > events_before {
            // An accepted record: its leaf in the graph's log.
            let received = received_now();
            crate::sources::statements::log_leaves::received(
                &mut self.chunk.record_leaves,
                self.chunk.leaves.len() as u32,
                received,
            );
            self.chunk.leaves.push(crate::tlog::leaf_hash(
                &self.path.to_string_lossy(),
                received,
                line.bytes,
            ));
        }
        if self.failure.is_some() {
            return Flow::Stop;
        }
        self.send_when_due()
    }

    fn too_long(&mut self, number: u64, len: u64, head: &[u8], digest: &[u8; 32], offset: u64) -> Flow {
        self.report.lines += 1;
        self.offset = offset;
        let reason = format!("line is {len} bytes, over the limit of {}", self.max_line_bytes);
        self.keep_rejected(Rejected::from_parts(self.path.to_owned(), number, reason, head, len, digest));
        if self.failure.is_some() {
            return Flow::Stop;
        }
        Flow::Continue
    }

    fn idle(&mut self) -> Flow {
        if !self.flush() || !(self.keep_following)() {
            return Flow::Stop;
        }
        Flow::Continue
    }
}
