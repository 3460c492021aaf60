//! PROV-O in Turtle in (docs/FORMATS.md "PROV-O (Turtle) in"): the triples, parsed by `oxttl`,
//! are read back into the PROV-JSON document they stand for, which is then imported as any
//! PROV-JSON document is (`import`). So a Provex graph exported as PROV-O Turtle (`rdf.rs`)
//! imports as the same graph, and a foreign PROV-O document gives the records and relations
//! it states:
//!
//! - a subject typed `prov:Entity`, `prov:Activity` or `prov:Agent` (or one of PROV-O's
//!   subclasses of them) is a record; its other triples are its attributes (IRIs as qualified
//!   names, literals with their datatype, several values of one property as a list);
//! - `<a> prov:used <b>` and the other unqualified relations are relations from `a` to `b`;
//! - a qualified relation (`<a> prov:qualifiedUsage [ a prov:Usage ; prov:entity <b> ; … ]`,
//!   which Provex writes for a relation with attributes; [`QUALIFIED`]) is that relation
//!   with its attributes, and stands in for its unqualified triple. A relation PROV-O gives
//!   no qualified form is written as a qualified influence naming it
//!   (`provex:prov-relation "specializationOf"`).
//!
//! IRIs become qualified names with the document's own prefixes (one is made up for an IRI
//! none covers). Turtle has no named graphs: bundles are not read back. The parser keeps its
//! own stack (no recursion over nested blank nodes or collections), and this module walks the
//! triples once, grouped by subject: nothing here recurses over the input.

use std::collections::{BTreeMap, HashMap, HashSet};

use oxrdf::{NamedOrBlankNode, Term};
use oxttl::TurtleParser;
use serde_json::{json, Map, Value as Json};

use super::doc::{PROVEX_NS, PROV_NS, XSD_NS};
use super::import::Imported;
use super::relations::{self, RelSpec};

/// On a qualified influence: the name of the PROV relation it qualifies. A hyphen never
/// occurs in an encoded property name (`native::attr_name`), so it is no property.
pub const RELATION_ATTR: &str = "provex:prov-relation";

/// PROV-O's qualified forms of the relations (PROV-O §3.3): the relation, its qualifying
/// property, the class of the qualification, and the property naming the relation's second
/// argument. The others are qualified as influences ([`RELATION_ATTR`]).
pub const QUALIFIED: [(&str, &str, &str, &str); 11] = [
    ("used", "qualifiedUsage", "Usage", "entity"),
    ("wasGeneratedBy", "qualifiedGeneration", "Generation", "activity"),
    ("wasInvalidatedBy", "qualifiedInvalidation", "Invalidation", "activity"),
    ("wasStartedBy", "qualifiedStart", "Start", "entity"),
    ("wasEndedBy", "qualifiedEnd", "End", "entity"),
    ("wasInformedBy", "qualifiedCommunication", "Communication", "activity"),
    ("wasAssociatedWith", "qualifiedAssociation", "Association", "agent"),
    ("wasAttributedTo", "qualifiedAttribution", "Attribution", "agent"),
    ("actedOnBehalfOf", "qualifiedDelegation", "Delegation", "agent"),
    ("wasDerivedFrom", "qualifiedDerivation", "Derivation", "entity"),
    ("wasInfluencedBy", "qualifiedInfluence", "Influence", "influencer"),
];

/// How a relation is qualified: (qualifying property, class, second-argument property), all
/// in PROV's namespace; a qualified influence for a relation PROV-O gives no form.
pub fn qualified_form(relation: &str) -> (&'static str, &'static str, &'static str) {
    let (_, p, c, o) = QUALIFIED.iter().find(|q| q.0 == relation).copied().unwrap_or(QUALIFIED[10]);
    (p, c, o)
}

const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

/// A subject of the document: an IRI, or a blank node (`_:` and its label).
type Subject = String;

