//! PROV-JSON in (docs/FORMATS.md "W3C PROV-JSON"): every record becomes a node (`Entity`,
//! `Activity`, `Agent`) named by its IRI, every relation an edge from its first argument to
//! its second, and each keeps what the document said of it, as read (its qualified name, its
//! bodies, the relation's key and body), so that exporting the graph gives back a document
//! the `prov` library finds equal. A relation with one end is kept on that end's node; an id
//! a relation names but no record declares becomes a node with no bodies (exported as no
//! record). Prefixes go to a `Namespaces` node, bundles to `Bundle` nodes whose records name
//! them. A record or relation that cannot be read is rejected with the line it starts on;
//! the rest of the document is kept. A document Provex exported gives back the nodes and
//! edges it was made from, as they were (`prov::native`).

use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasher;

use serde_json::{json, Map, Value as Json};

use super::doc::{expand, key, local, Kind, Prefixes, GRAPH_NS, PROVEX_NS};
use super::keys::Keys;
use super::native;
use super::relations::{RelSpec, RELATIONS};
use crate::model::{Edge, EdgeKind, GraphDelta, Label, Node, NodeRef};

/// What a document gave: the graph delta, the records and relations read, and what was
/// rejected (line, reason).
#[derive(Debug, Default)]
pub struct Imported {
    pub delta: GraphDelta,
    pub statements: u64,
    pub rejected: Vec<(u64, String)>,
}

const RECORD_SECTIONS: [(&str, Kind); 3] =
    [("entity", Kind::Entity), ("activity", Kind::Activity), ("agent", Kind::Agent)];

fn label(kind: Kind) -> Label {
    match kind {
        Kind::Entity => Label::Entity,
        Kind::Activity => Label::Activity,
        Kind::Agent => Label::Agent,
    }
}

/// A node being built: its qualified name, bodies and one-ended relations.
#[derive(Default)]
struct Pending {
    qname: String,
    bodies: Option<Vec<Json>>,
    loose: Vec<Json>,
    bundle: Option<String>,
    /// Not written (the prefixes of a document that held only Provex's own records).
    dropped: bool,
}

/// An edge's ends and the relation it stands for.
type EdgeId = (NodeRef, &'static RelSpec, NodeRef);

/// The scope being read: where its object starts, its bundle (qualified name and IRI), its
/// prefixes, and whether it is a document Provex exported.
struct Scope<'p> {
    at: usize,
    bundle: Option<(String, String)>,
    prefixes: Prefixes<'p>,
    ours: bool,
}

impl Scope<'_> {
    /// The bundle's qualified name.
    fn qname(&self) -> Option<String> {
        self.bundle.as_ref().map(|(q, _)| q.clone())
    }
}

struct Reader {
    /// Where the members of the document's objects are in its text.
    keys: Keys,
    /// Where each newline of the text is.
    newlines: Vec<usize>,
    out: Imported,
    /// Nodes by (label, name), in the order first seen.
    nodes: Vec<((Label, String), Pending)>,
    node_at: HashMap<(Label, String), usize>,
    /// The label each (bundle, IRI) was declared with first.
    kinds: HashMap<(Option<String>, String), Label>,
    edges: Vec<(EdgeId, Vec<Json>)>,
    edge_at: HashMap<(NodeRef, &'static str, NodeRef), usize>,
    /// Provex's own nodes and edges (`prov::native`), restored as they were exported.
    native: GraphDelta,
    /// Provex's own nodes by the qualified name of their record.
    native_at: HashMap<String, NodeRef>,
    /// Records and relations read that were not Provex's own.
    foreign: u64,
}

impl Reader {
    /// The line (1-based) of a byte of the text.
    fn line(&self, pos: usize) -> u64 {
        self.newlines.partition_point(|&p| p < pos) as u64 + 1
    }

