//! Normalises A2A runtime events into PROV nodes and edges exactly as seed 000's tables and
//! formats.md §1 say, so the graph equals the one the runtime's own provenance writer makes.

use serde_json::value::RawValue;

use super::events::{CallScope, EventData, Json, LlmUsage, MessageData, ProvEvent};
use crate::model::vocab::{A2aRelation as A2a, EdgeKind, Label, ProvRelation as Prov, RelType};
use crate::model::{Edge, GraphDelta, Node, NodeRef, PropValue};

/// Property names written by this normaliser.
mod key {
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

/// `prov:role` values of seed 000.
mod role {
    pub const PROMPT: &str = "a2a:prompt";
    pub const ARGS: &str = "a2a:args";
    pub const ARCHIVE: &str = "a2a:archive";
    pub const INPUT_MESSAGE: &str = "input_message";
    pub const TASK_STATE: &str = "task_state";
    pub const EXECUTING_AGENT: &str = "executing_agent";
    pub const INVOKING_AGENT: &str = "invoking_agent";
}

const STATUS_TRANSITION: &str = "a2a:status_transition";
const RUNNER: &str = "agent:runner";

/// A JSON field as a property: objects keep their text as it came; `null` is left out;
/// scalars and arrays of scalars are stored as such (see [`PropValue::from_json`]).
fn json_prop(raw: &Json) -> Option<PropValue> {
    let text = raw.as_deref()?.get();
    if text.starts_with('{') {
        return Some(PropValue::Str(text.to_owned()));
    }
    PropValue::from_json(&serde_json::from_str(text).ok()?)
}

/// The `agent_id` member of a call's metadata, when it is an object with one.
fn metadata_agent(raw: &Json) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct AgentOnly {
        agent_id: Option<serde_json::Value>,
    }
    let text = raw.as_deref().map(RawValue::get)?;
    if !text.starts_with('{') {
        return None;
    }
    match serde_json::from_str::<AgentOnly>(text).ok()?.agent_id? {
        serde_json::Value::String(s) => Some(s),
        _ => None,
    }
}

/// Why an event cannot be normalised although it parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("event {event_id}: {reason}")]
pub struct InvalidEvent {
    pub event_id: String,
    pub reason: String,
}

/// The node names of seed 000 / formats.md §1.
pub mod names {
    pub fn llm_call(event_id: &str) -> String {
        format!("llm_call:{event_id}")
    }
    pub fn llm_prompt(event_id: &str) -> String {
        format!("llm_prompt:{event_id}")
    }
    pub fn tool_call(event_id: &str) -> String {
        format!("tool_call:{event_id}")
    }
    pub fn tool_args(event_id: &str) -> String {
        format!("tool_args:{event_id}")
    }
    pub fn task(task_id: &str) -> String {
        format!("task:{task_id}")
    }
    pub fn task_execution(task_id: &str) -> String {
        format!("task_execution_{task_id}")
    }
    pub fn task_state(task_id: &str, ts: u64) -> String {
        format!("task_state:{task_id}:{ts}")
    }
    pub fn task_state_old(task_id: &str, ts: u64) -> String {
        format!("task_state:{task_id}:{ts}:old")
    }
    pub fn message(message_id: &str) -> String {
        format!("message:{message_id}")
    }
    pub fn message_processing(message_id: &str) -> String {
        format!("message_processing:{message_id}")
    }
    pub fn agent_instance(agent_id: &str) -> String {
        format!("agent_instance:{agent_id}")
    }
    pub fn agent_boot(agent_id: &str) -> String {
        format!("agent_boot:{agent_id}")
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
            format!("{kind} scope task_id {task_id:?} does not match the event's task_id {:?}", env.task_id)
        }
    };
    Err(InvalidEvent { event_id: event.id().to_owned(), reason })
}

/// Normalises one event into `out`.
pub fn normalize(event: &ProvEvent, out: &mut GraphDelta) -> Result<(), InvalidEvent> {
    validate(event)?;
    let mut n = Normalizer { event, out };
    n.run();
    Ok(())
}

struct Normalizer<'a> {
    event: &'a ProvEvent,
    out: &'a mut GraphDelta,
}

