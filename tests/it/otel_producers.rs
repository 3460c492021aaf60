//! The real OpenTelemetry producers (tests/otel/: the Python SDK, the `openai` client and its
//! GenAI and OpenInference instrumentations, against a stand-in chat endpoint) live against
//! `provex serve`: the agents export over OTLP/HTTP (protobuf, batched so children come before
//! parents, gzip too) to `/otlp/{graph}/v1/traces`, with fresh trace and span ids every run,
//! and the graph holds exactly what their SDK's in-memory exporter kept in the same run
//! (docs/FORMATS.md, "OpenTelemetry traces"): every span an activity `otel:<trace>:<span>`
//! with its label, name and status, each parent edge, each link edge, each agent, and the
//! messages each call consumed and produced, one node for a message two calls shared. The
//! files those producers made (fixtures, the council demo's spans) are checked in `files`.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use provex::facade::Provex;
use serde_json::Value;

use crate::common;

mod files;

const FIXTURES: [&str; 3] = ["genai-tool-agent", "openinference-agents", "links-and-failure"];

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn attr(span: &Value, key: &str) -> Option<String> {
    span["attributes"][key].as_str().map(str::to_owned)
}

const PACKAGES: &str =
    "import opentelemetry.instrumentation.openai_v2, openinference.instrumentation.openai, \
                        opentelemetry.exporter.otlp.proto.http.trace_exporter";

/// The project's Python with the producers installed, or None (the test says why and skips)
/// when `.venv` lacks them. In CI, where scripts/setup.sh installs them, they must be there.
fn python() -> Option<std::path::PathBuf> {
    let python = common::repo().join(".venv/bin/python");
    let ok =
        std::process::Command::new(&python).args(["-c", PACKAGES]).output().is_ok_and(|o| o.status.success());
    if ok {
        return Some(python);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{} lacks the OpenTelemetry Python packages that scripts/setup.sh installs",
        python.display()
    );
    eprintln!("skipped: {} lacks the OpenTelemetry Python packages; run scripts/setup.sh", python.display());
    None
}

/// Runs one scenario of agents.py exporting to `{base}/otlp/{graph}` with the server's token
/// (gzip-compressed when `gzip`); the spans its SDK kept in memory.
async fn run_agents(
    python: &std::path::Path,
    scenario: &str,
    base: &str,
    graph: &str,
    gzip: bool,
) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let expected = dir.path().join(format!("{scenario}.expected.json"));
    let mut cmd = std::process::Command::new(python);
    cmd.arg(common::repo().join("tests/otel/agents.py"))
        .arg(scenario)
        .arg("--otlp")
        .arg(format!("{base}/otlp/{graph}"))
        .arg("--expected")
        .arg(&expected)
        .env("OTEL_EXPORTER_OTLP_HEADERS", format!("Authorization=Bearer%20{}", crate::serve::TOKEN))
        .env("OTEL_EXPORTER_OTLP_COMPRESSION", if gzip { "gzip" } else { "none" })
        .env("PYTHONDONTWRITEBYTECODE", "1");
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    assert!(out.status.success(), "agents.py {scenario}: {}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&std::fs::read(&expected).unwrap()).unwrap();
    doc["spans"].as_array().unwrap().clone()
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or_default()
}

fn span_node(trace: &str, span: &str) -> String {
    format!("otel:{trace}:{span}")
}

fn name_of(span: &Value) -> String {
    span_node(s(span, "trace_id"), s(span, "span_id"))
}

/// The label a span's activity gets from what it does.
fn label(span: &Value) -> &'static str {
    match (attr(span, "gen_ai.operation.name").as_deref(), attr(span, "openinference.span.kind").as_deref()) {
        (Some("chat" | "text_completion" | "generate_content"), _) | (_, Some("LLM")) => "LlmCall",
        (Some("execute_tool"), _) | (_, Some("TOOL")) => "ToolCall",
        (Some("invoke_agent" | "create_agent" | "invoke_workflow"), _) | (_, Some("AGENT")) => {
            "AgentInvocation"
        }
        (Some("retrieval"), _) | (_, Some("RETRIEVER" | "RERANKER")) => "Retrieval",
        (Some("embeddings"), _) | (_, Some("EMBEDDING")) => "Embedding",
        (_, Some("EVALUATOR" | "GUARDRAIL")) => "Evaluation",
        _ => "Span",
    }
}

/// A message's node name: the SHA-256 of the RFC 8785 form of `{"role", "parts"}`.
fn message_name(message: &Value) -> String {
    use sha2::Digest;
    let key = serde_json::json!({"role": message["role"], "parts": message["parts"]});
    let canonical = serde_json_canonicalizer::to_string(&key).unwrap();
    format!("otel-msg:{}", hex(&sha2::Sha256::digest(canonical.as_bytes())))
}

