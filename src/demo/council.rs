//! The council-meeting demo (A2AP): a city-council meeting transcript, one agent
//! summarising it into signed claims with byte-exact evidence, two more verifying them, as A2A
//! runtime events (docs/FORMATS.md, "A2A runtime events") and A2AP documents (docs/FORMATS.md, "A2AP documents") with a key registry.
//!
//! Everything is deterministic (fixed key seeds, fixed clock), so the files are reproducible
//! byte for byte. Planted faults, and only these, make `provex verify` fail:
//! - the parking claim's quote was altered after signing: its signature is `invalid` and its
//!   evidence segment a `mismatch`;
//! - a verification that claims to come from the fact checker was signed with another key
//!   under the fact checker's key id: `invalid`, so it is left out of consensus.
//!
//! Besides, the bike-lane claim is challenged by one verifier (consensus below threshold),
//! and two statements contradict each other (the summariser's "parks amendment approved"
//! against the Claude verifier's "parks amendment tabled", which says so in `contradicts`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::sources::statements::evidence::{chunk_id, sha256_tag, statement_id, ID_NAMESPACE};
use crate::sources::statements::keys::{embedded_form, KeyFile, KeyRegistry};
use crate::sources::statements::signature::{sign_value, KeyRef};
use crate::{Error, Result};

mod builder;
pub mod research;
mod scenario;
mod transcript;

pub use transcript::UtteranceSpan;

pub const SUMMARISER: &str = "urn:agent:gpt-5";
pub const VERIFIER_CLAUDE: &str = "urn:agent:claude-4.5-sonnet-20241022";
pub const VERIFIER_CHECKER: &str = "urn:agent:civic-fact-checker-1.2";
pub const DOCUMENT_ID: &str = "urn:doc:riverton-council:2025-10-14";
pub const SOURCE_ID: &str = "urn:source:riverton-council-video-archive";
pub const CONTEXT_ID: &str = "ctx-riverton-council-2025-10-14";
/// The demo's clock starts here: 2025-10-15T09:00:00Z.
pub const BASE_TIME_MS: i64 = 1_760_518_800_000;

/// File names [`CouncilDemo::write_to`] writes.
pub const EVENTS_FILE: &str = "council-events.jsonl";
pub const A2AP_FILE: &str = "council-a2ap.jsonl";
pub const KEYS_FILE: &str = "council-keys.json";
pub const TRANSCRIPT_FILE: &str = "council-transcript.txt";
/// The research question's TrustGraph explain stream (docs/FORMATS.md, "TrustGraph query-time provenance").
pub const EXPLAIN_FILE: &str = "council-explain.jsonl";
/// The summariser's own OpenTelemetry spans (docs/FORMATS.md, "OpenTelemetry traces"), made
/// with the OpenTelemetry Python SDK and the `openai` client's instrumentation by
/// tests/otel/make_council_otel.py, tied to its A2A task: one OTLP export request a line.
pub const OTEL_FILE: &str = "council-otel.jsonl";
const OTEL_LINES: &str = include_str!("../../examples/council/council-otel.jsonl");

struct Agent {
    id: &'static str,
    name: &'static str,
    version: &'static str,
    publisher: &'static str,
    capabilities: &'static [&'static str],
    runtime_id: &'static str,
    agent_type: &'static str,
    model: &'static str,
    client: &'static str,
}

const AGENTS: [Agent; 3] = [
    Agent {
        id: SUMMARISER,
        name: "GPT-5",
        version: "2025-08-07",
        publisher: "OpenAI",
        capabilities: &["summarisation", "provenance-tracking"],
        runtime_id: "00000000-0000-0000-0000-0000000000a1",
        agent_type: "council-summariser",
        model: "gpt-5",
        client: "openai",
    },
    Agent {
        id: VERIFIER_CLAUDE,
        name: "Claude 4.5 Sonnet",
        version: "20241022",
        publisher: "Anthropic",
        capabilities: &["reasoning", "verification", "provenance-tracking"],
        runtime_id: "00000000-0000-0000-0000-0000000000b2",
        agent_type: "council-verifier",
        model: "claude-4.5-sonnet",
        client: "anthropic",
    },
    Agent {
        id: VERIFIER_CHECKER,
        name: "Civic Fact Checker",
        version: "1.2",
        publisher: "Provex demo",
        capabilities: &["verification", "transcript-alignment"],
        runtime_id: "00000000-0000-0000-0000-0000000000c3",
        agent_type: "fact-checker",
        model: "civic-checker-1.2",
        client: "local",
    },
];

/// The demo's deterministic key for an agent: the seed is SHA-256 of a public label, so
/// never use these keys for anything real.
pub fn demo_key(agent_id: &str) -> KeyFile {
    let seed: [u8; 32] = Sha256::digest(format!("provex-demo-key|{agent_id}").as_bytes()).into();
    KeyFile::from_seed(&format!("{agent_id}#key-1"), agent_id, seed)
}

/// The key a forger used to sign a verification in the fact checker's name.
fn forger_key() -> KeyFile {
    let seed: [u8; 32] = Sha256::digest(b"provex-demo-key|forger").into();
    KeyFile::from_seed(&format!("{VERIFIER_CHECKER}#key-1"), VERIFIER_CHECKER, seed)
}

/// The signing keys of the three demo agents (for `provex sign` experiments).
pub fn demo_keys() -> Vec<KeyFile> {
    AGENTS.iter().map(|a| demo_key(a.id)).collect()
}

/// The registry listing the three agents' public keys.
pub fn demo_registry() -> KeyRegistry {
    let mut registry = KeyRegistry::new();
    for key in demo_keys() {
        // The demo's own keys are distinct by construction; a clash would be a bug here.
        let _ = registry.add_entry(&key.entry());
    }
    registry
}