/// The PROV record kind (its PROV-JSON section) of a PROV-O class.
fn section_of(class: &str) -> Option<&'static str> {
    Some(match class.strip_prefix(PROV_NS)? {
        "Entity" | "Plan" | "Collection" | "EmptyCollection" | "Bundle" => "entity",
        "Activity" => "activity",
        "Agent" | "Person" | "Organization" | "SoftwareAgent" => "agent",
        _ => return None,
    })
}

/// What the triples of one subject say, in the order they came.
#[derive(Default)]
struct Facts {
    section: Option<&'static str>,
    props: Vec<(String, Term)>,
}

/// Names IRIs with the document's prefixes.
struct Names {
    /// (namespace, prefix), longest namespace first.
    by_ns: Vec<(String, String)>,
    prefixes: BTreeMap<String, String>,
}

impl Names {
    fn new(declared: impl Iterator<Item = (String, String)>) -> Self {
        let mut prefixes = BTreeMap::new();
        for (p, ns) in declared {
            // PROV and XSD are known to every PROV-JSON reader under their usual prefixes.
            if (p == "prov" && ns == PROV_NS) || (p == "xsd" && ns == XSD_NS) || p.is_empty() {
                continue;
            }
            prefixes.insert(p, ns);
        }
        let mut n = Names { by_ns: Vec::new(), prefixes };
        n.index();
        n
    }

    fn index(&mut self) {
        self.by_ns = self.prefixes.iter().map(|(p, ns)| (ns.clone(), p.clone())).collect();
        self.by_ns.push((PROV_NS.to_owned(), "prov".to_owned()));
        self.by_ns.push((XSD_NS.to_owned(), "xsd".to_owned()));
        self.by_ns.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.1.cmp(&b.1)));
    }

    /// An IRI as a qualified name; a prefix is made up for a namespace no prefix covers.
    fn qname(&mut self, iri: &str) -> String {
        if let Some((ns, p)) = self.by_ns.iter().find(|(ns, _)| iri.starts_with(ns.as_str())) {
            return format!("{p}:{}", &iri[ns.len()..]);
        }
        let cut = iri.rfind(['#', '/']).map_or(iri.len(), |i| i + 1);
        let p = format!("ns{}", self.prefixes.len() + 1);
        self.prefixes.insert(p.clone(), iri[..cut].to_owned());
        self.index();
        format!("{p}:{}", &iri[cut..])
    }

    fn subject(&mut self, s: &Subject) -> String {
        match s.strip_prefix("_:") {
            Some(_) => s.clone(),
            None => self.qname(s),
        }
    }

    /// An attribute value as PROV-JSON writes it.
    fn value(&mut self, t: &Term) -> Json {
        match t {
            Term::NamedNode(n) => json!({"$": self.qname(n.as_str()), "type": "prov:QUALIFIED_NAME"}),
            // A blank node names nothing outside the document: kept as its label.
            Term::BlankNode(b) => Json::String(format!("_:{}", b.as_str())),
            Term::Literal(l) => {
                let (v, dt) = (l.value(), l.datatype().as_str());
                if let Some(lang) = l.language() {
                    return json!({"$": v, "type": "prov:InternationalizedString", "lang": lang});
                }
                match dt.strip_prefix(XSD_NS) {
                    Some("string") => Json::String(v.to_owned()),
                    Some("long" | "int" | "integer") if v.parse::<i64>().is_ok() => {
                        json!(v.parse::<i64>().ok())
                    }
                    Some("boolean") if v == "true" || v == "false" => Json::Bool(v == "true"),
                    _ => json!({"$": v, "type": self.qname(dt)}),
                }
            }
        }
    }
}

fn subject_of(s: &NamedOrBlankNode) -> Subject {
    match s {
        NamedOrBlankNode::NamedNode(n) => n.as_str().to_owned(),
        NamedOrBlankNode::BlankNode(b) => format!("_:{}", b.as_str()),
    }
}

fn term_subject(t: &Term) -> Option<Subject> {
    match t {
        Term::NamedNode(n) => Some(n.as_str().to_owned()),
        Term::BlankNode(b) => Some(format!("_:{}", b.as_str())),
        Term::Literal(_) => None,
    }
}

