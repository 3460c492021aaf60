//! The A2A runtime's `ProvEvent` wire format (docs/FORMATS.md "A2A runtime events"), as serde types.
//!
//! The producer serialises its enums with serde's default, externally tagged
//! representation, so `#[derive(Deserialize)]` on mirror types reads it exactly, and an
//! unknown variant is a parse error that names it.
//!
//! The types borrow from the line they were read from: strings without escapes and
//! arbitrary JSON are not copied.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// Arbitrary JSON kept as its text: prompts, arguments and metadata are stored as they came,
/// without building and re-serialising a tree.
pub type Json<'a> = Option<&'a RawValue>;

/// A JSON string: borrowed from the line, or unescaped into its own buffer when it has
/// escapes. It reads, compares, orders and serialises as a `String` does.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Text<'a>(#[serde(borrow)] pub Cow<'a, str>);

impl std::borrow::Borrow<str> for Text<'_> {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for Text<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

/// One line of an A2A runtime event file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum ProvEvent<'a> {
    Task(#[serde(borrow)] TaskEnvelope<'a>),
    Global(#[serde(borrow)] GlobalEnvelope<'a>),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TaskEnvelope<'a> {
    #[serde(borrow)]
    pub id: Text<'a>,
    #[serde(borrow)]
    pub context_id: Text<'a>,
    #[serde(borrow)]
    pub task_id: Text<'a>,
    pub timestamp_ms: u64,
    #[serde(borrow)]
    pub data: EventData<'a>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GlobalEnvelope<'a> {
    #[serde(borrow)]
    pub id: Text<'a>,
    #[serde(borrow)]
    pub context_id: Text<'a>,
    pub timestamp_ms: u64,
    #[serde(borrow)]
    pub data: EventData<'a>,
}

/// Where an LLM or tool call happened: inside a message's processing or a task's execution.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum CallScope<'a> {
    Message {
        #[serde(borrow)]
        message_id: Text<'a>,
    },
    Task {
        #[serde(borrow)]
        task_id: Text<'a>,
    },
}

/// Token usage of an LLM call.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum LlmUsage {
    Known { prompt_tokens: u64, completion_tokens: u64, total_tokens: u64 },
    Unknown,
}

/// The event payloads of docs/FORMATS.md "A2A runtime events". Arbitrary-JSON fields may be absent.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum EventData<'a> {
    LlmCallStarted {
        #[serde(borrow)]
        scope: CallScope<'a>,
        #[serde(borrow)]
        client: Text<'a>,
        #[serde(borrow)]
        model: Text<'a>,
        #[serde(borrow)]
        function_name: Text<'a>,
        #[serde(default, borrow)]
        prompt: Json<'a>,
        #[serde(default, borrow)]
        metadata: Json<'a>,
    },
    LlmCallCompleted {
        #[serde(borrow)]
        scope: CallScope<'a>,
        #[serde(borrow)]
        client: Text<'a>,
        #[serde(borrow)]
        model: Text<'a>,
        #[serde(borrow)]
        function_name: Text<'a>,
        #[serde(default, borrow)]
        prompt: Json<'a>,
        #[serde(default, borrow)]
        metadata: Json<'a>,
        usage: LlmUsage,
        duration_ms: u64,
        success: bool,
    },
    ToolCallStarted {
        #[serde(borrow)]
        scope: CallScope<'a>,
        #[serde(borrow)]
        tool_name: Text<'a>,
        #[serde(default, borrow)]
        function_name: Option<Text<'a>>,
        #[serde(default, borrow)]
        args: Json<'a>,
        #[serde(default, borrow)]
        metadata: Json<'a>,
    },
    ToolCallCompleted {
        #[serde(borrow)]
        scope: CallScope<'a>,
        #[serde(borrow)]
        tool_name: Text<'a>,
        #[serde(default, borrow)]
        function_name: Option<Text<'a>>,
        #[serde(default, borrow)]
        args: Json<'a>,
        #[serde(default, borrow)]
        metadata: Json<'a>,
        duration_ms: u64,
        success: bool,
    },
    AgentBooted {
        #[serde(borrow)]
        agent_id: Text<'a>,
        #[serde(borrow)]
        agent_type: Text<'a>,
        #[serde(borrow)]
        agent_version: Text<'a>,
        #[serde(borrow)]
        archive_path: Text<'a>,
    },
    TaskCreated {
        #[serde(borrow)]
        task_id: Text<'a>,
        #[serde(borrow)]
        agent_id: Text<'a>,
    },
    TaskStatusChanged {
        #[serde(borrow)]
        task_id: Text<'a>,
        #[serde(default, borrow)]
        old_status: Option<Text<'a>>,
        #[serde(default, borrow)]
        new_status: Option<Text<'a>>,
    },
    TaskArtifactGenerated {
        #[serde(borrow)]
        task_id: Text<'a>,
        #[serde(default, borrow)]
        artifact_id: Option<Text<'a>>,
        #[serde(default, borrow)]
        artifact_type: Option<Text<'a>>,
    },
    MessageReceived(#[serde(borrow)] MessageData<'a>),
    MessageSent(#[serde(borrow)] MessageData<'a>),
}

/// The fields shared by `MessageReceived` and `MessageSent`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MessageData<'a> {
    #[serde(borrow)]
    pub id: Text<'a>,
    #[serde(borrow)]
    pub role: Text<'a>,
    #[serde(borrow)]
    pub content: Vec<Text<'a>>,
    #[serde(default, borrow, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<BTreeMap<Text<'a>, Text<'a>>>,
}

impl<'a> ProvEvent<'a> {
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

    pub fn data(&self) -> &EventData<'a> {
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
