//! For every event variant: the exact nodes (label, base type, name) and edges (type,
//! direction, PROV or A2A relation) in FalkorDB after ingest, as seed 000 and formats.md §1
//! define them.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use provex::facade::Quiet;
use provex::ingest::IngestOptions;

use crate::common;

const A: &str = "00000000-0000-0000-0000-00000000000a";

async fn mapped(test: &str, lines: &[&str]) -> String {
    let (provex, graph) = common::open(test).await;
    let dir = tempfile::tempdir().unwrap();
    let file = common::file_with(&dir, "events.jsonl", lines);
    let report = provex
        .ingest(&graph, &[file], IngestOptions::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
    assert_eq!(report.rejected, 0, "{report:?}");
    let text = common::graph_text(&provex, &graph).await;
    provex.delete_graph(&graph).await.unwrap();
    text
}

fn task_event(id: &str, ts: u64, data: &str) -> String {
    format!(
        r#"{{"Task":{{"id":"{id}","context_id":"ctx-1","task_id":"t1","timestamp_ms":{ts},"data":{data}}}}}"#
    )
}

fn global_event(id: &str, ts: u64, data: &str) -> String {
    format!(r#"{{"Global":{{"id":"{id}","context_id":"ctx-1","timestamp_ms":{ts},"data":{data}}}}}"#)
}

#[tokio::test(flavor = "multi_thread")]
async fn agent_booted() {
    let e = global_event(
        "e1",
        100,
        &format!(
            r#"{{"AgentBooted":{{"agent_id":"{A}","agent_type":"clerk","agent_version":"1.0.0","archive_path":"pkgs/clerk\\v1@1.0.0"}}}}"#
        ),
    );
    let got = mapped("agent_booted", &[&e]).await;
    let want = format!(
        "AgentArchive ProvEntity archive:pkgs_clerk_v1@1.0.0
AgentBoot ProvActivity agent_boot:{A}
AgentRuntimeInstance ProvAgent agent:runner
AgentRuntimeInstance ProvAgent agent_instance:{A}
agent_boot:{A} -[WAS_BOOTSTRAPPED_BY USED]-> archive:pkgs_clerk_v1@1.0.0
agent_boot:{A} -[WAS_EXECUTED_BY WAS_ASSOCIATED_WITH]-> agent:runner
agent_instance:{A} -[WAS_SPAWNED_BY WAS_GENERATED_BY]-> agent_boot:{A}
"
    );
    assert_eq!(got, want);
}

#[tokio::test(flavor = "multi_thread")]
async fn task_created() {
    let e = task_event("e1", 100, &format!(r#"{{"TaskCreated":{{"task_id":"t1","agent_id":"{A}"}}}}"#));
    let got = mapped("task_created", &[&e]).await;
    let want = format!(
        "A2ATask ProvEntity task:t1
A2ATaskExecution ProvActivity task_execution_t1
AgentRuntimeInstance ProvAgent agent:runner
AgentRuntimeInstance ProvAgent agent_instance:{A}
task:t1 -[WAS_CREATED_BY WAS_GENERATED_BY]-> task_execution_t1
task_execution_t1 -[WAS_EXECUTED_BY WAS_ASSOCIATED_WITH]-> agent_instance:{A}
task_execution_t1 -[WAS_INVOKED_BY WAS_ASSOCIATED_WITH]-> agent:runner
"
    );
    assert_eq!(got, want);
}

#[tokio::test(flavor = "multi_thread")]
async fn task_status_changed_to_terminal() {
    let e = task_event(
        "e1",
        200,
        r#"{"TaskStatusChanged":{"task_id":"t1","old_status":"working","new_status":"completed"}}"#,
    );
    let got = mapped("status_terminal", &[&e]).await;
    let want = "A2ATask ProvEntity task:t1
A2ATaskExecution ProvActivity task_execution_t1
A2ATaskState ProvEntity task_state:t1:200
A2ATaskState ProvEntity task_state:t1:200:old
task:t1 -[WAS_CREATED_BY WAS_GENERATED_BY]-> task_execution_t1
task_execution_t1 -[WAS_UPDATED_BY USED]-> task_state:t1:200
task_state:t1:200 -[WAS_TRANSITIONED_FROM WAS_DERIVED_FROM]-> task_state:t1:200:old
task_state:t1:200:old -[WAS_TRANSITIONED_TO a2a:A2A_TASK_STATUS_TRANSITION]-> task_state:t1:200
";
    assert_eq!(got, want);
}

#[tokio::test(flavor = "multi_thread")]
async fn task_status_changed_first_state() {
    let e = task_event("e1", 150, r#"{"TaskStatusChanged":{"task_id":"t1","new_status":"submitted"}}"#);
    let got = mapped("status_first", &[&e]).await;
    let want = "A2ATask ProvEntity task:t1
A2ATaskExecution ProvActivity task_execution_t1
A2ATaskState ProvEntity task_state:t1:150
task_execution_t1 -[WAS_UPDATED_BY USED]-> task_state:t1:150
";
    assert_eq!(got, want);
}

#[tokio::test(flavor = "multi_thread")]
async fn task_artifact_generated_names() {
    let by_id = task_event(
        "e1",
        300,
        r#"{"TaskArtifactGenerated":{"task_id":"t1","artifact_id":"a-9","artifact_type":"report"}}"#,
    );
    let by_type =
        task_event("e2", 301, r#"{"TaskArtifactGenerated":{"task_id":"t1","artifact_type":"report"}}"#);
    let by_event = task_event("e3", 302, r#"{"TaskArtifactGenerated":{"task_id":"t1"}}"#);
    let got = mapped("artifact", &[&by_id, &by_type, &by_event]).await;
    let want = "A2ATask ProvEntity task:t1
A2ATaskExecution ProvActivity task_execution_t1
Artifact ProvEntity artifact:a-9
Artifact ProvEntity artifact:t1:e3
Artifact ProvEntity artifact:t1:report
artifact:a-9 -[WAS_GENERATED_BY WAS_GENERATED_BY]-> task_execution_t1
artifact:t1:e3 -[WAS_GENERATED_BY WAS_GENERATED_BY]-> task_execution_t1
artifact:t1:report -[WAS_GENERATED_BY WAS_GENERATED_BY]-> task_execution_t1
task:t1 -[WAS_GENERATED_BY a2a:A2A_TASK_ARTIFACT]-> artifact:a-9
task:t1 -[WAS_GENERATED_BY a2a:A2A_TASK_ARTIFACT]-> artifact:t1:e3
task:t1 -[WAS_GENERATED_BY a2a:A2A_TASK_ARTIFACT]-> artifact:t1:report
";
    assert_eq!(got, want);
}

#[tokio::test(flavor = "multi_thread")]
async fn message_received_in_a_task() {
    let e = task_event(
        "e1",
        400,
        &format!(
            r#"{{"MessageReceived":{{"id":"m1","role":"user","content":["hi","there"],"metadata":{{"agent_id":"{A}"}}}}}}"#
        ),
    );
    let got = mapped("msg_received", &[&e]).await;
    let want = format!(
        "A2AMessageProcessing ProvActivity message_processing:m1
A2ATask ProvEntity task:t1
A2ATaskExecution ProvActivity task_execution_t1
AgentRuntimeInstance ProvAgent agent:runner
AgentRuntimeInstance ProvAgent agent_instance:{A}
Message ProvEntity message:m1
message_processing:m1 -[WAS_EXECUTED_BY WAS_ASSOCIATED_WITH]-> agent_instance:{A}
message_processing:m1 -[WAS_INVOKED_BY WAS_ASSOCIATED_WITH]-> agent:runner
message_processing:m1 -[WAS_RECEIVED_BY USED]-> message:m1
task:t1 -[WAS_SPAWNED_BY a2a:A2A_TASK_MESSAGE]-> message:m1
task_execution_t1 -[WAS_EXECUTED_BY WAS_ASSOCIATED_WITH]-> agent_instance:{A}
task_execution_t1 -[WAS_INVOKED_BY WAS_ASSOCIATED_WITH]-> agent:runner
task_execution_t1 -[WAS_SPAWNED_BY USED]-> message:m1
"
    );
    assert_eq!(got, want);
}

#[tokio::test(flavor = "multi_thread")]
async fn message_sent_global_and_in_a_task() {
    let global = global_event("e1", 500, r#"{"MessageSent":{"id":"m2","role":"agent","content":["done"]}}"#);
    let in_task = task_event("e2", 501, r#"{"MessageSent":{"id":"m3","role":"agent","content":[]}}"#);
    let got = mapped("msg_sent", &[&global, &in_task]).await;
    let want = "A2AMessageProcessing ProvActivity message_processing:m2
A2AMessageProcessing ProvActivity message_processing:m3
A2ATask ProvEntity task:t1
A2ATaskExecution ProvActivity task_execution_t1
AgentRuntimeInstance ProvAgent agent:runner
Message ProvEntity message:m2
Message ProvEntity message:m3
message:m2 -[WAS_EMITTED_BY WAS_GENERATED_BY]-> message_processing:m2
message:m3 -[WAS_EMITTED_BY WAS_GENERATED_BY]-> message_processing:m3
message_processing:m2 -[WAS_INVOKED_BY WAS_ASSOCIATED_WITH]-> agent:runner
message_processing:m3 -[WAS_INVOKED_BY WAS_ASSOCIATED_WITH]-> agent:runner
task:t1 -[WAS_EMITTED_BY a2a:A2A_TASK_MESSAGE]-> message:m3
";
    assert_eq!(got, want);
}

#[tokio::test(flavor = "multi_thread")]
async fn llm_calls_in_a_task_and_in_a_message() {
    let started = task_event(
        "e1",
        600,
        &format!(
            r#"{{"LlmCallStarted":{{"scope":{{"Task":{{"task_id":"t1"}}}},"client":"c","model":"m","function_name":"F","prompt":"p","metadata":{{"agent_id":"{A}"}}}}}}"#
        ),
    );
    let completed = global_event(
        "e2",
        700,
        r#"{"LlmCallCompleted":{"scope":{"Message":{"message_id":"m1"}},"client":"c","model":"m","function_name":"F","prompt":{"a":1},"metadata":{},"usage":"Unknown","duration_ms":5,"success":true}}"#,
    );
    let got = mapped("llm", &[&started, &completed]).await;
    let want = format!(
        "A2AMessageProcessing ProvActivity message_processing:m1
A2ATask ProvEntity task:t1
A2ATaskExecution ProvActivity task_execution_t1
AgentRuntimeInstance ProvAgent agent:runner
AgentRuntimeInstance ProvAgent agent_instance:{A}
LlmCall ProvActivity llm_call:e1
LlmCall ProvActivity llm_call:e2
LlmPrompt ProvEntity llm_prompt:e1
LlmPrompt ProvEntity llm_prompt:e2
Message ProvEntity message:m1
llm_call:e1 -[WAS_EXECUTED_BY WAS_ASSOCIATED_WITH]-> agent_instance:{A}
llm_call:e1 -[WAS_USED_BY USED]-> llm_prompt:e1
llm_call:e2 -[WAS_CONSUMED_BY USED]-> message:m1
llm_call:e2 -[WAS_USED_BY USED]-> llm_prompt:e2
message_processing:m1 -[WAS_INVOKED_BY a2a:A2A_MESSAGE_CALL]-> llm_call:e2
task_execution_t1 -[WAS_EXECUTED_BY WAS_ASSOCIATED_WITH]-> agent_instance:{A}
task_execution_t1 -[WAS_INVOKED_BY WAS_ASSOCIATED_WITH]-> agent:runner
task_execution_t1 -[WAS_INVOKED_BY a2a:A2A_TASK_CALL]-> llm_call:e1
"
    );
    assert_eq!(got, want);
}

#[tokio::test(flavor = "multi_thread")]
async fn tool_calls_in_a_task_and_in_a_message() {
    let started = task_event(
        "e1",
        800,
        r#"{"ToolCallStarted":{"scope":{"Task":{"task_id":"t1"}},"tool_name":"search","args":{"q":"x"},"metadata":null}}"#,
    );
    let completed = global_event(
        "e2",
        900,
        r#"{"ToolCallCompleted":{"scope":{"Message":{"message_id":"m1"}},"tool_name":"search","function_name":"f","args":[1,2],"metadata":{},"duration_ms":3,"success":false}}"#,
    );
    let got = mapped("tool", &[&started, &completed]).await;
    let want = "A2AMessageProcessing ProvActivity message_processing:m1
A2ATask ProvEntity task:t1
A2ATaskExecution ProvActivity task_execution_t1
Message ProvEntity message:m1
ToolArgs ProvEntity tool_args:e1
ToolArgs ProvEntity tool_args:e2
ToolCall ProvActivity tool_call:e1
ToolCall ProvActivity tool_call:e2
message_processing:m1 -[WAS_EXECUTED_BY a2a:A2A_MESSAGE_CALL]-> tool_call:e2
task_execution_t1 -[WAS_EXECUTED_BY a2a:A2A_TASK_CALL]-> tool_call:e1
tool_call:e1 -[WAS_USED_BY USED]-> tool_args:e1
tool_call:e2 -[WAS_CONSUMED_BY USED]-> message:m1
tool_call:e2 -[WAS_USED_BY USED]-> tool_args:e2
";
    assert_eq!(got, want);
}

#[tokio::test(flavor = "multi_thread")]
async fn properties_follow_formats_md() {
    let (provex, graph) = common::open("props").await;
    let dir = tempfile::tempdir().unwrap();
    let completed = task_event(
        "e7",
        1_000,
        &format!(
            r#"{{"LlmCallCompleted":{{"scope":{{"Task":{{"task_id":"t1"}}}},"client":"openai","model":"gpt-5","function_name":"F","prompt":"p","metadata":{{"agent_id":"{A}"}},"usage":{{"Known":{{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}}},"duration_ms":40,"success":true}}}}"#
        ),
    );
    let file = common::file_with(&dir, "e.jsonl", &[&completed]);
    provex
        .ingest(&graph, &[file], IngestOptions::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
    let call = provex.node(&graph, "llm_call:e7").await.unwrap();
    let p = |k: &str| call.properties.get(k).cloned().unwrap_or_default();
    assert_eq!(p("prov:type"), "a2a:LlmCall");
    assert_eq!(p("prov:base_type"), "ProvActivity");
    assert_eq!(p("a2a:context_id"), "ctx-1");
    assert_eq!(p("a2a:event_id"), "e7");
    assert_eq!(p("a2a:task_id"), "t1");
    assert_eq!(p("a2a:model"), "gpt-5");
    assert_eq!(p("a2a:usage_total_tokens"), 3);
    assert_eq!(p("prov:endTime"), 1_000);
    assert!(!call.properties.contains_key("prov:startTime"));

    let roles = provex
        .query(
            &graph,
            "MATCH (:LlmCall)-[e]->(b) RETURN type(e), e.`prov:role`, e.`a2a:relation` ORDER BY type(e)",
        )
        .await
        .unwrap();
    let rows: Vec<String> = roles.rows.iter().map(|r| format!("{} {} {}", r[0], r[1], r[2])).collect();
    assert_eq!(rows, [r#""WAS_EXECUTED_BY" "executing_agent" null"#, r#""WAS_USED_BY" "a2a:prompt" null"#]);
    let derived = provex
        .query(&graph, "MATCH ()-[e {`a2a:relation`: 'A2A_TASK_CALL'}]->() RETURN e.`a2a:event_id`, e.`a2a:context_id`, e.`prov:base_type`")
        .await
        .unwrap();
    assert_eq!(derived.rows, vec![vec!["e7".into(), "ctx-1".into(), serde_json::Value::Null]]);
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn scope_that_disagrees_with_the_envelope_is_rejected() {
    let (provex, graph) = common::open("scope").await;
    let dir = tempfile::tempdir().unwrap();
    let wrong_task = task_event(
        "e1",
        1,
        r#"{"ToolCallStarted":{"scope":{"Task":{"task_id":"other"}},"tool_name":"t","args":{},"metadata":{}}}"#,
    );
    let task_in_global = global_event(
        "e2",
        2,
        r#"{"ToolCallStarted":{"scope":{"Task":{"task_id":"t1"}},"tool_name":"t","args":{},"metadata":{}}}"#,
    );
    let file = common::file_with(&dir, "e.jsonl", &[&wrong_task, &task_in_global]);
    let report = provex
        .ingest(&graph, &[file], IngestOptions::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
    assert_eq!((report.events, report.rejected), (0, 2));
    let _ = provex.delete_graph(&graph).await;
}
