//! The council-meeting demo (seed 001 §8): a city-council meeting transcript, one agent
//! summarising it into signed claims with byte-exact evidence, two more verifying them, as A2A
//! runtime events (formats.md §1) and A2AP documents (formats.md §2) with a key registry.
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
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::a2ap::evidence::{chunk_id, sha256_tag, statement_id, ID_NAMESPACE};
use crate::a2ap::keys::{embedded_form, KeyFile, KeyRegistry};
use crate::a2ap::signature::{sign_value, KeyRef};
use crate::{Error, Result};

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

struct Utterance {
    time: &'static str,
    speaker: &'static str,
    text: &'static str,
}

const fn u(time: &'static str, speaker: &'static str, text: &'static str) -> Utterance {
    Utterance { time, speaker, text }
}

const TITLE: &str = "Riverton City Council — Regular Meeting, 14 October 2025";

const AGENDA: &[(&str, &[Utterance])] = &[
    (
        "ITEM 1 — CALL TO ORDER AND PUBLIC COMMENT",
        &[
            u("00:00:05", "MAYOR DANA WHITFIELD", "Good evening. I call this regular meeting of the Riverton City Council to order. All five members are present."),
            u("00:00:21", "CITY CLERK MARIA SANTOS", "Public comment is open. Our first speaker is Ruth Alvarez of Elm Street."),
            u("00:00:34", "RUTH ALVAREZ", "I live two doors from the proposed Elm Street project. Parking on our block is already impossible after six, and I ask the council to require a parking study before any vote."),
            u("00:01:02", "MAYOR DANA WHITFIELD", "Thank you, Ms. Alvarez. Public comment is closed."),
        ],
    ),
    (
        "ITEM 2 — ELM STREET REZONING (ORDINANCE 2025-31)",
        &[
            u("00:01:15", "CITY PLANNER MAYA CHEN", "Ordinance 2025-31 rezones the former bus depot at 400 Elm Street from light industrial to mixed use. The developer proposes 120 apartments, 18 of them affordable, over ground-floor retail."),
            u("00:01:48", "COUNCILMEMBER LUIS ORTEGA", "Eighteen affordable units is the most any project has offered this decade. I move to approve."),
            u("00:02:03", "COUNCILMEMBER PRIYA RAMAN", "Second. Staff found that the depot site needs no new road access."),
            u("00:02:15", "COUNCILMEMBER TOM BECKER", "I will vote no. The parking study Ms. Alvarez asked for has not been done."),
            u("00:02:31", "MAYOR DANA WHITFIELD", "The clerk will call the roll."),
            u("00:02:36", "CITY CLERK MARIA SANTOS", "Ortega, yes. Raman, yes. Becker, no. Nguyen, yes. Whitfield, yes. The motion carries four to one."),
        ],
    ),
    (
        "ITEM 3 — FISCAL YEAR 2026 PARKS BUDGET AMENDMENT",
        &[
            u("00:02:58", "FINANCE DIRECTOR SAM OKAFOR", "The parks department projects a shortfall of one point two million dollars for fiscal year 2026, mostly from the Riverside Pool repairs."),
            u("00:03:25", "COUNCILMEMBER ANA NGUYEN", "The amendment before us moves nine hundred thousand dollars from the capital reserve to cover most of that gap."),
            u("00:03:44", "COUNCILMEMBER TOM BECKER", "I am not ready to drain the reserve tonight. I move to table the amendment until the November 4 meeting, when we will have the pool contractor's final bid."),
            u("00:04:02", "COUNCILMEMBER PRIYA RAMAN", "Second."),
            u("00:04:06", "CITY CLERK MARIA SANTOS", "On the motion to table: Ortega, yes. Raman, yes. Becker, yes. Nguyen, no. Whitfield, yes. The amendment is tabled to November 4."),
        ],
    ),
    (
        "ITEM 4 — MAIN STREET BIKE LANE PILOT",
        &[
            u("00:04:30", "PUBLIC WORKS DIRECTOR JAMES HOLLOWAY", "The pilot would add protected bike lanes on Main Street between First and Ninth Avenues. We would begin in the spring, pending the results of the traffic study."),
            u("00:04:55", "COUNCILMEMBER ANA NGUYEN", "How long would the pilot run?"),
            u("00:05:00", "PUBLIC WORKS DIRECTOR JAMES HOLLOWAY", "Six months, with a report back to the council at the end."),
            u("00:05:09", "COUNCILMEMBER LUIS ORTEGA", "I move to authorize the pilot."),
            u("00:05:13", "COUNCILMEMBER ANA NGUYEN", "Second."),
            u("00:05:16", "CITY CLERK MARIA SANTOS", "The pilot is authorized unanimously, five to zero."),
        ],
    ),
    (
        "ITEM 5 — ADJOURNMENT",
        &[u("00:05:30", "MAYOR DANA WHITFIELD", "There being no further business, we are adjourned at seven forty-one.")],
    ),
];