impl Normalizer<'_> {
    fn ts(&self) -> u64 {
        self.event.timestamp_ms()
    }

    /// A node with the common properties of every node made from an event.
    fn node(&self, label: Label, name: String) -> Node {
        let mut node = Node::new(label, name)
            .with(key::CONTEXT_ID, self.event.context_id())
            .with(key::EVENT_ID, self.event.id());
        if let Some(task_id) = self.event.task_id() {
            node = node.with(key::TASK_ID, task_id);
        }
        node
    }

    /// Sets a JSON field as a property of `node` (see [`json_prop`]).
    fn with_json(node: Node, key: &'static str, raw: &Json) -> Node {
        match json_prop(raw) {
            Some(v) => node.with(key, v),
            None => node,
        }
    }

    fn add(&mut self, node: Node) -> NodeRef {
        let r = node.node_ref();
        self.out.add_node(node);
        r
    }

    fn prov_edge(&mut self, rel: RelType, prov: Prov, from: &NodeRef, to: &NodeRef) -> Edge {
        Edge::new(rel, EdgeKind::Prov(prov), from.clone(), to.clone())
    }

    fn used(&mut self, rel: RelType, activity: &NodeRef, entity: &NodeRef, role: &str) {
        let e = self.prov_edge(rel, Prov::Used, activity, entity).with(key::ROLE_PROV, role);
        self.out.add_edge(e);
    }

    fn generated(&mut self, rel: RelType, entity: &NodeRef, activity: &NodeRef) {
        let time = self.ts();
        let e = self.prov_edge(rel, Prov::WasGeneratedBy, entity, activity).with(key::TIME, time);
        self.out.add_edge(e);
    }

    fn associated(&mut self, activity: &NodeRef, agent: &NodeRef, role: &str) {
        let rel = match role {
            role::INVOKING_AGENT => RelType::WasInvokedBy,
            _ => RelType::WasExecutedBy,
        };
        let e = self.prov_edge(rel, Prov::WasAssociatedWith, activity, agent).with(key::ROLE_PROV, role);
        self.out.add_edge(e);
    }

    /// An A2A-derived edge with the event's metadata.
    fn derived(
        &mut self,
        rel: RelType,
        relation: A2a,
        from: &NodeRef,
        to: &NodeRef,
        direction: Option<&str>,
    ) {
        let mut e = Edge::new(rel, EdgeKind::A2a(relation), from.clone(), to.clone())
            .with(key::CONTEXT_ID, self.event.context_id())
            .with(key::EVENT_ID, self.event.id());
        if let Some(task_id) = self.event.task_id() {
            e = e.with(key::TASK_ID, task_id);
        }
        if let Some(d) = direction {
            e = e.with(key::DIRECTION, d);
        }
        self.out.add_edge(e);
    }

    /// The runner's control-plane agent (`agent:runner`).
    fn runner(&mut self) -> NodeRef {
        let node = Node::new(Label::AgentRuntimeInstance, RUNNER).with(key::AGENT_TYPE, "runner");
        self.add(node)
    }

    /// An agent runtime instance, created on demand when something refers to it.
    fn agent_instance(&mut self, agent_id: &str) -> NodeRef {
        let node = Node::new(Label::AgentRuntimeInstance, names::agent_instance(agent_id))
            .with(key::AGENT_ID, agent_id);
        self.add(node)
    }

    /// The task entity, created on demand; `agent_id` when the event tells it.
    fn task(&mut self, task_id: &str, agent_id: Option<&str>) -> NodeRef {
        let mut node = self.node(Label::A2ATask, names::task(task_id)).with(key::TASK_ID, task_id);
        if let Some(agent) = agent_id {
            node = node.with(key::AGENT_ID, agent);
        }
        self.add(node)
    }

    /// The task execution activity, created on demand; when the executing agent is known it
    /// is associated with it (executing) and with the runner (invoking).
    fn task_execution(
        &mut self,
        task_id: &str,
        agent_id: Option<&str>,
        start: Option<u64>,
        end: Option<u64>,
    ) -> NodeRef {
        let mut node =
            self.node(Label::A2ATaskExecution, names::task_execution(task_id)).with(key::TASK_ID, task_id);
        if let Some(t) = start {
            node = node.with(key::START_TIME, t);
        }
        if let Some(t) = end {
            node = node.with(key::END_TIME, t);
        }
        let exec = self.add(node);
        if let Some(agent) = agent_id {
            let instance = self.agent_instance(agent);
            self.associated(&exec, &instance, role::EXECUTING_AGENT);
            let runner = self.runner();
            self.associated(&exec, &runner, role::INVOKING_AGENT);
        }
        exec
    }

    fn run(&mut self) {
        let event = self.event;
        match event.data() {
            EventData::LlmCallStarted { scope, client, model, function_name, prompt, metadata } => {
                let call =
                    self.llm_call(client, model, function_name, metadata).with(key::START_TIME, self.ts());
                self.call(call, Label::LlmPrompt, names::llm_prompt(event.id()), prompt, scope, metadata);
            }
            EventData::LlmCallCompleted {
                scope,
                client,
                model,
                function_name,
                prompt,
                metadata,
                usage,
                duration_ms,
                success,
            } => {
                let mut call = self.completed(
                    self.llm_call(client, model, function_name, metadata),
                    *duration_ms,
                    *success,
                );
                if let LlmUsage::Known { prompt_tokens, completion_tokens, total_tokens } = usage {
                    call = call
                        .with(key::USAGE_PROMPT_TOKENS, *prompt_tokens)
                        .with(key::USAGE_COMPLETION_TOKENS, *completion_tokens)
                        .with(key::USAGE_TOTAL_TOKENS, *total_tokens);
                }
                self.call(call, Label::LlmPrompt, names::llm_prompt(event.id()), prompt, scope, metadata);
            }
            EventData::ToolCallStarted { scope, tool_name, function_name, args, metadata } => {
                let call =
                    self.tool_call(tool_name, function_name, metadata).with(key::START_TIME, self.ts());
                self.call(call, Label::ToolArgs, names::tool_args(event.id()), args, scope, metadata);
            }
            EventData::ToolCallCompleted {
                scope,
                tool_name,
                function_name,
                args,
                metadata,
                duration_ms,
                success,
            } => {
                let call = self.completed(
                    self.tool_call(tool_name, function_name, metadata),
                    *duration_ms,
                    *success,
                );
                self.call(call, Label::ToolArgs, names::tool_args(event.id()), args, scope, metadata);
            }
            EventData::AgentBooted { agent_id, agent_type, agent_version, archive_path } => {
                self.agent_booted(agent_id, agent_type, agent_version, archive_path)
            }
            EventData::TaskCreated { task_id, agent_id } => {
                let task = self.task(task_id, Some(agent_id));
                let exec = self.task_execution(task_id, Some(agent_id), Some(self.ts()), None);
                self.generated(RelType::WasCreatedBy, &task, &exec);
            }
            EventData::TaskStatusChanged { task_id, old_status, new_status } => {
                self.task_status_changed(task_id, old_status.as_deref(), new_status.as_deref())
            }
            EventData::TaskArtifactGenerated { task_id, artifact_id, artifact_type } => {
                let task = self.task(task_id, None);
                let exec = self.task_execution(task_id, None, None, None);
                let name =
                    names::artifact(task_id, artifact_id.as_deref(), artifact_type.as_deref(), event.id());
                let mut node = self.node(Label::Artifact, name);
                if let Some(id) = artifact_id {
                    node = node.with(key::ARTIFACT_ID, id.as_str());
                }
                if let Some(ty) = artifact_type {
                    node = node.with(key::ARTIFACT_TYPE, ty.as_str());
                }
                let artifact = self.add(node);
                self.generated(RelType::WasGeneratedBy, &artifact, &exec);
                self.derived(RelType::WasGeneratedBy, A2a::TaskArtifact, &task, &artifact, None);
            }
            EventData::MessageReceived(m) => self.message(m, Direction::Received),
            EventData::MessageSent(m) => self.message(m, Direction::Sent),
        }
    }

    /// The LLM call activity of a `LlmCall*` event, before its times.
    fn llm_call(&self, client: &str, model: &str, function_name: &str, metadata: &Json) -> Node {
        self.node(Label::LlmCall, names::llm_call(self.event.id()))
            .with(key::CLIENT, client)
            .with(key::MODEL, model)
            .with(key::FUNCTION_NAME, function_name)
            .with_opt(key::METADATA, json_prop(metadata))
    }

    /// The tool call activity of a `ToolCall*` event, before its times.
    fn tool_call(&self, tool_name: &str, function_name: &Option<String>, metadata: &Json) -> Node {
        self.node(Label::ToolCall, names::tool_call(self.event.id()))
            .with(key::TOOL_NAME, tool_name)
            .with_opt(key::FUNCTION_NAME, function_name.as_deref().map(PropValue::from))
            .with_opt(key::METADATA, json_prop(metadata))
    }

    /// What a `*Completed` event adds to its call: duration, outcome and end time.
    fn completed(&self, call: Node, duration_ms: u64, success: bool) -> Node {
        call.with(key::DURATION_MS, duration_ms).with(key::SUCCESS, success).with(key::END_TIME, self.ts())
    }

    /// LLM and tool calls: the call activity, the entity it used (prompt or args), and the
    /// context it ran in (a message's processing or a task's execution).
    fn call(
        &mut self,
        call: Node,
        input_label: Label,
        input_name: String,
        input: &Json,
        scope: &CallScope,
        metadata: &Json,
    ) {
        let (input_key, input_role) = match input_label {
            Label::LlmPrompt => (key::PROMPT, role::PROMPT),
            _ => (key::ARGS, role::ARGS),
        };
        let call_label = call.label;
        let call = self.add(call);
        let input_node = Self::with_json(self.node(input_label, input_name), input_key, input);
        let input = self.add(input_node);
        self.used(RelType::WasUsedBy, &call, &input, input_role);

        let call_rel = match call_label {
            Label::LlmCall => RelType::WasInvokedBy,
            _ => RelType::WasExecutedBy,
        };
        if let CallScope::Message { message_id } = scope {
            let msg = self
                .node(Label::Message, names::message(message_id))
                .with(key::MESSAGE_ID, message_id.as_str());
            let msg = self.add(msg);
            self.used(RelType::WasConsumedBy, &call, &msg, role::INPUT_MESSAGE);
            let processing = Node::new(Label::A2AMessageProcessing, names::message_processing(message_id))
                .with(key::CONTEXT_ID, self.event.context_id())
                .with(key::MESSAGE_ID, message_id.as_str());
            let processing = self.add(processing);
            self.derived(call_rel, A2a::MessageCall, &processing, &call, None);
        }
        if let Some(task_id) = self.event.task_id() {
            let agent = metadata_agent(metadata);
            let agent_id = agent.as_deref();
            self.task(task_id, agent_id);
            let exec = self.task_execution(task_id, agent_id, None, None);
            if let Some(agent) = agent_id {
                let instance = self.agent_instance(agent);
                self.associated(&call, &instance, role::EXECUTING_AGENT);
            }
            self.derived(call_rel, A2a::TaskCall, &exec, &call, None);
        }
    }

    fn agent_booted(&mut self, agent_id: &str, agent_type: &str, version: &str, archive_path: &str) {
        let archive = self
            .node(Label::AgentArchive, names::archive(archive_path))
            .with(key::ARCHIVE_PATH, archive_path);
        let archive = self.add(archive);
        let boot = self
            .node(Label::AgentBoot, names::agent_boot(agent_id))
            .with(key::AGENT_ID, agent_id)
            .with(key::AGENT_TYPE, agent_type)
            .with(key::AGENT_VERSION, version)
            .with(key::START_TIME, self.ts())
            .with(key::END_TIME, self.ts());
        let boot = self.add(boot);
        self.used(RelType::WasBootstrappedBy, &boot, &archive, role::ARCHIVE);
        let instance = self
            .node(Label::AgentRuntimeInstance, names::agent_instance(agent_id))
            .with(key::AGENT_ID, agent_id)
            .with(key::AGENT_TYPE, agent_type)
            .with(key::AGENT_VERSION, version);
        let instance = self.add(instance);
        self.generated(RelType::WasSpawnedBy, &instance, &boot);
        let runner = self.runner();
        self.associated(&boot, &runner, role::EXECUTING_AGENT);
    }

    fn task_status_changed(&mut self, task_id: &str, old: Option<&str>, new: Option<&str>) {
        let ts = self.ts();
        let terminal = new.is_some_and(is_terminal_status);
        let task = self.task(task_id, None);
        let exec = self.task_execution(task_id, None, None, terminal.then_some(ts));
        let mut state =
            self.node(Label::A2ATaskState, names::task_state(task_id, ts)).with(key::TASK_STATE_TIME, ts);
        if let Some(s) = new {
            state = state.with(key::TASK_STATE, s);
        }
        if let Some(s) = old {
            state = state.with(key::OLD_STATUS, s);
        }
        let state = self.add(state);
        self.used(RelType::WasUpdatedBy, &exec, &state, role::TASK_STATE);
        if terminal {
            self.generated(RelType::WasCreatedBy, &task, &exec);
        }
        if let Some(s) = old {
            let prev = self
                .node(Label::A2ATaskState, names::task_state_old(task_id, ts))
                .with(key::TASK_STATE_TIME, ts)
                .with(key::TASK_STATE, s)
                .with(key::IS_PREVIOUS, true);
            let prev = self.add(prev);
            let e = self
                .prov_edge(RelType::WasTransitionedFrom, Prov::WasDerivedFrom, &state, &prev)
                .with(key::ACTIVITY, exec.name.as_str())
                .with(key::TYPE, STATUS_TRANSITION);
            self.out.add_edge(e);
            self.derived(RelType::WasTransitionedTo, A2a::TaskStatusTransition, &prev, &state, None);
        }
    }

    fn message(&mut self, m: &MessageData, direction: Direction) {
        let dir = direction.as_str();
        let mut msg = self
            .node(Label::Message, names::message(&m.id))
            .with(key::ROLE, m.role.as_str())
            .with(key::CONTENT, PropValue::List(m.content.iter().map(|c| c.as_str().into()).collect()))
            .with(key::DIRECTION, dir);
        if let Some(meta) = &m.metadata {
            let json = serde_json::to_string(meta).unwrap_or_default();
            msg = msg.with(key::METADATA, json);
        }
        let msg = self.add(msg);
        let processing = self
            .node(Label::A2AMessageProcessing, names::message_processing(&m.id))
            .with(key::MESSAGE_ID, m.id.as_str())
            .with(key::DIRECTION, dir)
            .with(key::ROLE, m.role.as_str())
            .with(key::START_TIME, self.ts());
        let processing = self.add(processing);

        let agent_id = m.metadata.as_ref().and_then(|meta| meta.get("agent_id")).map(String::as_str);
        if let Some(agent) = agent_id {
            let instance = self.agent_instance(agent);
            self.associated(&processing, &instance, role::EXECUTING_AGENT);
        }
        let runner = self.runner();
        self.associated(&processing, &runner, role::INVOKING_AGENT);

        match direction {
            Direction::Received => self.used(RelType::WasReceivedBy, &processing, &msg, role::INPUT_MESSAGE),
            Direction::Sent => self.generated(RelType::WasEmittedBy, &msg, &processing),
        }

        if let Some(task_id) = self.event.task_id() {
            let task = self.task(task_id, agent_id);
            let exec = self.task_execution(task_id, agent_id, None, None);
            let rel = match direction {
                Direction::Received => {
                    self.used(RelType::WasSpawnedBy, &exec, &msg, role::INPUT_MESSAGE);
                    RelType::WasSpawnedBy
                }
                Direction::Sent => RelType::WasEmittedBy,
            };
            self.derived(rel, A2a::TaskMessage, &task, &msg, Some(dir));
        }
    }
}

#[derive(Clone, Copy)]
enum Direction {
    Received,
    Sent,
}

impl Direction {
    fn as_str(self) -> &'static str {
        match self {
            Direction::Received => "received",
            Direction::Sent => "sent",
        }
    }
}

fn is_terminal_status(status: &str) -> bool {
    ["completed", "failed", "cancelled", "canceled"].iter().any(|t| status.eq_ignore_ascii_case(t))
}