/// One record of the paced stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PacedRecord {
    /// When to emit it, in milliseconds after the start (scale with `--pace`).
    pub offset_ms: u64,
    pub stream: Stream,
    /// One JSON line (no newline).
    pub line: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stream {
    /// A2A runtime events (docs/FORMATS.md, "A2A runtime events"): `council-events.jsonl`.
    Events,
    /// A2AP documents (docs/FORMATS.md, "A2AP documents"): `council-a2ap.jsonl`.
    A2ap,
    /// The research question's TrustGraph stream (docs/FORMATS.md, "TrustGraph query-time provenance"): `council-explain.jsonl`.
    Explain,
    /// The summariser's OpenTelemetry spans (docs/FORMATS.md, "OpenTelemetry traces"): `council-otel.jsonl`.
    Otel,
}

/// The demo's files, in memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CouncilDemo {
    /// Every record in emission order (events and documents interleaved).
    pub records: Vec<PacedRecord>,
    /// The key registry file.
    pub registry_json: String,
    /// The transcript text (also inside the source document).
    pub transcript: String,
    pub utterances: Vec<UtteranceSpan>,
    /// Ids of the statements, in the order they are described in the module docs.
    pub statements: DemoStatements,
    /// Id of the forged verification.
    pub forged_verification: String,
}

/// The statement ids of the demo, by role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DemoStatements {
    pub rezoning_approved: String,
    pub affordable_units: String,
    pub parks_shortfall: String,
    /// Its quote was altered after signing.
    pub parking_study_altered: String,
    /// Contradicted by `parks_tabled`; the forged verification targets it.
    pub parks_approved: String,
    /// By the Claude verifier; contradicts `parks_approved`.
    pub parks_tabled: String,
    /// Challenged by the fact checker.
    pub bike_pilot_march: String,
    pub bike_pilot_authorized: String,
}

impl CouncilDemo {
    /// The A2A runtime event lines, with a newline after each.
    pub fn events_jsonl(&self) -> String {
        self.lines(Stream::Events)
    }

    /// The A2AP document lines, with a newline after each.
    pub fn a2ap_jsonl(&self) -> String {
        self.lines(Stream::A2ap)
    }

    fn lines(&self, stream: Stream) -> String {
        self.records.iter().filter(|r| r.stream == stream).map(|r| format!("{}\n", r.line)).collect()
    }

    /// The records in emission order with their offsets, for `--pace`.
    pub fn paced(&self) -> &[PacedRecord] {
        &self.records
    }

    /// When to emit each record, in milliseconds from the start: the demo's own offsets, or,
    /// with `pace_ms` (`--pace MS`), one record every `pace_ms` milliseconds in the same order.
    pub fn schedule(&self, pace_ms: Option<u64>) -> Vec<(u64, &PacedRecord)> {
        self.records
            .iter()
            .enumerate()
            .map(|(i, r)| (pace_ms.map_or(r.offset_ms, |p| p * i as u64), r))
            .collect()
    }

    /// Writes the six files into `dir` (created if needed); returns their paths.
    pub fn write_to(&self, dir: &Path) -> Result<Vec<PathBuf>> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let files = [
            (EVENTS_FILE, self.events_jsonl()),
            (A2AP_FILE, self.a2ap_jsonl()),
            (KEYS_FILE, self.registry_json.clone()),
            (TRANSCRIPT_FILE, self.transcript.clone()),
            (EXPLAIN_FILE, self.lines(Stream::Explain)),
            (OTEL_FILE, self.lines(Stream::Otel)),
        ];
        let mut paths = Vec::new();
        for (name, content) in files {
            let path = dir.join(name);
            std::fs::write(&path, content).map_err(|e| Error::io(&path, e))?;
            paths.push(path);
        }
        Ok(paths)
    }
}

/// Builds the demo.
pub fn generate() -> CouncilDemo {
    let mut demo = Builder::new().build();
    demo.records.extend(otel_records());
    // Stable: records of one moment keep their order.
    demo.records.sort_by_key(|r| r.offset_ms);
    demo
}

/// The summariser's span export requests, each sent when the last span it carries ended
/// (the spans' clock is the runtime events' clock).
fn otel_records() -> Vec<PacedRecord> {
    OTEL_LINES
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let request: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
            let end_ns = request["resourceSpans"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|rs| rs["scopeSpans"].as_array().into_iter().flatten())
                .flat_map(|ss| ss["spans"].as_array().into_iter().flatten())
                .filter_map(|span| span["endTimeUnixNano"].as_str()?.parse::<i64>().ok())
                .max()
                .unwrap_or(0);
            let offset_ms = (end_ns / 1_000_000 - BASE_TIME_MS).max(0) as u64;
            PacedRecord { offset_ms, stream: Stream::Otel, line: line.to_owned() }
        })
        .collect()
}

struct Builder {
    records: Vec<PacedRecord>,
    clock: u64,
    event_seq: usize,
    message_seq: usize,
    text: String,
    spans: Vec<UtteranceSpan>,
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules() {
        let demo = generate();
        let natural = demo.schedule(None);
        assert_eq!(natural.len(), demo.records.len());
        assert!(natural.windows(2).all(|w| w[0].0 <= w[1].0));
        assert!(natural.last().map(|(t, _)| *t).unwrap_or(0) > 10_000);
        let paced = demo.schedule(Some(250));
        assert_eq!(paced[3].0, 750);
        assert_eq!(paced[3].1, &demo.records[3]);
    }

    #[test]
    fn reproducible() {
        assert_eq!(generate(), generate());
    }
}
