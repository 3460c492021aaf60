//! Ingest: reading provenance files, rejecting bad records with file, line and reason, and
//! normalising the good ones into graph deltas for the store.

pub mod a2a;
pub mod events;
pub mod lineage;
pub mod reader;
pub mod rejects;
pub mod stream;
mod whole;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::GraphDelta;
use reader::{EndOfFile, Flow, RawLine};
pub use rejects::{Rejected, RejectsFile};
pub use stream::LineBudget;

/// Input formats `provex ingest --format` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Detect from the first record.
    #[default]
    Auto,
    /// A2A runtime `ProvEvent` JSON lines (seed 000).
    A2a,
    /// A2AP documents (seed 001): JSON lines or a JSON array.
    A2ap,
    /// A W3C PROV-JSON document (formats.md §6), read whole.
    ProvJson,
    /// Prompt-lineage records (seed 002, formats.md §4): JSON lines.
    Lineage,
    /// TrustGraph query-time provenance (seed 003, formats.md §3): explain streams and the
    /// seed's provenance nodes, JSON lines.
    #[serde(rename = "trustgraph")]
    TrustGraph,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::A2a => "a2a",
            Format::A2ap => "a2ap",
            Format::ProvJson => "prov-json",
            Format::Lineage => "lineage",
            Format::TrustGraph => "trustgraph",
        }
    }
}

/// Decides the format of a file from its first record.
pub fn detect(path: &Path) -> Result<Format> {
    let Some(line) = reader::first_line(path)? else {
        return Ok(Format::A2a);
    };
    if opens_array(&line) {
        return Ok(Format::A2ap);
    }
    let value: serde_json::Value = match serde_json::from_str(&line) {
        Ok(v) => v,
        // A JSON text over many lines (a pretty-printed PROV-JSON document) opens with `{`.
        Err(_) if line.trim_start_matches('\u{feff}').trim_start().starts_with('{') => {
            let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
            match serde_json::from_str::<serde_json::Value>(&text) {
                Ok(serde_json::Value::Object(o)) if crate::prov::import::looks_like(&o) => {
                    return Ok(Format::ProvJson)
                }
                // An audit bundle (`provex bundle`) holds A2AP documents.
                Ok(v)
                    if v.get("@type").and_then(|t| t.as_str()) == Some(crate::a2ap::bundle::BUNDLE_TYPE) =>
                {
                    return Ok(Format::A2ap)
                }
                _ => serde_json::Value::Null,
            }
        }
        Err(e) => {
            return Err(Error::Input {
                path: path.to_owned(),
                reason: format!("cannot detect the format: the first record is not JSON ({e})"),
            })
        }
    };
    match value.as_object() {
        Some(obj) if crate::prov::import::looks_like(obj) => Ok(Format::ProvJson),
        Some(obj) if obj.len() == 1 && (obj.contains_key("Task") || obj.contains_key("Global")) => {
            Ok(Format::A2a)
        }
        Some(obj) if obj.contains_key("@type") || obj.contains_key("@context") => Ok(Format::A2ap),
        Some(obj) if crate::lineage::records::looks_like(obj) => Ok(Format::Lineage),
        Some(obj) if crate::trustgraph::looks_like(obj) => Ok(Format::TrustGraph),
        _ => Err(Error::Input {
            path: path.to_owned(),
            reason: "cannot detect the format: the first record is neither an A2A runtime event \
                     ({\"Task\":…} or {\"Global\":…}), an A2AP document (with \"@type\"), a \
                     PROV-JSON document nor a prompt-lineage record; name it with --format"
                .into(),
        }),
    }
}

/// The format of a stream (standard input, a request body) from one of its lines: the line
/// formats only (a PROV-JSON document or an audit bundle is read whole, from a file).
pub fn detect_line(line: &str) -> Result<Format, String> {
    let value: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("cannot detect the format: not JSON ({e})"))?;
    match value.as_object() {
        Some(obj) if obj.len() == 1 && (obj.contains_key("Task") || obj.contains_key("Global")) => {
            Ok(Format::A2a)
        }
        Some(obj) if obj.contains_key("@type") || obj.contains_key("@context") => Ok(Format::A2ap),
        Some(obj) if crate::lineage::records::looks_like(obj) => Ok(Format::Lineage),
        Some(obj) if crate::trustgraph::looks_like(obj) => Ok(Format::TrustGraph),
        Some(obj) if crate::prov::import::looks_like(obj) => {
            Err("a PROV-JSON document is read whole: ingest it as a file".into())
        }
        _ => Err("cannot detect the format: neither an A2A runtime event, an A2AP document nor a \
                  prompt-lineage record; name it with --format"
            .into()),
    }
}

