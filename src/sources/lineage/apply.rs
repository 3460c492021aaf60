//! A checked lineage record as graph upserts (docs/FORMATS.md "Prompt lineage"): a prompt is a `Prompt` node
//! `prompt:<id>`, a decision a `LineageDecision` node `decision:<event_id>` that the prompt
//! `WAS_GENERATED_BY`, an evolution an edge from the child to its parent typed by its
//! evolution (`WAS_REFINED_FROM`, …) whose PROV relation is `WAS_DERIVED_FROM`. A
//! `LineageInput` gets the agent's work done first: id, lineage, version, position, edge and
//! confidence.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde_json::Value;
use uuid::Uuid;

use super::book::{Book, Evolution, Known};
use super::confidence::{self, Breakdown};
use super::ids::{prompt_id, NAMESPACE};
use super::records::{
    invalid, relationship, DecisionRecord, EvolutionType, InputRecord, LineageRecord, OutputRecord,
    PromptRecord, RecordError, Version,
};
use crate::model::{Edge, EdgeKind, GraphDelta, Label, Node, NodeRef, ProvRelation, RelType};

/// The semantic part of a confidence, as an embeddings endpoint gave it.
#[derive(Debug, Clone, PartialEq)]
pub enum Semantic {
    /// No endpoint is configured: the renormalised formula.
    Unconfigured,
    Value(f64),
    /// The endpoint failed: the prompt-lineage format's `CONFIDENCE_COMPUTATION_ERROR` recovery (the
    /// renormalised formula), with the reason.
    Failed(String),
}

/// What applying a record did.
#[derive(Debug)]
pub enum Applied {
    /// The record's upserts, and the prompt it added (if any).
    Done(GraphDelta, Option<Uuid>),
    /// A parent is not known yet: try again when it is (or reject at the end of the file).
    Waiting(Uuid),
}

/// `prompt:<id>`.
pub fn prompt_name(id: &Uuid) -> String {
    format!("prompt:{id}")
}

/// The confidence of a child from its parent's text, with its note.
pub fn breakdown(parent: &str, child: &str, semantic: Semantic) -> (Breakdown, Option<String>) {
    let (j, e) = (confidence::jaccard(parent, child), confidence::edit_ratio(parent, child));
    let (s, note) = match semantic {
        Semantic::Value(v) => (Some(v), None),
        Semantic::Unconfigured => {
            (None, Some("semantic similarity unavailable (no embeddings endpoint): Jaccard and edit ratio renormalised".to_owned()))
        }
        Semantic::Failed(why) => (
            None,
            Some(format!(
                "CONFIDENCE_COMPUTATION_ERROR: the embeddings endpoint failed ({why}); default confidence from Jaccard and edit ratio renormalised"
            )),
        ),
    };
    (Breakdown { jaccard: j, edit_ratio: e, semantic: s, confidence: confidence::confidence(j, e, s) }, note)
}

/// Extra parents a merge names in its edge's `properties` (`merged_from`, `merge_parents`:
/// UUIDs separated by commas or spaces).
pub fn merge_parents(props: &std::collections::BTreeMap<String, String>) -> Result<Vec<Uuid>, RecordError> {
    let mut out = Vec::new();
    for key in ["merged_from", "merge_parents"] {
        if let Some(list) = props.get(key) {
            for part in list.split([',', ' ']).filter(|s| !s.is_empty()) {
                out.push(
                    Uuid::parse_str(part)
                        .map_err(|_| invalid(format!("properties.{key}: {part:?} is not a UUID")))?,
                );
            }
        }
    }
    Ok(out)
}

