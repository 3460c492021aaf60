//! The PROV document a graph maps to, before it is written in any one format: records with
//! qualified-name ids and typed attributes, and binary relations between them (see the
//! module docs of `prov` for the mapping).

use std::collections::{BTreeMap, HashMap};

use serde_json::Value as Json;

use crate::model::vocab::{A2A_RELATION, NAME, PROV_BASE_TYPE, PROV_TYPE};
use crate::store::snapshot::{StoredEdge, StoredNode};

/// Namespace of Provex's own terms: labels, relationship types, property names.
pub const PROVEX_NS: &str = "https://provex.dev/ns#";
/// Namespace of a graph's node ids: `https://provex.dev/graph/<graph>/`.
pub const GRAPH_NS: &str = "https://provex.dev/graph/";
pub const PROV_NS: &str = "http://www.w3.org/ns/prov#";
pub const XSD_NS: &str = "http://www.w3.org/2001/XMLSchema#";

/// The three kinds of PROV record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Entity,
    Activity,
    Agent,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Entity => "entity",
            Kind::Activity => "activity",
            Kind::Agent => "agent",
        }
    }

    /// The PROV-O class.
    pub fn class(self) -> &'static str {
        match self {
            Kind::Entity => "prov:Entity",
            Kind::Activity => "prov:Activity",
            Kind::Agent => "prov:Agent",
        }
    }

    fn from_base_type(t: Option<&str>) -> Kind {
        match t {
            Some("ProvActivity") => Kind::Activity,
            Some("ProvAgent") => Kind::Agent,
            _ => Kind::Entity,
        }
    }
}

/// An attribute value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// A qualified name (`provex:Statement`).
    QName(String),
}

/// The binary PROV relations a graph's edges map to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rel {
    Used,
    WasGeneratedBy,
    WasAssociatedWith,
    WasAttributedTo,
    WasDerivedFrom,
    WasInfluencedBy,
}

impl Rel {
    /// The PROV-JSON section, PROV-N name and PROV-O property (with `prov:`).
    pub fn name(self) -> &'static str {
        match self {
            Rel::Used => "used",
            Rel::WasGeneratedBy => "wasGeneratedBy",
            Rel::WasAssociatedWith => "wasAssociatedWith",
            Rel::WasAttributedTo => "wasAttributedTo",
            Rel::WasDerivedFrom => "wasDerivedFrom",
            Rel::WasInfluencedBy => "wasInfluencedBy",
        }
    }

    /// The PROV-JSON names of its two arguments, in PROV-N order.
    pub fn roles(self) -> [&'static str; 2] {
        match self {
            Rel::Used => ["prov:activity", "prov:entity"],
            Rel::WasGeneratedBy => ["prov:entity", "prov:activity"],
            Rel::WasAssociatedWith => ["prov:activity", "prov:agent"],
            Rel::WasAttributedTo => ["prov:entity", "prov:agent"],
            Rel::WasDerivedFrom => ["prov:generatedEntity", "prov:usedEntity"],
            Rel::WasInfluencedBy => ["prov:influencee", "prov:influencer"],
        }
    }

    /// The kinds of record its arguments must be (none: any).
    fn kinds(self) -> Option<[Kind; 2]> {
        match self {
            Rel::Used => Some([Kind::Activity, Kind::Entity]),
            Rel::WasGeneratedBy => Some([Kind::Entity, Kind::Activity]),
            Rel::WasAssociatedWith => Some([Kind::Activity, Kind::Agent]),
            Rel::WasAttributedTo => Some([Kind::Entity, Kind::Agent]),
            Rel::WasDerivedFrom => Some([Kind::Entity, Kind::Entity]),
            Rel::WasInfluencedBy => None,
        }
    }

    /// The PROV-N arguments after the two ends, each absent (`-`).
    pub fn provn_blanks(self) -> usize {
        match self {
            Rel::Used | Rel::WasGeneratedBy | Rel::WasAssociatedWith => 1,
            Rel::WasDerivedFrom => 3,
            Rel::WasAttributedTo | Rel::WasInfluencedBy => 0,
        }
    }

    fn from_base_type(t: Option<&str>) -> Rel {
        match t {
            Some("USED") => Rel::Used,
            Some("WAS_GENERATED_BY") => Rel::WasGeneratedBy,
            Some("WAS_ASSOCIATED_WITH") => Rel::WasAssociatedWith,
            Some("WAS_ATTRIBUTED_TO") => Rel::WasAttributedTo,
            Some("WAS_DERIVED_FROM") => Rel::WasDerivedFrom,
            _ => Rel::WasInfluencedBy,
        }
    }
}