    /// Where member `key` of the object at byte `object` starts, and where its value does
    /// (the object's own start when it cannot be found).
    fn member(&self, object: usize, key: &str) -> (usize, usize) {
        self.keys.get(object, key).map_or((object, object), |m| (m.key, m.value))
    }

    /// The line of member `key` of the object at byte `object`.
    fn line_of(&self, key: &str, object: usize) -> u64 {
        self.line(self.member(object, key).0)
    }

    fn reject(&mut self, line: u64, reason: String) {
        self.out.rejected.push((line, reason));
    }

    fn node(&mut self, label: Label, name: &str) -> &mut Pending {
        let k = (label, name.to_owned());
        let i = match self.node_at.get(&k) {
            Some(&i) => i,
            None => {
                self.node_at.insert(k.clone(), self.nodes.len());
                self.nodes.push((k, Pending::default()));
                self.nodes.len() - 1
            }
        };
        &mut self.nodes[i].1
    }

    /// A node's name: its IRI, after its bundle's in a bundle.
    fn name(bundle: Option<&(String, String)>, iri: &str) -> String {
        match bundle {
            Some((_, b)) => format!("{b} {iri}"),
            None => iri.to_owned(),
        }
    }

    /// Reads one scope: the document, or a bundle (`bundle`: its qualified name and IRI;
    /// `outer`: the document's prefixes). `at` is where the scope's object starts.
    fn scope(
        &mut self,
        obj: &Map<String, Json>,
        at: usize,
        bundle: Option<(String, String)>,
        outer: Option<&BTreeMap<String, String>>,
    ) {
        let own = self.own_prefixes(obj, at);
        let prefixes = match outer {
            Some(outer) => Prefixes::within(outer, &own),
            None => Prefixes::new(&own),
        };
        let own_json = json!(own);
        let hash = foldhash::fast::FixedState::with_seed(7).hash_one(own_json.to_string());
        let scope_name = match &bundle {
            Some((_, b)) => format!("prefixes of {b}"),
            None => format!("prefixes {hash:016x}"),
        };
        // A document Provex exported: its own nodes and edges are restored as they were.
        let ours = bundle.is_none()
            && prefixes.get("provex") == Some(PROVEX_NS)
            && prefixes.get("pxg").is_some_and(|g| g.starts_with(GRAPH_NS));
        let foreign_before = self.foreign;
        let scope = Scope { at, bundle, prefixes, ours };
        let ns = self.node(Label::Namespaces, &scope_name);
        ns.bodies = Some(vec![own_json]);
        ns.bundle = scope.qname();
        self.records(obj, &scope);
        self.relations(obj, &scope);
        self.bundles(obj, &scope, &own);
        let only_ours = own.keys().all(|p| p == "provex" || p == "pxg");
        if ours && only_ours && self.foreign == foreign_before && !self.native.is_empty() {
            self.node(Label::Namespaces, &scope_name).dropped = true;
        }
        self.unknown_sections(obj, at);
    }

    /// A scope's own `prefix` object (bad entries rejected).
    fn own_prefixes(&mut self, obj: &Map<String, Json>, at: usize) -> BTreeMap<String, String> {
        let mut own = BTreeMap::new();
        let Some(p) = obj.get("prefix") else { return own };
        let line = self.line_of("prefix", at);
        match p.as_object() {
            Some(o) => {
                for (k, v) in o {
                    match v.as_str() {
                        Some(ns) => {
                            own.insert(k.clone(), ns.to_owned());
                        }
                        None => self.reject(line, format!("prefix {k}: the namespace is not a string")),
                    }
                }
            }
            None => self.reject(line, "prefix: not an object of prefixes".into()),
        }
        own
    }

