//! The Traces tab's reads (traces, a trace's spans, its agents, a span's details, a
//! message's origin) over spans stored as docs/FORMATS.md "OpenTelemetry traces" lays them
//! out: two traces, one with a planner agent that calls a model, a failing tool and a
//! writer agent, whose call consumes the message the planner's call produced and links to it.

use provex::facade::Provex;

use crate::common;

const T1: &str = "0af7651916cd43dd8448eb211c80319c";
const T2: &str = "4bf92f3577b34da6a3ce929d0e0e4736";

fn span(id: &str) -> String {
    format!("otel:{T1}:{id}")
}

/// Writes the stored shape directly (what the OpenTelemetry source writes for these spans).
async fn write_traces(graph: &str) {
    let ms = 1_700_000_000_000_i64;
    let ns = |off_ms: i64| (ms + off_ms) * 1_000_000;
    let s = |label: &str, id: &str, parent: &str, name: &str, a: i64, b: i64, status: &str, extra: &str| {
        let parent =
            if parent.is_empty() { String::new() } else { format!(", `otel:parent_span_id`: '{parent}'") };
        format!(
            "CREATE (:{label} {{name: 'otel:{T1}:{id}', `otel:trace_id`: '{T1}', `otel:span_id`: '{id}'{parent}, \
             `otel:name`: '{name}', `otel:status`: '{status}', `prov:startTime`: {}, `prov:endTime`: {}, \
             `otel:start_ns`: {}, `otel:end_ns`: {}{extra}}})",
            ms + a,
            ms + b,
            ns(a),
            ns(b)
        )
    };
    let statements = [
        s("AgentInvocation", "00000000000000a1", "", "invoke_agent planner", 0, 4000, "ok", ", `otel:gen_ai.agent.name`: 'planner'"),
        s("LlmCall", "00000000000000c1", "00000000000000a1", "chat gpt-4o", 100, 900, "ok",
          ", `otel:gen_ai.usage.input_tokens`: 10, `otel:gen_ai.usage.output_tokens`: 5, `otel:gen_ai.request.model`: 'gpt-4o'"),
        s("ToolCall", "00000000000000b1", "00000000000000a1", "execute_tool search", 1000, 1200, "error",
          ", `otel:status_message`: 'boom', `otel:exception.type`: 'ValueError', `otel:exception.message`: 'no results', \
           `otel:exception.stacktrace`: 'Traceback (most recent call last)'"),
        s("AgentInvocation", "00000000000000a2", "00000000000000a1", "invoke_agent writer", 1500, 3900, "ok", ""),
        s("LlmCall", "00000000000000c2", "00000000000000a2", "chat gpt-4o", 1600, 3800, "unset",
          ", `otel:llm.token_count.prompt`: 20, `otel:llm.token_count.completion`: 7"),
        // The second trace starts later: it is listed first.
        format!(
            "CREATE (:Span {{name: 'otel:{T2}:00000000000000f1', `otel:trace_id`: '{T2}', `otel:span_id`: '00000000000000f1', \
             `otel:name`: 'health check', `otel:status`: 'ok', `prov:startTime`: {}, `prov:endTime`: {}, \
             `otel:start_ns`: {}, `otel:end_ns`: {}}})",
            ms + 60_000,
            ms + 60_010,
            ns(60_000),
            ns(60_010)
        ),
        "CREATE (:Service {name: 'service:agents/council', `otel:service.name`: 'council'})".into(),
        "CREATE (:SoftwareAgent {name: 'agent:planner'}), (:SoftwareAgent {name: 'agent:writer'})".into(),
        "CREATE (:Agent {name: 'model:openai/gpt-4o'})".into(),
        "CREATE (:Message {name: 'otel-msg:u', `otel:role`: 'user', `otel:parts`: '[{\"type\":\"text\",\"content\":\"Plan a trip\"}]'})"
            .into(),
        "CREATE (:Message {name: 'otel-msg:p', `otel:role`: 'assistant', `otel:parts`: '[{\"type\":\"text\",\"content\":\"Go to Lisbon\"}]'})"
            .into(),
        "CREATE (:ToolArgs {name: 'otel-args:1', `otel:content`: '{\"q\":\"Lisbon\"}'}), (:ToolResult {name: 'otel-result:1', `otel:content`: '[1,2]'})"
            .into(),
    ];
    let mut edges = vec![
        // Service and agents.
        format!("MATCH (s), (v:Service) WHERE s.`otel:trace_id` = '{T1}' CREATE (s)-[:WAS_ASSOCIATED_WITH {{`prov:base_type`: 'WAS_ASSOCIATED_WITH'}}]->(v)"),
        format!("MATCH (s {{name: '{}'}}), (a {{name: 'agent:planner'}}) CREATE (s)-[:WAS_ASSOCIATED_WITH]->(a)", span("00000000000000a1")),
        format!("MATCH (s {{name: '{}'}}), (a {{name: 'agent:writer'}}) CREATE (s)-[:WAS_ASSOCIATED_WITH]->(a)", span("00000000000000a2")),
        format!("MATCH (s {{name: '{}'}}), (a {{name: 'model:openai/gpt-4o'}}) CREATE (s)-[:WAS_ASSOCIATED_WITH {{`prov:role`: 'model'}}]->(a)", span("00000000000000c1")),
        // Parents and children.
        format!("MATCH (p {{name: '{}'}}), (c {{name: '{}'}}) CREATE (p)-[:WAS_INVOKED_BY {{`otel:relation`: 'OTEL_PARENT'}}]->(c)", span("00000000000000a1"), span("00000000000000c1")),
        format!("MATCH (p {{name: '{}'}}), (c {{name: '{}'}}) CREATE (p)-[:WAS_EXECUTED_BY {{`otel:relation`: 'OTEL_PARENT'}}]->(c)", span("00000000000000a1"), span("00000000000000b1")),
        format!("MATCH (p {{name: '{}'}}), (c {{name: '{}'}}) CREATE (p)-[:WAS_INVOKED_BY {{`otel:relation`: 'OTEL_PARENT'}}]->(c)", span("00000000000000a1"), span("00000000000000a2")),
        format!("MATCH (p {{name: '{}'}}), (c {{name: '{}'}}) CREATE (p)-[:WAS_INVOKED_BY {{`otel:relation`: 'OTEL_PARENT'}}]->(c)", span("00000000000000a2"), span("00000000000000c2")),
        // The writer's call links to the planner's.
        format!("MATCH (a {{name: '{}'}}), (b {{name: '{}'}}) CREATE (a)-[:WAS_INFORMED_BY {{`prov:base_type`: 'WAS_INFORMED_BY', `otel:relation`: 'OTEL_LINK'}}]->(b)", span("00000000000000c2"), span("00000000000000c1")),
        // What flowed: the user's message into the planner's call, its answer out and into the writer's call.
        format!("MATCH (c {{name: '{}'}}), (m {{name: 'otel-msg:u'}}) CREATE (c)-[:WAS_CONSUMED_BY {{`prov:base_type`: 'USED', `prov:role`: 'input_message', `otel:index`: 0}}]->(m)", span("00000000000000c1")),
        format!("MATCH (c {{name: '{}'}}), (m {{name: 'otel-msg:p'}}) CREATE (m)-[:WAS_GENERATED_BY {{`prov:base_type`: 'WAS_GENERATED_BY', `otel:index`: 0}}]->(c)", span("00000000000000c1")),
        format!("MATCH (c {{name: '{}'}}), (m {{name: 'otel-msg:u'}}) CREATE (c)-[:WAS_CONSUMED_BY {{`prov:base_type`: 'USED', `otel:index`: 0}}]->(m)", span("00000000000000c2")),
        format!("MATCH (c {{name: '{}'}}), (m {{name: 'otel-msg:p'}}) CREATE (c)-[:WAS_CONSUMED_BY {{`prov:base_type`: 'USED', `otel:index`: 1}}]->(m)", span("00000000000000c2")),
        format!("MATCH (c {{name: '{}'}}), (a {{name: 'otel-args:1'}}) CREATE (c)-[:WAS_USED_BY {{`prov:base_type`: 'USED', `prov:role`: 'a2a:args'}}]->(a)", span("00000000000000b1")),
        format!("MATCH (c {{name: '{}'}}), (r {{name: 'otel-result:1'}}) CREATE (r)-[:WAS_GENERATED_BY {{`prov:base_type`: 'WAS_GENERATED_BY'}}]->(c)", span("00000000000000b1")),
    ];
    let mut all: Vec<String> = statements.to_vec();
    all.append(&mut edges);
    let mut conn =
        redis::Client::open(common::url()).unwrap().get_multiplexed_async_connection().await.unwrap();
    for q in all {
        let _: redis::Value =
            redis::cmd("GRAPH.QUERY").arg(graph).arg(&q).query_async(&mut conn).await.unwrap();
    }
}

