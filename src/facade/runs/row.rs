//! One graph's row of the Runs view, read in two read-only queries: the first reads counts
//! FalkorDB keeps or finds through a label or an index (nodes, edges, which sources' labels
//! are present, agents, problems); the second scans the nodes once for the earliest and
//! latest time they carry (needed once per graph: after it, the span is kept current at
//! write time, `summary.rs`). Each runs under the caller's time limit; a graph that does not
//! answer in time gets a row that says so, with whatever the first query found.

use std::time::Duration;

use falkordb::FalkorValue;
use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::model::indexes::{OTEL_TRACE_ID, TRACE_LABELS};
use crate::model::vocab::Label;
use crate::sources::runtime_events::normalise::RUNNER;
use crate::store::problems::{named, Problem};
use crate::store::value::{as_i64, as_string};
use crate::store::within::is_timeout;
use crate::store::Store;

/// How many agents a row names (the rest are counted).
pub const AGENT_NAMES: usize = 5;

/// A source a graph's nodes come from (docs/FORMATS.md names each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum RunSource {
    /// A2A runtime events.
    RuntimeEvents,
    /// A2AP signed statements (and audit bundles).
    SignedStatements,
    /// TrustGraph reasoning traces (query-time provenance).
    ReasoningTraces,
    /// Prompt lineage.
    PromptLineage,
    /// W3C PROV documents.
    Prov,
    /// Knowledge-graph statements.
    KnowledgeGraph,
    /// OpenTelemetry traces.
    OpenTelemetry,
}

/// The source a label is found in alone; `None` for labels several sources write (`Agent`;
/// `LlmCall`, `ToolCall` and `Message`, written by runtime events and OpenTelemetry alike).
pub fn source_of(label: Label) -> Option<RunSource> {
    use Label::*;
    Some(match label {
        LlmPrompt | ToolArgs | A2ATask | A2ATaskExecution | A2ATaskState | Artifact
        | A2AMessageProcessing | AgentRuntimeInstance | AgentBoot | AgentArchive => RunSource::RuntimeEvents,
        Statement | Chunk | Document | Source | Verification | AuditBundle => RunSource::SignedStatements,
        Explain | DialogMessage => RunSource::ReasoningTraces,
        Prompt | LineageDecision | LineageReject => RunSource::PromptLineage,
        Entity | Activity | Bundle | Namespaces => RunSource::Prov,
        KGStatement | KGResource | KnowledgeUpdate => RunSource::KnowledgeGraph,
        Span | AgentInvocation | Retrieval | Embedding | Evaluation | Service | ToolResult => {
            RunSource::OpenTelemetry
        }
        Agent | LlmCall | ToolCall | Message => return None,
    })
}

/// One graph of the database as the Runs view lists it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ts_rs::TS)]
pub struct RunRow {
    pub graph: String,
    /// The sources its nodes come from, derived from the labels present.
    pub sources: Vec<RunSource>,
    pub nodes: u64,
    pub edges: u64,
    /// The earliest time its nodes carry (Unix ms), when any carries one.
    pub first_ms: Option<i64>,
    /// The latest time its nodes carry (Unix ms).
    pub last_ms: Option<i64>,
    /// Its agents: signing agents, runtime agent instances, OpenTelemetry and PROV agents
    /// (models are not counted).
    pub agents: u64,
    /// The first few agents' names, in name order.
    pub agent_names: Vec<String>,
    /// Claims whose own signature does not match and forged verifications.
    pub invalid_signatures: u64,
    /// Claims a counted verification challenges.
    pub challenged_claims: u64,
    /// Tool calls that did not succeed and OpenTelemetry spans that failed (status `error`
    /// or an exception recorded).
    pub failed_tools: u64,
    /// Why some figures are missing: the graph did not answer within the time limit, or
    /// could not be read. The figures read before are kept.
    pub unavailable: Option<String>,
}