    /// A scope's `entity`, `activity` and `agent` sections.
    fn records(&mut self, obj: &Map<String, Json>, scope: &Scope<'_>) {
        for (section, kind) in RECORD_SECTIONS {
            let Some(v) = obj.get(section) else { continue };
            let (key_at, pos) = self.member(scope.at, section);
            let Some(records) = v.as_object() else {
                self.reject(self.line(key_at), format!("{section}: not an object of records"));
                continue;
            };
            for (q, v) in records {
                let bodies: Vec<Json> = match v {
                    Json::Array(items) => items.clone(),
                    one => vec![one.clone()],
                };
                if let Some(bad) = bodies.iter().find(|b| !b.is_object()) {
                    let line = self.line_of(q, pos);
                    self.reject(line, format!("{section} {q}: a body is not an object ({bad})"));
                    continue;
                }
                if scope.ours && self.native_record(q, &bodies) {
                    continue;
                }
                let Some(iri) = expand(q, scope.prefixes) else {
                    let line = self.line_of(q, pos);
                    self.reject(line, format!("{section} {q}: its prefix is not declared"));
                    continue;
                };
                self.foreign += 1;
                let l = label(kind);
                self.kinds.entry((scope.qname(), iri.clone())).or_insert(l);
                let name = Self::name(scope.bundle.as_ref(), &iri);
                let n = self.node(l, &name);
                if n.qname.is_empty() {
                    n.qname = q.clone();
                }
                n.bundle = scope.qname();
                n.bodies.get_or_insert_with(Vec::new).extend(bodies);
                self.out.statements += 1;
            }
        }
    }

    /// A record Provex exported, restored as the node it was made from; false when it is not
    /// one (then it is read as any other record).
    fn native_record(&mut self, q: &str, bodies: &[Json]) -> bool {
        let nodes: Option<Vec<Node>> = bodies.iter().map(native::node).collect();
        // The id export gives a node: `pxg:` and its name, encoded.
        let named = |n: &Vec<Node>| n.iter().all(|n| q.strip_prefix("pxg:") == Some(local(&n.name).as_str()));
        let Some(nodes) = nodes.filter(|n| !n.is_empty() && named(n)) else { return false };
        self.native_at.entry(q.to_owned()).or_insert_with(|| nodes[0].node_ref());
        for n in nodes {
            self.native.add_node(n);
        }
        self.out.statements += 1;
        true
    }

    /// A scope's relation sections (`wasGeneratedBy`, `used`, …).
    fn relations(&mut self, obj: &Map<String, Json>, scope: &Scope<'_>) {
        for spec in &RELATIONS {
            let Some(v) = obj.get(spec.name) else { continue };
            let (key_at, pos) = self.member(scope.at, spec.name);
            let Some(rels) = v.as_object() else {
                self.reject(self.line(key_at), format!("{}: not an object of relations", spec.name));
                continue;
            };
            for (k, v) in rels {
                let bodies: Vec<&Json> = match v {
                    Json::Array(items) => items.iter().collect(),
                    one => vec![one],
                };
                for body in bodies {
                    if scope.ours {
                        if let Some(e) = native::edge(spec, body, |q| self.native_at.get(q).cloned()) {
                            self.native.add_edge(e);
                            self.out.statements += 1;
                            continue;
                        }
                    }
                    match self.relation(spec, k, body, scope.bundle.as_ref(), scope.prefixes) {
                        Ok(()) => {
                            self.out.statements += 1;
                            self.foreign += 1;
                        }
                        Err(reason) => {
                            let line = self.line_of(k, pos);
                            self.reject(line, format!("{} {k}: {reason}", spec.name))
                        }
                    }
                }
            }
        }
    }