async fn opened(test: &str) -> (Provex, String) {
    let (provex, graph) = common::open(test).await;
    write_traces(&graph).await;
    (provex, graph)
}

#[tokio::test]
async fn traces_lists_each_trace_newest_first_with_its_counts() {
    let (provex, graph) = opened("otelv_list").await;
    let page = provex.traces(&graph, 0, 100).await.unwrap();
    assert_eq!(page.total, 2);
    let ids: Vec<&str> = page.traces.iter().map(|t| t.trace_id.as_str()).collect();
    assert_eq!(ids, [T2, T1], "newest first");
    let t = &page.traces[1];
    assert_eq!(t.root.as_deref(), Some(span("00000000000000a1").as_str()));
    assert_eq!(t.root_name.as_deref(), Some("invoke_agent planner"));
    assert_eq!(t.services, ["agents/council"]);
    assert_eq!(t.agents, ["planner", "writer"]);
    assert_eq!((t.spans, t.errors, t.tokens_in, t.tokens_out), (5, 1, 30, 12));
    assert_eq!(t.duration_ms, Some(4000.0));
    assert_eq!(t.started_ms, Some(1_700_000_000_000));
    // Paged.
    let second = provex.traces(&graph, 1, 1).await.unwrap();
    assert_eq!(second.traces.len(), 1);
    assert_eq!(second.traces[0].trace_id, T1);
    assert_eq!(second.offset, 1);
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test]
async fn a_traces_spans_come_in_start_order_with_parents_agents_links_and_truncation() {
    let (provex, graph) = opened("otelv_spans").await;
    let view = provex.trace_spans(&graph, T1, 5000).await.unwrap();
    assert!(!view.truncated);
    assert_eq!(view.total, 5);
    assert_eq!(view.start_ns.as_deref(), Some("1700000000000000000"));
    let names: Vec<&str> = view.spans.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        ["invoke_agent planner", "chat gpt-4o", "execute_tool search", "invoke_agent writer", "chat gpt-4o"]
    );
    let c2 = &view.spans[4];
    assert_eq!(c2.parent.as_deref(), Some(span("00000000000000a2").as_str()));
    assert_eq!(c2.agent.as_deref(), Some("writer"), "inherited from its agent invocation");
    assert_eq!((c2.start_ns, c2.end_ns), (Some(1_600_000_000), Some(3_800_000_000)));
    assert_eq!(c2.links.len(), 1);
    assert_eq!(c2.links[0].target, span("00000000000000c1"));
    let c1 = &view.spans[1];
    assert_eq!((c1.agent.as_deref(), c1.model.as_deref()), (Some("planner"), Some("openai/gpt-4o")));
    assert_eq!(c1.service.as_deref(), Some("agents/council"));
    assert_eq!(view.spans[2].status, "error");
    assert_eq!(view.spans[2].label, "ToolCall");
    // Bounded, and says so.
    let cut = provex.trace_spans(&graph, T1, 2).await.unwrap();
    assert_eq!(cut.spans.len(), 2);
    assert!(cut.truncated);
    // An unknown trace, a malformed one.
    let missing = provex.trace_spans(&graph, "ffff", 10).await.unwrap_err();
    assert_eq!(missing.code(), provex::api::ErrorCode::NotFound);
    let bad = provex.trace_spans(&graph, "x' OR 1=1", 10).await.unwrap_err();
    assert_eq!(bad.code(), provex::api::ErrorCode::Usage);
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test]
async fn the_agent_view_counts_delegations_links_and_messages_between_agents() {
    let (provex, graph) = opened("otelv_agents").await;
    let a = provex.trace_agents(&graph, T1, 5000).await.unwrap();
    let boxes: Vec<(&str, u64, u64, u64, u64)> =
        a.agents.iter().map(|b| (b.id.as_str(), b.spans, b.llm_calls, b.tool_calls, b.errors)).collect();
    assert_eq!(boxes, [("planner", 3, 1, 1, 1), ("writer", 2, 1, 0, 0)]);
    assert_eq!(a.agents[0].busy_ms, 4000.0);
    let hands: Vec<(&str, &str, &str, u64, f64)> = a
        .hand_offs
        .iter()
        .map(|h| (h.from.as_str(), h.to.as_str(), h.kind.as_str(), h.count, h.total_ms))
        .collect();
    assert_eq!(
        hands,
        [
            ("planner", "writer", "delegation", 1, 2400.0),
            ("planner", "writer", "link", 1, 2200.0),
            ("planner", "writer", "message", 1, 0.0)
        ]
    );
    assert_eq!(a.hand_offs[0].spans, [span("00000000000000a2")]);
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test]
async fn a_spans_details_hold_attributes_messages_tools_tokens_and_its_exception() {
    let (provex, graph) = opened("otelv_span").await;
    let d = provex.span_details(&graph, &span("00000000000000c2")).await.unwrap();
    assert_eq!(d.span.agent.as_deref(), Some("writer"));
    assert_eq!((d.tokens_in, d.tokens_out), (Some(20), Some(7)));
    type Msg<'a> = (&'a str, Option<i64>, Option<&'a str>, Option<&'a str>);
    let msgs: Vec<Msg> = d
        .messages
        .iter()
        .map(|m| (m.direction.as_str(), m.index, m.role.as_deref(), m.produced_by.as_deref()))
        .collect();
    let c1 = span("00000000000000c1");
    assert_eq!(
        msgs,
        [("input", Some(0), Some("user"), None), ("input", Some(1), Some("assistant"), Some(c1.as_str()))]
    );
    assert_eq!(d.messages[1].parts[0]["content"], "Go to Lisbon");
    assert!(d.attributes.contains_key("otel:llm.token_count.prompt"));
    assert!(d.attributes.keys().all(|k| k.starts_with("otel:")));
    assert!(d.error.is_none());

    let c1d = provex.span_details(&graph, &c1).await.unwrap();
    assert_eq!(c1d.messages.iter().map(|m| m.direction.as_str()).collect::<Vec<_>>(), ["input", "output"]);
    assert_eq!(c1d.linked_from, [span("00000000000000c2")]);
    assert_eq!(c1d.span.model.as_deref(), Some("openai/gpt-4o"));

    let tool = provex.span_details(&graph, &span("00000000000000b1")).await.unwrap();
    assert_eq!(tool.tool_args.as_ref().map(|a| a.value.clone()), Some(serde_json::json!({"q": "Lisbon"})));
    assert_eq!(tool.tool_result.as_ref().map(|a| a.value.clone()), Some(serde_json::json!([1, 2])));
    let e = tool.error.expect("an error");
    assert_eq!(e.exception_type.as_deref(), Some("ValueError"));
    assert_eq!(e.message.as_deref(), Some("no results"));
    assert_eq!(e.status_message.as_deref(), Some("boom"));
    assert!(e.stacktrace.unwrap().starts_with("Traceback"));

    let none = provex.span_details(&graph, &format!("otel:{T1}:0000000000000099")).await.unwrap_err();
    assert_eq!(none.code(), provex::api::ErrorCode::NotFound);
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test]
async fn a_message_walks_back_to_the_call_that_produced_it() {
    let (provex, graph) = opened("otelv_origin").await;
    let o = provex.message_origin(&graph, "otel-msg:p").await.unwrap();
    assert_eq!(o.call.as_deref(), Some(span("00000000000000c1").as_str()));
    let steps: Vec<(&str, &str)> = o.steps.iter().map(|s| (s.id.as_str(), s.via.as_str())).collect();
    let c1 = span("00000000000000c1");
    assert_eq!(steps, [("otel-msg:p", ""), (c1.as_str(), "WAS_GENERATED_BY")]);
    // The user's message: no call produced it; the first call that read it is named.
    let u = provex.message_origin(&graph, "otel-msg:u").await.unwrap();
    assert_eq!(u.call, None);
    assert_eq!(u.first_use.as_deref(), Some(c1.as_str()));
    provex.delete_graph(&graph).await.unwrap();
}