/// Whether a file's first line opens a JSON array (after a byte-order mark), so that the
/// file is one JSON text of A2AP documents rather than JSON lines.
fn opens_array(first_line: &str) -> bool {
    first_line.trim_start_matches('\u{feff}').trim_start().starts_with('[')
}

/// Parses and normalises one line, or says why it is rejected.
pub fn normalize_line(format: Format, bytes: &[u8], out: &mut GraphDelta) -> Result<(), String> {
    let text =
        std::str::from_utf8(bytes).map_err(|e| format!("not valid UTF-8 (at byte {})", e.valid_up_to()))?;
    match format {
        Format::A2ap => Err("A2AP documents are read by the A2AP reader".into()),
        Format::ProvJson => Err("PROV-JSON documents are read whole".into()),
        Format::Lineage => Err("lineage records are read by the lineage reader".into()),
        Format::TrustGraph => Err("TrustGraph streams are read by the stream reader".into()),
        Format::A2a | Format::Auto => {
            if text.contains("\\u0000") && holds_nul(text) {
                return Err("a string holds a NUL character (\\u0000), which FalkorDB cannot store".into());
            }
            let event: events::ProvEvent = serde_json::from_str(text).map_err(|e| describe_json_error(&e))?;
            a2a::normalize(&event, out).map_err(|e| e.to_string())
        }
    }
}

/// Whether a JSON text has a NUL character in a string or key (checked only when the text
/// has the escape, which is the only way JSON can carry one).
fn holds_nul(text: &str) -> bool {
    fn any(v: &serde_json::Value) -> bool {
        match v {
            serde_json::Value::String(s) => s.contains('\0'),
            serde_json::Value::Array(a) => a.iter().any(any),
            serde_json::Value::Object(o) => o.iter().any(|(k, v)| k.contains('\0') || any(v)),
            _ => false,
        }
    }
    serde_json::from_str::<serde_json::Value>(text).is_ok_and(|v| any(&v))
}

fn describe_json_error(e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    let what = match e.classify() {
        Category::Eof => "truncated JSON",
        Category::Syntax => "malformed JSON",
        Category::Data => "not a valid event",
        Category::Io => "read error",
    };
    // serde_json appends "at line 1 column N"; the line is ours, keep the column.
    let msg = e.to_string();
    let msg = msg.split(" at line ").next().unwrap_or(&msg).to_owned();
    format!("{what}: {msg} (column {})", e.column())
}

/// Options of one ingest run.
#[derive(Debug, Clone)]
pub struct IngestOptions {
    pub format: Format,
    /// Keep reading the files as they grow.
    pub follow: bool,
    /// Where rejected records go; default `<input>.rejected.jsonl` beside each input.
    pub rejects: Option<PathBuf>,
    /// Events per batch sent to the store.
    pub batch_events: usize,
    /// How often a following reader polls for new lines.
    pub poll: Duration,
    /// A key registry file for A2AP signatures (formats.md §2).
    pub keys: Option<PathBuf>,
    /// The longest line accepted, in bytes (without the newline); longer lines are
    /// rejected, and the reader skips them without holding them in memory.
    pub max_line_bytes: usize,
    /// Build a graph that does not exist yet with GRAPH.BULK (not when following).
    pub bulk: bool,
    /// The most node and edge rows gathered in memory for GRAPH.BULK; the rest of a larger
    /// input is upserted into the graph built from the first part.
    pub bulk_max_rows: usize,
    /// The graph's lineages and the embeddings endpoint, for prompt-lineage files (the
    /// facade loads it from the graph; lines are rejected without it).
    pub lineage: Option<std::sync::Arc<lineage::LineageContext>>,
    /// The most bytes of rows the rejects file takes; rejections past it are counted only.
    pub rejects_quota: u64,
    /// The memory a stream's unfinished lines share with every other stream of the server.
    pub line_budget: Option<LineBudget>,
}

/// The default of [`IngestOptions::bulk_max_rows`].
pub const DEFAULT_BULK_MAX_ROWS: usize = 2_000_000;

/// The default of [`IngestOptions::max_line_bytes`]: 64 MiB.
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 << 20;

impl Default for IngestOptions {
    fn default() -> Self {
        IngestOptions {
            format: Format::Auto,
            follow: false,
            rejects: None,
            batch_events: 2_000,
            // A stat every 5 ms costs nothing, and keeps a live view's lag low (the writer
            // takes whatever piled up while it wrote, so small reads don't slow it down).
            poll: Duration::from_millis(5),
            keys: None,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            bulk: true,
            bulk_max_rows: DEFAULT_BULK_MAX_ROWS,
            lineage: None,
            rejects_quota: rejects::DEFAULT_QUOTA,
            line_budget: None,
        }
    }
}

