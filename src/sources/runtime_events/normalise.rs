//! Normalises A2A runtime events into PROV nodes and edges exactly as the runtime's tables and
//! docs/FORMATS.md "A2A runtime events" say, so the graph equals the one the runtime's own provenance writer makes.
//!
//! Most events refer again to nodes and edges an earlier event made (the task, its
//! execution, the agents), so nodes and edges are upserted into the delta in place: a name
//! is built in a scratch buffer and copied only for a new node, and a property that keeps
//! its value costs a comparison.

use std::fmt::Write as _;

use super::events::{CallScope, EventData, Json, LlmUsage, MessageData, ProvEvent};
use crate::model::vocab::{A2aRelation as A2a, EdgeKind, Label, ProvRelation as Prov, RelType};
use crate::model::{GraphDelta, NodeId, PropValue, Props, PropsExt};

use super::json_props::{metadata_agent, set_json};
pub use super::names;
use super::names::{key, role};
pub use super::validate::{validate, InvalidEvent};

const STATUS_TRANSITION: &str = "a2a:status_transition";
pub const RUNNER: &str = "agent:runner";

use names::prefix;

/// Normalises one event into `out`.
pub fn normalize(event: &ProvEvent, out: &mut GraphDelta) -> Result<(), InvalidEvent> {
    validate(event)?;
    let mut n = Normalizer {
        context_id: event.context_id(),
        event_id: event.id(),
        task_id: event.task_id(),
        ts: event.timestamp_ms(),
        out,
        name: String::with_capacity(64),
    };
    n.run(event.data());
    Ok(())
}

struct Normalizer<'e, 'd> {
    context_id: &'e str,
    event_id: &'e str,
    /// The envelope's task id (task-scoped events only).
    task_id: Option<&'e str>,
    ts: u64,
    out: &'d mut GraphDelta,
    /// Scratch space for node names.
    name: String,
}

