//! Explain triples as graph upserts (docs/FORMATS.md, "TrustGraph query-time provenance"): every subject an `Explain` node named by
//! its IRI, its TrustGraph types further labels, `prov:Entity`/`Activity`/`Agent` its
//! `prov:base_type`; IRI-valued predicates edges typed by a fixed table (the predicate's IRI
//! kept on the edge), literal predicates properties (`tg:<local>`, `rdfs:label`, …, a list
//! when one has several values); a quoted triple kept as text and by its parts.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::wire::{Term, Triple};
use crate::model::vocab::{EdgeKind, ProvRelation, RelType, TgType, EXTRA_LABELS, PROV_BASE_TYPE, PROV_TYPE};
use crate::model::{Edge, GraphDelta, Label, NodeRef, PropValue};

pub const TG: &str = "https://trustgraph.ai/ns/";
pub const PROV: &str = "http://www.w3.org/ns/prov#";
pub const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

/// Prefixes of the namespaces whose literal predicates get a short property name.
const PREFIXES: &[(&str, &str)] = &[
    (TG, "tg"),
    (PROV, "prov"),
    ("http://www.w3.org/2000/01/rdf-schema#", "rdfs"),
    ("http://www.w3.org/1999/02/22-rdf-syntax-ns#", "rdf"),
    ("http://purl.org/dc/elements/1.1/", "dc"),
    ("https://schema.org/", "schema"),
    ("http://www.w3.org/2004/02/skos/core#", "skos"),
];

/// TrustGraph literals that are numbers (written as plain strings by `trustgraph-base`).
const NUMBERS: &[&str] = &[
    "tg:llmDurationMs",
    "tg:toolDurationMs",
    "tg:inToken",
    "tg:outToken",
    "tg:stepNumber",
    "tg:edgeCount",
    "tg:chunkCount",
    "tg:score",
    "tg:pageCount",
    "tg:pageNumber",
    "tg:chunkIndex",
    "tg:charOffset",
    "tg:charLength",
    "tg:chunkSize",
    "tg:chunkOverlap",
];

/// The property name of a literal predicate.
pub fn property(predicate: &str) -> String {
    for (ns, prefix) in PREFIXES {
        if let Some(local) = predicate.strip_prefix(ns) {
            return format!("{prefix}:{local}");
        }
    }
    predicate.to_owned()
}

/// The relationship type and kind of an IRI-valued predicate.
pub fn relation(predicate: &str) -> (RelType, EdgeKind) {
    use RelType::*;
    let prov = |r: RelType, p: ProvRelation| (r, EdgeKind::Prov(p));
    match predicate.strip_prefix(PROV) {
        Some("wasDerivedFrom") => return prov(WasDerivedFrom, ProvRelation::WasDerivedFrom),
        Some("wasGeneratedBy") => return prov(WasGeneratedBy, ProvRelation::WasGeneratedBy),
        Some("used") => return prov(Used, ProvRelation::Used),
        Some("wasAssociatedWith") => return prov(WasAssociatedWith, ProvRelation::WasAssociatedWith),
        Some("wasAttributedTo") => return prov(WasAttributedTo, ProvRelation::WasAttributedTo),
        Some("wasInformedBy") => return prov(WasInformedBy, ProvRelation::WasInformedBy),
        _ => {}
    }
    let plain = match predicate.strip_prefix(TG) {
        Some("thought") => HasThought,
        Some("selectedEdge") => SelectedEdge,
        Some("selectedChunk") => SelectedChunk,
        Some("document") => HasDocument,
        Some("contains") => Contains,
        Some("entity") => Explored,
        _ => RefersTo,
    };
    (plain, EdgeKind::Plain)
}

/// The session a TrustGraph IRI belongs to, by the shapes `trustgraph.provenance.uris`
/// makes: `urn:trustgraph:agent:<s>/…`, `urn:trustgraph:docrag:<s>/…`,
/// `urn:trustgraph:question:<s>`, `urn:trustgraph:prov:<step>:<s>[:<n>]`.
pub fn session_of(iri: &str) -> Option<String> {
    for prefix in ["urn:trustgraph:agent:", "urn:trustgraph:docrag:"] {
        if let Some(rest) = iri.strip_prefix(prefix) {
            let id = rest.split('/').next().filter(|s| !s.is_empty())?;
            return Some(format!("{prefix}{id}"));
        }
    }
    if iri.starts_with("urn:trustgraph:question:") {
        return Some(iri.to_owned());
    }
    let rest = iri.strip_prefix("urn:trustgraph:prov:")?;
    let (step, rest) = rest.split_once(':')?;
    let id = match step {
        "edge" | "chunk" => rest.rsplit_once(':').map_or(rest, |(s, _)| s),
        _ => rest,
    };
    let kind = if step == "chunk" { "docrag" } else { "question" };
    (!id.is_empty()).then(|| format!("urn:trustgraph:{kind}:{id}"))
}

fn node_name(t: &Term, blank_scope: &str) -> Option<String> {
    match t {
        Term::Iri(i) => Some(i.clone()),
        Term::Blank(b) => Some(format!("{blank_scope}#_:{b}")),
        _ => None,
    }
}

fn literal_value(key: &str, value: &str, datatype: Option<&str>) -> PropValue {
    let numeric = NUMBERS.contains(&key)
        || datatype.is_some_and(|d| {
            ["integer", "int", "long", "decimal", "double", "float"].iter().any(|n| d.ends_with(n))
        });
    if numeric {
        if let Ok(i) = value.trim().parse::<i64>() {
            return PropValue::Int(i);
        }
        if let Ok(f) = value.trim().parse::<f64>() {
            if f.is_finite() {
                return PropValue::Float(f);
            }
        }
    }
    PropValue::Str(value.to_owned())
}