/// Normalised records ready for the store, with progress information.
#[derive(Debug, Default)]
pub struct Chunk {
    pub delta: GraphDelta,
    /// A2AP documents, which the caller adds to its ledger.
    pub records: Vec<crate::a2ap::Record>,
    pub events: u64,
    pub rejected: Vec<Rejected>,
    /// Keys an audit bundle marks trusted, for its documents.
    pub keys: Vec<crate::a2ap::KeyEntry>,
    /// The log leaves of the records accepted, in order (see src/tlog/).
    pub leaves: Vec<crate::tlog::Hash>,
    /// For each of `records`, the line it came in on and its leaf (none for a document read
    /// from a whole file).
    pub record_leaves: Vec<Option<crate::tlog::records::LineEntry>>,
    /// Bytes of the file read so far.
    pub offset: u64,
    pub file: PathBuf,
}

impl Chunk {
    /// Appends the next chunk of the same file.
    pub fn absorb(&mut self, next: Chunk) {
        debug_assert_eq!(self.file, next.file);
        self.delta.extend_shifted(next.delta, self.leaves.len() as u32);
        let shift = self.leaves.len() as u32;
        self.record_leaves.extend(next.record_leaves.into_iter().map(|l| l.map(|l| l.shifted(shift))));
        self.leaves.extend(next.leaves);
        self.records.extend(next.records);
        self.events += next.events;
        self.rejected.extend(next.rejected);
        self.keys.extend(next.keys);
        self.offset = next.offset;
    }
}

/// What happened to one input file.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq, ts_rs::TS)]
pub struct FileReport {
    pub path: PathBuf,
    pub format: String,
    pub lines: u64,
    pub events: u64,
    pub rejected: u64,
    /// Where the rejected records were written, when there were any.
    pub rejects_file: Option<PathBuf>,
    /// Rejected records past the rejects file's quota: counted here, not written there.
    #[serde(default)]
    pub rejects_unwritten: u64,
}

/// Reads one file and hands batches of normalised records to `send`, which returns false
/// to stop (the receiver is gone). Runs on a blocking thread, so the store writes the
/// previous batch while this one is parsed.
pub fn read_file(
    path: &Path,
    opts: &IngestOptions,
    rejects: &mut RejectsFile,
    keep_following: &mut (dyn FnMut() -> bool + Send),
    send: &mut (dyn FnMut(Chunk) -> bool + Send),
) -> Result<FileReport> {
    let format = match opts.format {
        Format::Auto => detect(path)?,
        f => f,
    };
    let mut state = FileIngest {
        path,
        format,
        batch_events: opts.batch_events,
        max_line_bytes: opts.max_line_bytes,
        report: FileReport { path: path.to_owned(), format: format.as_str().into(), ..Default::default() },
        chunk: Chunk { file: path.to_owned(), ..Default::default() },
        offset: 0,
        rejects,
        failure: None,
        keep_following,
        send,
        lineage: opts.lineage.clone(),
        waiting: Default::default(),
        tg: Default::default(),
        live: opts.follow,
        pending_since: None,
        unwritten_before: 0,
    };
    state.unwritten_before = state.rejects.unwritten();
    let eof = if opts.follow { EndOfFile::Follow(opts.poll) } else { EndOfFile::Stop };
    if format == Format::ProvJson {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        state.report.lines = whole::bytecount(&bytes);
        state.offset = bytes.len() as u64;
        state.add_prov_json(&bytes);
    } else if format == Format::A2ap && whole::is_bundle(path) {
        state.add_bundle(path)?;
    } else if format == Format::A2ap && reader::first_line(path)?.is_some_and(|l| opens_array(&l)) {
        // A JSON array is one text, read whole.
        let text = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        state.report.lines = text.iter().filter(|b| **b == b'\n').count() as u64;
        state.add_a2ap(&String::from_utf8_lossy(&text), None);
    } else {
        reader::read_lines(path, eof, opts.max_line_bytes, &mut state)?;
        state.finish_lineage();
    }
    state.finish()
}

