//! `provex diff` and `GET /api/diff` on two runs of the same agent (other trace ids, span
//! ids and times; the weather tool answering rain the second time), made by the real
//! OpenTelemetry SDK (`tests/otel/make_fixtures.py`): the runs compared call by call, in two
//! files, in two graphs, and as two traces of one graph.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use assert_cmd::Command;
use provex::diff::{GraphDiff, TraceDiff};
use provex::facade::{self, DiffSide, Quiet};
use provex::ingest::IngestOptions;
use serde_json::Value;

use crate::common;
use crate::serve::{client, start};

/// The first run's trace, and the second's (as the SDK's in-memory exporter kept them).
const TRACE_A: &str = "3070985739041e2a5fa96eb7049c0e7c";
const TRACE_B: &str = "1b2ee718b44c58f01da57315a4ba5d49";

fn run(name: &str) -> PathBuf {
    common::repo().join(format!("tests/data/otel/tool-agent-run-{name}.jsonl"))
}

/// What the runs' comparison says, as `provex diff` prints it before the node and edge lists.
const RUNS: &str = "\
calls: 4 in both, 0 only in A, 0 only in B; 3 differ
~ call invoke_agent agent-travel-planner-01 [unknown/gpt-4o-mini]: outputs
~ call invoke_agent agent-travel-planner-01 [unknown/gpt-4o-mini] / execute_tool get_weather: result
~ call invoke_agent agent-travel-planner-01 [unknown/gpt-4o-mini] / chat [openai/gpt-4o-mini-2026-01-01] #2: inputs, outputs
messages: 3 shared, 2 only in A, 2 only in B
- message (assistant) \"Answer: {\\\"city\\\": \\\"Lisbon\\\", \\\"forecast\\\": \\\"sunny\\\", \\\"celsius\\\": 21, \\\"asked\\\": \\\"Should I take an umbrella in L...
- message (tool) \"{\\\"city\\\": \\\"Lisbon\\\", \\\"forecast\\\": \\\"sunny\\\", \\\"celsius\\\": 21, \\\"asked\\\": \\\"Should I take an umbrella in Lisbon to...
+ message (tool) \"{\\\"city\\\": \\\"Lisbon\\\", \\\"forecast\\\": \\\"rain\\\", \\\"celsius\\\": 14, \\\"asked\\\": \\\"Should I take an umbrella in Lisbon tod...
+ message (assistant) \"Answer: {\\\"city\\\": \\\"Lisbon\\\", \\\"forecast\\\": \\\"rain\\\", \\\"celsius\\\": 14, \\\"asked\\\": \\\"Should I take an umbrella in Li...
tools: 1 differ
~ tool get_weather (invoke_agent agent-travel-planner-01 [unknown/gpt-4o-mini] / execute_tool get_weather): result
    result: \"{\\\"city\\\":\\\"Lisbon\\\",\\\"forecast\\\":\\\"sunny\\\",\\\"celsius\\\":21,\\\"asked\\\":\\\"Should I take an umbrella in Lisbon today?\\\"}\" -> \"{\\\"city\\\":\\\"Lisbon\\\",\\\"forecast\\\":\\\"rain\\\",\\\"celsius\\\":14,\\\"asked\\\":\\\"Should I take an umbrella in Lisbon today?\\\"}\"
agents: 1 in both, 0 only in A, 0 only in B
";

fn provex_cli() -> Command {
    let mut c = Command::cargo_bin("provex").unwrap();
    c.arg("--falkordb").arg(common::url());
    c
}

/// The text of a run of `provex diff ARGS`, and its exit code.
fn cli(args: &[&str]) -> (String, String, Option<i32>) {
    let out = provex_cli().arg("diff").args(args).output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
        out.status.code(),
    )
}

/// The trace summary the two runs give, wherever they are read from.
fn assert_runs(t: &TraceDiff) {
    assert_eq!(
        (t.a.traces.as_slice(), t.b.traces.as_slice()),
        ([TRACE_A.to_owned()].as_slice(), [TRACE_B.to_owned()].as_slice())
    );
    assert_eq!((t.a.spans, t.b.spans), (4, 4));
    let calls: Vec<(&str, Vec<&str>)> = t
        .calls
        .iter()
        .map(|c| (c.operation.as_str(), c.changes.iter().map(String::as_str).collect()))
        .collect();
    assert_eq!(
        calls,
        [
            ("invoke_agent", vec!["outputs"]),
            ("chat", vec![]),
            ("execute_tool", vec!["result"]),
            ("chat", vec!["inputs", "outputs"]),
        ]
    );
    assert!(t
        .calls
        .iter()
        .all(|c| c.a.as_deref().is_some_and(|n| n.starts_with(&format!("otel:{TRACE_A}:")))));
    assert!(t
        .calls
        .iter()
        .all(|c| c.b.as_deref().is_some_and(|n| n.starts_with(&format!("otel:{TRACE_B}:")))));
    assert!(t.calls.iter().all(|c| c.agent.as_deref() == Some("agent-travel-planner-01")));
    assert_eq!((t.messages.shared, t.messages.only_a.len(), t.messages.only_b.len()), (3, 2, 2));
    assert_eq!(t.tools.len(), 1);
    let tool = &t.tools[0];
    assert_eq!(
        (tool.tool.as_str(), tool.changes.as_slice()),
        ("get_weather", ["result".to_owned()].as_slice())
    );
    assert_eq!(tool.arguments_a, tool.arguments_b);
    assert!(tool.result_a.as_deref().is_some_and(|r| r.contains("\"forecast\":\"sunny\"")), "{tool:?}");
    assert!(tool.result_b.as_deref().is_some_and(|r| r.contains("\"forecast\":\"rain\"")), "{tool:?}");
    assert_eq!(t.agents.shared, ["agent-travel-planner-01"]);
    assert!(t.agents.only_a.is_empty() && t.agents.only_b.is_empty());
    assert!(t.differs());
}