/// Where an utterance's words are in the transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UtteranceSpan {
    pub start_time: String,
    pub end_time: String,
    pub speaker: String,
    pub byte_start: usize,
    pub byte_end: usize,
}

/// The transcript: a title, agenda headings, and one `[hh:mm:ss] SPEAKER: words` line per
/// utterance.
fn transcript() -> (String, Vec<UtteranceSpan>) {
    let mut text =
        format!("{TITLE}\nCouncil Chambers, Riverton City Hall. Transcript of the video record.\n");
    let mut spans = Vec::new();
    let all: Vec<&Utterance> = AGENDA.iter().flat_map(|(_, us)| us.iter()).collect();
    let mut n = 0;
    for (heading, utterances) in AGENDA {
        text.push('\n');
        text.push_str(heading);
        text.push('\n');
        for ut in utterances.iter() {
            text.push_str(&format!("[{}] {}: ", ut.time, ut.speaker));
            let start = text.len();
            text.push_str(ut.text);
            let end_time =
                all.get(n + 1).map(|next| next.time.to_owned()).unwrap_or_else(|| "00:05:41".into());
            spans.push(UtteranceSpan {
                start_time: ut.time.to_owned(),
                end_time,
                speaker: ut.speaker.to_owned(),
                byte_start: start,
                byte_end: text.len(),
            });
            text.push('\n');
            n += 1;
        }
    }
    (text, spans)
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
    /// A2A runtime events (formats.md §1): `council-events.jsonl`.
    Events,
    /// A2AP documents (formats.md §2): `council-a2ap.jsonl`.
    A2ap,
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

    /// Writes the four files into `dir` (created if needed); returns their paths.
    pub fn write_to(&self, dir: &Path) -> Result<Vec<PathBuf>> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let files = [
            (EVENTS_FILE, self.events_jsonl()),
            (A2AP_FILE, self.a2ap_jsonl()),
            (KEYS_FILE, self.registry_json.clone()),
            (TRANSCRIPT_FILE, self.transcript.clone()),
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
    Builder::new().build()
}

struct Builder {
    records: Vec<PacedRecord>,
    clock: u64,
    event_seq: usize,
    message_seq: usize,
    text: String,
    spans: Vec<UtteranceSpan>,
}

fn iso(offset_ms: u64) -> String {
    let t = chrono::DateTime::from_timestamp_millis(BASE_TIME_MS + offset_ms as i64).unwrap_or_default();
    t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn doc_uuid(parts: &[&str]) -> String {
    format!("urn:uuid:{}", Uuid::new_v5(&ID_NAMESPACE, parts.join("|").as_bytes()))
}

const CRITERIA: [&str; 3] = ["source-accuracy", "logical-consistency", "evidence-sufficiency"];

/// A verifier's finding on one criterion.
struct F(&'static str, &'static str, &'static str, f64);

impl Builder {
    fn new() -> Self {
        let (text, spans) = transcript();
        Builder { records: Vec::new(), clock: 0, event_seq: 0, message_seq: 0, text, spans }
    }

    fn tick(&mut self, ms: u64) {
        self.clock += ms;
    }

    fn emit(&mut self, stream: Stream, value: &Value) {
        self.records.push(PacedRecord {
            offset_ms: self.clock,
            stream,
            line: serde_json::to_string(value).unwrap_or_default(),
        });
    }

    fn event(&mut self, task_id: Option<&str>, data: Value) {
        let id = format!("prov-{}", self.event_seq);
        self.event_seq += 1;
        let ts = BASE_TIME_MS + self.clock as i64;
        let envelope = match task_id {
            Some(task) => {
                json!({"Task": {"id": id, "context_id": CONTEXT_ID, "task_id": task, "timestamp_ms": ts, "data": data}})
            }
            None => {
                json!({"Global": {"id": id, "context_id": CONTEXT_ID, "timestamp_ms": ts, "data": data}})
            }
        };
        self.emit(Stream::Events, &envelope);
    }

    fn status(&mut self, task: &str, old: Option<&str>, new: &str) {
        self.event(
            Some(task),
            // An absent previous status is left out, not written null.
            json!({"TaskStatusChanged": match old {
                Some(old) => json!({"task_id": task, "old_status": old, "new_status": new}),
                None => json!({"task_id": task, "new_status": new}),
            }}),
        );
    }

    fn message(
        &mut self,
        task: &str,
        sent: bool,
        role: &str,
        content: &str,
        (from, to): (&Agent, Option<&Agent>),
        doc: Option<&str>,
    ) {
        let id = format!("m-{}", self.message_seq);
        self.message_seq += 1;
        let mut metadata = json!({"agent_id": from.runtime_id, "a2ap_agent": from.id});
        if let Some(to) = to {
            metadata["to_agent_id"] = json!(to.runtime_id);
        }
        if let Some(doc) = doc {
            metadata["a2ap_document"] = json!(doc);
        }
        let variant = if sent { "MessageSent" } else { "MessageReceived" };
        self.event(
            Some(task),
            json!({variant: {"id": id, "role": role, "content": [content], "metadata": metadata}}),
        );
    }

    fn llm(
        &mut self,
        task: &str,
        a: &Agent,
        function: &str,
        system: &str,
        user: &str,
        completion_tokens: u64,
    ) {
        let prompt =
            json!({"messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]});
        let scope = json!({"Task": {"task_id": task}});
        self.event(Some(task), json!({"LlmCallStarted": {"scope": scope, "client": a.client, "model": a.model, "function_name": function, "prompt": prompt, "metadata": {"agent_id": a.runtime_id}}}));
        let duration = 900 + completion_tokens * 12;
        self.tick(duration);
        let prompt_tokens = (system.len() + user.len()) as u64 / 4;
        self.event(Some(task), json!({"LlmCallCompleted": {"scope": scope, "client": a.client, "model": a.model, "function_name": function, "prompt": prompt, "metadata": {"agent_id": a.runtime_id},
            "usage": {"Known": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens}},
            "duration_ms": duration, "success": true}}));
    }

    fn tool(&mut self, task: &str, a: &Agent, tool: &str, args: Value, duration: u64) {
        let scope = json!({"Task": {"task_id": task}});
        self.event(Some(task), json!({"ToolCallStarted": {"scope": scope, "tool_name": tool, "function_name": tool, "args": args, "metadata": {"agent_id": a.runtime_id}}}));
        self.tick(duration);
        self.event(Some(task), json!({"ToolCallCompleted": {"scope": scope, "tool_name": tool, "function_name": tool, "args": args, "metadata": {"agent_id": a.runtime_id}, "duration_ms": duration, "success": true}}));
    }

    /// An evidence segment quoting `quote` from the first utterance (in order) containing it.
    fn segment(&self, quote: &str, relevance: f64) -> Value {
        let span = self
            .spans
            .iter()
            .find(|s| self.text[s.byte_start..s.byte_end].contains(quote))
            .unwrap_or(&self.spans[0]);
        let start = span.byte_start + self.text[span.byte_start..span.byte_end].find(quote).unwrap_or(0);
        let end = start + quote.len();
        json!({
            "@type": "a2ap:EvidenceSegment",
            "sourceDocument": DOCUMENT_ID,
            "chunkId": chunk_id(DOCUMENT_ID, start as u64),
            "byteRange": {"start": start, "end": end},
            "timestamp": {"start": span.start_time, "end": span.end_time},
            "quoteText": &self.text[start..end],
            "relevanceScore": relevance,
            "contentHash": sha256_tag(&self.text.as_bytes()[start..end]),
        })
    }

    fn statement(
        &self,
        by: &Agent,
        claim: &str,
        confidence: f64,
        evidence: Vec<Value>,
        extra: &[(&str, Value)],
    ) -> (String, Value) {
        let id = statement_id(by.id, claim);
        let mut doc = json!({
            "@context": {"@vocab": "https://schema.org/", "prov": "http://www.w3.org/ns/prov#", "a2ap": "https://williams-librarian.njit.edu/a2ap/v0.1#"},
            "@type": "a2ap:ProvenanceStatement",
            "@id": id,
            "generatedAtTime": iso(self.clock),
            "agent": {"@type": "prov:SoftwareAgent", "@id": by.id, "name": by.name, "version": by.version, "publisher": by.publisher, "capabilities": by.capabilities},
            "claim": {"@type": "a2ap:Claim", "text": claim, "confidence": confidence, "generationMethod": "transcript-summarisation", "contentHash": sha256_tag(claim.as_bytes())},
            "evidence": evidence,
        });
        for (k, v) in extra {
            doc[*k] = v.clone();
        }
        doc["verificationStatus"] =
            json!({"verified": false, "validators": [], "challenges": [], "consensusScore": 0.0});
        sign(&mut doc, &demo_key(by.id));
        (id, doc)
    }

    fn request(&self, by: &Agent, target: &str) -> (String, Value) {
        let id = doc_uuid(&[by.id, "request", target]);
        let mut doc = json!({
            "@context": "https://williams-librarian.njit.edu/a2ap/v0.1",
            "@type": "a2ap:VerificationRequest",
            "@id": id,
            "requestedAt": iso(self.clock),
            "requestingAgent": by.id,
            "targetStatement": target,
            "verificationCriteria": CRITERIA,
        });
        sign(&mut doc, &demo_key(by.id));
        (id, doc)
    }

    fn response(
        &self,
        by: &Agent,
        target: &str,
        (verdict, confidence, findings): (&str, f64, &[F]),
        key: &KeyFile,
        salt: &str,
    ) -> (String, Value) {
        let id = doc_uuid(&[by.id, "verification", target, salt]);
        let mut doc = json!({
            "@context": "https://williams-librarian.njit.edu/a2ap/v0.1",
            "@type": "a2ap:VerificationResponse",
            "@id": id,
            "respondedAt": iso(self.clock),
            "respondingAgent": by.id,
            "targetStatement": target,
            "inResponseTo": doc_uuid(&[SUMMARISER, "request", target]),
            "verdict": verdict,
            "confidence": confidence,
            "findings": findings.iter().map(|F(c, s, e, conf)| json!({"criterion": c, "status": s, "evidence": e, "confidence": conf})).collect::<Vec<_>>(),
        });
        sign(&mut doc, key);
        (id, doc)
    }

    fn build(mut self) -> CouncilDemo {
        let [gpt, claude, checker] = [&AGENTS[0], &AGENTS[1], &AGENTS[2]];
        // Boot and registration.
        for a in &AGENTS {
            self.event(None, json!({"AgentBooted": {"agent_id": a.runtime_id, "agent_type": a.agent_type, "agent_version": a.version, "archive_path": format!("{}@{}", a.agent_type, a.version)}}));
            let key = demo_key(a.id);
            let record = json!({"@type": "prov:SoftwareAgent", "@id": a.id, "name": a.name, "version": a.version, "publisher": a.publisher, "capabilities": a.capabilities,
                "keyId": key.key_id, "publicKey": key.verifying_key().map(|k| embedded_form(&k)).unwrap_or_default()});
            self.emit(Stream::A2ap, &record);
            self.tick(150);
        }
        let source = json!({"@type": "a2ap:SourceDocument", "@id": DOCUMENT_ID, "title": TITLE, "text": self.text,
            "source": {"@id": SOURCE_ID, "name": "Riverton City Council video archive", "url": "https://example.org/riverton/council/2025-10-14"}});
        self.emit(Stream::A2ap, &source);
        self.tick(400);

        // The summariser's task.
        let task = "task-summarise-council-2025-10-14";
        self.event(Some(task), json!({"TaskCreated": {"task_id": task, "agent_id": gpt.runtime_id}}));
        self.status(task, None, "submitted");
        self.message(
            task,
            false,
            "user",
            "Summarise the Riverton City Council meeting of 14 October 2025 into claims with evidence.",
            (gpt, None),
            Some(DOCUMENT_ID),
        );
        self.tick(200);
        self.status(task, Some("submitted"), "working");
        self.tool(task, gpt, "fetch_transcript", json!({"document": DOCUMENT_ID}), 340);
        self.llm(
            task,
            gpt,
            "summarise_transcript",
            "You summarise city council meetings. Every claim must cite byte ranges of the transcript.",
            "Summarise the transcript by agenda item.",
            610,
        );

        let planner = "Ordinance 2025-31 rezones the former bus depot at 400 Elm Street from light industrial to mixed use.";
        let roll = "Ortega, yes. Raman, yes. Becker, no. Nguyen, yes. Whitfield, yes. The motion carries four to one.";
        let mut summaries: Vec<(String, Value)> = Vec::new();
        let s1 = self.statement(
            gpt,
            "The council approved Ordinance 2025-31, rezoning 400 Elm Street to mixed use, by a 4–1 vote.",
            0.93,
            vec![self.segment(planner, 0.82), self.segment(roll, 0.95)],
            &[],
        );
        summaries.push(s1.clone());
        self.tick(700);
        let s2 = self.statement(
            gpt,
            "The Elm Street project would include 120 apartments, 18 of them affordable.",
            0.9,
            vec![self.segment(
                "The developer proposes 120 apartments, 18 of them affordable, over ground-floor retail.",
                0.9,
            )],
            &[("supports", json!([s1.0]))],
        );
        summaries.push(s2.clone());
        self.tick(700);
        let s3 = self.statement(gpt, "The Finance Director projected a $1.2 million parks shortfall for fiscal year 2026, mostly from Riverside Pool repairs.", 0.91,
            vec![self.segment("The parks department projects a shortfall of one point two million dollars for fiscal year 2026, mostly from the Riverside Pool repairs.", 0.93)], &[]);
        summaries.push(s3.clone());
        self.tick(700);
        let parking_quote = "Parking on our block is already impossible after six, and I ask the council to require a parking study before any vote.";
        let (s4_id, mut s4) = self.statement(gpt, "A resident asked the council to require a parking study before voting on the Elm Street project.", 0.88,
            vec![self.segment(parking_quote, 0.9)], &[]);
        // Planted fault: the quote is altered after signing.
        s4["evidence"][0]["quoteText"] = json!("Parking on our block is already impossible after six, and the council promised a parking study before any vote.");
        summaries.push((s4_id.clone(), s4));
        self.tick(700);
        let s5 = self.statement(gpt, "The council approved the parks budget amendment, moving $900,000 from the capital reserve.", 0.72,
            vec![self.segment("The amendment before us moves nine hundred thousand dollars from the capital reserve to cover most of that gap.", 0.7)], &[]);
        summaries.push(s5.clone());
        self.tick(700);
        let s7 = self.statement(
            gpt,
            "The Main Street bike lane pilot will begin in March 2026.",
            0.7,
            vec![
                self.segment("We would begin in the spring, pending the results of the traffic study.", 0.75)
            ],
            &[],
        );
        summaries.push(s7.clone());
        self.tick(700);
        let s8 = self.statement(
            gpt,
            "The council unanimously authorized a six-month bike lane pilot on Main Street.",
            0.92,
            vec![
                self.segment("Six months, with a report back to the council at the end.", 0.8),
                self.segment("The pilot is authorized unanimously, five to zero.", 0.95),
            ],
            &[],
        );
        summaries.push(s8.clone());
        self.tick(700);

        for (id, doc) in &summaries {
            self.event(Some(task), json!({"TaskArtifactGenerated": {"task_id": task, "artifact_id": id, "artifact_type": "a2ap:ProvenanceStatement"}}));
            self.emit(Stream::A2ap, doc);
            self.tick(120);
            let (rid, req) = self.request(gpt, id);
            self.emit(Stream::A2ap, &req);
            for to in [claude, checker] {
                self.message(
                    task,
                    true,
                    "agent",
                    &format!("Please verify statement {id}."),
                    (gpt, Some(to)),
                    Some(&rid),
                );
            }
            self.tick(250);
        }
        self.status(task, Some("working"), "completed");
        self.tick(1_000);

        // The verifiers.
        type Verdict<'a> = (&'a str, &'a str, f64, Vec<F>);
        let pass = |e: &'static str| {
            vec![
                F("source-accuracy", "PASS", e, 0.95),
                F("logical-consistency", "PASS", "The claim follows from the quoted evidence.", 0.9),
                F("evidence-sufficiency", "PASS", "The cited segments are sufficient.", 0.88),
            ]
        };
        let claude_verdicts: Vec<Verdict> = vec![
            (&s1.0, "VALIDATED", 0.94, pass("Roll call at 00:02:36 records four yes votes and one no.")),
            (&s2.0, "VALIDATED", 0.93, pass("Quote at 00:01:15 matches the transcript bytes.")),
            (
                &s3.0,
                "VALIDATED",
                0.95,
                pass("Quote at 00:02:58 matches; $1.2 million is 'one point two million dollars'."),
            ),
            (&s4_id, "VALIDATED", 0.9, pass("Quote at 00:00:34 matches the transcript bytes.")),
            (
                &s5.0,
                "CHALLENGED",
                0.9,
                vec![
                    F(
                        "source-accuracy",
                        "FAIL",
                        "At 00:04:06 the amendment was tabled to November 4; no vote approved it.",
                        0.95,
                    ),
                    F("logical-consistency", "FAIL", "Describing a proposal is not approving it.", 0.85),
                ],
            ),
            (
                &s7.0,
                "VALIDATED",
                0.62,
                vec![
                    F("source-accuracy", "PASS", "The pilot starts in the spring; March is plausible.", 0.6),
                    F("evidence-sufficiency", "PASS", "One segment cited.", 0.64),
                ],
            ),
            (&s8.0, "VALIDATED", 0.95, pass("Vote at 00:05:16 was five to zero; duration at 00:05:00.")),
        ];
        let checker_verdicts: Vec<Verdict> = vec![
            (&s1.0, "VALIDATED", 0.9, pass("Aligned with the roll call at 00:02:36.")),
            (&s2.0, "VALIDATED", 0.91, pass("Aligned with the planner's statement at 00:01:15.")),
            (&s3.0, "VALIDATED", 0.92, pass("Aligned with the finance director at 00:02:58.")),
            (&s4_id, "VALIDATED", 0.88, pass("Aligned with public comment at 00:00:34.")),
            (&s5.0, "CHALLENGED", 0.85, vec![F("source-accuracy", "FAIL", "The motion at 00:03:44 tabled the amendment; the roll call at 00:04:06 confirms it.", 0.9)]),
            (&s7.0, "CHALLENGED", 0.88, vec![F("source-accuracy", "FAIL", "The transcript says 'in the spring, pending the results of the traffic study'; no month is given.", 0.9), F("evidence-sufficiency", "FAIL", "Nothing in the transcript supports March 2026.", 0.86)]),
            (&s8.0, "VALIDATED", 0.9, pass("Aligned with 00:05:00 and 00:05:16.")),
        ];
        let mut parks_tabled = String::new();
        for (verifier, verdicts) in [(claude, claude_verdicts), (checker, checker_verdicts)] {
            let vtask = format!("task-verify-{}", verifier.agent_type);
            self.event(
                Some(&vtask),
                json!({"TaskCreated": {"task_id": vtask, "agent_id": verifier.runtime_id}}),
            );
            self.status(&vtask, None, "submitted");
            self.message(
                &vtask,
                false,
                "agent",
                "Please verify the council meeting statements.",
                (gpt, Some(verifier)),
                None,
            );
            self.status(&vtask, Some("submitted"), "working");
            self.tool(
                &vtask,
                verifier,
                "read_transcript_range",
                json!({"document": DOCUMENT_ID, "from": "00:00:00", "to": "00:05:41"}),
                280,
            );
            for (target, verdict, confidence, findings) in verdicts {
                self.llm(
                    &vtask,
                    verifier,
                    "verify_statement",
                    "You verify claims against the transcript bytes they cite.",
                    &format!("Verify statement {target}."),
                    180,
                );
                let (vid, doc) = self.response(
                    verifier,
                    target,
                    (verdict, confidence, &findings),
                    &demo_key(verifier.id),
                    "",
                );
                self.event(Some(&vtask), json!({"TaskArtifactGenerated": {"task_id": vtask, "artifact_id": vid, "artifact_type": "a2ap:VerificationResponse"}}));
                self.emit(Stream::A2ap, &doc);
                self.message(
                    &vtask,
                    true,
                    "agent",
                    &format!("{verdict}: statement {target}."),
                    (verifier, Some(gpt)),
                    Some(&vid),
                );
                self.tick(300);
            }
            if verifier.id == VERIFIER_CLAUDE {
                // Claude states what the transcript does say about the parks amendment.
                self.llm(
                    &vtask,
                    verifier,
                    "state_correction",
                    "State what the transcript says instead.",
                    "The parks budget amendment.",
                    90,
                );
                let (id, doc) = self.statement(
                    verifier,
                    "The council tabled the parks budget amendment until its November 4 meeting.",
                    0.95,
                    vec![
                        self.segment("I move to table the amendment until the November 4 meeting", 0.85),
                        self.segment("The amendment is tabled to November 4.", 0.97),
                    ],
                    &[("contradicts", json!([s5.0]))],
                );
                self.event(Some(&vtask), json!({"TaskArtifactGenerated": {"task_id": vtask, "artifact_id": id, "artifact_type": "a2ap:ProvenanceStatement"}}));
                self.emit(Stream::A2ap, &doc);
                self.tick(120);
                let (rid, req) = self.request(verifier, &id);
                self.emit(Stream::A2ap, &req);
                self.message(
                    &vtask,
                    true,
                    "agent",
                    &format!("Please verify statement {id}."),
                    (verifier, Some(checker)),
                    Some(&rid),
                );
                parks_tabled = id;
                self.tick(300);
            }
            self.status(&vtask, Some("working"), "completed");
            self.tick(800);
        }

        // The fact checker and the summariser verify Claude's correction.
        for verifier in [checker, gpt] {
            let vtask = format!("task-review-correction-{}", verifier.agent_type);
            self.event(
                Some(&vtask),
                json!({"TaskCreated": {"task_id": vtask, "agent_id": verifier.runtime_id}}),
            );
            self.message(
                &vtask,
                false,
                "agent",
                &format!("Please verify statement {parks_tabled}."),
                (claude, Some(verifier)),
                None,
            );
            self.status(&vtask, None, "working");
            self.llm(
                &vtask,
                verifier,
                "verify_statement",
                "You verify claims against the transcript bytes they cite.",
                &format!("Verify statement {parks_tabled}."),
                150,
            );
            let confidence = if verifier.id == SUMMARISER { 0.9 } else { 0.93 };
            let (vid, mut doc) = self.response(
                verifier,
                &parks_tabled,
                (
                    "VALIDATED",
                    confidence,
                    &pass("Roll call at 00:04:06: the amendment is tabled to November 4."),
                ),
                &demo_key(verifier.id),
                "correction",
            );
            doc["inResponseTo"] = json!(doc_uuid(&[VERIFIER_CLAUDE, "request", &parks_tabled]));
            sign(&mut doc, &demo_key(verifier.id));
            self.event(Some(&vtask), json!({"TaskArtifactGenerated": {"task_id": vtask, "artifact_id": vid, "artifact_type": "a2ap:VerificationResponse"}}));
            self.emit(Stream::A2ap, &doc);
            self.message(
                &vtask,
                true,
                "agent",
                &format!("VALIDATED: statement {parks_tabled}."),
                (verifier, Some(claude)),
                Some(&vid),
            );
            self.status(&vtask, Some("working"), "completed");
            self.tick(600);
        }

        // Planted fault: a verification in the fact checker's name, signed with another key.
        self.tick(1_500);
        let (forged_id, forged) = self.response(
            checker,
            &s5.0,
            ("VALIDATED", 0.97, &pass("Approved as described.")),
            &forger_key(),
            "forged",
        );
        self.emit(Stream::A2ap, &forged);

        let registry_json = demo_registry().to_json();
        CouncilDemo {
            records: self.records,
            registry_json,
            transcript: self.text,
            utterances: self.spans,
            statements: DemoStatements {
                rezoning_approved: s1.0,
                affordable_units: s2.0,
                parks_shortfall: s3.0,
                parking_study_altered: s4_id,
                parks_approved: s5.0,
                parks_tabled,
                bike_pilot_march: s7.0,
                bike_pilot_authorized: s8.0,
            },
            forged_verification: forged_id,
        }
    }
}

fn sign(doc: &mut Value, key: &KeyFile) {
    // The demo signs only its own well-formed documents with their agents' keys, so this
    // cannot fail; the tests verify every signature.
    let _ = sign_value(doc, key, KeyRef::KeyId);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transcript_spans_point_at_the_words() {
        let (text, spans) = transcript();
        assert_eq!(spans.len(), AGENDA.iter().map(|(_, u)| u.len()).sum::<usize>());
        for (span, ut) in spans.iter().zip(AGENDA.iter().flat_map(|(_, u)| u.iter())) {
            assert_eq!(&text[span.byte_start..span.byte_end], ut.text);
            assert!(span.start_time < span.end_time);
        }
        // The title's em dash makes byte offsets differ from character offsets.
        assert!(text.len() > text.chars().count());
    }

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
