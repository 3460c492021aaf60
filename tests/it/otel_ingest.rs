//! OpenTelemetry traces into a real FalkorDB (docs/FORMATS.md "OpenTelemetry traces"):
//! spans exported live through the facade and read from OTLP JSON files, checked node by
//! node and edge by edge; children before parents, re-exports, bad spans.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value::Value, AnyValue, KeyValue};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{span::Link, ResourceSpans, ScopeSpans, Span, Status};
use provex::facade::Quiet;
use provex::ingest::{Format, IngestOptions};

use crate::common;

const TRACE: [u8; 16] = [0xab; 16];

fn kv(k: &str, v: &str) -> KeyValue {
    KeyValue {
        key: k.into(),
        value: Some(AnyValue { value: Some(Value::StringValue(v.into())) }),
        ..Default::default()
    }
}

fn span(id: u8, parent: Option<u8>, name: &str, attrs: Vec<KeyValue>) -> Span {
    Span {
        trace_id: TRACE.to_vec(),
        span_id: vec![0, 0, 0, 0, 0, 0, 0, id],
        parent_span_id: parent.map(|p| vec![0, 0, 0, 0, 0, 0, 0, p]).unwrap_or_default(),
        name: name.into(),
        kind: 1,
        start_time_unix_nano: 1_700_000_000_000_000_000 + u64::from(id) * 1_000_000,
        end_time_unix_nano: 1_700_000_000_500_000_000 + u64::from(id) * 1_000_000,
        attributes: attrs,
        status: Some(Status { message: String::new(), code: 1 }),
        ..Default::default()
    }
}

fn request(spans: Vec<Span>) -> ExportTraceServiceRequest {
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![kv("service.name", "support")],
                ..Default::default()
            }),
            scope_spans: vec![ScopeSpans { spans, ..Default::default() }],
            ..Default::default()
        }],
    }
}

fn name(id: u8) -> String {
    format!("otel:{}:00000000000000{id:02x}", "ab".repeat(16))
}