impl<'e> Normalizer<'e, '_> {
    /// Upserts the node `label` named `prefix` + `id`, without setting properties.
    fn bare(&mut self, label: Label, prefix: &str, id: &str) -> NodeId {
        self.name.clear();
        self.name.push_str(prefix);
        self.name.push_str(id);
        self.out.upsert_node(label, &self.name)
    }

    fn props(&mut self, node: NodeId) -> &mut Props {
        self.out.node_props(node)
    }

    /// Sets the common properties of every node made from an event.
    fn common(&mut self, node: NodeId) {
        let (context_id, event_id, task_id) = (self.context_id, self.event_id, self.task_id);
        let props = self.props(node);
        props.set_str(key::CONTEXT_ID, context_id);
        props.set_str(key::EVENT_ID, event_id);
        if let Some(task_id) = task_id {
            props.set_str(key::TASK_ID, task_id);
        }
    }

    /// Upserts a node named `prefix` + `id` with the common properties.
    fn node(&mut self, label: Label, prefix: &str, id: &str) -> NodeId {
        let node = self.bare(label, prefix, id);
        self.common(node);
        node
    }

    /// Upserts a node of task `task_id` (the task or its execution) with the common
    /// properties, its `a2a:task_id` being `task_id` (which may differ from the envelope's).
    fn task_node(&mut self, label: Label, prefix: &str, task_id: &str) -> NodeId {
        let node = self.bare(label, prefix, task_id);
        let (context_id, event_id) = (self.context_id, self.event_id);
        let props = self.props(node);
        props.set_str(key::CONTEXT_ID, context_id);
        props.set_str(key::EVENT_ID, event_id);
        props.set_str(key::TASK_ID, task_id);
        node
    }

    /// Upserts a node with the given name and the common properties.
    fn node_named(&mut self, label: Label, name: &str) -> NodeId {
        let node = self.out.upsert_node(label, name);
        self.common(node);
        node
    }

    fn edge(&mut self, rel: RelType, kind: EdgeKind, from: NodeId, to: NodeId) -> &mut Props {
        self.out.upsert_edge(rel, kind, from, to)
    }

    fn used(&mut self, rel: RelType, activity: NodeId, entity: NodeId, role: &str) {
        self.edge(rel, EdgeKind::Prov(Prov::Used), activity, entity).set_str(key::ROLE_PROV, role);
    }

    fn generated(&mut self, rel: RelType, entity: NodeId, activity: NodeId) {
        let time = self.ts;
        self.edge(rel, EdgeKind::Prov(Prov::WasGeneratedBy), entity, activity).set(key::TIME, time);
    }

    fn associated(&mut self, activity: NodeId, agent: NodeId, role: &str) {
        let rel = match role {
            role::INVOKING_AGENT => RelType::WasInvokedBy,
            _ => RelType::WasExecutedBy,
        };
        self.edge(rel, EdgeKind::Prov(Prov::WasAssociatedWith), activity, agent)
            .set_str(key::ROLE_PROV, role);
    }

    /// An A2A-derived edge with the event's metadata.
    fn derived(&mut self, rel: RelType, relation: A2a, from: NodeId, to: NodeId, direction: Option<&str>) {
        let (context_id, event_id, task_id) = (self.context_id, self.event_id, self.task_id);
        let props = self.edge(rel, EdgeKind::A2a(relation), from, to);
        props.set_str(key::CONTEXT_ID, context_id);
        props.set_str(key::EVENT_ID, event_id);
        if let Some(task_id) = task_id {
            props.set_str(key::TASK_ID, task_id);
        }
        if let Some(d) = direction {
            props.set_str(key::DIRECTION, d);
        }
    }

    /// The runner's control-plane agent (`agent:runner`).
    fn runner(&mut self) -> NodeId {
        let node = self.out.upsert_node(Label::AgentRuntimeInstance, RUNNER);
        self.props(node).set_str(key::AGENT_TYPE, "runner");
        node
    }

    /// An agent runtime instance, created on demand when something refers to it.
    fn agent_instance(&mut self, agent_id: &str) -> NodeId {
        let node = self.bare(Label::AgentRuntimeInstance, prefix::AGENT_INSTANCE, agent_id);
        self.props(node).set_str(key::AGENT_ID, agent_id);
        node
    }

    /// The task entity, created on demand; `agent_id` when the event tells it.
    fn task(&mut self, task_id: &str, agent_id: Option<&str>) -> NodeId {
        let node = self.task_node(Label::A2ATask, prefix::TASK, task_id);
        let props = self.props(node);
        if let Some(agent) = agent_id {
            props.set_str(key::AGENT_ID, agent);
        }
        node
    }

    /// The task execution activity, created on demand; when the executing agent is known it
    /// is associated with it (executing) and with the runner (invoking).
    fn task_execution(
        &mut self,
        task_id: &str,
        agent_id: Option<&str>,
        start: Option<u64>,
        end: Option<u64>,
    ) -> NodeId {
        let exec = self.task_node(Label::A2ATaskExecution, prefix::TASK_EXECUTION, task_id);
        let props = self.props(exec);
        if let Some(t) = start {
            props.set(key::START_TIME, t);
        }
        if let Some(t) = end {
            props.set(key::END_TIME, t);
        }
        if let Some(agent) = agent_id {
            let instance = self.agent_instance(agent);
            self.associated(exec, instance, role::EXECUTING_AGENT);
            let runner = self.runner();
            self.associated(exec, runner, role::INVOKING_AGENT);
        }
        exec
    }

    fn run(&mut self, data: &EventData<'e>) {
        let ts = self.ts;
        match data {
            EventData::LlmCallStarted { scope, client, model, function_name, prompt, metadata } => {
                let call = self.llm_call(client, model, function_name, metadata);
                self.props(call).set(key::START_TIME, ts);
                self.call(call, Label::LlmCall, Label::LlmPrompt, prompt, scope, metadata);
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
                let call = self.llm_call(client, model, function_name, metadata);
                self.completed(call, *duration_ms, *success);
                if let LlmUsage::Known { prompt_tokens, completion_tokens, total_tokens } = usage {
                    let props = self.props(call);
                    props.set(key::USAGE_PROMPT_TOKENS, *prompt_tokens);
                    props.set(key::USAGE_COMPLETION_TOKENS, *completion_tokens);
                    props.set(key::USAGE_TOTAL_TOKENS, *total_tokens);
                }
                self.call(call, Label::LlmCall, Label::LlmPrompt, prompt, scope, metadata);
            }
            EventData::ToolCallStarted { scope, tool_name, function_name, args, metadata } => {
                let call = self.tool_call(tool_name, function_name.as_deref(), metadata);
                self.props(call).set(key::START_TIME, ts);
                self.call(call, Label::ToolCall, Label::ToolArgs, args, scope, metadata);
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
                let call = self.tool_call(tool_name, function_name.as_deref(), metadata);
                self.completed(call, *duration_ms, *success);
                self.call(call, Label::ToolCall, Label::ToolArgs, args, scope, metadata);
            }
            EventData::AgentBooted { agent_id, agent_type, agent_version, archive_path } => {
                self.agent_booted(agent_id, agent_type, agent_version, archive_path)
            }
            EventData::TaskCreated { task_id, agent_id } => {
                let task = self.task(task_id, Some(agent_id));
                let exec = self.task_execution(task_id, Some(agent_id), Some(ts), None);
                self.generated(RelType::WasCreatedBy, task, exec);
            }
            EventData::TaskStatusChanged { task_id, old_status, new_status } => {
                self.task_status_changed(task_id, old_status.as_deref(), new_status.as_deref())
            }
            EventData::TaskArtifactGenerated { task_id, artifact_id, artifact_type } => {
                let (artifact_id, artifact_type) = (artifact_id.as_deref(), artifact_type.as_deref());
                let task = self.task(task_id, None);
                let exec = self.task_execution(task_id, None, None, None);
                let name = names::artifact(task_id, artifact_id, artifact_type, self.event_id);
                let artifact = self.node_named(Label::Artifact, &name);
                let props = self.props(artifact);
                if let Some(id) = artifact_id {
                    props.set_str(key::ARTIFACT_ID, id);
                }
                if let Some(ty) = artifact_type {
                    props.set_str(key::ARTIFACT_TYPE, ty);
                }
                self.generated(RelType::WasGeneratedBy, artifact, exec);
                self.derived(RelType::WasGeneratedBy, A2a::TaskArtifact, task, artifact, None);
            }
            EventData::MessageReceived(m) => self.message(m, Direction::Received),
            EventData::MessageSent(m) => self.message(m, Direction::Sent),
        }
    }

    /// The LLM call activity of a `LlmCall*` event, before its times.
    fn llm_call(&mut self, client: &str, model: &str, function_name: &str, metadata: &Json) -> NodeId {
        let call = self.node(Label::LlmCall, prefix::LLM_CALL, self.event_id);
        let props = self.props(call);
        props.set_str(key::CLIENT, client);
        props.set_str(key::MODEL, model);
        props.set_str(key::FUNCTION_NAME, function_name);
        set_json(props, key::METADATA, metadata);
        call
    }

    /// The tool call activity of a `ToolCall*` event, before its times.
    fn tool_call(&mut self, tool_name: &str, function_name: Option<&str>, metadata: &Json) -> NodeId {
        let call = self.node(Label::ToolCall, prefix::TOOL_CALL, self.event_id);
        let props = self.props(call);
        props.set_str(key::TOOL_NAME, tool_name);
        if let Some(f) = function_name {
            props.set_str(key::FUNCTION_NAME, f);
        }
        set_json(props, key::METADATA, metadata);
        call
    }

    /// What a `*Completed` event adds to its call: duration, outcome and end time.
    fn completed(&mut self, call: NodeId, duration_ms: u64, success: bool) {
        let ts = self.ts;
        let props = self.props(call);
        props.set(key::DURATION_MS, duration_ms);
        props.set(key::SUCCESS, success);
        props.set(key::END_TIME, ts);
    }

    /// LLM and tool calls: the call activity, the entity it used (prompt or args), and the
    /// context it ran in (a message's processing or a task's execution).
    fn call(
        &mut self,
        call: NodeId,
        call_label: Label,
        input_label: Label,
        input: &Json,
        scope: &CallScope,
        metadata: &Json,
    ) {
        let (input_prefix, input_key, input_role) = match input_label {
            Label::LlmPrompt => (prefix::LLM_PROMPT, key::PROMPT, role::PROMPT),
            _ => (prefix::TOOL_ARGS, key::ARGS, role::ARGS),
        };
        let input_node = self.node(input_label, input_prefix, self.event_id);
        set_json(self.props(input_node), input_key, input);
        self.used(RelType::WasUsedBy, call, input_node, input_role);

        let call_rel = match call_label {
            Label::LlmCall => RelType::WasInvokedBy,
            _ => RelType::WasExecutedBy,
        };
        if let CallScope::Message { message_id } = scope {
            let msg = self.node(Label::Message, prefix::MESSAGE, message_id);
            self.props(msg).set_str(key::MESSAGE_ID, message_id);
            self.used(RelType::WasConsumedBy, call, msg, role::INPUT_MESSAGE);
            let processing = self.bare(Label::A2AMessageProcessing, prefix::MESSAGE_PROCESSING, message_id);
            let context_id = self.context_id;
            let props = self.props(processing);
            props.set_str(key::CONTEXT_ID, context_id);
            props.set_str(key::MESSAGE_ID, message_id);
            self.derived(call_rel, A2a::MessageCall, processing, call, None);
        }
        if let Some(task_id) = self.task_id {
            let agent = metadata_agent(metadata);
            let agent_id = agent.as_deref();
            self.task(task_id, agent_id);
            let exec = self.task_execution(task_id, agent_id, None, None);
            if let Some(agent) = agent_id {
                let instance = self.agent_instance(agent);
                self.associated(call, instance, role::EXECUTING_AGENT);
            }
            self.derived(call_rel, A2a::TaskCall, exec, call, None);
        }
    }

    fn agent_booted(&mut self, agent_id: &str, agent_type: &str, version: &str, archive_path: &str) {
        let ts = self.ts;
        let archive = self.node_named(Label::AgentArchive, &names::archive(archive_path));
        self.props(archive).set_str(key::ARCHIVE_PATH, archive_path);
        let boot = self.node(Label::AgentBoot, prefix::AGENT_BOOT, agent_id);
        let props = self.props(boot);
        props.set_str(key::AGENT_ID, agent_id);
        props.set_str(key::AGENT_TYPE, agent_type);
        props.set_str(key::AGENT_VERSION, version);
        props.set(key::START_TIME, ts);
        props.set(key::END_TIME, ts);
        self.used(RelType::WasBootstrappedBy, boot, archive, role::ARCHIVE);
        let instance = self.node(Label::AgentRuntimeInstance, prefix::AGENT_INSTANCE, agent_id);
        let props = self.props(instance);
        props.set_str(key::AGENT_ID, agent_id);
        props.set_str(key::AGENT_TYPE, agent_type);
        props.set_str(key::AGENT_VERSION, version);
        self.generated(RelType::WasSpawnedBy, instance, boot);
        let runner = self.runner();
        self.associated(boot, runner, role::EXECUTING_AGENT);
    }

    fn task_status_changed(&mut self, task_id: &str, old: Option<&str>, new: Option<&str>) {
        let ts = self.ts;
        let terminal = new.is_some_and(is_terminal_status);
        let task = self.task(task_id, None);
        let exec = self.task_execution(task_id, None, None, terminal.then_some(ts));
        self.name.clear();
        let _ = write!(self.name, "task_state:{task_id}:{ts}");
        let state = self.out.upsert_node(Label::A2ATaskState, &self.name);
        self.common(state);
        let props = self.props(state);
        props.set(key::TASK_STATE_TIME, ts);
        if let Some(s) = new {
            props.set_str(key::TASK_STATE, s);
        }
        if let Some(s) = old {
            props.set_str(key::OLD_STATUS, s);
        }
        self.used(RelType::WasUpdatedBy, exec, state, role::TASK_STATE);
        if terminal {
            self.generated(RelType::WasCreatedBy, task, exec);
        }
        if let Some(s) = old {
            self.name.push_str(":old");
            let prev = self.out.upsert_node(Label::A2ATaskState, &self.name);
            self.common(prev);
            let props = self.props(prev);
            props.set(key::TASK_STATE_TIME, ts);
            props.set_str(key::TASK_STATE, s);
            props.set(key::IS_PREVIOUS, true);
            let activity = self.out.node_name(exec).to_owned();
            let props =
                self.edge(RelType::WasTransitionedFrom, EdgeKind::Prov(Prov::WasDerivedFrom), state, prev);
            props.set_str(key::ACTIVITY, &activity);
            props.set_str(key::TYPE, STATUS_TRANSITION);
            self.derived(RelType::WasTransitionedTo, A2a::TaskStatusTransition, prev, state, None);
        }
    }

    fn message(&mut self, m: &MessageData, direction: Direction) {
        let dir = direction.as_str();
        let ts = self.ts;
        let msg = self.node(Label::Message, prefix::MESSAGE, &m.id);
        let props = self.props(msg);
        props.set_str(key::ROLE, &m.role);
        props.set(key::CONTENT, PropValue::List(m.content.iter().map(|c| PropValue::from(&**c)).collect()));
        props.set_str(key::DIRECTION, dir);
        if let Some(meta) = &m.metadata {
            props.set(key::METADATA, serde_json::to_string(meta).unwrap_or_default());
        }
        let processing = self.node(Label::A2AMessageProcessing, prefix::MESSAGE_PROCESSING, &m.id);
        let props = self.props(processing);
        props.set_str(key::MESSAGE_ID, &m.id);
        props.set_str(key::DIRECTION, dir);
        props.set_str(key::ROLE, &m.role);
        props.set(key::START_TIME, ts);

        let agent_id = m.metadata.as_ref().and_then(|meta| meta.get("agent_id")).map(|a| &**a);
        if let Some(agent) = agent_id {
            let instance = self.agent_instance(agent);
            self.associated(processing, instance, role::EXECUTING_AGENT);
        }
        let runner = self.runner();
        self.associated(processing, runner, role::INVOKING_AGENT);

        match direction {
            Direction::Received => self.used(RelType::WasReceivedBy, processing, msg, role::INPUT_MESSAGE),
            Direction::Sent => self.generated(RelType::WasEmittedBy, msg, processing),
        }

        if let Some(task_id) = self.task_id {
            let task = self.task(task_id, agent_id);
            let exec = self.task_execution(task_id, agent_id, None, None);
            let rel = match direction {
                Direction::Received => {
                    self.used(RelType::WasSpawnedBy, exec, msg, role::INPUT_MESSAGE);
                    RelType::WasSpawnedBy
                }
                Direction::Sent => RelType::WasEmittedBy,
            };
            self.derived(rel, A2a::TaskMessage, task, msg, Some(dir));
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
