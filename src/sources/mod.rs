//! The sources Provex reads, one folder each: recognising a source's records, parsing them,
//! normalising them into graph deltas, and what that source keeps about them (ledgers,
//! views, store queries) and the operations that serve its views ([`Session`]). Each format is
//! described in `docs/FORMATS.md`. The vocabulary the sources share is in `model/`, the
//! database in `store/`; the ingest pipeline, the facade and the transports sit above.

pub mod graphql;
pub mod knowledge;
pub mod lineage;
pub mod otel;
pub mod prov;
pub mod reasoning;
pub mod runtime_events;
pub mod statements;

use std::path::Path;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::model::GraphDelta;
use crate::store::Store;

/// Every source the ingest pipeline reads, in the order a record is recognised (a file's
/// first record, a stream's first recognised line). Adding a source is one line here.
pub const SOURCES: &[&dyn Source] = &[
    &prov::source::PROV_JSON,
    &prov::source::PROV_O,
    &runtime_events::source::RuntimeEvents,
    &statements::source::Statements,
    &lineage::source::Lineage,
    &reasoning::source::Reasoning,
    &otel::source::Otel,
];

/// The source of a format (`None` for [`Format::Auto`]).
pub fn of(format: Format) -> Option<&'static dyn Source> {
    SOURCES.iter().copied().find(|s| s.format() == format)
}

/// Input formats `provex ingest --format` accepts, one per source read from files and
/// streams (`docs/FORMATS.md` describes each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Detect from the first record.
    #[default]
    Auto,
    /// A2A runtime `ProvEvent` JSON lines (`docs/FORMATS.md` "A2A runtime events").
    A2a,
    /// A2AP signed statements: JSON lines, a JSON array or an audit bundle
    /// (`docs/FORMATS.md` "A2AP documents", "Audit bundles").
    A2ap,
    /// A W3C PROV-JSON document, read whole (`docs/FORMATS.md` "W3C PROV-JSON").
    ProvJson,
    /// A W3C PROV-O document in Turtle, read whole (`docs/FORMATS.md` "PROV-O (Turtle) in").
    #[serde(rename = "prov-o")]
    ProvO,
    /// Prompt-lineage records, JSON lines (`docs/FORMATS.md` "Prompt lineage").
    Lineage,
    /// TrustGraph query-time provenance: explain streams and provenance nodes, JSON lines
    /// (`docs/FORMATS.md` "TrustGraph query-time provenance").
    #[serde(rename = "trustgraph")]
    TrustGraph,
    /// OpenTelemetry traces in OTLP JSON: one request per line or one document per file
    /// (`docs/FORMATS.md` "OpenTelemetry traces").
    Otlp,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::A2a => "a2a",
            Format::A2ap => "a2ap",
            Format::ProvJson => "prov-json",
            Format::ProvO => "prov-o",
            Format::Lineage => "lineage",
            Format::TrustGraph => "trustgraph",
            Format::Otlp => "otlp",
        }
    }
}

/// What a source is recognised by.
#[derive(Debug, Clone, Copy)]
pub enum Sniff<'a> {
    /// One record: a file's first line, a stream's line.
    Record(&'a Map<String, Value>),
    /// A file whose first line opens a JSON array.
    Array,
    /// A file that is one JSON object over many lines.
    Document(&'a Map<String, Value>),
}

/// What a source's records are read with: the context loaded from the graph beforehand.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// The graph's lineages and the embeddings endpoint, for prompt-lineage records.
    pub lineage: Option<Arc<lineage::LineageContext>>,
}

/// What the sources' operations run on in one Provex session: the store, what a source keeps
/// between operations, and where a written delta goes. `facade::Provex` holds one and
/// dereferences to it, so an operation a source defines in its folder (`impl Session` in
/// `<source>/ops.rs`) is called as `provex.operation(…)` by the operation declarations
/// (`facade/calls.rs`), the CLI and the tests, while no source depends on the facade.
pub struct Session {
    pub(crate) store: Arc<Store>,
    stream: Arc<dyn Publish>,
    /// The embeddings endpoint of lineage confidences, read from the environment once.
    /// `None` until first used (then the environment's, or what `set_embeddings` gave).
    pub(crate) embedder: Mutex<Option<Option<Arc<lineage::embeddings::Embedder>>>>,
    /// The similarity index of each graph's prompts.
    pub(crate) similar: lineage::commands::SimilarCache,
    /// Knowledge-graph updates: one writer at a time, the subscribers, the alignment rules.
    pub(crate) knowledge: knowledge::ops::KnowledgeHub,
    /// The statements' ledger of each graph used, kept current as documents arrive.
    pub(crate) ledgers: statements::ops::Ledgers,
}

/// Where a written delta goes: the facade numbers it for the session's subscribers and
/// routes it to the graph's live view.
pub trait Publish: Send + Sync {
    /// `delta` was written to `graph`, with the knowledge-graph changes it makes.
    fn publish(&self, graph: &str, delta: GraphDelta, knowledge: &[knowledge::ChangeEvent]);
}

impl Session {
    /// The sources' part of a session over `store`, publishing to `stream`.
    pub fn new(store: Arc<Store>, stream: Arc<dyn Publish>) -> Session {
        Session {
            store,
            stream,
            embedder: Mutex::new(None),
            similar: Default::default(),
            knowledge: Default::default(),
            ledgers: Default::default(),
        }
    }

