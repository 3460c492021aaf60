//! What the ingest benchmarks share (`bench_ingest`, `bench_tlog_ingest`): the A2A runtime
//! event file they ingest (9 events a task: a task, its messages, an LLM call, a tool call,
//! its status and artifact) and a private FalkorDB with a Provex session on it.

use std::io::Write as _;
use std::path::Path;

use provex::facade::{ConnectOptions, Provex};
use provex::store::server::{PrivateServer, ServerOptions};

/// Writes `tasks` tasks of A2A runtime events to `path`, one event a line.
pub fn write_events(path: &Path, tasks: usize) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut n = 0u64;
    let mut ev = |task: &str, data: String| {
        n += 1;
        writeln!(
            out,
            r#"{{"Task":{{"id":"e{n}","context_id":"ctx-bench","task_id":"{task}","timestamp_ms":{},"data":{data}}}}}"#,
            1_700_000_000_000u64 + n
        )
        .unwrap();
    };
    for t in 0..tasks {
        let task = format!("task-{t}");
        let agent = format!("5f0c1a2e-8d4b-4c1e-9a77-{:012}", t % 50);
        let scope = format!(r#"{{"Task":{{"task_id":"{task}"}}}}"#);
        let meta = format!(r#"{{"agent_id":"{agent}"}}"#);
        ev(&task, format!(r#"{{"TaskCreated":{{"task_id":"{task}","agent_id":"{agent}"}}}}"#));
        ev(
            &task,
            format!(
                r#"{{"MessageReceived":{{"id":"in-{t}","role":"user","content":["Summarise item {t} of the agenda"],"metadata":{meta}}}}}"#
            ),
        );
        let prompt = r#"{"system":"You summarise council meetings.","user":"Summarise the attached transcript segment."}"#;
        ev(
            &task,
            format!(
                r#"{{"LlmCallStarted":{{"scope":{scope},"client":"anthropic","model":"claude-sonnet-4","function_name":"Summarise","prompt":{prompt},"metadata":{meta}}}}}"#
            ),
        );
        ev(
            &task,
            format!(
                r#"{{"LlmCallCompleted":{{"scope":{scope},"client":"anthropic","model":"claude-sonnet-4","function_name":"Summarise","prompt":{prompt},"metadata":{meta},"usage":{{"Known":{{"prompt_tokens":812,"completion_tokens":240,"total_tokens":1052}}}},"duration_ms":2210,"success":true}}}}"#
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
                r#"{{"ToolCallCompleted":{{"scope":{scope},"tool_name":"transcript_search","function_name":"search","args":{{"q":"item {t}"}},"metadata":{meta},"duration_ms":120,"success":true}}}}"#
            ),
        );
        ev(
            &task,
            format!(
                r#"{{"TaskStatusChanged":{{"task_id":"{task}","old_status":"working","new_status":"completed"}}}}"#
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
}

/// FalkorDB on a free port with its data in `dir` (kept on disk, append-only, when
/// `persist`), and a Provex session on it.
pub async fn private_provex(dir: &Path, persist: bool) -> (PrivateServer, Provex) {
    let server = PrivateServer::start(&ServerOptions { data_dir: dir.into(), persist, port: None }).unwrap();
    let provex = Provex::open(ConnectOptions { url: Some(server.url()), server: None }).await.unwrap();
    (server, provex)
}