/// What one subject of a message says.
#[derive(Default)]
struct Subject {
    types: Vec<String>,
    labels: Vec<TgType>,
    base: Option<&'static str>,
    props: BTreeMap<String, Vec<PropValue>>,
    graph: Option<String>,
}

/// Adds a message's triples to `delta`; `scope` names its blank nodes (the explain id).
/// Returns the subjects, in order.
pub fn add_triples(
    triples: &[Triple],
    graph: Option<&str>,
    scope: &str,
    delta: &mut GraphDelta,
) -> Result<Vec<String>, String> {
    let mut subjects: Vec<(String, Subject)> = Vec::new();
    let mut edges: Vec<Edge> = Vec::new();
    let at = |name: &str, subjects: &mut Vec<(String, Subject)>| -> usize {
        match subjects.iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None => {
                subjects.push((name.to_owned(), Subject::default()));
                subjects.len() - 1
            }
        }
    };
    for (i, t) in triples.iter().enumerate() {
        let s = node_name(&t.s, scope)
            .ok_or_else(|| format!("triple {i}: the subject is a literal or a quoted triple"))?;
        let p = t.p.iri().ok_or_else(|| format!("triple {i}: the predicate is not an IRI"))?;
        let k = at(&s, &mut subjects);
        let subject = &mut subjects[k].1;
        if subject.graph.is_none() {
            subject.graph = t.g.clone().or_else(|| graph.map(str::to_owned));
        }
        match &t.o {
            Term::Iri(o) if p == RDF_TYPE => {
                if let Some(local) = o.strip_prefix(PROV) {
                    subject.base = match local {
                        "Entity" => Some("ProvEntity"),
                        "Activity" => Some("ProvActivity"),
                        "Agent" => Some("ProvAgent"),
                        _ => subject.base,
                    };
                } else if let Some(local) = o.strip_prefix(TG) {
                    subject.types.push(local.to_owned());
                    subject.labels.extend(TgType::parse(local));
                } else {
                    subject.types.push(o.clone());
                }
            }
            Term::Iri(_) | Term::Blank(_) => {
                let o = node_name(&t.o, scope).expect("an IRI or a blank node");
                let (rel, kind) = relation(p);
                delta.upsert_node(Label::Explain, &o);
                let edge = Edge::new(
                    rel,
                    kind,
                    NodeRef::new(Label::Explain, s.clone()),
                    NodeRef::new(Label::Explain, o),
                )
                .with("tg:predicate", p);
                edges.push(edge);
            }
            Term::Literal { value, datatype, .. } => {
                let key = property(p);
                let v = literal_value(&key, value, datatype.as_deref());
                subject.props.entry(key).or_default().push(v);
            }
            Term::Quoted(q) => {
                let key = property(p);
                subject.props.entry(key.clone()).or_default().push(PropValue::Str(t.o.show()));
                for (part, term) in [("s", &q.s), ("p", &q.p), ("o", &q.o)] {
                    subject
                        .props
                        .entry(format!("{key}_{part}"))
                        .or_default()
                        .push(PropValue::Str(term.show()));
                }
            }
        }
    }
    let names = subjects.iter().map(|(n, _)| n.clone()).collect();
    for (name, sub) in subjects {
        let id = delta.upsert_node(Label::Explain, &name);
        let props = delta.node_props(id);
        for (key, mut values) in sub.props {
            let v = if values.len() == 1 { values.pop().expect("one") } else { PropValue::List(values) };
            props.insert(Cow::Owned(key), v);
        }
        if let Some(b) = sub.base {
            props.insert(PROV_BASE_TYPE.into(), b.into());
        }
        if let Some(first) = sub.types.first() {
            let shown = if first.contains("://") { first.clone() } else { format!("tg:{first}") };
            props.insert(PROV_TYPE.into(), shown.into());
            props.insert(
                "tg:types".into(),
                PropValue::List(sub.types.iter().map(|t| PropValue::Str(t.clone())).collect()),
            );
        }
        if !sub.labels.is_empty() {
            props.insert(
                EXTRA_LABELS.into(),
                PropValue::List(sub.labels.iter().map(|l| PropValue::Str(l.as_str().into())).collect()),
            );
        }
        if let Some(g) = sub.graph {
            props.insert("tg:graph".into(), g.into());
        }
        if let Some(session) = session_of(&name) {
            props.insert("tg:session".into(), session.into());
        }
    }
    for e in edges {
        delta.add_edge(e);
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_from_trustgraph_iris() {
        assert_eq!(
            session_of("urn:trustgraph:agent:abc/i1/thought").as_deref(),
            Some("urn:trustgraph:agent:abc")
        );
        assert_eq!(session_of("urn:trustgraph:agent:abc").as_deref(), Some("urn:trustgraph:agent:abc"));
        assert_eq!(
            session_of("urn:trustgraph:prov:focus:s-1").as_deref(),
            Some("urn:trustgraph:question:s-1")
        );
        assert_eq!(
            session_of("urn:trustgraph:prov:edge:s-1:3").as_deref(),
            Some("urn:trustgraph:question:s-1")
        );
        assert_eq!(
            session_of("urn:trustgraph:prov:chunk:d-2:0").as_deref(),
            Some("urn:trustgraph:docrag:d-2")
        );
        assert_eq!(
            session_of("urn:trustgraph:docrag:d-2/focus").as_deref(),
            Some("urn:trustgraph:docrag:d-2")
        );
        assert_eq!(session_of("http://example.org/x"), None);
        assert_eq!(property("https://trustgraph.ai/ns/query"), "tg:query");
        assert_eq!(property("http://www.w3.org/2000/01/rdf-schema#label"), "rdfs:label");
        assert_eq!(property("http://example.org/p"), "http://example.org/p");
    }
}
