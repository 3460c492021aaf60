//! What the GenAI semantic conventions (`gen_ai.*`, with their older spellings) and Arize's
//! OpenInference conventions say about a span (docs/FORMATS.md "OpenTelemetry traces"): its
//! kind of work, its agent and its model.

use std::borrow::Cow;

use opentelemetry_proto::tonic::common::v1::KeyValue;

use super::wire::{attr_str, attr_text};
use crate::model::Label;

/// Attribute keys read here and elsewhere in this source.
pub mod key {
    pub const OPERATION: &str = "gen_ai.operation.name";
    pub const OI_KIND: &str = "openinference.span.kind";
    pub const AGENT_ID: &str = "gen_ai.agent.id";
    pub const AGENT_NAME: &str = "gen_ai.agent.name";
    pub const OI_NODE_ID: &str = "graph.node.id";
    pub const OI_NODE_NAME: &str = "graph.node.name";
    pub const OI_NODE_PARENT: &str = "graph.node.parent_id";
    pub const RESPONSE_MODEL: &str = "gen_ai.response.model";
    pub const REQUEST_MODEL: &str = "gen_ai.request.model";
    pub const OI_MODEL: &str = "llm.model_name";
    pub const PROVIDER: &str = "gen_ai.provider.name";
    pub const SYSTEM: &str = "gen_ai.system";
    pub const OI_PROVIDER: &str = "llm.provider";
    pub const OI_SYSTEM: &str = "llm.system";
    pub const TOOL_CALL_ID: &str = "gen_ai.tool.call.id";
    pub const OI_TOOL_CALL_ID: &str = "tool_call.id";
    pub const TOOL_ARGS: &str = "gen_ai.tool.call.arguments";
    pub const TOOL_RESULT: &str = "gen_ai.tool.call.result";
    pub const OI_TOOL_PARAMS: &str = "tool.parameters";
    pub const CONVERSATION: &str = "gen_ai.conversation.id";
    pub const OI_SESSION: &str = "session.id";
    pub const A2A_TASK: &str = "a2a.task.id";
    pub const A2A_CONTEXT: &str = "a2a.context.id";
    pub const SERVICE_NAME: &str = "service.name";
    pub const SERVICE_NAMESPACE: &str = "service.namespace";
}

/// The label of a span by what it does: `gen_ai.operation.name` first, then OpenInference's
/// `openinference.span.kind`; else `Span`.
pub fn label(attributes: &[KeyValue]) -> Label {
    /// The label of the first names that `value` is, in any case (compared in place, not
    /// lower-cased into a copy).
    fn named(value: &str, table: &[(&[&str], Label)]) -> Option<Label> {
        table.iter().find(|(names, _)| names.iter().any(|n| n.eq_ignore_ascii_case(value))).map(|(_, l)| *l)
    }
    const OPERATIONS: &[(&[&str], Label)] = &[
        (&["chat", "text_completion", "generate_content"], Label::LlmCall),
        (&["execute_tool"], Label::ToolCall),
        (&["invoke_agent", "create_agent", "invoke_workflow"], Label::AgentInvocation),
        (&["retrieval"], Label::Retrieval),
        (&["embeddings"], Label::Embedding),
    ];
    const KINDS: &[(&[&str], Label)] = &[
        (&["LLM"], Label::LlmCall),
        (&["TOOL"], Label::ToolCall),
        (&["AGENT"], Label::AgentInvocation),
        (&["RETRIEVER", "RERANKER"], Label::Retrieval),
        (&["EMBEDDING"], Label::Embedding),
        (&["EVALUATOR", "GUARDRAIL"], Label::Evaluation),
    ];
    attr_str(attributes, key::OPERATION)
        .and_then(|op| named(op, OPERATIONS))
        .or_else(|| attr_str(attributes, key::OI_KIND).and_then(|k| named(k, KINDS)))
        .unwrap_or(Label::Span)
}

/// Whether spans of this label are labels this source gives (a span's node).
pub fn is_span_label(label: Label) -> bool {
    matches!(
        label,
        Label::Span
            | Label::LlmCall
            | Label::ToolCall
            | Label::AgentInvocation
            | Label::Retrieval
            | Label::Embedding
            | Label::Evaluation
    )
}

/// The labels a span may have besides the placeholder's `Span`.
/// (`TRACE_LABELS` after its first, `Span`: one list, so the two cannot drift apart.)
pub const SPAN_LABELS: &[Label] = crate::model::indexes::TRACE_LABELS.split_at(1).1;

pub use crate::model::indexes::TRACE_LABELS;

/// A Cypher subquery that gives `s`, each node of the trace `$<param>` whose label is a
/// span's, through the `otel:trace_id` index of each such label (a query that names no
/// label scans every node). Start a trace's query with it: `{this} WITH s WHERE …`.
pub fn trace_nodes(param: &str) -> String {
    let parts: Vec<String> = TRACE_LABELS
        .iter()
        .map(|l| format!("MATCH (s:`{l}`) WHERE s.`otel:trace_id` = ${param} RETURN s"))
        .collect();
    format!("CALL {{ {} }}", parts.join(" UNION ALL "))
}