/// Reads a stream (standard input, a request body) as it arrives and hands batches to
/// `send`, as [`read_file`] does for a file; `name` stands for it in reports and rejects.
/// With `--format auto` each line decides until one is recognised.
pub fn read_stream(
    name: &Path,
    source: impl std::io::Read,
    opts: &IngestOptions,
    rejects: &mut RejectsFile,
    keep_following: &mut (dyn FnMut() -> bool + Send),
    send: &mut (dyn FnMut(Chunk) -> bool + Send),
) -> Result<FileReport> {
    if opts.format == Format::ProvJson {
        return Err(Error::Input {
            path: name.to_owned(),
            reason: "a PROV-JSON document is read whole: ingest it as a file".into(),
        });
    }
    let mut state = FileIngest::for_stream(name, opts, rejects, keep_following, send);
    reader::read_stream(name, source, opts.max_line_bytes, &mut state)?;
    state.finish_lineage();
    state.finish()
}

impl<'a> FileIngest<'a> {
    /// The state of a stream's ingest (standard input, a request body).
    fn for_stream(
        name: &'a Path,
        opts: &IngestOptions,
        rejects: &'a mut RejectsFile,
        keep_following: &'a mut (dyn FnMut() -> bool + Send),
        send: &'a mut (dyn FnMut(Chunk) -> bool + Send),
    ) -> Self {
        let unwritten_before = rejects.unwritten();
        FileIngest {
            path: name,
            format: opts.format,
            batch_events: opts.batch_events,
            max_line_bytes: opts.max_line_bytes,
            report: FileReport {
                path: name.to_owned(),
                format: opts.format.as_str().into(),
                ..Default::default()
            },
            chunk: Chunk { file: name.to_owned(), ..Default::default() },
            offset: 0,
            rejects,
            failure: None,
            keep_following,
            send,
            lineage: opts.lineage.clone(),
            waiting: Default::default(),
            tg: Default::default(),
            live: true,
            pending_since: None,
            unwritten_before,
        }
    }
}

impl FileIngest<'_> {
    /// Ends the read: the last batch goes out, and the report says where rejects went.
    fn finish(mut self) -> Result<FileReport> {
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
}

/// The state of one file's ingest, fed line by line by the reader.
struct FileIngest<'a> {
    path: &'a Path,
    format: Format,
    batch_events: usize,
    max_line_bytes: usize,
    report: FileReport,
    chunk: Chunk,
    offset: u64,
    rejects: &'a mut RejectsFile,
    failure: Option<Error>,
    keep_following: &'a mut (dyn FnMut() -> bool + Send),
    send: &'a mut (dyn FnMut(Chunk) -> bool + Send),
    lineage: Option<std::sync::Arc<lineage::LineageContext>>,
    waiting: lineage::WaitingRoom,
    /// A TrustGraph stream's sessions so far.
    tg: crate::trustgraph::StreamState,
    /// A live read (a followed file, a stream): a batch goes out at most [`LIVE_BATCH_AGE`]
    /// after its first record, even while records keep coming.
    live: bool,
    pending_since: Option<std::time::Instant>,
    /// The rejects file's unwritten count when this input started.
    unwritten_before: u64,
}

/// How long a live read holds a record before it is written.
const LIVE_BATCH_AGE: Duration = Duration::from_millis(15);

impl FileIngest<'_> {
    /// Adds A2AP documents parsed from `text`; `line` is the line number when the text is
    /// one line of a file.
    fn add_a2ap(&mut self, text: &str, line: Option<u64>) {
        for result in crate::a2ap::parse_documents(text) {
            match result {
                Ok(mut record) => {
                    if let Some(n) = line {
                        record.position.line = n as usize;
                    }
                    self.report.events += 1;
                    self.chunk.events += 1;
                    // A line's leaf is pushed once the line is read (see `line`).
                    let at = self.chunk.leaves.len() as u32;
                    self.chunk
                        .record_leaves
                        .push(line.map(|_| crate::tlog::records::LineEntry::new(at, &record, text)));
                    self.chunk.records.push(record);
                }
                Err(e) => {
                    let number = line.unwrap_or(e.position.line as u64);
                    let text = match line {
                        Some(_) => text.to_owned(),
                        None => text.lines().nth(e.position.line.saturating_sub(1)).unwrap_or("").to_owned(),
                    };
                    self.reject(number, e.reason, text.as_bytes());
                }
            }
        }
    }

    fn reject(&mut self, line: u64, reason: String, text: &[u8]) {
        self.keep_rejected(Rejected::new(self.path.to_owned(), line, reason, text));
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
}