/// An agent run: the agent (1) calls the model (2), which asks for a tool (3); the model
/// is called again (4) with the tool's result, and links to the first call.
fn agent_run() -> Vec<Span> {
    let tool_call = r#"[{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"add","arguments":{"a":1,"b":2}}]}]"#;
    let user = r#"[{"role":"user","parts":[{"type":"text","content":"1+2?"}]}]"#;
    let second_in = r#"[{"role":"user","parts":[{"type":"text","content":"1+2?"}]},{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"add","arguments":{"a":1,"b":2}}]},{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":{"sum":3}}]}]"#;
    let llm = |id, input: &str, output: &str| {
        span(
            id,
            Some(1),
            "chat gpt-4o",
            vec![
                kv("gen_ai.operation.name", "chat"),
                kv("gen_ai.provider.name", "openai"),
                kv("gen_ai.request.model", "gpt-4o"),
                kv("gen_ai.agent.id", "calc"),
                kv("gen_ai.input.messages", input),
                kv("gen_ai.output.messages", output),
            ],
        )
    };
    let mut second = llm(4, second_in, r#"[{"role":"assistant","parts":[{"type":"text","content":"3"}]}]"#);
    second.links.push(Link {
        trace_id: TRACE.to_vec(),
        span_id: vec![0, 0, 0, 0, 0, 0, 0, 2],
        ..Default::default()
    });
    vec![
        llm(2, user, tool_call),
        span(
            3,
            Some(1),
            "execute_tool add",
            vec![
                kv("gen_ai.operation.name", "execute_tool"),
                kv("gen_ai.tool.call.id", "c1"),
                kv("gen_ai.tool.call.arguments", r#"{"a":1,"b":2}"#),
                kv("gen_ai.tool.call.result", r#"{"sum":3}"#),
                kv("a2a.task.id", "t-7"),
            ],
        ),
        second,
        span(
            1,
            None,
            "invoke_agent calc",
            vec![kv("gen_ai.operation.name", "invoke_agent"), kv("gen_ai.agent.id", "calc")],
        ),
    ]
}

/// Every node and edge as text, without content hashes (named by kind instead).
async fn shape(provex: &provex::facade::Provex, graph: &str) -> String {
    common::graph_text(provex, graph).await
}

#[tokio::test(flavor = "multi_thread")]
async fn children_before_parents_in_separate_exports_make_one_graph_and_reexports_change_nothing() {
    let (provex, graph) = common::open("otel_order").await;
    let run = agent_run();
    // Each span in its own request, children first (as exporters send them).
    for s in &run {
        let out = provex.export_spans(&graph, request(vec![s.clone()])).await.unwrap();
        assert_eq!((out.accepted, out.rejected.len()), (1, 0));
    }
    let text = shape(&provex, &graph).await;
    assert!(!text.contains("Span ProvActivity"), "no placeholder is left:\n{text}");
    for (label, id) in [("AgentInvocation", 1), ("LlmCall", 2), ("ToolCall", 3), ("LlmCall", 4)] {
        assert!(text.contains(&format!("{label} ProvActivity {}\n", name(id))), "{label} {id}:\n{text}");
    }
    for (rel, child) in [("WAS_INVOKED_BY", 2), ("WAS_EXECUTED_BY", 3), ("WAS_INVOKED_BY", 4)] {
        assert!(
            text.contains(&format!("{} -[{rel} plain]-> {}\n", name(1), name(child))),
            "{rel} {child}:\n{text}"
        );
    }
    assert!(
        text.contains(&format!("{} -[WAS_INFORMED_BY WAS_INFORMED_BY]-> {}\n", name(4), name(2))),
        "{text}"
    );
    assert!(text.contains("Service ProvAgent service:support\n"), "{text}");
    assert!(text.contains("Agent ProvAgent agent:calc\n"), "{text}");
    assert!(text.contains("Agent ProvAgent model:openai/gpt-4o\n"), "{text}");
    assert!(text.contains("A2ATask ProvEntity task:t-7\n"), "{text}");
    assert!(
        text.contains(&format!("task:t-7 -[WAS_EXECUTED_BY a2a:A2A_TASK_CALL]-> {}\n", name(3))),
        "{text}"
    );

    // The user's message is one node, consumed by both calls; the tool call message the first
    // call produced is consumed by the second.
    let rows = provex
        .query(
            &graph,
            "MATCH (m:Message) OPTIONAL MATCH (c)-[u:WAS_CONSUMED_BY]->(m) OPTIONAL MATCH (m)-[g:WAS_GENERATED_BY]->(p) \
             WITH m, count(DISTINCT c) AS c, count(DISTINCT p) AS p RETURN m.`otel:role`, c, p ORDER BY m.`otel:role`, c",
        )
        .await
        .unwrap();
    let got: Vec<String> =
        rows.rows.iter().map(|r| format!("{} {} {}", r[0].as_str().unwrap(), r[1], r[2])).collect();
    assert_eq!(got, ["assistant 0 1", "assistant 1 1", "tool 1 0", "user 2 0"], "{rows:?}");
    // The tool message derives from the tool's result, which the tool call generated.
    let rows = provex
        .query(
            &graph,
            "MATCH (m:Message {`otel:role`: 'tool'})-[:WAS_DERIVED_FROM]->(r:ToolResult)-[:WAS_GENERATED_BY]->(t:ToolCall) \
             MATCH (t)-[:WAS_USED_BY]->(a:ToolArgs) RETURN t.name, r.`otel:content`, a.`otel:content`",
        )
        .await
        .unwrap();
    assert_eq!(rows.rows.len(), 1, "{rows:?}");
    assert_eq!(rows.rows[0][0].as_str(), Some(name(3).as_str()));

    // Re-exporting, in one request this time, changes nothing.
    let before = common::without_log(serde_json::to_value(provex.stats(&graph).await.unwrap()).unwrap());
    let out = provex.export_spans(&graph, request(run)).await.unwrap();
    assert_eq!(out.accepted, 4);
    assert_eq!(shape(&provex, &graph).await, text);
    let after = common::without_log(serde_json::to_value(provex.stats(&graph).await.unwrap()).unwrap());
    assert_eq!(before, after);
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_spans_are_refused_by_trace_and_span_id_and_the_rest_kept() {
    let (provex, graph) = common::open("otel_bad").await;
    let mut short = span(5, None, "short id", vec![]);
    short.span_id = vec![1, 2, 3];
    let mut backwards = span(6, None, "backwards", vec![]);
    backwards.end_time_unix_nano = backwards.start_time_unix_nano - 1;
    let good = span(7, None, "fine", vec![]);
    let out = provex.export_spans(&graph, request(vec![short, backwards, good])).await.unwrap();
    assert_eq!(out.accepted, 1);
    let reasons: Vec<(String, String, bool)> =
        out.rejected.iter().map(|r| (r.trace_id.clone(), r.span_id.clone(), r.reason.is_empty())).collect();
    assert_eq!(
        reasons,
        [("ab".repeat(16), "010203".into(), false), ("ab".repeat(16), "0000000000000006".into(), false)]
    );
    assert!(out.rejected[0].reason.contains("span id is 3 bytes"), "{:?}", out.rejected);
    assert!(out.rejected[1].reason.contains("ends before it starts"), "{:?}", out.rejected);
    let text = shape(&provex, &graph).await;
    assert!(text.contains(&format!("Span ProvActivity {}\n", name(7))), "{text}");
    assert!(!text.contains(&name(6)), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn otlp_json_files_are_recognised_and_read_line_by_line_or_whole() {
    let (provex, graph) = common::open("otel_files").await;
    let dir = tempfile::tempdir().unwrap();
    let run = agent_run();
    // One request per line, parents last.
    let lines: Vec<String> =
        run.iter().map(|s| serde_json::to_string(&request(vec![s.clone()])).unwrap()).collect();
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let path = common::file_with(&dir, "spans.jsonl", &refs);
    assert_eq!(provex::ingest::detect(&path).unwrap(), Format::Otlp);
    let report = provex
        .ingest(&graph, &[path], IngestOptions::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
    assert_eq!((report.events, report.rejected), (4, 0));
    let from_lines = shape(&provex, &graph).await;
    assert!(!from_lines.contains("Span ProvActivity"), "{from_lines}");

    // One pretty-printed document per file gives the same graph.
    let (provex2, graph2) = common::open("otel_files_doc").await;
    let doc = dir.path().join("trace.json");
    std::fs::write(&doc, serde_json::to_string_pretty(&request(run)).unwrap()).unwrap();
    assert_eq!(provex::ingest::detect(&doc).unwrap(), Format::Otlp);
    let report = provex2
        .ingest(&graph2, &[doc], IngestOptions::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
    assert_eq!(report.rejected, 0);
    assert_eq!(shape(&provex2, &graph2).await, from_lines);

    // A bad span is refused naming the file's line, its trace and span ids and why.
    let (provex3, graph3) = common::open("otel_files_bad").await;
    let mut bad = span(9, None, "bad", vec![]);
    bad.parent_span_id = vec![1];
    let line = serde_json::to_string(&request(vec![bad, span(8, None, "ok", vec![])])).unwrap();
    let path = common::file_with(&dir, "bad.jsonl", &[&line]);
    let opts = IngestOptions { format: Format::Otlp, ..Default::default() };
    let report = provex3
        .ingest(&graph3, std::slice::from_ref(&path), opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
    assert_eq!((report.events, report.rejected), (1, 1));
    let rejects = std::fs::read_to_string(dir.path().join("bad.jsonl.rejected.jsonl")).unwrap();
    assert!(
        rejects.contains(
            "span 0000000000000009 of trace abababababababababababababababab: parent span id is 1 bytes"
        ),
        "{rejects}"
    );
}

/// The label docs/FORMATS.md gives a span with these attributes.
fn expected_label(attrs: &serde_json::Map<String, serde_json::Value>) -> &'static str {
    let op = attrs.get("gen_ai.operation.name").and_then(|v| v.as_str()).unwrap_or("");
    let oi = attrs.get("openinference.span.kind").and_then(|v| v.as_str()).unwrap_or("");
    match (op, oi) {
        ("chat" | "text_completion" | "generate_content", _) | (_, "LLM") => "LlmCall",
        ("execute_tool", _) | (_, "TOOL") => "ToolCall",
        ("invoke_agent" | "create_agent" | "invoke_workflow", _) | (_, "AGENT") => "AgentInvocation",
        ("retrieval", _) | (_, "RETRIEVER" | "RERANKER") => "Retrieval",
        ("embeddings", _) | (_, "EMBEDDING") => "Embedding",
        (_, "EVALUATOR" | "GUARDRAIL") => "Evaluation",
        _ => "Span",
    }
}

/// The fixtures the real OpenTelemetry SDK made (tests/data/otel/): every span the SDK's
/// in-memory exporter kept is a node with its label, ids, name, status and times, under its
/// parent with the edge its kind takes, with its links; nothing is left a placeholder.
#[tokio::test(flavor = "multi_thread")]
async fn fixtures_made_by_the_real_sdk_give_every_span_its_node_and_edges() {
    for fixture in ["genai-tool-agent", "openinference-agents", "links-and-failure"] {
        let (provex, graph) = common::open(&format!("otel_fx_{}", fixture.replace('-', "_"))).await;
        let dir = common::repo().join("tests/data/otel");
        let path = dir.join(format!("{fixture}.jsonl"));
        let report = provex
            .ingest(
                &graph,
                &[path],
                IngestOptions::default(),
                Arc::new(AtomicBool::new(false)),
                Arc::new(Quiet),
            )
            .await
            .unwrap();
        let expected: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("{fixture}.expected.json"))).unwrap(),
        )
        .unwrap();
        let spans = expected["spans"].as_array().unwrap();
        assert_eq!((report.events, report.rejected), (spans.len() as u64, 0), "{fixture}");
        let text = common::graph_text(&provex, &graph).await;
        assert!(
            !text.contains("Span ProvActivity otel:")
                || spans.iter().any(|s| expected_label(s["attributes"].as_object().unwrap()) == "Span"),
            "{fixture}: placeholder left\n{text}"
        );
        let rows = provex
            .query(
                &graph,
                "MATCH (s) WHERE s.name STARTS WITH 'otel:' RETURN labels(s)[0], s.name, s.`otel:name`, s.`otel:status`, s.`otel:start_ns`, s.`otel:end_ns`, s.`otel:kind`",
            )
            .await
            .unwrap();
        assert_eq!(rows.rows.len(), spans.len(), "{fixture}: one node per span\n{text}");
        for s in spans {
            let name = format!("otel:{}:{}", s["trace_id"].as_str().unwrap(), s["span_id"].as_str().unwrap());
            let label = expected_label(s["attributes"].as_object().unwrap());
            let row = rows
                .rows
                .iter()
                .find(|r| r[1].as_str() == Some(&name))
                .unwrap_or_else(|| panic!("{fixture}: {name}"));
            assert_eq!(row[0].as_str(), Some(label), "{fixture}: {name}");
            assert_eq!(row[2].as_str(), s["name"].as_str(), "{fixture}: {name}");
            assert_eq!(row[3].as_str(), s["status"]["code"].as_str(), "{fixture}: {name}");
            assert_eq!(row[4].as_i64(), s["start_ns"].as_i64(), "{fixture}: {name}");
            assert_eq!(row[5].as_i64(), s["end_ns"].as_i64(), "{fixture}: {name}");
            assert_eq!(row[6].as_str(), s["kind_name"].as_str(), "{fixture}: {name}");
            if let Some(p) = s["parent_span_id"].as_str() {
                let rel = if label == "ToolCall" { "WAS_EXECUTED_BY" } else { "WAS_INVOKED_BY" };
                let parent = format!("otel:{}:{p}", s["trace_id"].as_str().unwrap());
                assert!(
                    text.contains(&format!("{parent} -[{rel} plain]-> {name}\n")),
                    "{fixture}: parent of {name}\n{text}"
                );
            }
            for l in s["links"].as_array().unwrap() {
                let target =
                    format!("otel:{}:{}", l["trace_id"].as_str().unwrap(), l["span_id"].as_str().unwrap());
                assert!(
                    text.contains(&format!("{name} -[WAS_INFORMED_BY WAS_INFORMED_BY]-> {target}\n")),
                    "{fixture}: link of {name}\n{text}"
                );
            }
            let service = {
                let r = &s["resource"];
                match r["service.namespace"].as_str() {
                    Some(ns) => format!("service:{ns}/{}", r["service.name"].as_str().unwrap()),
                    None => format!("service:{}", r["service.name"].as_str().unwrap()),
                }
            };
            assert!(
                text.contains(&format!("{name} -[WAS_ASSOCIATED_WITH WAS_ASSOCIATED_WITH]-> {service}\n")),
                "{fixture}: {name}"
            );
        }
        match fixture {
            "openinference-agents" => {
                assert!(
                    text.contains(
                        "agent:researcher -[ACTED_ON_BEHALF_OF ACTED_ON_BEHALF_OF]-> agent:triage\n"
                    ),
                    "{text}"
                );
                // The tool's result is what the next call's tool message carries.
                let rows = provex
                    .query(
                        &graph,
                        "MATCH (:LlmCall)-[:WAS_CONSUMED_BY]->(m:Message {`otel:role`: 'tool'})-[:WAS_DERIVED_FROM]->(:ToolResult)-[:WAS_GENERATED_BY]->(t:ToolCall) RETURN t.`otel:name`",
                    )
                    .await
                    .unwrap();
                assert_eq!(rows.rows.len(), 1, "{text}");
                assert_eq!(rows.rows[0][0].as_str(), Some("search_docs"));
            }
            "links-and-failure" => {
                let rows = provex
                    .query(
                        &graph,
                        "MATCH (t:ToolCall) WHERE t.`otel:status` = 'error' RETURN t.`otel:exception.type`",
                    )
                    .await
                    .unwrap();
                assert_eq!(rows.rows.len(), 1, "{text}");
                assert!(rows.rows[0][0].as_str().is_some_and(|t| !t.is_empty()), "{rows:?}");
            }
            _ => {
                // The model's tool call message, produced by the first call, is consumed by the
                // second; the task ties the agent's invocation to the A2A task.
                let rows = provex
                    .query(
                        &graph,
                        "MATCH (m:Message)-[:WAS_GENERATED_BY]->(a:LlmCall), (b:LlmCall)-[:WAS_CONSUMED_BY]->(m) WHERE a <> b RETURN count(m)",
                    )
                    .await
                    .unwrap();
                assert!(rows.rows[0][0].as_i64().unwrap() >= 1, "{text}");
                assert!(text.contains("-[WAS_INVOKED_BY a2a:A2A_TASK_CALL]-> otel:"), "{text}");
                // The tool message (its response re-spaced by the agent) derives from the
                // result the tool call generated.
                let rows = provex
                    .query(
                        &graph,
                        "MATCH (:LlmCall)-[:WAS_CONSUMED_BY]->(m:Message {`otel:role`: 'tool'})-[:WAS_DERIVED_FROM]->(:ToolResult)-[:WAS_GENERATED_BY]->(t:ToolCall) RETURN t.`otel:name`",
                    )
                    .await
                    .unwrap();
                assert_eq!(rows.rows.len(), 1, "{text}");
                assert_eq!(rows.rows[0][0].as_str(), Some("execute_tool get_weather"));
                assert!(text.contains("Agent ProvAgent model:openai/gpt-4o-mini-2026-01-01\n"), "{text}");
            }
        }
    }
}

/// The view the canvas draws names each OpenTelemetry node by what a reader knows it by: a
/// span by its name, an agent by its name, a model by its model, a service by its name, a
/// message by its content (the canvas captions are made from this text).
#[tokio::test(flavor = "multi_thread")]
async fn the_canvas_view_names_spans_agents_models_services_and_messages() {
    let (provex, graph) = common::open("otel_view_text").await;
    let path = common::repo().join("tests/data/otel/genai-tool-agent.jsonl");
    provex
        .ingest(&graph, &[path], IngestOptions::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
    let view = provex
        .view(&graph, provex::facade::ViewRequest { limit: Some(10_000), ..Default::default() })
        .await
        .unwrap();
    let text_of = |label: &str| -> Vec<String> {
        view.nodes.iter().filter(|n| n.label == label).map(|n| n.text.clone().unwrap_or_default()).collect()
    };
    let calls = text_of("LlmCall");
    assert!(!calls.is_empty() && calls.iter().all(|t| t.starts_with("chat ")), "{calls:?}");
    let tools = text_of("ToolCall");
    assert!(!tools.is_empty() && tools.iter().all(|t| t.starts_with("execute_tool ")), "{tools:?}");
    let agents = text_of("Agent");
    assert!(agents.iter().all(|t| !t.is_empty()), "{agents:?}");
    assert!(agents.iter().any(|t| t.contains("gpt")), "a model agent named by its model: {agents:?}");
    let services = text_of("Service");
    assert!(!services.is_empty() && services.iter().all(|t| !t.is_empty()), "{services:?}");
    let messages = text_of("Message");
    assert!(!messages.is_empty() && messages.iter().all(|t| t.starts_with('[')), "{messages:?}");
}