/// The agent a span names: `gen_ai.agent.id`, else `gen_ai.agent.name`, else
/// OpenInference's `graph.node.id`.
pub fn agent_id(attributes: &[KeyValue]) -> Option<Cow<'_, str>> {
    [key::AGENT_ID, key::AGENT_NAME, key::OI_NODE_ID]
        .iter()
        .find_map(|k| attr_text(attributes, k))
        .filter(|s| !s.is_empty())
}

/// The agent's display name, when given.
pub fn agent_name(attributes: &[KeyValue]) -> Option<&str> {
    attr_str(attributes, key::AGENT_NAME)
        .or_else(|| attr_str(attributes, key::OI_NODE_NAME))
        .or_else(|| attr_str(attributes, "agent.name"))
}

/// The model and its provider: `gen_ai.response.model`, else `gen_ai.request.model`, else
/// `llm.model_name`; the provider from `gen_ai.provider.name`, `gen_ai.system`,
/// `llm.provider` or `llm.system` (`unknown` when none says).
pub fn model(attributes: &[KeyValue]) -> Option<(&str, &str)> {
    let model = [key::RESPONSE_MODEL, key::REQUEST_MODEL, key::OI_MODEL]
        .iter()
        .find_map(|k| attr_str(attributes, k))
        .filter(|s| !s.is_empty())?;
    let provider = [key::PROVIDER, key::SYSTEM, key::OI_PROVIDER, key::OI_SYSTEM]
        .iter()
        .find_map(|k| attr_str(attributes, k))
        .filter(|s| !s.is_empty())
        .unwrap_or("unknown");
    Some((provider, model))
}

/// OTLP's span kind as stored in `otel:kind`.
pub fn span_kind(kind: i32) -> &'static str {
    match kind {
        1 => "internal",
        2 => "server",
        3 => "client",
        4 => "producer",
        5 => "consumer",
        _ => "unspecified",
    }
}

/// OTLP's status code as stored in `otel:status`.
pub fn status(code: i32) -> &'static str {
    match code {
        1 => "ok",
        2 => "error",
        _ => "unset",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry_proto::tonic::common::v1::{any_value::Value, AnyValue};

    #[test]
    fn span_labels_are_the_trace_labels_but_the_placeholder() {
        assert_eq!(TRACE_LABELS[0], Label::Span);
        assert!(!SPAN_LABELS.contains(&Label::Span));
        assert_eq!(SPAN_LABELS.len() + 1, TRACE_LABELS.len());
    }

    fn kv(k: &str, v: &str) -> KeyValue {
        KeyValue {
            key: k.into(),
            value: Some(AnyValue { value: Some(Value::StringValue(v.into())) }),
            ..Default::default()
        }
    }

    #[test]
    fn labels_follow_both_conventions() {
        for (op, l) in [
            ("chat", Label::LlmCall),
            ("text_completion", Label::LlmCall),
            ("generate_content", Label::LlmCall),
            ("execute_tool", Label::ToolCall),
            ("invoke_agent", Label::AgentInvocation),
            ("create_agent", Label::AgentInvocation),
            ("invoke_workflow", Label::AgentInvocation),
            ("retrieval", Label::Retrieval),
            ("embeddings", Label::Embedding),
            ("something_else", Label::Span),
        ] {
            assert_eq!(label(&[kv(key::OPERATION, op)]), l, "{op}");
        }
        for (kind, l) in [
            ("LLM", Label::LlmCall),
            ("TOOL", Label::ToolCall),
            ("AGENT", Label::AgentInvocation),
            ("RETRIEVER", Label::Retrieval),
            ("RERANKER", Label::Retrieval),
            ("EMBEDDING", Label::Embedding),
            ("EVALUATOR", Label::Evaluation),
            ("GUARDRAIL", Label::Evaluation),
            ("CHAIN", Label::Span),
        ] {
            assert_eq!(label(&[kv(key::OI_KIND, kind)]), l, "{kind}");
        }
        assert_eq!(label(&[]), Label::Span);
    }

    #[test]
    fn model_and_provider_fall_back_in_order() {
        let a = [
            kv(key::REQUEST_MODEL, "gpt-4o"),
            kv(key::RESPONSE_MODEL, "gpt-4o-2024"),
            kv(key::SYSTEM, "openai"),
        ];
        assert_eq!(model(&a), Some(("openai", "gpt-4o-2024")));
        let b = [kv(key::OI_MODEL, "claude"), kv(key::OI_PROVIDER, "anthropic")];
        assert_eq!(model(&b), Some(("anthropic", "claude")));
        assert_eq!(model(&[kv(key::REQUEST_MODEL, "m")]), Some(("unknown", "m")));
        assert_eq!(agent_id(&[kv(key::AGENT_NAME, "n"), kv(key::AGENT_ID, "i")]), Some("i".into()));
        assert_eq!(agent_id(&[kv(key::OI_NODE_ID, "g")]), Some("g".into()));
    }
}
