//! A2A runtime events as the ingest pipeline reads them: one `ProvEvent` per line, each
//! normalised alone (`docs/FORMATS.md` "A2A runtime events").

use super::events::ProvEvent;
use crate::model::GraphDelta;
use crate::sources::{json_record, utf8, Context, Format, Reader, Sink, Sniff, Source};

/// The runtime-events source.
pub struct RuntimeEvents;

impl Source for RuntimeEvents {
    fn format(&self) -> Format {
        Format::A2a
    }

    /// `{"Task": …}` or `{"Global": …}`, alone.
    fn looks_like(&self, what: Sniff<'_>) -> bool {
        matches!(what, Sniff::Record(obj) if obj.len() == 1 && (obj.contains_key("Task") || obj.contains_key("Global")))
    }

    fn reader(&self, _ctx: &Context) -> Box<dyn Reader> {
        Box::new(Lines)
    }
}

/// Runtime events need nothing between lines.
struct Lines;

impl Reader for Lines {
    fn line(&mut self, number: u64, bytes: &[u8], out: &mut dyn Sink) {
        match normalise_line(bytes, out.delta()) {
            Ok(()) => out.accept(1),
            Err(reason) => out.refuse(number, reason, bytes),
        }
    }
}

/// Parses and normalises one line into `out`, or says why it is refused.
pub fn normalise_line(bytes: &[u8], out: &mut GraphDelta) -> Result<(), String> {
    let event: ProvEvent = json_record(utf8(bytes)?)?;
    super::normalise::normalize(&event, out).map_err(|e| e.to_string())
}