    /// Writes a delta directly (for sources that are not files, such as the demo stream).
    pub async fn write(&self, graph: &str, delta: GraphDelta) -> Result<()> {
        self.store.write(graph, &delta).await?;
        self.publish(graph, delta);
        Ok(())
    }

    /// Hands a written delta to subscribers and to the graph's live view.
    pub(crate) fn publish(&self, graph: &str, delta: GraphDelta) {
        self.stream.publish(graph, delta, &[]);
    }

    /// [`Session::publish`], with the knowledge-graph changes the delta writes.
    pub(crate) fn publish_knowledge(
        &self,
        graph: &str,
        delta: GraphDelta,
        changes: &[knowledge::ChangeEvent],
    ) {
        self.stream.publish(graph, delta, changes);
    }

    /// An audit bundle opened as a graph stays as the bundle said: nothing more is written
    /// into it.
    pub(crate) async fn refuse_read_only(&self, graph: &str) -> Result<()> {
        let q = "MATCH (n:AuditBundle) RETURN count(n)";
        let bundles = match self.store.run_ro(graph, q, vec![]).await {
            Ok((_, rows)) => {
                rows.first().and_then(|r| r.first()).and_then(crate::store::value::as_i64).unwrap_or(0)
            }
            Err(Error::NotFound { what: "graph", .. }) => 0,
            Err(e) => return Err(e),
        };
        if bundles > 0 {
            return Err(Error::Usage(format!(
                "graph {graph} is an audit bundle, opened read-only; open other files into another graph"
            )));
        }
        Ok(())
    }
}

/// Where a reader puts what it makes of its input: the ingest pipeline's batch.
pub trait Sink {
    /// The input's name (a file, or what stands for a stream), for refusals and nodes.
    fn name(&self) -> &Path;
    /// The graph changes being gathered.
    fn delta(&mut self) -> &mut GraphDelta;
    /// Records taken (counted in the report, one log leaf per line that takes any).
    fn accept(&mut self, records: u64);
    /// One record refused: its line, why, and its text.
    fn refuse(&mut self, line: u64, reason: String, text: &[u8]);
    /// A signed statement, for the graph's ledger: verified and written after the batch.
    /// `line` is the text of the line it came in on (none for a document read whole), for
    /// the graph's log.
    fn statement(&mut self, record: statements::Record, line: Option<&str>);
    /// Keys an audit bundle marks trusted, for its statements.
    fn trust(&mut self, keys: Vec<statements::KeyEntry>);
    /// A document read whole (its file's bytes as read), before its records: one leaf of
    /// the graph's log covers all of it, and the nodes its records give name that leaf.
    fn document(&mut self, _bytes: &[u8]) {}
}

/// One source as the ingest pipeline knows it: how its records are recognised, and a
/// reader that parses and normalises them into graph deltas.
pub trait Source: Sync {
    /// The `--format` that names it.
    fn format(&self) -> Format;
    /// Whether a record or a file is of this source.
    fn looks_like(&self, what: Sniff<'_>) -> bool;
    /// Why a stream of this source cannot be read, when it is read from whole files only.
    fn whole_only(&self) -> Option<&'static str> {
        None
    }
    /// Whether the file at `path`, whose first non-blank line is `first`, is read whole
    /// by [`Source::read_whole`] rather than line by line.
    fn reads_whole(&self, _path: &Path, _first: Option<&str>) -> bool {
        false
    }
    /// Reads a whole file into `out`; returns its lines and the bytes read.
    fn read_whole(&self, path: &Path, _out: &mut dyn Sink) -> Result<(u64, u64)> {
        Err(crate::error::Error::Input { path: path.to_owned(), reason: "read line by line".into() })
    }
    /// A reader of one input's lines, with what it needs loaded beforehand.
    fn reader(&self, ctx: &Context) -> Box<dyn Reader>;
}

/// Reads the lines of one input of a source, in order.
pub trait Reader: Send {
    /// One non-blank line: what it says goes to `out`, or it is refused there.
    fn line(&mut self, number: u64, bytes: &[u8], out: &mut dyn Sink);
    /// The input ended (records still waiting for something are refused).
    fn end(&mut self, _out: &mut dyn Sink) {}
}

/// A line as text, or why it is not (a reason for a refusal).
pub fn utf8(bytes: &[u8]) -> std::result::Result<&str, String> {
    std::str::from_utf8(bytes).map_err(|e| format!("not valid UTF-8 (at byte {})", e.valid_up_to()))
}

/// A line as a JSON record a graph can hold, or why it is not: FalkorDB cannot store a NUL
/// character, and JSON carries one only as the escape `\u0000`.
pub fn json_record<'a, T: Deserialize<'a>>(text: &'a str) -> std::result::Result<T, String> {
    if text.contains("\\u0000") && holds_nul(text) {
        return Err("a string holds a NUL character (\\u0000), which FalkorDB cannot store".into());
    }
    serde_json::from_str(text).map_err(|e| describe_json_error(&e))
}

/// Whether a JSON text has a NUL character in a string or key.
fn holds_nul(text: &str) -> bool {
    fn any(v: &Value) -> bool {
        match v {
            Value::String(s) => s.contains('\0'),
            Value::Array(a) => a.iter().any(any),
            Value::Object(o) => o.iter().any(|(k, v)| k.contains('\0') || any(v)),
            _ => false,
        }
    }
    serde_json::from_str::<Value>(text).is_ok_and(|v| any(&v))
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