/// Where each subject is first written: the line of the first occurrence of its IRI in the
/// text (as `<iri>`), the first line otherwise.
fn line_of(text: &str, newlines: &[usize], s: &Subject) -> u64 {
    let at = if s.starts_with("_:") { text.find(s.as_str()) } else { text.find(&format!("<{s}>")) };
    at.map_or(1, |at| newlines.partition_point(|&p| p < at) as u64 + 1)
}

/// The PROV-JSON document a PROV-O Turtle text states, and the subject each record and
/// relation (by its qualified name or key) was read from; an error (line, reason) when the
/// text is not Turtle.
pub fn to_prov_json(text: &str) -> Result<(Json, HashMap<String, Subject>), (u64, String)> {
    let mut parser = TurtleParser::new().for_slice(text.as_bytes());
    let mut facts: HashMap<Subject, Facts> = HashMap::new();
    let mut order: Vec<Subject> = Vec::new();
    for triple in parser.by_ref() {
        let t = triple.map_err(|e| {
            let at = e.location().start;
            (at.line + 1, format!("not PROV-O Turtle: {} (column {})", e.message(), at.column + 1))
        })?;
        let s = subject_of(&t.subject);
        let f = facts.entry(s.clone()).or_insert_with(|| {
            order.push(s.clone());
            Facts::default()
        });
        let p = t.predicate.as_str();
        if p == RDF_TYPE {
            if let Term::NamedNode(c) = &t.object {
                if let Some(sec) = section_of(c.as_str()).filter(|_| f.section.is_none()) {
                    f.section = Some(sec);
                    continue;
                }
            }
        }
        f.props.push((p.to_owned(), t.object));
    }
    let declared: Vec<(String, String)> =
        parser.prefixes().map(|(p, ns)| (p.to_owned(), ns.to_owned())).collect();
    let mut names = Names::new(declared.into_iter());
    let mut doc = Map::new();
    let mut lines = HashMap::new();
    let qualified = qualified_relations(&facts, &order);
    let mut covered: HashSet<(&str, &str, &str)> = HashSet::new();
    let mut next_key = 0usize;
    // Relations: qualified ones first (they carry the attributes), then the unqualified
    // triples none of them stands for.
    for Qualified { subject: s, object: b, spec, node: q, object_prop } in &qualified {
        covered.insert((s.as_str(), spec.name, b.as_str()));
        let mut body = Map::new();
        body.insert(spec.roles[0].to_owned(), Json::String(names.subject(s)));
        body.insert(spec.roles[1].to_owned(), Json::String(names.subject(b)));
        for (p, o) in &facts[q.as_str()].props {
            if p == RDF_TYPE || p == object_prop || *p == format!("{PROVEX_NS}prov-relation") {
                continue;
            }
            let k = names.qname(p);
            let v = names.value(o);
            put_attr(&mut body, k, v);
        }
        next_key += 1;
        let key = format!("_:r{next_key}");
        lines.insert(key.clone(), s.clone());
        put(&mut doc, spec.name, &key, Json::Object(body));
    }
    let qualifiers: HashSet<&str> = qualified.iter().map(|q| q.node.as_str()).collect();
    for s in &order {
        let f = &facts[s];
        if qualifiers.contains(s.as_str()) {
            continue;
        }
        let mut body = Map::new();
        for (p, o) in &f.props {
            if let Some(spec) = p.strip_prefix(PROV_NS).and_then(relations::by_name) {
                let Some(b) = term_subject(o) else { continue };
                if covered.contains(&(s.as_str(), spec.name, b.as_str())) {
                    continue;
                }
                let mut rel = Map::new();
                rel.insert(spec.roles[0].to_owned(), Json::String(names.subject(s)));
                rel.insert(spec.roles[1].to_owned(), Json::String(names.subject(&b)));
                next_key += 1;
                let key = format!("_:r{next_key}");
                lines.insert(key.clone(), s.clone());
                put(&mut doc, spec.name, &key, Json::Object(rel));
                continue;
            }
            let qualifier = term_subject(o).is_some_and(|q| qualifiers.contains(q.as_str()));
            // Only a record keeps attributes; a further class is a `prov:type`.
            if qualifier || f.section.is_none() {
                continue;
            }
            let k = if p == RDF_TYPE { "prov:type".to_owned() } else { names.qname(p) };
            let v = names.value(o);
            put_attr(&mut body, k, v);
        }
        if let Some(section) = f.section {
            let q = names.subject(s);
            lines.insert(q.clone(), s.clone());
            put(&mut doc, section, &q, Json::Object(body));
        }
    }
    doc.insert("prefix".into(), json!(names.prefixes));
    Ok((Json::Object(doc), lines))
}

