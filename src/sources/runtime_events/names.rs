//! The names runtime events are written under (docs/FORMATS.md, "A2A runtime events"): node
//! names, the properties the normaliser writes, and agents' roles.

/// Property names written by this normaliser.
pub mod key {
    pub const CONTEXT_ID: &str = "a2a:context_id";
    pub const EVENT_ID: &str = "a2a:event_id";
    pub const TASK_ID: &str = "a2a:task_id";
    pub const AGENT_ID: &str = "a2a:agent_id";
    pub const AGENT_TYPE: &str = "a2a:agent_type";
    pub const AGENT_VERSION: &str = "a2a:agent_version";
    pub const ARCHIVE_PATH: &str = "a2a:archive_path";
    pub const TASK_STATE: &str = "a2a:task_state";
    pub const TASK_STATE_TIME: &str = "a2a:task_state_time";
    pub const OLD_STATUS: &str = "a2a:old_status";
    pub const IS_PREVIOUS: &str = "a2a:is_previous";
    pub const MESSAGE_ID: &str = "a2a:message_id";
    pub const ROLE: &str = "a2a:role";
    pub const CONTENT: &str = "a2a:content";
    pub const DIRECTION: &str = "a2a:direction";
    pub const METADATA: &str = "a2a:metadata";
    pub const CLIENT: &str = "a2a:client";
    pub const MODEL: &str = "a2a:model";
    pub const FUNCTION_NAME: &str = "a2a:function_name";
    pub const PROMPT: &str = "a2a:prompt";
    pub const USAGE_PROMPT_TOKENS: &str = "a2a:usage_prompt_tokens";
    pub const USAGE_COMPLETION_TOKENS: &str = "a2a:usage_completion_tokens";
    pub const USAGE_TOTAL_TOKENS: &str = "a2a:usage_total_tokens";
    pub const DURATION_MS: &str = "a2a:duration_ms";
    pub const SUCCESS: &str = "a2a:success";
    pub const TOOL_NAME: &str = "a2a:tool_name";
    pub const ARGS: &str = "a2a:args";
    pub const ARTIFACT_ID: &str = "a2a:artifact_id";
    pub const ARTIFACT_TYPE: &str = "a2a:artifact_type";
    pub const START_TIME: &str = "prov:startTime";
    pub const END_TIME: &str = "prov:endTime";
    pub const ROLE_PROV: &str = "prov:role";
    pub const TIME: &str = "prov:time";
    pub const ACTIVITY: &str = "prov:activity";
    pub const TYPE: &str = "prov:type";
}

/// `prov:role` values of the runtime's provenance writer.
pub mod role {
    pub const PROMPT: &str = "a2a:prompt";
    pub const ARGS: &str = "a2a:args";
    pub const ARCHIVE: &str = "a2a:archive";
    pub const INPUT_MESSAGE: &str = "input_message";
    pub const TASK_STATE: &str = "task_state";
    pub const EXECUTING_AGENT: &str = "executing_agent";
    pub const INVOKING_AGENT: &str = "invoking_agent";
}

// The node names.
/// Name prefixes: the name is the prefix followed by an id.
pub mod prefix {
    pub const LLM_CALL: &str = "llm_call:";
    pub const LLM_PROMPT: &str = "llm_prompt:";
    pub const TOOL_CALL: &str = "tool_call:";
    pub const TOOL_ARGS: &str = "tool_args:";
    pub const TASK: &str = "task:";
    pub const TASK_EXECUTION: &str = "task_execution_";
    pub const MESSAGE: &str = "message:";
    pub const MESSAGE_PROCESSING: &str = "message_processing:";
    pub const AGENT_INSTANCE: &str = "agent_instance:";
    pub const AGENT_BOOT: &str = "agent_boot:";
}

pub fn llm_call(event_id: &str) -> String {
    [prefix::LLM_CALL, event_id].concat()
}
pub fn llm_prompt(event_id: &str) -> String {
    [prefix::LLM_PROMPT, event_id].concat()
}
pub fn tool_call(event_id: &str) -> String {
    [prefix::TOOL_CALL, event_id].concat()
}
pub fn tool_args(event_id: &str) -> String {
    [prefix::TOOL_ARGS, event_id].concat()
}
pub fn task(task_id: &str) -> String {
    [prefix::TASK, task_id].concat()
}
pub fn task_execution(task_id: &str) -> String {
    [prefix::TASK_EXECUTION, task_id].concat()
}
pub fn task_state(task_id: &str, ts: u64) -> String {
    format!("task_state:{task_id}:{ts}")
}
pub fn task_state_old(task_id: &str, ts: u64) -> String {
    format!("task_state:{task_id}:{ts}:old")
}
pub fn message(message_id: &str) -> String {
    [prefix::MESSAGE, message_id].concat()
}
pub fn message_processing(message_id: &str) -> String {
    [prefix::MESSAGE_PROCESSING, message_id].concat()
}
pub fn agent_instance(agent_id: &str) -> String {
    [prefix::AGENT_INSTANCE, agent_id].concat()
}
pub fn agent_boot(agent_id: &str) -> String {
    [prefix::AGENT_BOOT, agent_id].concat()
}
pub fn archive(archive_path: &str) -> String {
    format!("archive:{}", archive_path.replace(['/', '\\'], "_"))
}
pub fn artifact(
    task_id: &str,
    artifact_id: Option<&str>,
    artifact_type: Option<&str>,
    event_id: &str,
) -> String {
    match (artifact_id, artifact_type) {
        (Some(id), _) => format!("artifact:{id}"),
        (None, Some(ty)) => format!("artifact:{task_id}:{ty}"),
        (None, None) => format!("artifact:{task_id}:{event_id}"),
    }
}
