//! Prompt-lineage files (`docs/FORMATS.md` "Prompt lineage") line by line: each record read
//! and checked alone, then against the graph's lineages (the [`LineageContext`]'s book,
//! loaded from the graph before the file is read). A record whose parent has not arrived yet
//! waits, and goes in as soon as the parent does; one still waiting when the file ends is
//! rejected with `INVALID_LINEAGE_RELATIONSHIP`. Every rejected record is also kept in the
//! graph as a `LineageReject` (for `lineage stats`), keyed by its text, so re-ingesting
//! changes nothing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::{apply, parse_record, Applied, Book, LineageRecord, RecordError, Semantic};
use crate::model::{Label, Node};
use crate::sources::{utf8, Context, Format, Reader, Sink, Sniff, Source};

/// The prompt-lineage source.
pub struct Lineage;

impl Source for Lineage {
    fn format(&self) -> Format {
        Format::Lineage
    }

    fn looks_like(&self, what: Sniff<'_>) -> bool {
        matches!(what, Sniff::Record(obj) if super::records::looks_like(obj))
    }

    fn reader(&self, ctx: &Context) -> Box<dyn Reader> {
        Box::new(Lines { ctx: ctx.lineage.clone(), waiting: WaitingRoom::default() })
    }
}

/// The semantic part of a confidence for two texts (parent, child).
pub type SemanticFn = dyn Fn(&str, &str) -> Semantic + Send + Sync;

/// What a lineage ingest checks against: the graph's lineages, and the embeddings endpoint.
pub struct LineageContext {
    pub book: Mutex<Book>,
    pub semantic: Box<SemanticFn>,
    /// `semantic` waits on a network endpoint (it must run where blocking is allowed).
    pub blocks: bool,
}

impl LineageContext {
    /// A context with no embeddings endpoint.
    pub fn new(book: Book) -> LineageContext {
        LineageContext {
            book: Mutex::new(book),
            semantic: Box::new(|_, _| Semantic::Unconfigured),
            blocks: false,
        }
    }
}

impl std::fmt::Debug for LineageContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineageContext").field("book", &self.book).finish_non_exhaustive()
    }
}

/// A record waiting for its parent.
#[derive(Debug)]
struct Waiting {
    line: u64,
    text: String,
    record: LineageRecord,
}

/// The records of one file waiting for a parent, by the parent they wait for.
type WaitingRoom = HashMap<Uuid, Vec<Waiting>>;

/// The graph node that keeps a rejected record: `reject:<sha256 of code and text>`.
pub fn reject_node(file: &str, line: u64, e: &RecordError, text: &str) -> Node {
    let digest = Sha256::digest(format!("{}\n{text}", e.code.as_str()).as_bytes());
    let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    let mut shown = text.to_owned();
    if shown.len() > 2_000 {
        let mut cut = 2_000;
        while !shown.is_char_boundary(cut) {
            cut -= 1;
        }
        shown.truncate(cut);
    }
    Node::new(Label::LineageReject, format!("reject:{hex}"))
        .with("code", e.code.as_str())
        .with("reason", e.reason.as_str())
        .with("file", file)
        .with("line", line)
        .with("text", shown)
}

/// One input's lineage records: the context, and the records waiting for a parent.
struct Lines {
    ctx: Option<Arc<LineageContext>>,
    waiting: WaitingRoom,
}

impl Reader for Lines {
    fn line(&mut self, number: u64, bytes: &[u8], out: &mut dyn Sink) {
        let text = match utf8(bytes) {
            Ok(t) => t,
            Err(reason) => return out.refuse(number, reason, bytes),
        };
        match parse_record(text) {
            Ok(record) => self.try_apply(Waiting { line: number, text: text.to_owned(), record }, out),
            Err(e) => reject(number, &e, text.to_owned(), out),
        }
    }

    /// At the end of the input: what still waits for a parent is rejected.
    fn end(&mut self, out: &mut dyn Sink) {
        let mut left: Vec<(Uuid, Waiting)> =
            self.waiting.drain().flat_map(|(p, ws)| ws.into_iter().map(move |w| (p, w))).collect();
        left.sort_by_key(|(_, w)| w.line);
        for (parent, w) in left {
            let e = super::records::relationship(format!(
                "parent prompt {parent} is neither in the graph nor in the file"
            ));
            reject(w.line, &e, w.text, out);
        }
    }
}

impl Lines {
    fn try_apply(&mut self, first: Waiting, out: &mut dyn Sink) {
        let Some(ctx) = self.ctx.clone() else {
            out.refuse(first.line, "lineage records need a lineage context".into(), first.text.as_bytes());
            return;
        };
        let mut queue = vec![first];
        while let Some(w) = queue.pop() {
            let result = {
                let mut book = ctx.book.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                apply(&mut book, &w.record, &mut |a, b| (ctx.semantic)(a, b))
            };
            match result {
                Ok(Applied::Done(delta, added)) => {
                    out.accept(1);
                    out.delta().extend(delta);
                    if let Some(children) = added.and_then(|id| self.waiting.remove(&id)) {
                        // In file order, so that a later sibling cannot take an earlier one's place.
                        queue.extend(children.into_iter().rev());
                    }
                }
                Ok(Applied::Waiting(parent)) => self.waiting.entry(parent).or_default().push(w),
                Err(e) => reject(w.line, &e, w.text, out),
            }
        }
    }
}

/// Refuses a record, and keeps it in the graph as a `LineageReject`.
fn reject(line: u64, e: &RecordError, text: String, out: &mut dyn Sink) {
    let file = out.name().display().to_string();
    out.delta().add_node(reject_node(&file, line, e, &text));
    out.refuse(line, e.to_string(), text.as_bytes());
}
