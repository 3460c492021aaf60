//! The Cypher of the Traces tab's reads (docs/FORMATS.md "OpenTelemetry traces"), each of
//! which starts from an index rather than a scan: the traces and a trace's spans through the
//! `otel:trace_id` index of every span label, one span through every span label's `name`
//! index, a message or an agent through its label's. Labels cannot be query parameters, so
//! a read over spans is a union over the span labels (`conventions::TRACE_LABELS`, from the
//! vocabulary, never from input); a pattern naming no label would scan every node. Kept in
//! one place so a test can ask FalkorDB for the plan of each (`GRAPH.EXPLAIN`, [`all`]).

use super::conventions::TRACE_LABELS;
use crate::model::Label;

/// Property keys for tokens in and out, newest spelling first (GenAI, older GenAI, OpenInference).
pub const TOKENS_IN: &[&str] =
    &["otel:gen_ai.usage.input_tokens", "otel:gen_ai.usage.prompt_tokens", "otel:llm.token_count.prompt"];
pub const TOKENS_OUT: &[&str] = &[
    "otel:gen_ai.usage.output_tokens",
    "otel:gen_ai.usage.completion_tokens",
    "otel:llm.token_count.completion",
];

/// The columns a span row is read from (see `views::raw_span`).
pub(crate) const SPAN_COLUMNS: &str = "s.name, labels(s)[0], s.`otel:span_id`, s.`otel:parent_span_id`, s.`otel:name`, \
     s.`otel:start_ns`, s.`otel:end_ns`, s.`otel:status`, s.`otel:trace_id`, s.`prov:startTime`, s.`prov:endTime`";

/// `CALL { MATCH (s:L) WHERE <filter> RETURN s UNION ALL … }` over every span label.
fn spans_where(filter: &str) -> String {
    let parts: Vec<String> =
        TRACE_LABELS.iter().map(|l| format!("MATCH (s:`{l}`) WHERE {filter} RETURN s")).collect();
    format!("CALL {{ {} }}", parts.join(" UNION ALL "))
}

/// Every span that belongs to a trace, through a range scan of the `otel:trace_id` indexes
/// (a placeholder, with no trace id yet, is in none).
fn all_spans() -> String {
    spans_where("s.`otel:trace_id` >= ''")
}

/// The spans of the traces `$ids`.
fn spans_of_traces() -> String {
    spans_where("s.`otel:trace_id` IN $ids")
}

/// The spans of the trace `$t`.
fn spans_of_trace() -> String {
    super::conventions::trace_nodes("t")
}

/// The span `$id`, through the `name` index of each span label.
fn span_named() -> String {
    let parts: Vec<String> =
        TRACE_LABELS.iter().map(|l| format!("MATCH (s:`{l}` {{name: $id}}) RETURN s")).collect();
    format!("CALL {{ {} }}", parts.join(" UNION ALL "))
}

fn tokens(keys: &[&str]) -> String {
    let alts: Vec<String> = keys.iter().map(|k| format!("s.`{k}`")).collect();
    format!("sum(toInteger(coalesce({}, 0)))", alts.join(", "))
}

/// A page of traces (`$offset`, `$limit`), newest first: id, spans, first start, last end,
/// errors, tokens in and out, and the roots' names.
pub fn trace_page() -> String {
    format!(
        "{} WITH s WHERE s.`otel:span_id` IS NOT NULL \
         WITH s.`otel:trace_id` AS t, count(s) AS n, min(s.`prov:startTime`) AS st, max(s.`prov:endTime`) AS en, \
              sum(CASE WHEN s.`otel:status` = 'error' OR s.`otel:exception.type` IS NOT NULL THEN 1 ELSE 0 END) AS err, {} AS tin, {} AS tout, \
              collect(CASE WHEN s.`otel:parent_span_id` IS NULL OR s.`otel:parent_span_id` = '' THEN [s.name, s.`otel:name`] END) AS roots \
         RETURN t, n, st, en, err, tin, tout, roots ORDER BY st DESC, t SKIP $offset LIMIT $limit",
        all_spans(),
        tokens(TOKENS_IN),
        tokens(TOKENS_OUT)
    )
}

