//! How knowledge-graph statements are kept in FalkorDB (docs/FORMATS.md, "Knowledge-graph statements"): the graph delta of an
//! update (statement, resource and update nodes, their PROV edges) and the Cypher that reads
//! statements back. Properties are named here once; values always travel as parameters.

use serde_json::Value;

use super::model::{KgObject, KgPredicate, KgStatement, KgSubject, TripleFilter};
use crate::model::{Edge, EdgeKind, GraphDelta, Label, Node, NodeRef, PropValue, ProvRelation, RelType};

pub const SUBJECT: &str = "kg:subject";
pub const SUBJECT_TYPE: &str = "kg:subjectType";
pub const PREDICATE: &str = "kg:predicate";
pub const OBJECT_ID: &str = "kg:objectId";
pub const OBJECT_VALUE: &str = "kg:objectValue";
pub const OBJECT_TYPE: &str = "kg:objectType";
pub const GRAPH: &str = "kg:graph";
pub const CERTAINTY: &str = "kg:certainty";
pub const PROVENANCE: &str = "kg:provenance";
/// True while no update has removed or replaced the statement.
pub const CURRENT: &str = "kg:current";
pub const OP: &str = "kg:op";
/// When the update that last generated the statement was committed, in milliseconds since
/// the epoch (what `maxAgeSeconds` compares).
pub const GENERATED_MS: &str = "kg:generatedAtMs";

/// The properties a statement's node returns, in this order (see [`from_row`]).
pub const RETURN_STATEMENT: &str = "s.name, s.`kg:subject`, s.`kg:subjectType`, s.`kg:predicate`, \
     s.`kg:objectId`, s.`kg:objectValue`, s.`kg:objectType`, s.`kg:graph`, s.`kg:certainty`, s.`kg:provenance`";

/// The most statements one `triples` answers.
pub const MAX_TRIPLES: i64 = 10_000;

/// A statement read back from a row of [`RETURN_STATEMENT`] (as JSON values): its id and it.
pub fn from_row(row: &[Value]) -> Option<(String, KgStatement)> {
    let s = |i: usize| row.get(i).and_then(Value::as_str).map(str::to_owned);
    let provenance = s(9).and_then(|t| serde_json::from_str(&t).ok());
    Some((
        s(0)?,
        KgStatement {
            subject: KgSubject { id: s(1)?, ty: s(2) },
            predicate: KgPredicate { id: s(3)? },
            object: KgObject { id: s(4), value: row.get(5).filter(|v| !v.is_null()).cloned(), ty: s(6) },
            graph: s(7),
            certainty: row.get(8).and_then(Value::as_f64),
            provenance,
        },
    ))
}

/// The read of current statements matching `filter` (parameters: those of [`filter_params`]).
pub fn triples_query(filter: &TripleFilter) -> String {
    let mut q = String::from("MATCH (s:KGStatement) WHERE s.`kg:current` = true");
    for (on, clause) in [
        (filter.subject.is_some(), " AND s.`kg:subject` = $subject"),
        (filter.predicate.is_some(), " AND s.`kg:predicate` = $predicate"),
        (filter.object.is_some(), " AND s.`kg:objectId` = $object"),
        (filter.graph.is_some(), " AND s.`kg:graph` = $graph"),
        (filter.min_certainty.is_some(), " AND s.`kg:certainty` >= $minCertainty"),
        (filter.since_ms.is_some(), " AND s.`kg:generatedAtMs` >= $sinceMs"),
    ] {
        if on {
            q.push_str(clause);
        }
    }
    q.push_str(" RETURN ");
    q.push_str(RETURN_STATEMENT);
    q.push_str(" ORDER BY s.`kg:subject`, s.`kg:predicate`, s.name LIMIT $limit");
    q
}

fn node_ref(label: Label, name: &str) -> NodeRef {
    NodeRef::new(label, name.to_owned())
}

fn prov(rel: ProvRelation) -> EdgeKind {
    EdgeKind::Prov(rel)
}

/// The statement's node (current), its resources and their edges.
pub fn add_statement(delta: &mut GraphDelta, id: &str, s: &KgStatement, update: &str, at_ms: i64) {
    let object_text = match (&s.object.id, &s.object.value) {
        (Some(id), _) => id.clone(),
        (None, Some(Value::String(v))) => format!("\"{v}\""),
        (None, Some(v)) => v.to_string(),
        _ => String::new(),
    };
    let node = Node::new(Label::KGStatement, id)
        .with(SUBJECT, s.subject.id.as_str())
        .with_opt(SUBJECT_TYPE, s.subject.ty.clone().map(PropValue::from))
        .with(PREDICATE, s.predicate.id.as_str())
        .with_opt(OBJECT_ID, s.object.id.clone().map(PropValue::from))
        .with_opt(OBJECT_VALUE, s.object.value.as_ref().and_then(PropValue::from_json))
        .with_opt(OBJECT_TYPE, s.object.ty.clone().map(PropValue::from))
        .with_opt(GRAPH, s.graph.clone().map(PropValue::from))
        .with_opt(CERTAINTY, s.certainty.map(PropValue::from))
        .with_opt(PROVENANCE, s.provenance.as_ref().map(|p| PropValue::from(p.to_string())))
        .with(CURRENT, true)
        .with(GENERATED_MS, at_ms)
        .with("text", format!("{} {} {}", s.subject.id, s.predicate.id, object_text));
    delta.add_node(node);
    let me = node_ref(Label::KGStatement, id);
    let mut subject = Node::new(Label::KGResource, s.subject.id.as_str()).with("text", s.subject.id.as_str());
    if let Some(t) = &s.subject.ty {
        subject = subject.with("kg:type", t.as_str());
    }
    delta.add_node(subject);
    delta.add_edge(Edge::new(
        RelType::HasSubject,
        EdgeKind::Plain,
        me.clone(),
        node_ref(Label::KGResource, &s.subject.id),
    ));
    if let Some(o) = &s.object.id {
        let mut object = Node::new(Label::KGResource, o.as_str()).with("text", o.as_str());
        if let Some(t) = &s.object.ty {
            object = object.with("kg:type", t.as_str());
        }
        delta.add_node(object);
        delta.add_edge(Edge::new(
            RelType::HasObject,
            EdgeKind::Plain,
            me.clone(),
            node_ref(Label::KGResource, o),
        ));
    }
    delta.add_edge(Edge::new(
        RelType::WasGeneratedBy,
        prov(ProvRelation::WasGeneratedBy),
        me,
        node_ref(Label::KnowledgeUpdate, update),
    ));
}

/// A statement no longer current: kept, and `WAS_INVALIDATED_BY` the update.
pub fn invalidate(delta: &mut GraphDelta, id: &str, update: &str) {
    delta.add_node(Node::new(Label::KGStatement, id).with(CURRENT, false));
    delta.add_edge(Edge::new(
        RelType::WasInvalidatedBy,
        prov(ProvRelation::WasInvalidatedBy),
        node_ref(Label::KGStatement, id),
        node_ref(Label::KnowledgeUpdate, update),
    ));
}