fn text_of(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// Applies one record to the book and returns its upserts.
pub fn apply(
    book: &mut Book,
    record: &LineageRecord,
    semantic: &mut dyn FnMut(&str, &str) -> Semantic,
) -> Result<Applied, RecordError> {
    match record {
        LineageRecord::Output(r) => apply_output(book, r),
        LineageRecord::Decision(r) => Ok(Applied::Done(decision(r), None)),
        LineageRecord::Input(r) => apply_input(book, r, semantic),
    }
}

/// Checks every evolution first (nothing is recorded unless all pass), then records them.
fn check_all(
    book: &Book,
    evolutions: &[Evolution],
    time: DateTime<Utc>,
) -> Result<Option<Uuid>, RecordError> {
    for e in evolutions {
        if !book.check_evolution(*e, time)? {
            return Ok(Some(e.parent));
        }
    }
    Ok(None)
}

fn apply_output(book: &mut Book, r: &OutputRecord) -> Result<Applied, RecordError> {
    let n = &r.lineage_node;
    let mut evolutions = Vec::new();
    let mut edge_props = None;
    if let Some(e) = &r.evolution_edge {
        let kind = EvolutionType::parse(&e.evolution)?;
        if n.is_root {
            return Err(relationship(format!(
                "prompt {} is a root (is_root) but has an evolution edge",
                n.id
            )));
        }
        evolutions.push(Evolution { child: n.id, parent: e.from, kind, primary: true });
        for p in merge_parents(&e.properties)? {
            if p != e.from {
                evolutions.push(Evolution { child: n.id, parent: p, kind, primary: false });
            }
        }
        edge_props = Some(e);
    } else if !n.is_root && book.get(&n.id).is_none() {
        return Err(invalid(format!(
            "prompt {} is not a root (is_root false) and has no evolution_edge",
            n.id
        )));
    }
    let known = Known {
        lineage: n.lineage_id,
        timestamp: n.timestamp,
        version: n.lineage_version,
        position: n.chain_position,
        content: Arc::from(n.content.as_str()),
        children: 0,
        root: n.is_root,
    };
    book.check_prompt(n.id, &known)?;
    if let Some(missing) = check_all(book, &evolutions, n.timestamp)? {
        return Ok(Applied::Waiting(missing));
    }
    book.add_prompt(n.id, known);
    let mut delta = GraphDelta::new();
    for ev in &evolutions {
        book.add_evolution(*ev)?;
    }
    delta.add_node(
        prompt_node(n, book.is_head(&n.id))
            .with("confidence", r.confidence)
            .with("chain_depth", u64::from(r.chain_depth))
            .with("warnings", serde_json::to_string(&r.warnings).unwrap_or_default()),
    );
    if let Some(e) = edge_props {
        for ev in &evolutions {
            let mut edge = evolution_edge(ev, r.confidence, e.similarity_score)
                .with("lineage:edge_id", e.id.to_string())
                .with("lineage:edge_type", e.edge_type.as_str())
                .with("created_at", e.created_at.to_rfc3339());
            if let Some(reason) = &e.evolution_reason {
                edge = edge
                    .with("lineage:reason_category", reason.category.as_str())
                    .with("lineage:reason", reason.description.as_str())
                    .with("lineage:trigger_source", reason.trigger_source.as_str());
                if let Some(d) = &reason.performance_delta {
                    edge = edge.with("lineage:performance_delta", text_of(d));
                }
            }
            if let Some(d) = &e.diff_summary {
                edge = edge.with("lineage:diff_summary", text_of(d));
            }
            if !e.properties.is_empty() {
                edge =
                    edge.with("lineage:properties", serde_json::to_string(&e.properties).unwrap_or_default());
            }
            delta.add_edge(edge);
            parent_not_head(&mut delta, &ev.parent);
        }
    }
    Ok(Applied::Done(delta, Some(n.id)))
}

fn apply_input(
    book: &mut Book,
    r: &InputRecord,
    semantic: &mut dyn FnMut(&str, &str) -> Semantic,
) -> Result<Applied, RecordError> {
    let time = r.timestamp.ok_or_else(|| invalid("a LineageInput needs its timestamp"))?;
    let id = prompt_id(&r.session_id.to_string(), &r.timestamp_text, &r.prompt_content);
    let kind = r.evolution.as_deref().map(EvolutionType::parse).transpose()?;
    let parents = input_parents(r)?;
    let first = parents.first().copied();
    let (lineage, version, position, root) = match first {
        None => {
            let lineage =
                r.lineage_id.unwrap_or_else(|| Uuid::new_v5(&NAMESPACE, format!("lineage|{id}").as_bytes()));
            (lineage, Version::ROOT, 1, true)
        }
        Some(p) => match book.get(&p) {
            None => return Ok(Applied::Waiting(p)),
            Some(k) => {
                let kind = kind.unwrap_or(EvolutionType::Merges);
                (r.lineage_id.unwrap_or(k.lineage), k.version.next(kind), k.position + 1, false)
            }
        },
    };
    let evolutions: Vec<Evolution> = parents
        .iter()
        .enumerate()
        .map(|(i, p)| Evolution {
            child: id,
            parent: *p,
            kind: kind.unwrap_or(EvolutionType::Merges),
            primary: i == 0,
        })
        .collect();
    let known = Known {
        lineage,
        timestamp: time,
        version,
        position,
        content: Arc::from(r.prompt_content.as_str()),
        children: 0,
        root,
    };
    book.check_prompt(id, &known)?;
    if let Some(missing) = check_all(book, &evolutions, time)? {
        return Ok(Applied::Waiting(missing));
    }
    // The confidence from each parent's text, before the book changes.
    let scored: Vec<(Evolution, Breakdown, Option<String>)> = evolutions
        .iter()
        .map(|ev| {
            let parent = book.get(&ev.parent).map(|k| k.content.clone()).unwrap_or_else(|| Arc::from(""));
            let s = semantic(&parent, &r.prompt_content);
            let (b, note) = breakdown(&parent, &r.prompt_content, s);
            (*ev, b, note)
        })
        .collect();
    book.add_prompt(id, known);
    for ev in &evolutions {
        book.add_evolution(*ev)?;
    }
    let record = PromptRecord {
        id,
        session_id: r.session_id,
        timestamp: time,
        template_id: r.template_id,
        content: r.prompt_content.clone(),
        variables: r.variables.clone(),
        metadata: r.metadata.clone(),
        lineage_id: lineage,
        lineage_version: version,
        chain_position: position,
        is_root: root,
        is_head: true,
        branch: None,
        creating_agent: r.creating_agent_id,
        performance_metrics: None,
        lineage_tracked_at: time,
    };
    let mut delta = GraphDelta::new();
    let mut node = prompt_node(&record, book.is_head(&id)).with("tracked_by", "provex");
    if let Some((_, b, _)) = scored.first() {
        node = node.with("confidence", b.confidence);
    }
    if !r.tags.is_empty() {
        node = node.with("tags", serde_json::to_string(&r.tags).unwrap_or_default());
    }
    delta.add_node(node);
    for (ev, b, note) in &scored {
        delta.add_edge(input_edge(r, time, ev, b, note.as_deref()));
        parent_not_head(&mut delta, &ev.parent);
    }
    Ok(Applied::Done(delta, Some(id)))
}

/// A `LineageInput`'s parents: the one it names, then those its `merged_from` adds.
fn input_parents(r: &InputRecord) -> Result<Vec<Uuid>, RecordError> {
    let mut parents: Vec<Uuid> = r.parent_prompt_id.into_iter().collect();
    if let Some(extra) = r.metadata.custom.get("merged_from") {
        let map = std::iter::once(("merged_from".to_owned(), extra.clone())).collect();
        for p in merge_parents(&map)? {
            if !parents.contains(&p) {
                parents.push(p);
            }
        }
    }
    Ok(parents)
}

/// The edge of one evolution of a `LineageInput`, with its confidence breakdown and reason.
fn input_edge(
    r: &InputRecord,
    time: DateTime<Utc>,
    ev: &Evolution,
    b: &Breakdown,
    note: Option<&str>,
) -> Edge {
    let edge_id = Uuid::new_v5(&NAMESPACE, format!("edge|{}|{}", ev.child, ev.parent).as_bytes());
    let mut edge = evolution_edge(ev, b.confidence, b.semantic.unwrap_or(b.confidence))
        .with("lineage:edge_id", edge_id.to_string())
        .with("lineage:edge_type", edge_type(ev.kind))
        .with("lineage:jaccard", b.jaccard)
        .with("lineage:edit_ratio", b.edit_ratio)
        .with("created_at", time.to_rfc3339());
    if let Some(s) = b.semantic {
        edge = edge.with("lineage:semantic", s);
    }
    if let Some(n) = note {
        edge = edge.with("lineage:confidence_note", n);
    }
    if let Some(reason) = &r.evolution_reason {
        edge = edge
            .with("lineage:reason_category", reason.category.as_str())
            .with("lineage:reason", reason.description.as_str())
            .with("lineage:trigger_source", reason.trigger_source.as_str());
    }
    edge
}

/// The agent's `LineageEdgeType` of an evolution.
pub fn edge_type(t: EvolutionType) -> &'static str {
    match t {
        EvolutionType::Evolves | EvolutionType::Reverts => "evolves",
        EvolutionType::Refines => "refines",
        EvolutionType::Derives | EvolutionType::Forks | EvolutionType::Merges => "derives",
    }
}