    /// The document's `bundle` section: each bundle read as a scope of its own.
    fn bundles(&mut self, obj: &Map<String, Json>, scope: &Scope<'_>, own: &BTreeMap<String, String>) {
        let Some(v) = obj.get("bundle") else { return };
        let (key_at, pos) = self.member(scope.at, "bundle");
        let line = self.line(key_at);
        match v.as_object() {
            Some(bundles) if scope.bundle.is_none() => {
                for (q, body) in bundles {
                    let (key_at, at) = self.member(pos, q);
                    let line = self.line(key_at);
                    let (Some(iri), Some(body)) = (expand(q, scope.prefixes), body.as_object()) else {
                        self.reject(line, format!("bundle {q}: an undeclared prefix, or not an object"));
                        continue;
                    };
                    let n = self.node(Label::Bundle, &iri);
                    n.qname = q.clone();
                    // Bundles do not nest: this recursion is one level deep.
                    self.scope(body, at, Some((q.clone(), iri)), Some(own));
                }
            }
            Some(_) => self.reject(line, "bundle: bundles do not nest".into()),
            None => self.reject(line, "bundle: not an object of bundles".into()),
        }
    }

    /// Members of a scope that are not PROV-JSON sections, rejected.
    fn unknown_sections(&mut self, obj: &Map<String, Json>, at: usize) {
        for k in obj.keys() {
            let known = k == "prefix"
                || k == "bundle"
                || RECORD_SECTIONS.iter().any(|(s, _)| s == k)
                || RELATIONS.iter().any(|r| r.name == k);
            if !known {
                let line = self.line_of(k, at);
                self.reject(line, format!("{k}: not a PROV-JSON section"));
            }
        }
    }

    /// One relation body: an edge between its two ends, or kept on its one end.
    fn relation(
        &mut self,
        spec: &'static RelSpec,
        k: &str,
        body: &Json,
        bundle: Option<&(String, String)>,
        prefixes: Prefixes<'_>,
    ) -> Result<(), String> {
        let obj = body.as_object().ok_or("the body is not an object")?;
        // Each argument a qualified name; the second end may be several (a collection's
        // members), each an edge.
        let mut names: [Vec<&str>; 2] = [Vec::new(), Vec::new()];
        for (i, role) in spec.roles.iter().enumerate() {
            let ok = match obj.get(*role) {
                None | Some(Json::String(_)) => true,
                Some(Json::Array(items)) if i == 1 => items.iter().all(Json::is_string),
                Some(_) => false,
            };
            if !ok {
                return Err(format!("{role} is not a qualified name"));
            }
            if let Some(end) = names.get_mut(i) {
                match obj.get(*role) {
                    Some(Json::String(q)) => end.push(q),
                    Some(Json::Array(items)) => end.extend(items.iter().filter_map(Json::as_str)),
                    _ => {}
                }
            }
        }
        let b_qname = bundle.map(|(q, _)| q.clone());
        // Every name resolved before any node is made: a rejected relation leaves nothing.
        let mut resolved: [Vec<(Label, String, Option<&str>)>; 2] = [Vec::new(), Vec::new()];
        for (i, end) in resolved.iter_mut().enumerate() {
            for q in &names[i] {
                if let Some(n) = self.native_at.get(*q).filter(|_| bundle.is_none()) {
                    end.push((n.label, n.name.clone(), None));
                    continue;
                }
                let iri = expand(q, prefixes)
                    .ok_or_else(|| format!("{}: the prefix of {q} is not declared", spec.roles[i]))?;
                let declared = self.kinds.get(&(b_qname.clone(), iri.clone())).copied();
                let l = declared.unwrap_or_else(|| label(spec.kinds[i].unwrap_or(Kind::Entity)));
                end.push((l, Self::name(bundle, &iri), Some(*q)));
            }
        }
        let mut ends: [Vec<NodeRef>; 2] = [Vec::new(), Vec::new()];
        for (end, names) in ends.iter_mut().zip(resolved) {
            for (l, name, q) in names {
                // Provex's own node (no qualified name here) is there already.
                if let Some(q) = q {
                    let n = self.node(l, &name);
                    if n.qname.is_empty() {
                        n.qname = q.to_owned();
                        n.bundle = b_qname.clone();
                    }
                }
                end.push(NodeRef::new(l, name));
            }
        }
        let mut entry = Some(json!({"section": spec.name, "key": k, "body": body, "bundle": b_qname}));
        let [firsts, seconds] = ends;
        match (firsts.first(), seconds.is_empty()) {
            (Some(a), false) => {
                // The relation is kept on its first edge; the others only draw it.
                for b in seconds {
                    let id = (a.clone(), spec.name, b.clone());
                    let i = match self.edge_at.get(&id) {
                        Some(&i) => i,
                        None => {
                            self.edge_at.insert(id, self.edges.len());
                            self.edges.push(((a.clone(), spec, b), Vec::new()));
                            self.edges.len() - 1
                        }
                    };
                    self.edges[i].1.extend(entry.take());
                }
            }
            (Some(one), true) => self.node(one.label, &one.name.clone()).loose.extend(entry.take()),
            (None, false) => {
                let one = seconds[0].clone();
                self.node(one.label, &one.name).loose.extend(entry.take());
            }
            (None, true) => return Err(format!("it names neither {} nor {}", spec.roles[0], spec.roles[1])),
        }
        Ok(())
    }

