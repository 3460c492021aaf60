//! The PROV document a graph maps to, before it is written in any one format: records with
//! qualified-name ids and typed attributes, and binary relations between them (see the
//! module docs of `prov` for the mapping).

use std::collections::{BTreeMap, HashMap};

use serde_json::Value as Json;

use super::native;
use super::relations::{self, RelSpec};
pub use super::terms::{key, local, Kind, Value};
use crate::model::vocab::{A2A_RELATION, NAME, PROV_BASE_TYPE, PROV_TYPE};
use crate::store::snapshot::{StoredEdge, StoredNode};

/// Namespace of Provex's own terms: labels, relationship types, property names.
pub const PROVEX_NS: &str = "https://provex.dev/ns#";
/// Namespace of a graph's node ids: `https://provex.dev/graph/<graph>/`.
pub const GRAPH_NS: &str = "https://provex.dev/graph/";
pub const PROV_NS: &str = "http://www.w3.org/ns/prov#";
pub const XSD_NS: &str = "http://www.w3.org/2001/XMLSchema#";

/// A PROV record.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub kind: Kind,
    /// Its qualified name (`pxg:st%2D1`).
    pub id: String,
    pub attrs: Vec<(String, Value)>,
    /// An imported record's PROV-JSON bodies as they were read (written back as they are).
    pub raw: Option<Json>,
    /// The bundle it is in (its qualified name), if any.
    pub bundle: Option<String>,
}

/// A relation between records.
#[derive(Debug, Clone, PartialEq)]
pub struct Relation {
    pub spec: &'static RelSpec,
    /// Its id in PROV-JSON (`_:r1` when it has no identifier of its own).
    pub key: String,
    /// Its arguments in [`RelSpec::roles`] order (qualified names, or a time), absent ones none.
    pub args: Vec<Option<String>>,
    pub attrs: Vec<(String, Value)>,
    /// An imported relation's PROV-JSON body as it was read.
    pub raw: Option<Json>,
    pub bundle: Option<String>,
}

/// A bundle of an imported document: its qualified name and the prefixes it declares.
#[derive(Debug, Clone, PartialEq)]
pub struct Bundle {
    pub id: String,
    pub prefixes: BTreeMap<String, String>,
}

/// A PROV document: prefixes, records, relations and bundles.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Document {
    pub prefixes: BTreeMap<String, String>,
    pub records: Vec<Record>,
    pub relations: Vec<Relation>,
    pub bundles: Vec<Bundle>,
}

/// The attributes of a node or edge: its label or type as `prov:type`, then every property
/// but those in `skip`, each kept with its name and type (`prov::native`).
fn attrs(kind_type: &str, props: &BTreeMap<String, Json>, skip: &[(&str, &str)]) -> Vec<(String, Value)> {
    let mut out = vec![("prov:type".to_owned(), Value::QName(format!("provex:{}", local(kind_type))))];
    for (k, v) in props {
        if skip.iter().any(|(sk, sv)| sk == k && v.as_str() == Some(sv)) {
            continue;
        }
        if let Some(v) = native::attr_value(v) {
            out.push((native::attr_name(k), v));
        }
    }
    out
}

/// The properties the store gives a node of this label by itself (`prov:type`,
/// `prov:base_type`): left out of its record when they hold these values.
fn derived(label: &str) -> Vec<(&'static str, String)> {
    let Some(l) = crate::model::Label::parse(label) else { return Vec::new() };
    let props = crate::store::write::node_props(l, "", &crate::model::Props::new());
    [PROV_TYPE, PROV_BASE_TYPE]
        .into_iter()
        .filter_map(|k| Some((k, props.get(k)?.as_str()?.to_owned())))
        .collect()
}

/// A JSON text property as JSON (none when absent or not JSON).
fn json_prop(props: &BTreeMap<String, Json>, k: &str) -> Option<Json> {
    match props.get(k)? {
        Json::String(s) => serde_json::from_str(s).ok(),
        _ => None,
    }
}

fn str_prop<'a>(props: &'a BTreeMap<String, Json>, k: &str) -> Option<&'a str> {
    props.get(k).and_then(Json::as_str)
}

/// Prefixes from a JSON object.
fn prefix_map(v: &Json) -> BTreeMap<String, String> {
    v.as_object()
        .map(|o| o.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned()))).collect())
        .unwrap_or_default()
}

/// The attributes of a PROV-JSON body, its formal arguments (`roles`) left out.
fn body_attrs(body: &Json, roles: &[&str]) -> Vec<(String, Value)> {
    let Some(o) = body.as_object() else { return Vec::new() };
    o.iter()
        .filter(|(k, _)| !roles.contains(&k.as_str()))
        .flat_map(|(k, v)| Value::from_json(v).into_iter().map(move |v| (k.clone(), v)))
        .collect()
}