/// The messages of a GenAI content attribute (`gen_ai.input.messages`, ...), as node names.
fn genai_messages(span: &Value, key: &str) -> Vec<String> {
    attr(span, key)
        .map(|text| serde_json::from_str::<Vec<Value>>(&text).unwrap().iter().map(message_name).collect())
        .unwrap_or_default()
}

async fn rows(provex: &Provex, graph: &str, q: &str) -> std::collections::BTreeSet<String> {
    let t = provex.query(graph, q).await.unwrap();
    t.rows
        .iter()
        .map(|r| {
            r.iter()
                .map(|v| v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string()))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

fn set<I: IntoIterator<Item = String>>(items: I) -> std::collections::BTreeSet<String> {
    items.into_iter().collect()
}

/// Every span of the run is in the graph as its activity (no other span, no placeholder
/// left), with its edges to its parent, the spans it links to, and its agent.
async fn assert_spans(provex: &Provex, graph: &str, spans: &[Value]) {
    let want = set(spans
        .iter()
        .map(|sp| format!("{} {} {} {}", label(sp), name_of(sp), s(sp, "name"), s(&sp["status"], "code"))));
    let q = "MATCH (n) WHERE n.name STARTS WITH 'otel:' RETURN labels(n)[0], n.name, n.`otel:name`, n.`otel:status`";
    assert_eq!(rows(provex, graph, q).await, want, "the spans' activities");

    let want = set(spans.iter().filter(|sp| sp["parent_span_id"].is_string()).map(|sp| {
        let rel = if label(sp) == "ToolCall" { "WAS_EXECUTED_BY" } else { "WAS_INVOKED_BY" };
        format!("{} {rel} {}", span_node(s(sp, "trace_id"), s(sp, "parent_span_id")), name_of(sp))
    }));
    let q = "MATCH (a)-[r]->(b) WHERE r.`otel:relation` = 'OTEL_PARENT' RETURN a.name, type(r), b.name";
    assert_eq!(rows(provex, graph, q).await, want, "parent → child edges");

    let want = set(spans.iter().flat_map(|sp| {
        sp["links"].as_array().unwrap().iter().map(move |l| {
            format!("{} WAS_INFORMED_BY {}", name_of(sp), span_node(s(l, "trace_id"), s(l, "span_id")))
        })
    }));
    let q = "MATCH (a)-[r]->(b) WHERE r.`otel:relation` = 'OTEL_LINK' RETURN a.name, type(r), b.name";
    assert_eq!(rows(provex, graph, q).await, want, "span links");

    let want = set(spans.iter().filter_map(|sp| {
        let id =
            attr(sp, "gen_ai.agent.id").or(attr(sp, "gen_ai.agent.name")).or(attr(sp, "graph.node.id"))?;
        Some(format!("{} agent:{id}", name_of(sp)))
    }));
    let q = "MATCH (a)-[:WAS_ASSOCIATED_WITH]->(b:Agent) WHERE b.name STARTS WITH 'agent:' AND a.name STARTS WITH 'otel:' RETURN a.name, b.name";
    assert_eq!(rows(provex, graph, q).await, want, "agent invocations and their agents");
}

/// The messages each GenAI call consumed (in order) and produced are exactly those its
/// content attributes hold, one node per distinct message.
async fn assert_genai_messages(provex: &Provex, graph: &str, spans: &[Value]) {
    let mut consumed = std::collections::BTreeSet::new();
    let mut produced = std::collections::BTreeSet::new();
    for sp in spans.iter().filter(|sp| label(sp) == "LlmCall") {
        for (i, m) in genai_messages(sp, "gen_ai.input.messages").iter().enumerate() {
            consumed.insert(format!("{} {m} {i}", name_of(sp)));
        }
        for m in genai_messages(sp, "gen_ai.output.messages") {
            produced.insert(format!("{m} {}", name_of(sp)));
        }
    }
    // Every place a message holds in a call's list (a message held twice is one edge with
    // both ordinals), the first of them also `otel:index`.
    let q = "MATCH (c:LlmCall)-[r:WAS_CONSUMED_BY]->(m:Message) UNWIND r.`otel:indexes` AS i RETURN c.name, m.name, i";
    assert_eq!(rows(provex, graph, q).await, consumed, "messages consumed by each call");
    let q = "MATCH (c:LlmCall)-[r:WAS_CONSUMED_BY]->(m:Message) WHERE r.`otel:index` <> r.`otel:indexes`[0] RETURN c.name";
    assert!(rows(provex, graph, q).await.is_empty(), "otel:index is the first ordinal");
    let q = "MATCH (m:Message)-[:WAS_GENERATED_BY]->(c:LlmCall) RETURN m.name, c.name";
    assert_eq!(rows(provex, graph, q).await, produced, "messages produced by each call");
}

/// Two LLM calls with a tool call between them (GenAI conventions, exported gzip-compressed):
/// the second call consumes what the first produced (its tool call) through one shared
/// message node; the tool's arguments and result are its entities; `a2a.task.id` ties the
/// agent's span to its A2A task.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn genai_agent_with_a_tool_call_arrives_span_by_span() {
    let Some(python) = python() else { return };
    let (provex, graph, running, base) = crate::serve::start("otel_py_genai", None).await;
    let spans = run_agents(&python, "genai-tool-agent", &base, &graph, true).await;
    assert_eq!(spans.len(), 4);
    assert_spans(&provex, &graph, &spans).await;
    assert_genai_messages(&provex, &graph, &spans).await;

    let calls: Vec<&Value> = spans.iter().filter(|sp| label(sp) == "LlmCall").collect();
    let first_out = genai_messages(calls[0], "gen_ai.output.messages");
    assert!(genai_messages(calls[1], "gen_ai.input.messages").contains(&first_out[0]));
    let q = format!(
        "MATCH (b:LlmCall)-[:WAS_CONSUMED_BY]->(m:Message {{name: '{}'}})-[:WAS_GENERATED_BY]->(a:LlmCall) \
         RETURN a.name, b.name",
        first_out[0]
    );
    assert_eq!(
        rows(&provex, &graph, &q).await,
        set([format!("{} {}", name_of(calls[0]), name_of(calls[1]))])
    );

    let tool = spans.iter().find(|sp| label(sp) == "ToolCall").unwrap();
    let q = format!(
        "MATCH (t {{name: '{}'}})-[:WAS_USED_BY]->(a:ToolArgs) MATCH (r:ToolResult)-[:WAS_GENERATED_BY]->(t) \
         RETURN count(DISTINCT a), count(DISTINCT r)",
        name_of(tool)
    );
    assert_eq!(rows(&provex, &graph, &q).await, set(["1 1".to_owned()]));

    let agent = spans.iter().find(|sp| label(sp) == "AgentInvocation").unwrap();
    let task = attr(agent, "a2a.task.id").unwrap();
    let q = format!(
        "MATCH (t:A2ATask {{name: 'task:{task}'}})-->(a {{name: '{}'}}) RETURN count(t)",
        name_of(agent)
    );
    assert_eq!(
        rows(&provex, &graph, &q).await,
        set(["1".to_owned()]),
        "a2a.task.id ties the span to its task"
    );
    running.stop().await;
}

/// OpenInference: a triage agent hands off to a researcher (two LLM calls with a tool between
/// them) and a writer; each agent its node, acting on behalf of the one above it; the
/// researcher's two calls share their system and user messages.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openinference_agents_handing_off_arrive_span_by_span() {
    let Some(python) = python() else { return };
    let (provex, graph, running, base) = crate::serve::start("otel_py_oi", None).await;
    let spans = run_agents(&python, "openinference-agents", &base, &graph, false).await;
    assert_eq!(spans.len(), 8);
    assert_spans(&provex, &graph, &spans).await;

    let q = "MATCH (a:Agent)-[:ACTED_ON_BEHALF_OF]->(b:Agent) RETURN a.name, b.name";
    let want = set(["agent:researcher agent:triage".to_owned(), "agent:writer agent:triage".to_owned()]);
    assert_eq!(rows(&provex, &graph, q).await, want, "graph.node.parent_id");

    let researcher =
        spans.iter().find(|sp| attr(sp, "graph.node.id").as_deref() == Some("researcher")).unwrap();
    let q = format!(
        "MATCH (c1:LlmCall)-[:WAS_CONSUMED_BY]->(m:Message)<-[:WAS_CONSUMED_BY]-(c2:LlmCall) \
         WHERE c1.name < c2.name AND c1.`otel:parent_span_id` = '{0}' AND c2.`otel:parent_span_id` = '{0}' \
         RETURN m.`otel:role`",
        s(researcher, "span_id")
    );
    assert_eq!(rows(&provex, &graph, &q).await, set(["system".to_owned(), "user".to_owned()]));
    running.stop().await;
}