impl RunRow {
    fn empty(graph: &str) -> RunRow {
        RunRow {
            graph: graph.to_owned(),
            sources: Vec::new(),
            nodes: 0,
            edges: 0,
            first_ms: None,
            last_ms: None,
            agents: 0,
            agent_names: Vec::new(),
            invalid_signatures: 0,
            challenged_claims: 0,
            failed_tools: 0,
            unavailable: None,
        }
    }
}

/// Properties that hold a time: Unix milliseconds (runtime events, OpenTelemetry) or
/// RFC 3339 text (signed statements, prompt lineage, reasoning traces, PROV, knowledge).
pub const TIME_KEYS: &[&str] = &[
    "prov:startTime",
    "prov:endTime",
    "prov:time",
    "prov:startedAtTime",
    "prov:endedAtTime",
    "prov:generatedAtTime",
    "a2a:task_state_time",
    "timestamp",
    "created_at",
    "generated_at",
    "verified_at",
];

/// The problems counted as invalid signatures: those the word "invalid" names in a search
/// (`store::problems`: forged verifications and claims altered after signing).
fn invalid_signature_problems() -> Vec<&'static Problem> {
    named("invalid").into_iter().filter(|p| p.field == "signature").collect()
}

/// The problem counted as challenged claims: claims a counted verification challenges.
fn challenged_claim_problems() -> Vec<&'static Problem> {
    named("challenged").into_iter().filter(|p| p.pattern.starts_with("MATCH (n:Statement)")).collect()
}

/// The name an agent is shown by: its own name where its source gives one, else its id.
const AGENT_NAME: &str =
    "coalesce(n.agent_name, n.`otel:agent_name`, n.`a2a:agent_type`, n.`prov:label`, n.`otel:agent_id`, n.name)";

/// The first query: rows of `(key, value)`. Every part starts from a label (counts FalkorDB
/// keeps, or a scan of that label's nodes alone) or from the `otel:trace_id` index.
pub fn counts_query() -> String {
    let mut parts = vec![
        "MATCH (n) RETURN 'nodes' AS k, count(n) AS v".to_owned(),
        "MATCH ()-[e]->() RETURN 'edges' AS k, count(e) AS v".to_owned(),
    ];
    for label in Label::ALL.iter().filter(|l| source_of(**l).is_some()) {
        parts.push(format!("MATCH (n:`{label}`) WITH n LIMIT 1 RETURN 'label:{label}' AS k, 1 AS v"));
    }
    let agents = "MATCH (n:Agent) WHERE NOT coalesce(n.name, '') STARTS WITH 'model:'";
    parts.push(format!("{agents} RETURN 'agents' AS k, count(n) AS v"));
    // The runtime's own provenance writer is no agent of the run.
    let instances = format!("MATCH (n:AgentRuntimeInstance) WHERE n.name <> '{RUNNER}'");
    parts.push(format!("{instances} RETURN 'agents' AS k, count(n) AS v"));
    parts.push(format!(
        "{agents} WITH {AGENT_NAME} AS a RETURN 'agent' AS k, a AS v ORDER BY a LIMIT {AGENT_NAMES}"
    ));
    parts.push(format!(
        "{instances} WITH {AGENT_NAME} AS a RETURN 'agent' AS k, a AS v ORDER BY a LIMIT {AGENT_NAMES}"
    ));
    for p in invalid_signature_problems() {
        parts.push(format!("{} RETURN 'invalid' AS k, count(DISTINCT n) AS v", p.pattern));
    }
    for p in challenged_claim_problems() {
        parts.push(format!("{} RETURN 'challenged' AS k, count(DISTINCT n) AS v", p.pattern));
    }
    parts.push(
        "MATCH (n:ToolCall) WHERE n.`a2a:success` = false RETURN 'failed' AS k, count(n) AS v".to_owned(),
    );
    // A failed span, as `store::canvas_reads::derived_standing` says: status `error` or an exception.
    for label in TRACE_LABELS {
        parts.push(format!(
            "MATCH (n:`{label}`) WHERE n.`{OTEL_TRACE_ID}` >= '' \
             AND (n.`otel:status` = 'error' OR n.`otel:exception.type` IS NOT NULL) \
             RETURN 'failed' AS k, count(n) AS v"
        ));
    }
    parts.join(" UNION ALL ")
}

