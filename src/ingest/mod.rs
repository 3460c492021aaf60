//! Ingest: reading provenance files and streams, recognising the source of their records
//! (the table in `sources/`), rejecting bad records with file, line and reason, and handing
//! the graph deltas of the good ones to the store in batches. Parsing and normalising each
//! source's records is the source's own (`sources/<source>/source.rs`).

mod batch;
pub mod reader;
pub mod rejects;
pub mod stream;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::GraphDelta;
use crate::sources::statements::source::opens_array;
pub use crate::sources::Format;
use crate::sources::{Sniff, Source, SOURCES};
use batch::FileIngest;
use reader::EndOfFile;
pub use rejects::{Rejected, RejectsFile};
pub use stream::LineBudget;

/// Decides the format of a file from its first record (an empty file is read as runtime
/// events, which it holds none of).
pub fn detect(path: &Path) -> Result<Format> {
    let Some(line) = reader::first_line(path)? else {
        return Ok(Format::A2a);
    };
    if opens_array(&line) {
        return recognise(Sniff::Array).ok_or_else(|| undetected(path));
    }
    let found = match serde_json::from_str::<serde_json::Value>(&line) {
        Ok(value) => value.as_object().and_then(|o| recognise(Sniff::Record(o))),
        // A JSON text over many lines (a pretty-printed PROV-JSON document, an audit bundle)
        // opens with `{`.
        Err(_) if line.trim_start_matches('\u{feff}').trim_start().starts_with('{') => {
            let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
            match serde_json::from_str::<serde_json::Value>(&text) {
                Ok(serde_json::Value::Object(o)) => recognise(Sniff::Document(&o)),
                _ => None,
            }
        }
        // A Turtle document (PROV-O) opens with a directive, a comment or an IRI.
        Err(_) if crate::sources::prov::source::looks_like_turtle(path, &line) => Some(Format::ProvO),
        Err(e) => {
            return Err(Error::Input {
                path: path.to_owned(),
                reason: format!("cannot detect the format: the first record is not JSON ({e})"),
            })
        }
    };
    found.ok_or_else(|| undetected(path))
}

/// The first source (in [`SOURCES`] order) that recognises `what`.
fn recognise(what: Sniff<'_>) -> Option<Format> {
    SOURCES.iter().find(|s| s.looks_like(what)).map(|s| s.format())
}

fn undetected(path: &Path) -> Error {
    Error::Input {
        path: path.to_owned(),
        reason: "cannot detect the format: the first record is neither an A2A runtime event \
                 ({\"Task\":…} or {\"Global\":…}), an A2AP document (with \"@type\"), a \
                 PROV-JSON document nor a prompt-lineage record; name it with --format"
            .into(),
    }
}

/// The format of a stream (standard input, a request body) from one of its lines: the line
/// formats only (a PROV-JSON document or an audit bundle is read whole, from a file).
pub fn detect_line(line: &str) -> Result<Format, String> {
    let value: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("cannot detect the format: not JSON ({e})"))?;
    let Some(obj) = value.as_object() else { return Err(UNDETECTED_LINE.into()) };
    let (lines, whole): (Vec<&dyn Source>, Vec<&dyn Source>) =
        SOURCES.iter().copied().partition(|s| s.whole_only().is_none());
    if let Some(s) = lines.iter().find(|s| s.looks_like(Sniff::Record(obj))) {
        return Ok(s.format());
    }
    match whole.iter().find(|s| s.looks_like(Sniff::Record(obj))) {
        Some(s) => Err(s.whole_only().unwrap_or(UNDETECTED_LINE).into()),
        None => Err(UNDETECTED_LINE.into()),
    }
}

const UNDETECTED_LINE: &str =
    "cannot detect the format: neither an A2A runtime event, an A2AP document nor a \
                               prompt-lineage record; name it with --format";

/// Parses and normalises one line of runtime events (the only line format normalised
/// alone), or says why it is rejected.
pub fn normalize_line(format: Format, bytes: &[u8], out: &mut GraphDelta) -> Result<(), String> {
    match format {
        Format::A2ap => Err("A2AP documents are read by the A2AP reader".into()),
        Format::ProvJson => Err("PROV-JSON documents are read whole".into()),
        Format::ProvO => Err("PROV-O documents are read whole".into()),
        Format::Lineage => Err("lineage records are read by the lineage reader".into()),
        Format::TrustGraph => Err("TrustGraph streams are read by the stream reader".into()),
        Format::Otlp => Err("OTLP requests are read by the OpenTelemetry reader".into()),
        Format::A2a | Format::Auto => crate::sources::runtime_events::source::normalise_line(bytes, out),
    }
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
    /// A key registry file for A2AP signatures (docs/FORMATS.md "A2AP documents").
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
    pub lineage: Option<std::sync::Arc<crate::sources::lineage::LineageContext>>,
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
    pub records: Vec<crate::sources::statements::Record>,
    pub events: u64,
    pub rejected: Vec<Rejected>,
    /// Keys an audit bundle marks trusted, for its documents.
    pub keys: Vec<crate::sources::statements::KeyEntry>,
    /// The log leaves of the records accepted, in order (see src/tlog/).
    pub leaves: Vec<crate::tlog::Hash>,
    /// For each of `records`, the line it came in on and its leaf (none for a document read
    /// from a whole file).
    pub record_leaves: Vec<Option<crate::sources::statements::log_leaves::LineEntry>>,
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
    let mut state = FileIngest::new(path, format, opts, opts.follow, rejects, keep_following, send);
    let source = crate::sources::of(format).expect("a detected format");
    if source.reads_whole(path, reader::first_line(path)?.as_deref()) {
        state.read_whole(source)?;
    } else {
        let eof = if opts.follow { EndOfFile::Follow(opts.poll) } else { EndOfFile::Stop };
        reader::read_lines(path, eof, opts.max_line_bytes, &mut state)?;
        state.end();
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
    refuse_stream(name, opts.format)?;
    let mut state = FileIngest::new(name, opts.format, opts, true, rejects, keep_following, send);
    reader::read_stream(name, source, opts.max_line_bytes, &mut state)?;
    state.end();
    state.finish()
}

/// Refuses a stream of a format read from whole files only.
fn refuse_stream(name: &Path, format: Format) -> Result<()> {
    match crate::sources::of(format).and_then(|s| s.whole_only()) {
        Some(reason) => Err(Error::Input { path: name.to_owned(), reason: reason.into() }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: an over-long line is rejected with its reason, its head
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