/// How many traces the graph holds.
pub fn trace_count() -> String {
    format!(
        "{} WITH s WHERE s.`otel:span_id` IS NOT NULL RETURN count(DISTINCT s.`otel:trace_id`)",
        all_spans()
    )
}

/// The services and agents of the traces `$ids`.
pub fn trace_actors() -> String {
    format!(
        "{} WITH s MATCH (s)-[:WAS_ASSOCIATED_WITH]-(a) \
         WHERE (a.name STARTS WITH 'service:' OR a.name STARTS WITH 'agent:') \
         RETURN DISTINCT s.`otel:trace_id`, a.name",
        spans_of_traces()
    )
}

/// The trace `$t`'s spans (at most `$limit`) in start order.
pub fn trace_spans() -> String {
    format!(
        "{} WITH s WHERE s.`otel:span_id` IS NOT NULL RETURN {SPAN_COLUMNS} \
         ORDER BY coalesce(s.`prov:startTime`, 0), s.name LIMIT $limit",
        spans_of_trace()
    )
}

/// How many spans the trace `$t` has.
pub fn trace_span_count() -> String {
    format!("{} WITH s WHERE s.`otel:span_id` IS NOT NULL RETURN count(s)", spans_of_trace())
}

/// The services, agents and models of the trace `$t`'s spans.
pub fn trace_span_actors() -> String {
    format!(
        "{} WITH s MATCH (s)-[:WAS_ASSOCIATED_WITH]-(a) \
         WHERE (a.name STARTS WITH 'service:' OR a.name STARTS WITH 'agent:' OR a.name STARTS WITH 'model:') \
         RETURN s.name, a.name",
        spans_of_trace()
    )
}

/// The span links of the trace `$t`'s spans.
pub fn trace_links() -> String {
    format!(
        "{} WITH s MATCH (s)-[e:WAS_INFORMED_BY]->(o) WHERE e.`otel:relation` = 'OTEL_LINK' \
         RETURN s.name, o.name, o.`otel:trace_id`",
        spans_of_trace()
    )
}

/// Messages one call of the trace `$t` produced and another consumed: producer, consumer,
/// message.
pub fn trace_flows() -> String {
    format!(
        "{} WITH s AS c MATCH (c)-[:WAS_CONSUMED_BY]->(m:Message)-[:WAS_GENERATED_BY]->(p) \
         WHERE p.`otel:trace_id` = $t RETURN DISTINCT p.name, c.name, m.name LIMIT 10000",
        spans_of_trace()
    )
}

/// Which of the agents `$agents` acted on behalf of which: principal, agent.
pub fn on_behalf() -> String {
    "MATCH (a:Agent)-[:ACTED_ON_BEHALF_OF]->(p:Agent) WHERE a.name IN $agents AND p.name IN $agents \
     RETURN DISTINCT p.name, a.name LIMIT 10000"
        .to_owned()
}

/// The span `$id`: its columns, then the node.
pub fn span() -> String {
    format!("{} WITH s RETURN {SPAN_COLUMNS}, s", span_named())
}

/// The messages the span `$id` consumed (at most `$n`): direction, first ordinal, every
/// ordinal, the message, the call that produced it.
pub fn span_inputs() -> String {
    format!(
        "{} WITH s MATCH (s)-[e:WAS_CONSUMED_BY]->(m) OPTIONAL MATCH (m)-[:WAS_GENERATED_BY]->(p) WHERE p.name <> $id \
         RETURN 'input' AS d, e.`otel:index` AS i, e.`otel:indexes` AS all, m AS m, collect(p.name)[0] AS p LIMIT $n",
        span_named()
    )
}