/// An imported relation (one entry of a [`key::RELATIONS`] list) as a [`Relation`].
fn imported_relation(entry: &Json) -> Option<Relation> {
    let spec = relations::by_name(entry.get("section")?.as_str()?)?;
    let key = entry.get("key")?.as_str()?.to_owned();
    let body = entry.get("body")?.clone();
    let args = spec.roles.iter().map(|r| body.get(*r).and_then(Json::as_str).map(str::to_owned)).collect();
    let attrs = body_attrs(&body, spec.roles);
    let bundle = entry.get("bundle").and_then(Json::as_str).map(str::to_owned);
    Some(Relation { spec, key, args, attrs, raw: Some(body), bundle })
}

impl Document {
    /// The PROV document of graph `graph`'s nodes and edges: imported PROV records and
    /// relations as they were read, every other node and edge mapped (see the module docs).
    pub fn from_graph(graph: &str, nodes: &[StoredNode], edges: &[StoredEdge]) -> Document {
        let mut doc = Document::default();
        let mut bundle_prefixes: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        let mut kinds: HashMap<&str, Kind> = HashMap::with_capacity(nodes.len());
        let mut native = false;
        let mut next_key = 0usize;
        for n in nodes {
            let kind = Kind::from_base_type(n.props.get(PROV_BASE_TYPE).and_then(Json::as_str));
            kinds.insert(n.name.as_str(), kind);
            let bundle = str_prop(&n.props, key::BUNDLE).map(str::to_owned);
            // Relations kept on a node: those of an imported document with one end only.
            if let Some(Json::Array(list)) = json_prop(&n.props, key::RELATIONS) {
                doc.relations.extend(list.iter().filter_map(imported_relation));
            }
            match n.label.as_str() {
                "Namespaces" => {
                    let p = json_prop(&n.props, key::PREFIXES).map(|v| prefix_map(&v)).unwrap_or_default();
                    let into = match &bundle {
                        Some(b) => bundle_prefixes.entry(b.clone()).or_default(),
                        None => &mut doc.prefixes,
                    };
                    for (k, v) in p {
                        into.entry(k).or_insert(v);
                    }
                    continue;
                }
                "Bundle" => {
                    if let Some(q) = str_prop(&n.props, key::QNAME) {
                        bundle_prefixes.entry(q.to_owned()).or_default();
                    }
                    continue;
                }
                _ => {}
            }
            if let Some(q) = str_prop(&n.props, key::QNAME) {
                // An imported record, written back as read; one only named by a relation
                // (no bodies) is no record of its own.
                if let Some(raw) = json_prop(&n.props, key::ATTRIBUTES) {
                    let attrs = match &raw {
                        Json::Array(bodies) => bodies.iter().flat_map(|b| body_attrs(b, &[])).collect(),
                        b => body_attrs(b, &[]),
                    };
                    doc.records.push(Record { kind, id: q.to_owned(), attrs, raw: Some(raw), bundle });
                }
                continue;
            }
            native = true;
            let skip = derived(&n.label);
            let skip: Vec<(&str, &str)> = skip.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let mut a = attrs(&n.label, &n.props, &skip);
            // The name the graph knows the node by (its id is an encoding of it).
            a.push((native::attr_name(NAME), Value::Str(n.name.clone())));
            doc.records.push(Record {
                kind,
                id: format!("pxg:{}", local(&n.name)),
                attrs: a,
                raw: None,
                bundle: None,
            });
        }
        for e in edges {
            if let Some(Json::Array(list)) = json_prop(&e.props, key::RELATIONS) {
                doc.relations.extend(list.iter().filter_map(imported_relation));
                continue;
            }
            let (Some(&ks), Some(&kt)) = (kinds.get(e.source.as_str()), kinds.get(e.target.as_str())) else {
                continue;
            };
            native = true;
            // A relation PROV-N writes without attributes cannot keep the edge's properties.
            let named =
                str_prop(&e.props, PROV_BASE_TYPE).and_then(relations::by_prov).filter(|s| s.identified);
            let (s, t) = (format!("pxg:{}", local(&e.source)), format!("pxg:{}", local(&e.target)));
            let fits = |spec: &RelSpec, a: Kind, b: Kind| {
                spec.kinds.iter().zip([a, b]).all(|(k, x)| k.is_none_or(|k| k == x))
            };
            let (spec, ends, reversed) = match named {
                Some(spec) if fits(spec, ks, kt) => (spec, [s, t], false),
                Some(spec) if fits(spec, kt, ks) => (spec, [t, s], true),
                _ => (relations::influence(), [s, t], false),
            };
            // Every property, the edge's kind (`prov:base_type`, `a2a:relation`) included.
            let mut a = attrs(&e.rel, &e.props, &[]);
            if reversed {
                a.push((native::REVERSED.to_owned(), Value::Bool(true)));
            }
            let mut args: Vec<Option<String>> = vec![None; spec.roles.len()];
            let [a0, a1] = ends;
            (args[0], args[1]) = (Some(a0), Some(a1));
            next_key += 1;
            doc.relations.push(Relation {
                spec,
                key: format!("_:r{next_key}"),
                args,
                attrs: a,
                raw: None,
                bundle: None,
            });
        }
        if native {
            doc.prefixes.entry("provex".to_owned()).or_insert_with(|| PROVEX_NS.to_owned());
            doc.prefixes.entry("pxg".to_owned()).or_insert_with(|| format!("{GRAPH_NS}{}/", local(graph)));
        }
        doc.bundles = bundle_prefixes.into_iter().map(|(id, prefixes)| Bundle { id, prefixes }).collect();
        doc
    }