/// A PROV record.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub kind: Kind,
    /// Its qualified name (`g:st%2D1`).
    pub id: String,
    pub attrs: Vec<(String, Value)>,
}

/// A relation between two records.
#[derive(Debug, Clone, PartialEq)]
pub struct Relation {
    pub rel: Rel,
    /// Its id in PROV-JSON (`_:r1`: the relation has no identifier of its own).
    pub key: String,
    /// The qualified names of its two arguments, in [`Rel::roles`] order.
    pub args: [String; 2],
    pub attrs: Vec<(String, Value)>,
}

/// A PROV document: prefixes, records and relations.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Document {
    pub prefixes: BTreeMap<String, String>,
    pub records: Vec<Record>,
    pub relations: Vec<Relation>,
}

/// A node name as the local part of a qualified name: letters, digits and `_` as they are,
/// every other byte `%XX` (valid in PROV-N, Turtle and JSON-LD alike).
pub fn local(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A property name as a `provex:` attribute name.
pub fn attr_name(key: &str) -> String {
    let k: String =
        key.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    format!("provex:{k}")
}

fn value(v: &Json) -> Option<Value> {
    Some(match v {
        Json::Null => return None,
        Json::String(s) => Value::Str(s.clone()),
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64().filter(|f| f.is_finite())?),
        },
        other => Value::Str(other.to_string()),
    })
}

/// The attributes of a node or edge: its label or type as `prov:type`, then its properties.
fn attrs(kind_type: &str, props: &BTreeMap<String, Json>, skip: &[&str]) -> Vec<(String, Value)> {
    let mut out = vec![("prov:type".to_owned(), Value::QName(format!("provex:{}", local(kind_type))))];
    for (k, v) in props {
        if skip.contains(&k.as_str()) {
            continue;
        }
        if let Some(v) = value(v) {
            out.push((attr_name(k), v));
        }
    }
    out
}