/// The relationship type of an evolution.
pub fn rel_type(t: EvolutionType) -> RelType {
    match t {
        EvolutionType::Evolves => RelType::WasEvolvedFrom,
        EvolutionType::Refines => RelType::WasRefinedFrom,
        EvolutionType::Derives => RelType::WasDerivedFrom,
        EvolutionType::Merges => RelType::WasMergedFrom,
        EvolutionType::Forks => RelType::WasForkedFrom,
        EvolutionType::Reverts => RelType::WasRevertedFrom,
    }
}

fn evolution_edge(ev: &Evolution, confidence: f64, similarity: f64) -> Edge {
    Edge::new(
        rel_type(ev.kind),
        EdgeKind::Prov(ProvRelation::WasDerivedFrom),
        NodeRef::new(Label::Prompt, prompt_name(&ev.child)),
        NodeRef::new(Label::Prompt, prompt_name(&ev.parent)),
    )
    .with("lineage:evolution_type", ev.kind.as_str())
    .with("lineage:primary", ev.primary)
    .with("lineage:confidence", confidence)
    .with("lineage:similarity_score", similarity)
}

/// A parent with a child is no longer a head.
fn parent_not_head(delta: &mut GraphDelta, parent: &Uuid) {
    let at = delta.upsert_node(Label::Prompt, &prompt_name(parent));
    delta.node_props(at).insert("is_head".into(), false.into());
}

