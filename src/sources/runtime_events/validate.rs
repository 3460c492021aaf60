//! The scope rules a runtime event must keep although it parsed (docs/FORMATS.md, "A2A runtime
//! events"), checked as the runtime's own writer checks them.

use super::events::{CallScope, EventData, ProvEvent};

/// Why an event cannot be normalised although it parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("event {event_id}: {reason}")]
pub struct InvalidEvent {
    pub event_id: String,
    pub reason: String,
}

/// Checks the event's scope rules, as the runtime's writer does: a call's scope must agree
/// with its envelope (task-scoped calls only in task events for the same task,
/// message-scoped calls only in global events).
pub fn validate(event: &ProvEvent) -> Result<(), InvalidEvent> {
    let scope = match event.data() {
        EventData::LlmCallStarted { scope, .. }
        | EventData::LlmCallCompleted { scope, .. }
        | EventData::ToolCallStarted { scope, .. }
        | EventData::ToolCallCompleted { scope, .. } => scope,
        _ => return Ok(()),
    };
    let kind = match event.data() {
        EventData::LlmCallStarted { .. } | EventData::LlmCallCompleted { .. } => "llm call",
        _ => "tool call",
    };
    let reason = match (event, scope) {
        (ProvEvent::Global(_), CallScope::Message { .. }) => return Ok(()),
        (ProvEvent::Global(_), CallScope::Task { .. }) => {
            format!("{kind} is task-scoped but the event is global")
        }
        (ProvEvent::Task(_), CallScope::Message { .. }) => {
            format!("{kind} is message-scoped but the event is task-scoped")
        }
        (ProvEvent::Task(env), CallScope::Task { task_id }) if *task_id == env.task_id => return Ok(()),
        (ProvEvent::Task(env), CallScope::Task { task_id }) => {
            format!(
                "{kind} scope task_id {:?} does not match the event's task_id {:?}",
                &**task_id, &*env.task_id
            )
        }
    };
    Err(InvalidEvent { event_id: event.id().to_owned(), reason })
}