/// The messages the span `$id` produced (at most `$n`), in the columns of [`span_inputs`].
pub fn span_outputs() -> String {
    format!(
        "{} WITH s MATCH (m:Message)-[e:WAS_GENERATED_BY]->(s) \
         RETURN 'output' AS d, e.`otel:index` AS i, e.`otel:indexes` AS all, m AS m, null AS p LIMIT $n",
        span_named()
    )
}

/// The span `$id`'s tool arguments.
pub fn span_tool_args() -> String {
    format!("{} WITH s MATCH (s)-[:WAS_USED_BY]->(a:ToolArgs) RETURN a", span_named())
}

/// The span `$id`'s tool result.
pub fn span_tool_result() -> String {
    format!("{} WITH s MATCH (r:ToolResult)-[:WAS_GENERATED_BY]->(s) RETURN r", span_named())
}

/// The spans linking to the span `$id`.
pub fn span_linked_from() -> String {
    format!(
        "{} WITH s MATCH (o)-[e:WAS_INFORMED_BY]->(s) WHERE e.`otel:relation` = 'OTEL_LINK' RETURN o.name LIMIT 1000",
        span_named()
    )
}

/// `MATCH (m:L {name: $id})` through `label`'s `name` index, or, for a node whose label is
/// not known, a union over every label's.
fn node_named(label: Option<Label>) -> String {
    match label {
        Some(l) => format!("MATCH (m:`{l}` {{name: $id}})"),
        None => {
            let parts: Vec<String> =
                Label::ALL.iter().map(|l| format!("MATCH (m:`{l}` {{name: $id}}) RETURN m")).collect();
            format!("CALL {{ {} }} WITH m", parts.join(" UNION ALL "))
        }
    }
}

/// The node `$id`'s label.
pub fn node_label() -> String {
    format!("{} RETURN labels(m)[0] LIMIT 1", node_named(None))
}

/// The next step back from the node `$id` (of `label`): what generated it or what it derives from.
pub fn origin_step(label: Option<Label>) -> String {
    format!(
        "{} MATCH (m)-[e]->(x) WHERE type(e) IN ['WAS_GENERATED_BY', 'WAS_DERIVED_FROM'] \
         RETURN type(e), x.name, labels(x)[0], x.`otel:span_id` IS NOT NULL ORDER BY type(e) DESC LIMIT 10",
        node_named(label)
    )
}

/// The first span that consumed the node `$id` (of `label`).
pub fn first_use(label: Option<Label>) -> String {
    format!(
        "{} MATCH (c)-[:WAS_CONSUMED_BY]->(m) WHERE c.`otel:span_id` IS NOT NULL \
         RETURN c.name ORDER BY coalesce(c.`prov:startTime`, 0) LIMIT 1",
        node_named(label)
    )
}

/// Every read above by name, for checking their plans; the parameters they take are `$t`,
/// `$ids`, `$id`, `$agents`, `$offset`, `$limit` and `$n`.
pub fn all() -> Vec<(&'static str, String)> {
    vec![
        ("trace_page", trace_page()),
        ("trace_count", trace_count()),
        ("trace_actors", trace_actors()),
        ("trace_spans", trace_spans()),
        ("trace_span_count", trace_span_count()),
        ("trace_span_actors", trace_span_actors()),
        ("trace_links", trace_links()),
        ("trace_flows", trace_flows()),
        ("on_behalf", on_behalf()),
        ("span", span()),
        ("span_inputs", span_inputs()),
        ("span_outputs", span_outputs()),
        ("span_tool_args", span_tool_args()),
        ("span_tool_result", span_tool_result()),
        ("span_linked_from", span_linked_from()),
        ("node_label", node_label()),
        ("origin_step", origin_step(Some(Label::Message))),
        ("origin_step_any", origin_step(None)),
        ("first_use", first_use(Some(Label::Message))),
    ]
}