fn prompt_node(n: &PromptRecord, head: bool) -> Node {
    let m = &n.metadata;
    let mut node = Node::new(Label::Prompt, prompt_name(&n.id))
        .with("id", n.id.to_string())
        .with("content", n.content.as_str())
        .with("session_id", n.session_id.to_string())
        .with("timestamp", n.timestamp.to_rfc3339())
        .with("lineage_id", n.lineage_id.to_string())
        .with("version", n.lineage_version.to_string())
        .with("chain_position", u64::from(n.chain_position))
        .with("is_root", n.is_root)
        .with("is_head", head)
        .with("lineage_tracked_at", n.lineage_tracked_at.to_rfc3339())
        .with("temperature", m.temperature);
    if !m.model.is_empty() {
        node = node.with("model", m.model.as_str());
    }
    if let Some(t) = m.max_tokens {
        node = node.with("max_tokens", t);
    }
    if !m.tools_available.is_empty() {
        node = node.with("tools_available", serde_json::to_string(&m.tools_available).unwrap_or_default());
    }
    if !m.custom.is_empty() {
        node = node.with("custom", serde_json::to_string(&m.custom).unwrap_or_default());
    }
    if !n.variables.is_empty() {
        node = node.with("variables", serde_json::to_string(&n.variables).unwrap_or_default());
    }
    if let Some(t) = n.template_id {
        node = node.with("template_id", t.to_string());
    }
    if let Some(b) = &n.branch {
        node = node.with("branch", b.as_str());
    }
    if let Some(a) = n.creating_agent {
        node = node.with("creating_agent", a.to_string());
    }
    if let Some(p) = &n.performance_metrics {
        node = node.with("performance_metrics", text_of(p));
    }
    node
}

fn decision(r: &DecisionRecord) -> GraphDelta {
    let mut delta = GraphDelta::new();
    let name = format!("decision:{}", r.event_id);
    let o = &r.outputs;
    let x = &r.execution_ref;
    let mut node = Node::new(Label::LineageDecision, name.clone())
        .with("event_id", r.event_id.to_string())
        .with("agent_id", r.agent_id.as_str())
        .with("agent_version", r.agent_version.as_str())
        .with("decision_type", r.decision_type.as_str())
        .with("inputs_hash", r.inputs_hash.as_str())
        .with("confidence", r.confidence)
        .with("constraints_applied", serde_json::to_string(&r.constraints_applied).unwrap_or_default())
        .with("node_id", o.node_id.to_string())
        .with("lineage_id", o.lineage_id.to_string())
        .with("chain_position", u64::from(o.chain_position))
        .with("chain_depth", u64::from(o.chain_depth))
        .with("trace_id", x.trace_id.as_str())
        .with("span_id", x.span_id.as_str())
        .with("timestamp", r.timestamp.to_rfc3339());
    if let Some(e) = o.edge_id {
        node = node.with("edge_id", e.to_string());
    }
    if let Some(s) = &x.session_id {
        node = node.with("session_id", s.as_str());
    }
    if let Some(s) = &x.request_id {
        node = node.with("request_id", s.as_str());
    }
    if !r.metadata.is_empty() {
        node = node.with("metadata", serde_json::to_string(&r.metadata).unwrap_or_default());
    }
    delta.add_node(node);
    // The prompt it produced (a placeholder until its own record arrives).
    let prompt = prompt_name(&o.node_id);
    delta.upsert_node(Label::Prompt, &prompt);
    delta.add_edge(Edge::new(
        RelType::WasGeneratedBy,
        EdgeKind::Prov(ProvRelation::WasGeneratedBy),
        NodeRef::new(Label::Prompt, prompt),
        NodeRef::new(Label::LineageDecision, name),
    ));
    delta
}