/// The second query: one row, the least and greatest value of each of [`TIME_KEYS`].
pub fn times_query() -> String {
    let cols: Vec<String> = TIME_KEYS.iter().map(|k| format!("min(n.`{k}`), max(n.`{k}`)")).collect();
    format!("MATCH (n) RETURN {}", cols.join(", "))
}

/// Reads the first query's rows into `row`.
fn apply_counts(row: &mut RunRow, rows: &[Vec<FalkorValue>]) {
    let mut names: Vec<String> = Vec::new();
    for r in rows {
        let (Some(k), Some(v)) = (r.first().and_then(as_string), r.get(1)) else { continue };
        let n = as_i64(v).unwrap_or(0).max(0) as u64;
        match k.as_str() {
            "nodes" => row.nodes = n,
            "edges" => row.edges = n,
            "agents" => row.agents += n,
            "invalid" => row.invalid_signatures += n,
            "challenged" => row.challenged_claims += n,
            "failed" => row.failed_tools += n,
            "agent" => names.extend(as_string(v)),
            other => {
                if let Some(source) = other.strip_prefix("label:").and_then(Label::parse).and_then(source_of)
                {
                    row.sources.push(source);
                }
            }
        }
    }
    row.sources.sort();
    row.sources.dedup();
    names.sort();
    names.dedup();
    names.truncate(AGENT_NAMES);
    row.agent_names = names;
}

/// A stored time as Unix ms: an integer is taken as ms; text as RFC 3339 (or a date and time
/// without an offset, taken as UTC).
pub fn time_ms(v: &FalkorValue) -> Option<i64> {
    if let Some(i) = as_i64(v) {
        return Some(i);
    }
    if let FalkorValue::F64(f) = v {
        return f.is_finite().then_some(*f as i64);
    }
    text_ms(&as_string(v)?)
}

