//! The A2A runtime's `ProvEvent` wire format (seed 000, formats.md §1), as serde types.
//!
//! The producer serialises its enums with serde's default, externally tagged
//! representation, so `#[derive(Deserialize)]` on mirror types reads it exactly, and an
//! unknown variant is a parse error that names it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// Arbitrary JSON kept as its text: prompts, arguments and metadata are stored as they came,
/// without building and re-serialising a tree.
pub type Json = Option<Box<RawValue>>;

/// One line of an A2A runtime event file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum ProvEvent {
    Task(TaskEnvelope),
    Global(GlobalEnvelope),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TaskEnvelope {
    pub id: String,
    pub context_id: String,
    pub task_id: String,
    pub timestamp_ms: u64,
    pub data: EventData,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GlobalEnvelope {
    pub id: String,
    pub context_id: String,
    pub timestamp_ms: u64,
    pub data: EventData,
}

/// Where an LLM or tool call happened: inside a message's processing or a task's execution.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum CallScope {
    Message { message_id: String },
    Task { task_id: String },
}

/// Token usage of an LLM call.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum LlmUsage {
    Known { prompt_tokens: u64, completion_tokens: u64, total_tokens: u64 },
    Unknown,
}

/// The event payloads of formats.md §1. Arbitrary-JSON fields may be absent.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum EventData {
    LlmCallStarted {
        scope: CallScope,
        client: String,
        model: String,
        function_name: String,
        #[serde(default)]
        prompt: Json,
        #[serde(default)]
        metadata: Json,
    },
    LlmCallCompleted {
        scope: CallScope,
        client: String,
        model: String,
        function_name: String,
        #[serde(default)]
        prompt: Json,
        #[serde(default)]
        metadata: Json,
        usage: LlmUsage,
        duration_ms: u64,
        success: bool,
    },
    ToolCallStarted {
        scope: CallScope,
        tool_name: String,
        #[serde(default)]
        function_name: Option<String>,
        #[serde(default)]
        args: Json,
        #[serde(default)]
        metadata: Json,
    },
    ToolCallCompleted {
        scope: CallScope,
        tool_name: String,
        #[serde(default)]
        function_name: Option<String>,
        #[serde(default)]
        args: Json,
        #[serde(default)]
        metadata: Json,
        duration_ms: u64,
        success: bool,
    },
    AgentBooted {
        agent_id: String,
        agent_type: String,
        agent_version: String,
        archive_path: String,
    },
    TaskCreated {
        task_id: String,
        agent_id: String,
    },
    TaskStatusChanged {
        task_id: String,
        #[serde(default)]
        old_status: Option<String>,
        #[serde(default)]
        new_status: Option<String>,
    },
    TaskArtifactGenerated {
        task_id: String,
        #[serde(default)]
        artifact_id: Option<String>,
        #[serde(default)]
        artifact_type: Option<String>,
    },
    MessageReceived(MessageData),
    MessageSent(MessageData),
}

/// The fields shared by `MessageReceived` and `MessageSent`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MessageData {
    pub id: String,
    pub role: String,
    pub content: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<BTreeMap<String, String>>,
}

impl ProvEvent {
    pub fn id(&self) -> &str {
        match self {
            ProvEvent::Task(e) => &e.id,
            ProvEvent::Global(e) => &e.id,
        }
    }

    pub fn context_id(&self) -> &str {
        match self {
            ProvEvent::Task(e) => &e.context_id,
            ProvEvent::Global(e) => &e.context_id,
        }
    }

    /// The envelope's task id (only task-scoped events have one).
    pub fn task_id(&self) -> Option<&str> {
        match self {
            ProvEvent::Task(e) => Some(&e.task_id),
            ProvEvent::Global(_) => None,
        }
    }

    pub fn timestamp_ms(&self) -> u64 {
        match self {
            ProvEvent::Task(e) => e.timestamp_ms,
            ProvEvent::Global(e) => e.timestamp_ms,
        }
    }

    pub fn data(&self) -> &EventData {
        match self {
            ProvEvent::Task(e) => &e.data,
            ProvEvent::Global(e) => &e.data,
        }
    }

    /// The variant name, for reports.
    pub fn kind(&self) -> &'static str {
        match self.data() {
            EventData::LlmCallStarted { .. } => "LlmCallStarted",
            EventData::LlmCallCompleted { .. } => "LlmCallCompleted",
            EventData::ToolCallStarted { .. } => "ToolCallStarted",
            EventData::ToolCallCompleted { .. } => "ToolCallCompleted",
            EventData::AgentBooted { .. } => "AgentBooted",
            EventData::TaskCreated { .. } => "TaskCreated",
            EventData::TaskStatusChanged { .. } => "TaskStatusChanged",
            EventData::TaskArtifactGenerated { .. } => "TaskArtifactGenerated",
            EventData::MessageReceived(_) => "MessageReceived",
            EventData::MessageSent(_) => "MessageSent",
        }
    }
}
