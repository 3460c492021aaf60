//! TrustGraph's provenance-node shapes (TrustGraph's design note): provenance nodes `{"id", "session_id",
//! "timestamp", "type", "derived_from": [...], ...}` of type `retrieval`, `tool_invocation`,
//! `reasoning` or `answer`, and provenance events `{"provenance_refs": [...]}`. A node is an
//! `Explain` node labelled by its type (`Retrieval`, `ToolInvocation`, `Reasoning`,
//! `Answer`); `derived_from` and `source_refs` are edges to the nodes they name (placeholders
//! until those arrive); a retrieval's facts are `Fact` nodes it `RETRIEVED`.

use serde_json::Value;

use crate::model::vocab::{EdgeKind, ProvRelation, RelType, TgType, EXTRA_LABELS, PROV_BASE_TYPE, PROV_TYPE};
use crate::model::{Edge, GraphDelta, Label, NodeRef, PropValue};

/// Whether a JSON object is one of the design note's provenance nodes.
pub fn looks_like(obj: &serde_json::Map<String, Value>) -> bool {
    obj.contains_key("id")
        && obj.get("type").and_then(Value::as_str).is_some()
        && (obj.contains_key("derived_from") || obj.contains_key("session_id"))
}

fn strings(v: Option<&Value>, what: &str) -> Result<Vec<String>, String> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .ok_or_else(|| format!("{what} holds something that is not an IRI"))
            })
            .collect(),
        Some(_) => Err(format!("{what} is not a list")),
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn link(delta: &mut GraphDelta, from: &str, to: &str, rel: RelType, kind: EdgeKind) {
    delta.upsert_node(Label::Explain, to);
    delta.add_edge(Edge::new(
        rel,
        kind,
        NodeRef::new(Label::Explain, from),
        NodeRef::new(Label::Explain, to),
    ));
}

/// Adds one provenance node.
pub fn add_node(v: &Value, delta: &mut GraphDelta) -> Result<String, String> {
    let id = v
        .get("id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or("a provenance node needs its id")?;
    let kind = v.get("type").and_then(Value::as_str).ok_or("a provenance node needs its type")?;
    let (label, base) = match kind {
        "retrieval" => (TgType::Retrieval, "ProvActivity"),
        "tool_invocation" => (TgType::ToolInvocation, "ProvActivity"),
        "reasoning" => (TgType::Reasoning, "ProvActivity"),
        "answer" => (TgType::Answer, "ProvEntity"),
        other => {
            return Err(format!(
                "unknown provenance node type {other:?} (retrieval, tool_invocation, reasoning, answer)"
            ))
        }
    };
    let derived = strings(v.get("derived_from"), "derived_from")?;
    let sources = strings(v.get("source_refs"), "source_refs")?;
    let at = delta.upsert_node(Label::Explain, id);
    let props = delta.node_props(at);
    props.insert(EXTRA_LABELS.into(), PropValue::List(vec![PropValue::Str(label.as_str().into())]));
    props.insert(PROV_BASE_TYPE.into(), base.into());
    props.insert(PROV_TYPE.into(), format!("tg:{label}").into());
    props.insert("tg:types".into(), PropValue::List(vec![PropValue::Str(label.as_str().into())]));
    for (key, prop) in [
        ("session_id", "tg:session"),
        ("timestamp", "prov:startedAtTime"),
        ("tool_name", "tg:toolName"),
        ("input", "tg:input"),
        ("output", "tg:output"),
        ("detail_level", "tg:detailLevel"),
        ("prompt_summary", "tg:promptSummary"),
        ("conclusion", "tg:conclusion"),
        ("content", "tg:content"),
    ] {
        if let Some(x) = v.get(key).filter(|x| !x.is_null()) {
            props.insert(prop.into(), text(x).into());
        }
    }
    for parent in &derived {
        link(delta, id, parent, RelType::WasDerivedFrom, EdgeKind::Prov(ProvRelation::WasDerivedFrom));
    }
    for source in &sources {
        link(delta, id, source, RelType::SourcedFrom, EdgeKind::Prov(ProvRelation::WasDerivedFrom));
    }
    if let Some(facts) = v.get("facts").filter(|f| !f.is_null()) {
        let facts = facts.as_array().ok_or("facts is not a list")?;
        for (i, f) in facts.iter().enumerate() {
            let fid = f
                .get("id")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .ok_or(format!("facts[{i}] needs its id"))?;
            let at = delta.upsert_node(Label::Explain, fid);
            let props = delta.node_props(at);
            props.insert(
                EXTRA_LABELS.into(),
                PropValue::List(vec![PropValue::Str(TgType::Fact.as_str().into())]),
            );
            props.insert(PROV_BASE_TYPE.into(), "ProvEntity".into());
            props.insert(PROV_TYPE.into(), "tg:Fact".into());
            if let Some(s) = v.get("session_id").and_then(Value::as_str) {
                props.insert("tg:session".into(), s.into());
            }
            if let Some(c) = f.get("content").filter(|c| !c.is_null()) {
                props.insert("tg:content".into(), text(c).into());
            }
            delta.add_edge(Edge::new(
                RelType::Retrieved,
                EdgeKind::Prov(ProvRelation::Used),
                NodeRef::new(Label::Explain, id),
                NodeRef::new(Label::Explain, fid),
            ));
        }
    }
    Ok(id.to_owned())
}

/// Adds the nodes a provenance event refers to (placeholders until they arrive).
pub fn add_refs(refs: &[String], delta: &mut GraphDelta) {
    for r in refs {
        delta.upsert_node(Label::Explain, r);
    }
}