// ---------------------------------------------------------------- spans made by the real SDK

/// The spans the SDK's in-memory exporter kept when the fixture was made.
fn expected(name: &str) -> Vec<serde_json::Value> {
    let path = common::repo().join(format!("tests/data/otel/{name}.expected.json"));
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    doc["spans"].as_array().unwrap().clone()
}

/// Ingests a fixture through the real OTLP JSON reader.
async fn ingested(test: &str, name: &str) -> (Provex, String) {
    use provex::facade::Quiet;
    use provex::ingest::{Format, IngestOptions};
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    let (provex, graph) = common::open(test).await;
    let path = common::repo().join(format!("tests/data/otel/{name}.jsonl"));
    let opts = IngestOptions { format: Format::Otlp, ..Default::default() };
    let report = provex
        .ingest(&graph, &[path], opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
    assert_eq!(report.rejected, 0, "{report:?}");
    (provex, graph)
}

fn num(v: &serde_json::Value) -> i64 {
    v.as_i64().or_else(|| v.as_str().and_then(|s| s.parse().ok())).unwrap_or(0)
}

#[tokio::test]
async fn sdk_traces_list_and_waterfalls_hold_what_the_sdk_recorded() {
    for (i, fixture) in
        ["genai-tool-agent", "openinference-agents", "links-and-failure"].into_iter().enumerate()
    {
        let (provex, graph) = ingested(&format!("otelv_sdk{i}"), fixture).await;
        let spans = expected(fixture);
        let mut by_trace: std::collections::BTreeMap<String, Vec<&serde_json::Value>> = Default::default();
        for s in &spans {
            by_trace.entry(s["trace_id"].as_str().unwrap().to_owned()).or_default().push(s);
        }
        let page = provex.traces(&graph, 0, 100).await.unwrap();
        assert_eq!(page.total as usize, by_trace.len(), "{fixture}");
        // Newest first.
        let starts: Vec<i64> = page.traces.iter().map(|t| t.started_ms.unwrap()).collect();
        assert!(starts.windows(2).all(|w| w[0] >= w[1]), "{fixture}: {starts:?}");
        for t in &page.traces {
            let want = &by_trace[&t.trace_id];
            let first = want.iter().map(|s| num(&s["start_ns"])).min().unwrap();
            let last = want.iter().map(|s| num(&s["end_ns"])).max().unwrap();
            let root = want.iter().find(|s| s["parent_span_id"].is_null()).unwrap();
            let errors = want.iter().filter(|s| s["status"]["code"] == "error").count() as u64;
            let tokens = |keys: &[&str]| -> u64 {
                want.iter()
                    .filter_map(|s| keys.iter().find_map(|k| s["attributes"].get(*k)).map(num))
                    .sum::<i64>() as u64
            };
            assert_eq!(t.spans as usize, want.len(), "{fixture} {}", t.trace_id);
            assert_eq!(t.errors, errors, "{fixture} {}", t.trace_id);
            assert_eq!(t.root_name.as_deref(), root["name"].as_str(), "{fixture}");
            assert_eq!(t.started_ms, Some(first / 1_000_000));
            assert_eq!(t.duration_ms, Some((last / 1_000_000 - first / 1_000_000) as f64));
            assert_eq!(
                t.tokens_in,
                tokens(&["gen_ai.usage.input_tokens", "llm.token_count.prompt"]),
                "{fixture}"
            );
            assert_eq!(
                t.tokens_out,
                tokens(&["gen_ai.usage.output_tokens", "llm.token_count.completion"]),
                "{fixture}"
            );
            let service = root["resource"]["service.name"].as_str().unwrap();
            assert!(t.services.iter().any(|s| s.ends_with(service)), "{fixture}: {:?}", t.services);

            let view = provex.trace_spans(&graph, &t.trace_id, 5000).await.unwrap();
            assert!(!view.truncated);
            assert_eq!(view.start_ns, Some(first.to_string()));
            assert_eq!(view.spans.len(), want.len());
            for s in want {
                let id = format!("otel:{}:{}", t.trace_id, s["span_id"].as_str().unwrap());
                let row = view.spans.iter().find(|r| r.id == id).unwrap_or_else(|| panic!("{fixture}: {id}"));
                assert_eq!(row.name, s["name"].as_str().unwrap());
                assert_eq!(row.start_ns, Some(num(&s["start_ns"]) - first), "{fixture} {id}: exact ns");
                assert_eq!(row.end_ns, Some(num(&s["end_ns"]) - first));
                let parent = s["parent_span_id"].as_str().map(|p| format!("otel:{}:{p}", t.trace_id));
                assert_eq!(row.parent, parent, "{fixture} {id}");
                let links: Vec<String> = s["links"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|l| {
                        format!("otel:{}:{}", l["trace_id"].as_str().unwrap(), l["span_id"].as_str().unwrap())
                    })
                    .collect();
                let mut got: Vec<String> = row.links.iter().map(|l| l.target.clone()).collect();
                got.sort();
                let mut links = links;
                links.sort();
                assert_eq!(got, links, "{fixture} {id}");
                assert_eq!(row.status == "error", s["status"]["code"] == "error");
            }
        }
        provex.delete_graph(&graph).await.unwrap();
    }
}

#[tokio::test]
async fn sdk_spans_details_agents_and_message_origin() {
    // A tool call between two LLM calls: the second call reads what the first wrote.
    let (provex, graph) = ingested("otelv_sdk_details", "genai-tool-agent").await;
    let spans = expected("genai-tool-agent");
    let trace = spans[0]["trace_id"].as_str().unwrap().to_owned();
    let calls: Vec<&serde_json::Value> = {
        let mut c: Vec<&serde_json::Value> =
            spans.iter().filter(|s| s["name"].as_str().unwrap().starts_with("chat")).collect();
        c.sort_by_key(|s| num(&s["start_ns"]));
        c
    };
    let id = |s: &serde_json::Value| format!("otel:{trace}:{}", s["span_id"].as_str().unwrap());
    let second = provex.span_details(&graph, &id(calls[1])).await.unwrap();
    assert_eq!(second.tokens_in, Some(num(&calls[1]["attributes"]["gen_ai.usage.input_tokens"])));
    let wrote = second.messages.iter().find(|m| m.produced_by.as_deref() == Some(id(calls[0]).as_str()));
    let wrote = wrote
        .unwrap_or_else(|| panic!("no input of the second call comes from the first: {:?}", second.messages));
    assert_eq!(wrote.direction, "input");
    let origin = provex.message_origin(&graph, &wrote.id).await.unwrap();
    assert_eq!(origin.call, Some(id(calls[0])));
    assert_eq!(
        second.attributes["otel:gen_ai.request.model"],
        calls[1]["attributes"]["gen_ai.request.model"]
    );
    let inputs: Vec<serde_json::Value> =
        serde_json::from_str(calls[1]["attributes"]["gen_ai.input.messages"].as_str().unwrap()).unwrap();
    assert_eq!(second.messages.iter().filter(|m| m.direction == "input").count(), inputs.len());
    for (m, want) in second.messages.iter().filter(|m| m.direction == "input").zip(&inputs) {
        assert_eq!(m.role.as_deref(), want["role"].as_str());
        assert_eq!(m.parts.len(), want["parts"].as_array().unwrap().len());
    }
    let tool = spans.iter().find(|s| s["name"].as_str().unwrap().starts_with("execute_tool")).unwrap();
    let t = provex.span_details(&graph, &id(tool)).await.unwrap();
    assert!(t.tool_args.is_some() || tool["attributes"].get("gen_ai.tool.call.arguments").is_none());
    assert!(t.tool_result.is_some() || tool["attributes"].get("gen_ai.tool.call.result").is_none());
    let agents = provex.trace_agents(&graph, &trace, 5000).await.unwrap();
    let root = spans.iter().find(|s| s["parent_span_id"].is_null()).unwrap();
    let agent = root["attributes"]["gen_ai.agent.id"].as_str().unwrap();
    assert_eq!(agents.agents.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(), [agent]);
    assert_eq!(agents.agents[0].spans as usize, spans.len());
    assert_eq!(agents.agents[0].llm_calls, 2);
    assert_eq!(agents.agents[0].tool_calls, 1);
    provex.delete_graph(&graph).await.unwrap();

    // A failing tool: its exception as the SDK recorded it.
    let (provex, graph) = ingested("otelv_sdk_fail", "links-and-failure").await;
    let spans = expected("links-and-failure");
    let failing = spans.iter().find(|s| !s["events"].as_array().unwrap().is_empty()).unwrap();
    let ev = &failing["events"][0]["attributes"];
    let fid =
        format!("otel:{}:{}", failing["trace_id"].as_str().unwrap(), failing["span_id"].as_str().unwrap());
    let d = provex.span_details(&graph, &fid).await.unwrap();
    let e = d.error.expect("an error");
    assert_eq!(e.exception_type.as_deref(), ev["exception.type"].as_str());
    assert_eq!(e.message.as_deref(), ev["exception.message"].as_str());
    assert_eq!(e.stacktrace.as_deref(), ev["exception.stacktrace"].as_str());
    // The merger links to both reviewers' spans (in other traces): the reviewers' spans know.
    let merger = spans.iter().find(|s| s["links"].as_array().is_some_and(|l| l.len() == 2)).unwrap();
    let mid =
        format!("otel:{}:{}", merger["trace_id"].as_str().unwrap(), merger["span_id"].as_str().unwrap());
    for l in merger["links"].as_array().unwrap() {
        let lid = format!("otel:{}:{}", l["trace_id"].as_str().unwrap(), l["span_id"].as_str().unwrap());
        let d = provex.span_details(&graph, &lid).await.unwrap();
        assert_eq!(d.linked_from, std::slice::from_ref(&mid));
    }
    provex.delete_graph(&graph).await.unwrap();

    // OpenInference agents: the triage agent hands work to the researcher and the writer,
    // who act on its behalf (their `graph.node.parent_id`).
    let (provex, graph) = ingested("otelv_sdk_oi", "openinference-agents").await;
    let spans = expected("openinference-agents");
    let trace = spans[0]["trace_id"].as_str().unwrap();
    let a = provex.trace_agents(&graph, trace, 5000).await.unwrap();
    assert_eq!(a.agents.iter().map(|b| b.spans).sum::<u64>() as usize, spans.len());
    let boxes: Vec<(&str, u64)> = a.agents.iter().map(|b| (b.id.as_str(), b.spans)).collect();
    assert_eq!(boxes, [("researcher", 4), ("triage", 2), ("writer", 2)]);
    let took = |name: &str| {
        let s = spans.iter().find(|s| s["name"] == name).unwrap();
        (num(&s["end_ns"]) - num(&s["start_ns"])) as f64 / 1e6
    };
    let hands: Vec<(&str, &str, &str, u64, f64)> = a
        .hand_offs
        .iter()
        .map(|h| (h.from.as_str(), h.to.as_str(), h.kind.as_str(), h.count, h.total_ms))
        .collect();
    assert_eq!(
        hands,
        [
            ("triage", "researcher", "delegation", 1, took("researcher")),
            ("triage", "researcher", "on_behalf", 1, 0.0),
            ("triage", "writer", "delegation", 1, took("writer")),
            ("triage", "writer", "on_behalf", 1, 0.0)
        ]
    );
    provex.delete_graph(&graph).await.unwrap();
}

/// Finding: the Traces tab's reads other than a trace's spans (the list of traces, a trace's
/// agents and data flow, a span's details, a message's origin) matched nodes by property
/// alone, which FalkorDB answers by scanning every node of the graph. Each now starts from an
/// index; FalkorDB's own plan of each (`GRAPH.EXPLAIN`) says so, and the reads still give
/// what the SDK recorded.
#[tokio::test]
async fn every_trace_view_reads_through_an_index() {
    let (provex, graph) = ingested("otelv_plans", "openinference-agents").await;
    let spans = expected("openinference-agents");
    let trace = spans[0]["trace_id"].as_str().unwrap();
    let llm = spans.iter().find(|s| s["attributes"]["openinference.span.kind"] == "LLM").unwrap();
    let llm_id = format!("otel:{trace}:{}", llm["span_id"].as_str().unwrap());
    let admin = redis::Client::open(common::admin_url()).unwrap();
    let mut con = admin.get_multiplexed_async_connection().await.unwrap();
    let params = format!(
        "CYPHER t='{trace}' ids=['{trace}'] id='{llm_id}' agents=['agent:triage', 'agent:writer'] offset=0 limit=10 n=10 "
    );
    for (name, q) in provex::sources::otel::queries::all() {
        let plan: Vec<String> = redis::cmd("GRAPH.EXPLAIN")
            .arg(&graph)
            .arg(format!("{params}{q}"))
            .query_async(&mut con)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let plan = plan.join("\n");
        assert!(!plan.contains("All Node Scan") && !plan.contains("Label Scan"), "{name} scans:\n{plan}");
        assert!(plan.contains("Index Scan"), "{name} uses no index:\n{plan}");
    }
    // The reads still answer: the trace listed with its spans, its agents, a call's messages,
    // and where that call's output went.
    let page = provex.traces(&graph, 0, 10).await.unwrap();
    assert_eq!((page.total, page.traces.len()), (1, 1));
    assert_eq!(page.traces[0].spans as usize, spans.len());
    assert_eq!(page.traces[0].agents, ["researcher", "triage", "writer"]);
    assert_eq!(provex.trace_spans(&graph, trace, 5000).await.unwrap().spans.len(), spans.len());
    let a = provex.trace_agents(&graph, trace, 5000).await.unwrap();
    assert_eq!(a.hand_offs.iter().filter(|h| h.kind == "on_behalf").count(), 2);
    let d = provex.span_details(&graph, &llm_id).await.unwrap();
    assert!(d.messages.iter().any(|m| m.direction == "input"), "{d:?}");
    let out = d.messages.iter().find(|m| m.direction == "output").expect("an output");
    let origin = provex.message_origin(&graph, &out.id).await.unwrap();
    assert_eq!(origin.call.as_deref(), Some(llm_id.as_str()));
    provex.delete_graph(&graph).await.unwrap();
}