/// A time written as text, as Unix ms: RFC 3339, or a date and time without an offset
/// (taken as UTC).
pub fn text_ms(text: &str) -> Option<i64> {
    let text = text.trim();
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(text) {
        return Some(t.timestamp_millis());
    }
    let naive = chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f")
        .or_else(|_| chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S%.f"));
    naive.ok().map(|t| t.and_utc().timestamp_millis())
}

/// Reads the second query's row into `row`.
fn apply_times(row: &mut RunRow, rows: &[Vec<FalkorValue>]) {
    let Some(r) = rows.first() else { return };
    let times: Vec<i64> = r.iter().filter_map(time_ms).collect();
    row.first_ms = times.iter().min().copied();
    row.last_ms = times.iter().max().copied();
}

/// What a row says when a query did not give its figures.
fn unavailable(e: &Error) -> String {
    if is_timeout(e) {
        e.to_string()
    } else {
        format!("could not be read: {e}")
    }
}

/// Reads one graph's row, each query within `limit`. Errors become the row's `unavailable`.
pub async fn read_row(store: &Store, graph: &str, limit: Duration) -> RunRow {
    let mut row = read_counts(store, graph, limit).await;
    if row.unavailable.is_none() {
        read_times(store, &mut row, limit).await;
    }
    row
}

/// Reads one graph's row but its time span (the first query), within `limit`.
pub async fn read_counts(store: &Store, graph: &str, limit: Duration) -> RunRow {
    let mut row = RunRow::empty(graph);
    match store.run_ro_within(graph, &counts_query(), vec![], limit).await {
        Ok(rows) => apply_counts(&mut row, &rows),
        Err(e) => row.unavailable = Some(unavailable(&e)),
    }
    row
}

/// Reads a row's time span by a scan of every node (the second query), within `limit`.
pub async fn read_times(store: &Store, row: &mut RunRow, limit: Duration) {
    match store.run_ro_within(&row.graph, &times_query(), vec![], limit).await {
        Ok(rows) => apply_times(row, &rows),
        Err(e) => row.unavailable = Some(unavailable(&e)),
    }
}

/// A row for a graph that could not be read at all.
pub fn failed_row(graph: &str, e: &Error) -> RunRow {
    RunRow { unavailable: Some(unavailable(e)), ..RunRow::empty(graph) }
}

/// The query texts, for a test that asks FalkorDB for their plans.
pub fn queries() -> [String; 2] {
    [counts_query(), times_query()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_label_but_the_shared_ones_names_one_source() {
        let shared: Vec<Label> = Label::ALL.iter().copied().filter(|l| source_of(*l).is_none()).collect();
        assert_eq!(shared, vec![Label::LlmCall, Label::ToolCall, Label::Message, Label::Agent]);
        for l in TRACE_LABELS.iter().filter(|l| **l != Label::ToolCall && **l != Label::LlmCall) {
            assert_eq!(source_of(*l), Some(RunSource::OpenTelemetry), "{l}");
        }
        assert_eq!(source_of(Label::Verification), Some(RunSource::SignedStatements));
        assert_eq!(source_of(Label::Explain), Some(RunSource::ReasoningTraces));
    }

    #[test]
    fn the_problems_counted_are_the_searchs_invalid_signatures_and_challenged_claims() {
        let invalid = invalid_signature_problems();
        assert_eq!(invalid.len(), 2, "forged verifications and altered claims");
        assert!(invalid.iter().all(|p| p.pattern.contains("signature_status = 'invalid'")));
        let challenged = challenged_claim_problems();
        assert_eq!(challenged.len(), 1);
        assert!(challenged[0].pattern.contains("v.counted = true"));
    }

    #[test]
    fn times_are_read_from_ms_and_from_rfc_3339_text() {
        assert_eq!(time_ms(&FalkorValue::I64(1_760_518_800_000)), Some(1_760_518_800_000));
        let t = FalkorValue::String("2025-10-15T09:00:00Z".into());
        assert_eq!(time_ms(&t), Some(1_760_518_800_000));
        let offset = FalkorValue::String("2025-10-15T11:00:00+02:00".into());
        assert_eq!(time_ms(&offset), Some(1_760_518_800_000));
        let bare = FalkorValue::String("2025-10-15T09:00:00.000".into());
        assert_eq!(time_ms(&bare), Some(1_760_518_800_000));
        assert_eq!(time_ms(&FalkorValue::String("yesterday".into())), None);
        assert_eq!(time_ms(&FalkorValue::None), None);
    }

    #[test]
    fn counts_rows_fill_a_row() {
        let s = |x: &str| FalkorValue::String(x.into());
        let rows = vec![
            vec![s("nodes"), FalkorValue::I64(10)],
            vec![s("edges"), FalkorValue::I64(7)],
            vec![s("label:Statement"), FalkorValue::I64(1)],
            vec![s("label:Verification"), FalkorValue::I64(1)],
            vec![s("label:Span"), FalkorValue::I64(1)],
            vec![s("agents"), FalkorValue::I64(2)],
            vec![s("agents"), FalkorValue::I64(1)],
            vec![s("agent"), s("b")],
            vec![s("agent"), s("a")],
            vec![s("invalid"), FalkorValue::I64(1)],
            vec![s("invalid"), FalkorValue::I64(2)],
            vec![s("failed"), FalkorValue::I64(4)],
        ];
        let mut row = RunRow::empty("g");
        apply_counts(&mut row, &rows);
        assert_eq!((row.nodes, row.edges, row.agents), (10, 7, 3));
        assert_eq!(row.sources, vec![RunSource::SignedStatements, RunSource::OpenTelemetry]);
        assert_eq!(row.agent_names, vec!["a", "b"]);
        assert_eq!((row.invalid_signatures, row.challenged_claims, row.failed_tools), (3, 0, 4));
    }
}
