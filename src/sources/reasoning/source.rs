//! TrustGraph explain streams and provenance nodes as the ingest pipeline reads them, line
//! by line (`docs/FORMATS.md` "TrustGraph query-time provenance"). A stream's sessions are
//! kept between lines; after reading, `relink` ties the steps to nodes of other sources.

use serde_json::Value;

use super::StreamState;
use crate::model::GraphDelta;
use crate::sources::{json_record, utf8, Context, Format, Reader, Sink, Sniff, Source};

/// The reasoning-traces source.
pub struct Reasoning;

impl Source for Reasoning {
    fn format(&self) -> Format {
        Format::TrustGraph
    }

    fn looks_like(&self, what: Sniff<'_>) -> bool {
        matches!(what, Sniff::Record(obj) if super::looks_like(obj))
    }

    fn reader(&self, _ctx: &Context) -> Box<dyn Reader> {
        Box::new(Lines::default())
    }
}

/// A stream's sessions so far.
#[derive(Default)]
struct Lines {
    state: StreamState,
}

impl Reader for Lines {
    fn line(&mut self, number: u64, bytes: &[u8], out: &mut dyn Sink) {
        match self.read(bytes) {
            Ok(delta) => {
                out.delta().extend(delta);
                out.accept(1);
            }
            Err(reason) => out.refuse(number, reason, bytes),
        }
    }
}

impl Lines {
    /// One line's changes; nothing of a refused line reaches the batch.
    fn read(&mut self, bytes: &[u8]) -> Result<GraphDelta, String> {
        let v: Value = json_record(utf8(bytes)?)?;
        let mut delta = GraphDelta::new();
        self.state.line(&v, &mut delta)?;
        Ok(delta)
    }
}