/// A span linking to two spans of other traces, a failing tool (status error, its exception
/// kept) and a failing LLM call (the endpoint answered 503), all in place.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_and_failures_arrive_span_by_span() {
    let Some(python) = python() else { return };
    let (provex, graph, running, base) = crate::serve::start("otel_py_links", None).await;
    let spans = run_agents(&python, "links-and-failure", &base, &graph, false).await;
    assert_eq!(spans.len(), 8);
    assert_eq!(spans.iter().map(|sp| s(sp, "trace_id")).collect::<std::collections::BTreeSet<_>>().len(), 3);
    assert_spans(&provex, &graph, &spans).await;
    assert_genai_messages(&provex, &graph, &spans).await;

    let tool = spans.iter().find(|sp| s(sp, "name") == "execute_tool fetch_report").unwrap();
    let event = &tool["events"][0]["attributes"];
    let q = format!(
        "MATCH (t {{name: '{}'}}) RETURN t.`otel:status_message`, t.`otel:exception.type`, t.`otel:exception.message`",
        name_of(tool)
    );
    let want = format!(
        "{} {} {}",
        s(&tool["status"], "message"),
        s(event, "exception.type"),
        s(event, "exception.message")
    );
    assert_eq!(rows(&provex, &graph, &q).await, set([want]));
    let q = "MATCH (c:LlmCall) WHERE c.`otel:status` = 'error' RETURN c.`otel:gen_ai.request.model`";
    assert_eq!(rows(&provex, &graph, q).await, set(["unavailable".to_owned()]));
    running.stop().await;
}