    /// The document a delta would give once written into an empty graph (no database: for
    /// tests and fuzzing).
    pub fn from_delta(graph: &str, delta: &crate::model::GraphDelta) -> Document {
        let snap = crate::diff::Snapshot::from_delta(delta);
        let mut nodes: Vec<StoredNode> = snap
            .nodes
            .into_iter()
            .map(|(k, props)| StoredNode { label: k.label, name: k.name, props })
            .collect();
        nodes.sort_by(|a, b| (&a.label, &a.name).cmp(&(&b.label, &b.name)));
        let mut edges: Vec<StoredEdge> = snap
            .edges
            .into_iter()
            .map(|(k, mut props)| {
                if let Some(kind) = k.kind {
                    // The two kinds' names are apart: an A2A relation's starts `A2A_`.
                    let key = match crate::model::ProvRelation::parse(&kind) {
                        Some(_) => PROV_BASE_TYPE,
                        None => A2A_RELATION,
                    };
                    props.insert(key.to_owned(), Json::String(kind));
                }
                StoredEdge { source: k.source, rel: k.rel, target: k.target, props }
            })
            .collect();
        edges.sort_by(|a, b| (&a.source, &a.rel, &a.target).cmp(&(&b.source, &b.rel, &b.target)));
        Document::from_graph(graph, &nodes, &edges)
    }

    /// The prefixes in scope of each bundle, found by name without a scan per record.
    pub fn scopes(&self) -> Scopes<'_> {
        Scopes { doc: self, bundles: self.bundles.iter().map(|b| (b.id.as_str(), &b.prefixes)).collect() }
    }

    /// The records and relations of each scope (`None`: the document's; else a bundle's
    /// qualified name), each list in document order: one pass, so that writing a document
    /// with many bundles does not go through every record once per bundle.
    pub fn by_scope(&self) -> HashMap<Option<&str>, (Vec<&Record>, Vec<&Relation>)> {
        let mut out: HashMap<Option<&str>, (Vec<&Record>, Vec<&Relation>)> = HashMap::new();
        for r in &self.records {
            out.entry(r.bundle.as_deref()).or_default().0.push(r);
        }
        for r in &self.relations {
            out.entry(r.bundle.as_deref()).or_default().1.push(r);
        }
        out
    }
}

/// The prefixes in scope of one record: a bundle's own over the document's, looked up in
/// place (copying the document's prefixes into every bundle would make a document with many
/// of both quadratic).
#[derive(Debug, Clone, Copy)]
pub struct Prefixes<'a> {
    own: Option<&'a BTreeMap<String, String>>,
    outer: &'a BTreeMap<String, String>,
}

impl<'a> Prefixes<'a> {
    /// The prefixes of a document.
    pub fn new(outer: &'a BTreeMap<String, String>) -> Self {
        Prefixes { own: None, outer }
    }

    /// A bundle's prefixes (`own`) within its document's (`outer`).
    pub fn within(outer: &'a BTreeMap<String, String>, own: &'a BTreeMap<String, String>) -> Self {
        Prefixes { own: Some(own), outer }
    }

    pub fn get(&self, prefix: &str) -> Option<&'a str> {
        self.own.and_then(|o| o.get(prefix)).or_else(|| self.outer.get(prefix)).map(String::as_str)
    }
}

/// The prefixes of a document and of each of its bundles (see [`Document::scopes`]).
pub struct Scopes<'a> {
    doc: &'a Document,
    bundles: HashMap<&'a str, &'a BTreeMap<String, String>>,
}

impl<'a> Scopes<'a> {
    /// The prefixes in scope in a bundle (its own over the document's), or the document's.
    pub fn get(&self, bundle: Option<&str>) -> Prefixes<'a> {
        match bundle.and_then(|b| self.bundles.get(b)) {
            Some(own) => Prefixes::within(&self.doc.prefixes, own),
            None => Prefixes::new(&self.doc.prefixes),
        }
    }
}

/// A qualified name as an IRI, with the prefixes in scope (`default` for one with none);
/// none when its prefix is unknown.
pub fn expand(q: &str, prefixes: Prefixes<'_>) -> Option<String> {
    let known = |p: &str| match p {
        "prov" => Some(PROV_NS),
        "xsd" => Some(XSD_NS),
        p => prefixes.get(p),
    };
    match q.split_once(':') {
        Some((p, l)) if known(p).is_some() => Some(format!("{}{l}", known(p)?)),
        _ => prefixes.get("default").map(|d| format!("{d}{q}")),
    }
}

#[cfg(test)]
#[path = "doc_tests.rs"]
mod tests;
