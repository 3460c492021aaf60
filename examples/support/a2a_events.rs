//! The A2A runtime events of one agent task, as the A2A event stream records it (see
//! examples/a2a-run.jsonl): nine events, a task, its messages, an LLM call, a tool call, its
//! status and artifact. Made for the ingest benchmarks (`bench_events.rs`) and the chaos
//! test (`tests/it/chaos.rs`).

/// Appends task `t`'s nine events to `out`, one a line, in context `context`; its events are
/// numbered `9t + 1 ..= 9t + 9` (ids and times), so tasks from 0 up number their events in
/// order. Tasks are alike but for their ids, unless `varied`: then the LLM call's usage, the
/// tool call's duration and success, and the task's end vary with `t`.
pub fn task_events(out: &mut String, t: usize, context: &str, varied: bool) {
    let mut n = t as u64 * 9;
    let mut ev = |task: &str, data: String| {
        n += 1;
        out.push_str(&format!(
            r#"{{"Task":{{"id":"e{n}","context_id":"{context}","task_id":"{task}","timestamp_ms":{},"data":{data}}}}}"#,
            1_700_000_000_000u64 + n
        ));
        out.push('\n');
    };
    let task = format!("task-{t}");
    let agent = format!("5f0c1a2e-8d4b-4c1e-9a77-{:012}", t % 50);
    let scope = format!(r#"{{"Task":{{"task_id":"{task}"}}}}"#);
    let meta = format!(r#"{{"agent_id":"{agent}"}}"#);
    let prompt =
        r#"{"system":"You summarise council meetings.","user":"Summarise the attached transcript segment."}"#;
    let (prompt_tokens, total_tokens) = if varied { (800 + t % 97, 1040 + t % 97) } else { (812, 1052) };
    let (tool_ms, tool_ok) = if varied { (100 + t % 40, t % 13 != 0) } else { (120, true) };
    let end = if varied && t % 11 == 0 { "failed" } else { "completed" };
    ev(&task, format!(r#"{{"TaskCreated":{{"task_id":"{task}","agent_id":"{agent}"}}}}"#));
    ev(
        &task,
        format!(
            r#"{{"MessageReceived":{{"id":"in-{t}","role":"user","content":["Summarise item {t} of the agenda"],"metadata":{meta}}}}}"#
        ),
    );
    ev(
        &task,
        format!(
            r#"{{"LlmCallStarted":{{"scope":{scope},"client":"anthropic","model":"claude-sonnet-4","function_name":"Summarise","prompt":{prompt},"metadata":{meta}}}}}"#
        ),
    );
    ev(
        &task,
        format!(
            r#"{{"LlmCallCompleted":{{"scope":{scope},"client":"anthropic","model":"claude-sonnet-4","function_name":"Summarise","prompt":{prompt},"metadata":{meta},"usage":{{"Known":{{"prompt_tokens":{prompt_tokens},"completion_tokens":240,"total_tokens":{total_tokens}}}}},"duration_ms":2210,"success":true}}}}"#
        ),
    );
    ev(
        &task,
        format!(
            r#"{{"ToolCallStarted":{{"scope":{scope},"tool_name":"transcript_search","function_name":"search","args":{{"q":"item {t}"}},"metadata":{meta}}}}}"#
        ),
    );
    ev(
        &task,
        format!(
            r#"{{"ToolCallCompleted":{{"scope":{scope},"tool_name":"transcript_search","function_name":"search","args":{{"q":"item {t}"}},"metadata":{meta},"duration_ms":{tool_ms},"success":{tool_ok}}}}}"#
        ),
    );
    ev(
        &task,
        format!(
            r#"{{"TaskStatusChanged":{{"task_id":"{task}","old_status":"working","new_status":"{end}"}}}}"#
        ),
    );
    ev(
        &task,
        format!(
            r#"{{"TaskArtifactGenerated":{{"task_id":"{task}","artifact_id":"summary-{t}","artifact_type":"text/markdown"}}}}"#
        ),
    );
    ev(
        &task,
        format!(
            r#"{{"MessageSent":{{"id":"out-{t}","role":"agent","content":["Summary of item {t}"],"metadata":{meta}}}}}"#
        ),
    );
}