/// Finding: a message a call held twice (the user saying "Go on." twice) kept one edge with
/// its last ordinal only, so the call's input read back one message short. The SDK's spans
/// of such a run now read back whole: one edge per call and message, with every ordinal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_said_twice_is_consumed_at_both_places() {
    let Some(python) = python() else { return };
    let (provex, graph, running, base) = crate::serve::start("otel_py_repeat", None).await;
    let spans = run_agents(&python, "repeated-message", &base, &graph, false).await;
    assert_eq!(spans.len(), 2);
    assert_spans(&provex, &graph, &spans).await;
    assert_genai_messages(&provex, &graph, &spans).await;

    let second = spans.iter().max_by_key(|sp| sp["start_ns"].as_u64()).unwrap();
    let inputs = genai_messages(second, "gen_ai.input.messages");
    assert_eq!(inputs.len(), 4);
    assert_eq!(inputs[1], inputs[3], "the SDK recorded the same message twice");
    let q = format!(
        "MATCH (c {{name: '{}'}})-[r:WAS_CONSUMED_BY]->(m:Message {{name: '{}'}}) RETURN count(r), r.`otel:indexes`",
        name_of(second),
        inputs[1]
    );
    assert_eq!(rows(&provex, &graph, &q).await, set(["1 [1,3]".to_owned()]));
    let q = format!(
        "MATCH (c:LlmCall)-[r:WAS_CONSUMED_BY]->(m:Message {{name: '{}'}}) RETURN count(r)",
        inputs[1]
    );
    assert_eq!(rows(&provex, &graph, &q).await, set(["2".to_owned()]), "one edge from each call");
    // The span's details list its input as the SDK recorded it, in order.
    let d = provex.span_details(&graph, &name_of(second)).await.unwrap();
    let read: Vec<&str> =
        d.messages.iter().filter(|m| m.direction == "input").map(|m| m.id.as_str()).collect();
    assert_eq!(read, inputs.iter().map(String::as_str).collect::<Vec<_>>());
    running.stop().await;
}

/// The fixtures' OTLP JSON, as the exporter sent it, posted to the receiver as
/// `application/json` request by request, gives the graph that reading the files with
/// `--format otlp` gives; posting it all again changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixture_requests_posted_as_json_give_the_graph_of_the_files() {
    use provex::ingest::{Format, IngestOptions};
    let (provex, graph, running, base) = crate::serve::start("otel_py_json", None).await;
    let (files, file_graph) = common::open("otel_py_json_files").await;
    let dir = common::repo().join("tests/data/otel");
    let paths: Vec<_> = FIXTURES.iter().map(|f| dir.join(format!("{f}.jsonl"))).collect();
    let opts = IngestOptions { format: Format::Otlp, ..Default::default() };
    let report = files
        .ingest(&file_graph, &paths, opts, Arc::new(AtomicBool::new(false)), Arc::new(provex::facade::Quiet))
        .await;
    assert_eq!(report.unwrap().rejected, 0);
    let want = common::graph_text(&files, &file_graph).await;
    for round in 0..2 {
        for path in &paths {
            for line in std::fs::read_to_string(path).unwrap().lines() {
                let r = crate::serve::client()
                    .post(format!("{base}/otlp/{graph}/v1/traces"))
                    .header("content-type", "application/json")
                    .body(line.to_owned())
                    .send()
                    .await
                    .unwrap();
                assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
                let answer: Value = r.json().await.unwrap();
                assert!(answer.get("partialSuccess").is_none(), "{answer}");
            }
        }
        assert_eq!(common::graph_text(&provex, &graph).await, want, "round {round}");
    }
    running.stop().await;
}