    fn finish(mut self) -> Imported {
        self.out.delta.extend(std::mem::take(&mut self.native));
        for ((l, name), p) in self.nodes {
            if p.dropped {
                continue;
            }
            let mut n = Node::new(l, name);
            if l == Label::Namespaces {
                let prefixes = p.bodies.and_then(|mut b| b.pop()).unwrap_or(Json::Null);
                n = n.with(key::PREFIXES, prefixes.to_string());
            } else {
                n = n.with(key::QNAME, p.qname);
                if let Some(bodies) = p.bodies {
                    n = n.with(key::ATTRIBUTES, Json::Array(bodies).to_string());
                }
            }
            if let Some(b) = p.bundle {
                n = n.with(key::BUNDLE, b);
            }
            if !p.loose.is_empty() {
                n = n.with(key::RELATIONS, Json::Array(p.loose).to_string());
            }
            self.out.delta.add_node(n);
        }
        for ((a, spec, b), entries) in self.edges {
            let e = Edge::new(spec.rel(), EdgeKind::Prov(spec.prov), a, b)
                .with(key::RELATIONS, Json::Array(entries).to_string());
            self.out.delta.add_edge(e);
        }
        self.out
    }
}

/// Reads a PROV-JSON document. Fails only when the text is not one JSON object; records and
/// relations that cannot be read are in [`Imported::rejected`].
pub fn import(text: &str) -> Result<Imported, (u64, String)> {
    let value: Json = serde_json::from_str(text)
        .map_err(|e| (e.line() as u64, format!("not a PROV-JSON document: {e}")))?;
    let Json::Object(obj) = value else {
        return Err((1, "not a PROV-JSON document: the text is not a JSON object".into()));
    };
    let mut r = Reader {
        keys: Keys::new(text),
        newlines: text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i).collect(),
        out: Imported::default(),
        nodes: Vec::new(),
        node_at: HashMap::new(),
        kinds: HashMap::new(),
        edges: Vec::new(),
        edge_at: HashMap::new(),
        native: GraphDelta::new(),
        native_at: HashMap::new(),
        foreign: 0,
    };
    r.scope(&obj, Keys::root(text), None, None);
    Ok(r.finish())
}

/// Whether a JSON object looks like a PROV-JSON document: a PROV-JSON section among its keys
/// (an unknown one is rejected on its own when the document is read), and none of the keys
/// the other formats open with.
pub fn looks_like(obj: &Map<String, Json>) -> bool {
    let section = |k: &str| {
        k == "prefix"
            || k == "bundle"
            || RECORD_SECTIONS.iter().any(|(s, _)| *s == k)
            || RELATIONS.iter().any(|r| r.name == k)
    };
    obj.keys().any(|k| section(k))
        && !obj.keys().any(|k| ["@type", "@context", "Task", "Global"].contains(&k.as_str()))
}