impl Document {
    /// The PROV document of graph `graph`'s nodes and edges.
    pub fn from_graph(graph: &str, nodes: &[StoredNode], edges: &[StoredEdge]) -> Document {
        let mut prefixes = BTreeMap::new();
        prefixes.insert("provex".to_owned(), PROVEX_NS.to_owned());
        prefixes.insert("g".to_owned(), format!("{GRAPH_NS}{}/", local(graph)));
        let mut kinds: HashMap<&str, Kind> = HashMap::with_capacity(nodes.len());
        let mut records = Vec::with_capacity(nodes.len());
        for n in nodes {
            let kind = Kind::from_base_type(n.props.get(PROV_BASE_TYPE).and_then(Json::as_str));
            kinds.insert(n.name.as_str(), kind);
            let mut a = attrs(&n.label, &n.props, &[PROV_BASE_TYPE, PROV_TYPE]);
            // The name the graph knows the node by (its id is an encoding of it).
            if !n.props.contains_key(NAME) {
                a.push((attr_name(NAME), Value::Str(n.name.clone())));
            }
            records.push(Record { kind, id: format!("g:{}", local(&n.name)), attrs: a });
        }
        let mut relations = Vec::with_capacity(edges.len());
        for (i, e) in edges.iter().enumerate() {
            let (Some(&ks), Some(&kt)) = (kinds.get(e.source.as_str()), kinds.get(e.target.as_str())) else {
                continue;
            };
            let named = Rel::from_base_type(e.props.get(PROV_BASE_TYPE).and_then(Json::as_str));
            let (s, t) = (format!("g:{}", local(&e.source)), format!("g:{}", local(&e.target)));
            let (rel, args) = match named.kinds() {
                Some(k) if k == [ks, kt] => (named, [s, t]),
                Some(k) if k == [kt, ks] => (named, [t, s]),
                _ => (Rel::WasInfluencedBy, [s, t]),
            };
            let mut a = attrs(&e.rel, &e.props, &[PROV_BASE_TYPE, A2A_RELATION]);
            if let Some(Json::String(r)) = e.props.get(A2A_RELATION) {
                a.push((attr_name(A2A_RELATION), Value::Str(r.clone())));
            }
            relations.push(Relation { rel, key: format!("_:r{}", i + 1), args, attrs: a });
        }
        Document { prefixes, records, relations }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn node(label: &str, name: &str, base: &str) -> StoredNode {
        let mut props = BTreeMap::new();
        props.insert(PROV_BASE_TYPE.to_owned(), json!(base));
        props.insert("claim_text".to_owned(), json!("It said \"yes\"."));
        StoredNode { label: label.into(), name: name.into(), props }
    }

    fn edge(s: &str, rel: &str, t: &str, base: Option<&str>) -> StoredEdge {
        let mut props = BTreeMap::new();
        if let Some(b) = base {
            props.insert(PROV_BASE_TYPE.to_owned(), json!(b));
        }
        StoredEdge { source: s.into(), rel: rel.into(), target: t.into(), props }
    }

    #[test]
    fn records_by_base_type_and_relations_by_their_ends() {
        let nodes = [
            node("Statement", "st-1", "ProvEntity"),
            node("Verification", "v/1", "ProvActivity"),
            node("Agent", "urn:agent:x", "ProvAgent"),
        ];
        let edges = [
            // VALIDATES (Verification → Statement) stands for USED: activity first.
            edge("v/1", "VALIDATES", "st-1", Some("USED")),
            // GENERATED (Agent → Statement) for WAS_ATTRIBUTED_TO: the entity comes first.
            edge("urn:agent:x", "GENERATED", "st-1", Some("WAS_ATTRIBUTED_TO")),
            // No PROV relation, or one its ends do not fit: an influence.
            edge("st-1", "SUPPORTS", "st-1", None),
            edge("st-1", "WAS_USED_BY", "urn:agent:x", Some("USED")),
            edge("st-1", "CITES", "gone", Some("WAS_DERIVED_FROM")),
        ];
        let d = Document::from_graph("council", &nodes, &edges);
        let kinds: Vec<(Kind, &str)> = d.records.iter().map(|r| (r.kind, r.id.as_str())).collect();
        assert_eq!(
            kinds,
            [(Kind::Entity, "g:st%2D1"), (Kind::Activity, "g:v%2F1"), (Kind::Agent, "g:urn%3Aagent%3Ax")]
        );
        let rels: Vec<(Rel, [&str; 2])> =
            d.relations.iter().map(|r| (r.rel, [r.args[0].as_str(), r.args[1].as_str()])).collect();
        assert_eq!(
            rels,
            [
                (Rel::Used, ["g:v%2F1", "g:st%2D1"]),
                (Rel::WasAttributedTo, ["g:st%2D1", "g:urn%3Aagent%3Ax"]),
                (Rel::WasInfluencedBy, ["g:st%2D1", "g:st%2D1"]),
                (Rel::WasInfluencedBy, ["g:st%2D1", "g:urn%3Aagent%3Ax"]),
            ]
        );
        assert_eq!(d.records[0].attrs[0], ("prov:type".to_owned(), Value::QName("provex:Statement".into())));
        assert!(d.records[0]
            .attrs
            .contains(&("provex:claim_text".to_owned(), Value::Str("It said \"yes\".".into()))));
        assert_eq!(d.relations[0].attrs[0].1, Value::QName("provex:VALIDATES".into()));
        assert_eq!(d.prefixes["g"], "https://provex.dev/graph/council/");
    }
}