#[test]
fn two_runs_in_two_files_differ_by_the_tool_result_and_the_messages_it_fed() {
    let (a, b) = (run("a"), run("b"));
    let d = facade::diff_files(&a, &b).unwrap();
    assert_runs(d.traces.as_ref().expect("a trace summary"));
    let (text, err, code) = cli(&[a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{err}");
    let head = format!("traces: A {TRACE_A} (4 spans); B {TRACE_B} (4 spans)\n{RUNS}");
    assert!(text.starts_with(&head), "{text}");
    // The JSON form carries the same summary.
    let (json, _, _) = cli(&[a.to_str().unwrap(), b.to_str().unwrap(), "--format", "json"]);
    let parsed: GraphDiff = serde_json::from_str(&json).unwrap();
    assert_eq!(parsed.traces, d.traces);
    // A run against itself: every call matched, nothing differs.
    let same = facade::diff_files(&a, &a).unwrap();
    let t = same.traces.unwrap();
    assert!(!t.differs() && t.matched() == 4 && t.messages.shared == 5, "{t:?}");
    // A diff of files that hold no span has no trace summary.
    let plain = common::repo().join("examples/a2a-run.jsonl");
    assert!(facade::diff_files(&plain, &plain).unwrap().traces.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_runs_in_one_graph_are_compared_as_two_traces_by_the_cli_and_the_api() {
    let (provex, graph, running, base) = start("trace_diff_one", None).await;
    let graph_a = format!("{graph}_a");
    let graph_b = format!("{graph}_b");
    for (g, files) in
        [(&graph, vec![run("a"), run("b")]), (&graph_a, vec![run("a")]), (&graph_b, vec![run("b")])]
    {
        let _ = provex.delete_graph(g).await;
        let report = provex
            .ingest(g, &files, IngestOptions::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
            .await
            .unwrap();
        assert_eq!(report.rejected, 0);
    }

    // One graph, two traces (named by a prefix of their ids): the same summary as the files
    // give, and the exit code says the runs differ.
    let (text, err, code) = cli(&[&graph, "--trace", &TRACE_A[..8], "--trace", &TRACE_B[..8]]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        text.starts_with(&format!("traces: A {TRACE_A} (4 spans); B {TRACE_B} (4 spans)\n{RUNS}")),
        "{text}"
    );
    let (text, err, code) = cli(&[&graph, "--trace", TRACE_A, "--trace", TRACE_A]);
    assert_eq!(code, Some(0), "{err}");
    assert!(text.contains("calls: 4 in both, 0 only in A, 0 only in B; 0 differ\n"), "{text}");
    // Asked badly: one --trace, or a trace the graph lacks.
    let (_, err, code) = cli(&[&graph, "--trace", TRACE_A]);
    assert_ne!(code, Some(0));
    assert!(err.contains("give --trace twice"), "{err}");
    let (_, err, code) = cli(&[&graph, "--trace", "abcdef0123", "--trace", TRACE_B]);
    assert_ne!(code, Some(0));
    assert!(err.contains("abcdef0123"), "{err}");

    let files = facade::diff_files(&run("a"), &run("b")).unwrap();
    let g = DiffSide::Graph(graph.clone());
    let in_one = provex.diff_traces(&g, &g, TRACE_A, TRACE_B).await.unwrap();
    assert_runs(in_one.traces.as_ref().unwrap());
    assert_eq!(in_one.traces, files.traces);
    // Two graphs holding a run each, compared whole: the summary covers every span of each.
    let in_two = provex.diff_graphs(&graph_a, &graph_b).await.unwrap();
    assert_eq!(in_two.traces, files.traces);

    // The API: two traces of one graph, and two graphs.
    let get = |url: String| async move {
        let r = client().get(&url).send().await.unwrap();
        (r.status().as_u16(), r.json::<Value>().await.unwrap())
    };
    let (status, body) =
        get(format!("{base}/api/diff?a={graph}&b={graph}&trace_a={TRACE_A}&trace_b={TRACE_B}")).await;
    assert_eq!(status, 200, "{body}");
    let api: GraphDiff = serde_json::from_value(body).unwrap();
    assert_eq!(api, in_one);
    let (status, body) = get(format!("{base}/api/diff?a={graph_a}&b={graph_b}")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(serde_json::from_value::<GraphDiff>(body).unwrap().traces, files.traces);
    let (status, body) = get(format!("{base}/api/diff?a={graph}&b={graph}&trace_a={TRACE_A}")).await;
    assert_eq!((status, body["code"].as_str()), (400, Some("usage")), "{body}");
    let (status, body) =
        get(format!("{base}/api/diff?a={graph}&b={graph}&trace_a={TRACE_A}&trace_b=ffff")).await;
    assert_eq!((status, body["code"].as_str()), (404, Some("not_found")), "{body}");

    running.stop().await;
    for g in [&graph, &graph_a, &graph_b] {
        provex.delete_graph(g).await.unwrap();
    }
}