/// The qualified relations of the document, in the order of their subjects' first triples.
fn qualified_relations(facts: &HashMap<Subject, Facts>, order: &[Subject]) -> Vec<Qualified> {
    let relation = format!("{PROVEX_NS}prov-relation");
    let mut out = Vec::new();
    for s in order {
        for (p, o) in &facts[s].props {
            let Some(form) = p.strip_prefix(PROV_NS).and_then(|p| QUALIFIED.iter().find(|q| q.1 == p)) else {
                continue;
            };
            let Some(q) = term_subject(o) else { continue };
            let Some(qf) = facts.get(&q) else { continue };
            let find = |name: &str| qf.props.iter().find(|(p, _)| p == name).map(|(_, o)| o);
            let spec = match find(&relation) {
                Some(Term::Literal(l)) => relations::by_name(l.value()),
                None => relations::by_name(form.0),
                _ => None,
            };
            let object_prop = format!("{PROV_NS}{}", form.3);
            let (Some(spec), Some(b)) = (spec, find(&object_prop).and_then(term_subject)) else { continue };
            out.push(Qualified { subject: s.clone(), object: b, spec, node: q, object_prop });
        }
    }
    out
}

/// A qualified relation as read: its subject and second argument, the relation, the
/// qualification's node, and the property that named the second argument.
struct Qualified {
    subject: Subject,
    object: Subject,
    spec: &'static RelSpec,
    node: Subject,
    object_prop: String,
}

/// Adds an attribute value: a second value for one attribute makes a list.
fn put_attr(body: &mut Map<String, Json>, k: String, v: Json) {
    match body.get_mut(&k) {
        None => {
            body.insert(k, v);
        }
        Some(Json::Array(items)) => items.push(v),
        Some(old) => {
            let first = old.take();
            *old = Json::Array(vec![first, v]);
        }
    }
}

/// Adds a body under `key` in `section`: a second body for one key makes a list.
fn put(doc: &mut Map<String, Json>, section: &str, key: &str, body: Json) {
    let Json::Object(sec) = doc.entry(section).or_insert_with(|| Json::Object(Map::new())) else { return };
    match sec.get_mut(key) {
        None => {
            sec.insert(key.to_owned(), body);
        }
        Some(Json::Array(items)) => items.push(body),
        Some(old) => {
            let first = old.take();
            *old = Json::Array(vec![first, body]);
        }
    }
}

/// Imports a PROV-O Turtle text: what [`to_prov_json`] gives, imported as PROV-JSON, with
/// each rejected record or relation given the line its subject is first written on.
pub fn import(text: &str) -> Result<Imported, (u64, String)> {
    let (doc, lines) = to_prov_json(text)?;
    let json = serde_json::to_string(&doc).expect("JSON values serialise");
    let mut imported = super::import::import(&json).map_err(|(_, reason)| (1, reason))?;
    if !imported.rejected.is_empty() {
        let newlines: Vec<usize> =
            text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i).collect();
        for (line, reason) in &mut imported.rejected {
            // "<section> <name>: <why>": the name is the record's or relation's.
            let name = reason.split(' ').nth(1).map(|n| n.trim_end_matches(':'));
            *line = name.and_then(|n| lines.get(n)).map_or(1, |s| line_of(text, &newlines, s));
        }
    }
    Ok(imported)
}