impl FileIngest<'_> {
    /// Reads one line of a TrustGraph stream.
    fn add_trustgraph(&mut self, bytes: &[u8]) -> Result<(), String> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| format!("not valid UTF-8 (at byte {})", e.valid_up_to()))?;
        if text.contains("\\u0000") && holds_nul(text) {
            return Err("a string holds a NUL character (\\u0000), which FalkorDB cannot store".into());
        }
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| describe_json_error(&e))?;
        // Nothing of a refused line reaches the batch.
        let mut delta = GraphDelta::new();
        self.tg.line(&v, &mut delta)?;
        self.chunk.delta.extend(delta);
        Ok(())
    }
}

impl reader::LineSink for FileIngest<'_> {
    fn line(&mut self, line: RawLine<'_>, offset: u64) -> Flow {
        self.report.lines += 1;
        self.offset = offset;
        let events_before = self.report.events;
        self.chunk.delta.begin_record(self.chunk.leaves.len() as u32);
        if self.format == Format::Auto {
            // A stream: the first line that is recognised decides.
            match std::str::from_utf8(line.bytes).map_err(|e| e.to_string()).and_then(detect_line) {
                Ok(f) => {
                    self.format = f;
                    self.report.format = f.as_str().into();
                }
                Err(reason) => {
                    self.reject(line.number, reason, line.bytes);
                    return if self.failure.is_some() { Flow::Stop } else { Flow::Continue };
                }
            }
        }
        if self.format == Format::TrustGraph {
            match self.add_trustgraph(line.bytes) {
                Ok(()) => {
                    self.report.events += 1;
                    self.chunk.events += 1;
                }
                Err(reason) => self.reject(line.number, reason, line.bytes),
            }
        } else if self.format == Format::A2ap || self.format == Format::Lineage {
            match std::str::from_utf8(line.bytes) {
                Ok(text) if self.format == Format::Lineage => self.add_lineage(line.number, text),
                Ok(text) => self.add_a2ap(text, Some(line.number)),
                Err(e) => self.reject(
                    line.number,
                    format!("not valid UTF-8 (at byte {})", e.valid_up_to()),
                    line.bytes,
                ),
            }
        } else {
            match normalize_line(self.format, line.bytes, &mut self.chunk.delta) {
                Ok(()) => {
                    self.report.events += 1;
                    self.chunk.events += 1;
                }
                Err(reason) => self.reject(line.number, reason, line.bytes),
            }
        }
        if self.report.events > events_before {
            // An accepted record: its leaf in the graph's log.
            let received = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64);
            crate::tlog::records::received(
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
        if self.live && self.chunk.events > 0 {
            let since = *self.pending_since.get_or_insert_with(std::time::Instant::now);
            if since.elapsed() >= LIVE_BATCH_AGE && !self.flush() {
                return Flow::Stop;
            }
        }
        if self.chunk.events as usize >= self.batch_events && !self.flush() {
            return Flow::Stop;
        }
        Flow::Continue
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (issue 11 §3.4): an over-long line is rejected with its reason, its head
    /// goes to the rejects file, and the lines around it are ingested.
    #[test]
    fn over_long_lines_are_rejected_with_their_length() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("events.jsonl");
        let good = r#"{"Global":{"id":"e1","context_id":"c","timestamp_ms":1,"data":{"AgentBooted":{"agent_id":"a1","agent_type":"clerk","agent_version":"1","archive_path":"p"}}}}"#;
        let long = format!(r#"{{"Global":"{}"}}"#, "z".repeat(5000));
        std::fs::write(&input, format!("{good}\n{long}\n{good}\n")).unwrap();
        let mut rejects = RejectsFile::at(dir.path().join("rejects.jsonl"));
        let opts = IngestOptions { format: Format::A2a, max_line_bytes: 200, ..Default::default() };
        let mut chunks = Vec::new();
        let report = read_file(&input, &opts, &mut rejects, &mut || false, &mut |c| {
            chunks.push(c);
            true
        })
        .unwrap();
        assert_eq!((report.lines, report.events, report.rejected), (3, 2, 1));
        let rejected: Vec<_> = chunks.iter().flat_map(|c| c.rejected.iter()).collect();
        assert_eq!(rejected.len(), 1);
        assert_eq!(
            rejected[0].to_string(),
            format!("{}:2: line is 5013 bytes, over the limit of 200", input.display())
        );
        assert_eq!(rejected[0].text, &long[..reader::HEAD_BYTES]);
        let written = std::fs::read_to_string(dir.path().join("rejects.jsonl")).unwrap();
        let row: serde_json::Value = serde_json::from_str(written.trim()).unwrap();
        assert_eq!(row["line"], 2);
        assert_eq!(row["reason"], "line is 5013 bytes, over the limit of 200");
        assert_eq!(row["text"].as_str().unwrap().len(), reader::HEAD_BYTES);
    }
}
