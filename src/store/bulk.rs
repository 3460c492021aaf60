//! The `GRAPH.BULK` binary format (FalkorDB's "GRAPH.BULK endpoint specification"): a delta
//! encoded as the commands that build a new graph holding exactly what the `UNWIND … MERGE`
//! path ([`super::write`]) would make of it, property by property.
//!
//! One command is `GRAPH.BULK <graph> [BEGIN] <nodes> <edges> <label blobs> <type blobs>
//! <blob>…`. A blob describes one label or relationship type: its name and its property
//! names (each NUL-terminated, after a `u32` count), then one record per entity: for an
//! edge, the `u64` ids of its endpoints first; then one typed value per property (a type
//! byte, then the value; type 0, null, leaves the property unset). Node ids are given by the
//! order nodes are sent in, across commands, so every node goes out before any edge.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::shapes::{stored_key, stored_value};
use super::write::{edge_props, node_props};
use crate::model::vocab::{EdgeKind, Label, RelType, TgType, PROV_BASE_TYPE, PROV_TYPE};
use crate::model::{Edge, GraphDelta, Node, NodeRef, PropValue, Props};

const NULL: u8 = 0;
const BOOL: u8 = 1;
const DOUBLE: u8 = 2;
const STRING: u8 = 3;
const LONG: u8 = 4;
const ARRAY: u8 = 5;

/// Size limits of the commands sent (Redis allows 512 MiB per argument and 1 GiB per
/// command). A command is held up to four times while it is sent (the encoder's, the one
/// waiting in the channel, the client's arguments and its packed bytes), so its size sets
/// the ingest's memory; smaller pieces also let the server build while the next one is
/// encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub max_blob: usize,
    pub max_command: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_blob: 8 << 20, max_command: 16 << 20 }
    }
}

/// One `GRAPH.BULK` command's arguments after the graph name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BulkCommand {
    pub begin: bool,
    pub nodes: u64,
    pub edges: u64,
    pub label_blobs: Vec<Vec<u8>>,
    pub type_blobs: Vec<Vec<u8>>,
}

impl BulkCommand {
    fn bytes(&self) -> usize {
        self.label_blobs.iter().chain(&self.type_blobs).map(Vec::len).sum()
    }
}

/// Why a delta cannot go through the bulk path (it then goes through `MERGE`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unsupported {
    #[error("a string property holds a NUL character ({0}), which GRAPH.BULK cannot carry")]
    NulInString(String),
    #[error("a name holds a NUL character ({0}), which GRAPH.BULK cannot carry")]
    NulInName(String),
    #[error("two node names have the same 64-bit hash, which a streamed build cannot tell apart")]
    HashCollision,
    #[error("{0} nodes are more than a streamed build numbers")]
    TooManyNodes(u64),
}

/// The encoded graph: its commands, and how many nodes and edges they create.
#[derive(Debug, Clone, Default)]
pub struct Encoded {
    pub commands: Vec<BulkCommand>,
    pub nodes: u64,
    pub edges: u64,
}

/// The edges of one type by (source label, kind, target label), with their endpoints' ids.
type EdgeGroups<'a> = BTreeMap<(Label, EdgeKind, Label), Vec<(u64, u64, &'a Edge)>>;

/// Encodes a delta into `GRAPH.BULK` commands for a new graph, collected (see
/// [`encode_each`]).
pub fn encode(delta: &GraphDelta, limits: Limits) -> Result<Encoded, Unsupported> {
    let mut commands = Vec::new();
    let (nodes, edges) = encode_each(delta, limits, |c| {
        commands.push(c);
        true
    })?;
    Ok(Encoded { commands, nodes, edges })
}

/// Encodes a delta into `GRAPH.BULK` commands for a new graph, handing each to `send` as
/// soon as it is complete (`send` returns false to stop); returns the nodes and edges
/// encoded. Nodes are grouped by label and edges by (source label, type, kind, target
/// label) in the order the `MERGE` path writes them, with the properties it sets
/// ([`node_props`], [`edge_props`]). Each edge of the delta is one edge (the delta already
/// merged those with the same endpoints, type and kind, which is also what one `MERGE` write
/// keeps apart: an edge without a kind next to one with a kind stays a second edge), and an
/// edge whose endpoint is not in the delta is left out, as `MATCH` leaves it out.
pub fn encode_each(
    delta: &GraphDelta,
    limits: Limits,
    send: impl FnMut(BulkCommand) -> bool,
) -> Result<(u64, u64), Unsupported> {
    let mut ids: HashMap<(Label, &str), u64> = HashMap::with_capacity(delta.node_count());
    let mut out = Writer::new(limits, send);
    let mut next = 0u64;
    if !encode_nodes(delta.nodes(), &mut out, &mut next, |n, id| {
        ids.insert((n.label, n.name.as_str()), id);
    })? {
        return Ok((next, 0));
    }
    let (edges, _) =
        encode_edges(delta.edges(), &mut out, |r| ids.get(&(r.label, r.name.as_str())).copied())?;
    drop(ids);
    out.finish();
    Ok((next, edges))
}

/// Encodes nodes into `out`, grouped by their labels, numbered from `*next` on (which it
/// advances); tells `id` each node's number. False when the receiver has stopped.
pub(super) fn encode_nodes<'a, F: FnMut(BulkCommand) -> bool>(
    nodes: impl Iterator<Item = &'a Node>,
    out: &mut Writer<F>,
    next: &mut u64,
    mut id: impl FnMut(&'a Node, u64),
) -> Result<bool, Unsupported> {
    // Nodes by label and further labels (a blob names them all: `Explain:Analysis:ToolUse`).
    let mut by_label: BTreeMap<(Label, Vec<TgType>), Vec<&Node>> = BTreeMap::new();
    for node in nodes {
        by_label.entry((node.label, super::write::further_labels(node))).or_default().push(node);
    }
    let empty = Props::new();
    for ((label, further), nodes) in &by_label {
        // The properties node_props adds, by the name they are set under.
        let (prov_type, base) = (label.prov_type(), label.base_type().as_str());
        let extra = node_props(*label, "", &empty);
        let columns = columns(nodes.iter().map(|n| &n.props).chain([&extra]));
        let name: String = std::iter::once(label.as_str())
            .chain(further.iter().map(|t| t.as_str()))
            .collect::<Vec<_>>()
            .join(":");
        let mut blob = Blob::new(&name, &columns)?;
        for n in nodes {
            let mut record = Vec::with_capacity(64);
            for c in &columns {
                match c.as_str() {
                    "name" => string(&mut record, &n.name)?,
                    // An `Explain` node's kinds are its record's, else the defaults `node_props` gives.
                    PROV_TYPE | PROV_BASE_TYPE if *label == Label::Explain => {
                        match node_props(*label, &n.name, &n.props).get(c.as_str()) {
                            Some(v) => value(&mut record, v)?,
                            None => record.push(NULL),
                        }
                    }
                    PROV_TYPE => string(&mut record, &prov_type)?,
                    PROV_BASE_TYPE => string(&mut record, base)?,
                    other => match n.props.get(other) {
                        Some(v) => value(&mut record, &stored_value(v))?,
                        None => record.push(NULL),
                    },
                }
            }
            id(n, *next);
            *next += 1;
            if !out.push(&mut blob, record, true) {
                return Ok(false);
            }
        }
        out.finish_blob(blob, true);
    }
    Ok(true)
}

/// Encodes the edges whose endpoints `id` numbers into `out`, grouped by type and kind;
/// returns how many, and false when the receiver has stopped.
pub(super) fn encode_edges<'a, F: FnMut(BulkCommand) -> bool>(
    edges: impl Iterator<Item = &'a Edge>,
    out: &mut Writer<F>,
    id: impl Fn(&NodeRef) -> Option<u64>,
) -> Result<(u64, bool), Unsupported> {
    let mut by_rel: BTreeMap<RelType, EdgeGroups<'_>> = BTreeMap::new();
    let mut count = 0u64;
    for e in edges {
        let (Some(s), Some(t)) = (id(&e.source), id(&e.target)) else {
            continue;
        };
        by_rel
            .entry(e.rel)
            .or_default()
            .entry((e.source.label, e.kind, e.target.label))
            .or_default()
            .push((s, t, e));
        count += 1;
    }
    let empty = Props::new();
    for (rel, groups) in by_rel {
        let kind_keys: Vec<Props> = groups.keys().map(|(_, kind, _)| edge_props(*kind, &empty)).collect();
        let columns = columns(groups.values().flatten().map(|(_, _, e)| &e.props).chain(kind_keys.iter()));
        let mut blob = Blob::new(rel.as_str(), &columns)?;
        for ((_, kind, _), rows) in groups {
            let key = kind.key();
            for (source, target, e) in rows {
                let mut record = Vec::with_capacity(16 + 16 * columns.len());
                record.extend_from_slice(&source.to_le_bytes());
                record.extend_from_slice(&target.to_le_bytes());
                for c in &columns {
                    match (key, e.props.get(c.as_str())) {
                        (Some((k, v)), _) if k == c => string(&mut record, v)?,
                        (_, Some(v)) => value(&mut record, &stored_value(v))?,
                        (_, None) => record.push(NULL),
                    }
                }
                if !out.push(&mut blob, record, false) {
                    return Ok((count, false));
                }
            }
        }
        out.finish_blob(blob, false);
    }
    Ok((count, true))
}

/// A blob with no records naming every label, in [`super::schemas::labels`]' order: sent
/// first, it gives a graph built in bulk its labels in the order upserts give them, so
/// `labels(n)` reads the same.
pub(super) fn labels_blob() -> Vec<u8> {
    let name = super::schemas::labels().join(":");
    Blob::new(&name, &[]).expect("vocabulary names hold no NUL").take().0
}

/// The sorted union of the property names.
fn columns<'a>(props: impl Iterator<Item = &'a Props>) -> Vec<String> {
    let mut set: BTreeSet<&str> = BTreeSet::new();
    for p in props {
        set.extend(p.keys().map(|k| k.as_ref()));
    }
    set.into_iter().map(str::to_owned).collect()
}

/// One typed value, as the `MERGE` path's parameters give it (a non-finite float is written
/// as its text there, so here too).
pub fn value(out: &mut Vec<u8>, v: &PropValue) -> Result<(), Unsupported> {
    match v {
        PropValue::Bool(b) => out.extend_from_slice(&[BOOL, u8::from(*b)]),
        PropValue::Int(i) => {
            out.push(LONG);
            out.extend_from_slice(&i.to_le_bytes());
        }
        PropValue::Float(f) if f.is_finite() => {
            out.push(DOUBLE);
            out.extend_from_slice(&f.to_le_bytes());
        }
        PropValue::Float(f) => string(out, &f.to_string())?,
        PropValue::Str(s) => string(out, s)?,
        PropValue::List(items) => {
            out.push(ARRAY);
            out.extend_from_slice(&(items.len() as i64).to_le_bytes());
            for item in items {
                value(out, item)?;
            }
        }
    }
    Ok(())
}

fn string(out: &mut Vec<u8>, s: &str) -> Result<(), Unsupported> {
    if s.contains('\0') {
        return Err(Unsupported::NulInString(s.chars().take(40).collect()));
    }
    out.push(STRING);
    out.extend_from_slice(s.as_bytes());
    out.push(0);
    Ok(())
}

/// A blob being filled: its header and records so far.
struct Blob {
    header: Vec<u8>,
    records: Vec<u8>,
    count: u64,
}

impl Blob {
    fn new(name: &str, columns: &[String]) -> Result<Blob, Unsupported> {
        let mut header = Vec::new();
        if name.contains('\0') {
            return Err(Unsupported::NulInName(name.chars().take(40).collect()));
        }
        header.extend_from_slice(name.as_bytes());
        header.push(0);
        header.extend_from_slice(&(columns.len() as u32).to_le_bytes());
        // Stored as the upserts store them: a name FalkorDB cannot read in a query escaped
        // (docs/FORMATS.md "Property names and values FalkorDB cannot hold").
        for c in columns {
            header.extend_from_slice(stored_key(c).as_bytes());
            header.push(0);
        }
        Ok(Blob { header, records: Vec::new(), count: 0 })
    }

    fn len(&self) -> usize {
        self.header.len() + self.records.len()
    }

    /// Takes the records so far as a finished blob, keeping the header for the rest.
    fn take(&mut self) -> (Vec<u8>, u64) {
        let mut bytes = Vec::with_capacity(self.len());
        bytes.extend_from_slice(&self.header);
        bytes.append(&mut self.records);
        (bytes, std::mem::take(&mut self.count))
    }
}

/// Cuts blobs and commands at the limits and hands each command on when it is complete.
pub(super) struct Writer<F: FnMut(BulkCommand) -> bool> {
    limits: Limits,
    send: F,
    open: bool,
    current: BulkCommand,
}

impl<F: FnMut(BulkCommand) -> bool> Writer<F> {
    pub(super) fn new(limits: Limits, send: F) -> Self {
        Writer { limits, send, open: true, current: BulkCommand { begin: true, ..Default::default() } }
    }

    /// Adds a record; false when the receiver has stopped.
    fn push(&mut self, blob: &mut Blob, record: Vec<u8>, node: bool) -> bool {
        let grown = blob.len() + record.len();
        if blob.count > 0
            && (grown > self.limits.max_blob || self.current.bytes() + grown > self.limits.max_command)
        {
            let (bytes, count) = blob.take();
            self.add(bytes, count, node);
            self.cut();
        }
        blob.records.extend_from_slice(&record);
        blob.count += 1;
        self.open
    }

    fn finish_blob(&mut self, mut blob: Blob, node: bool) {
        if blob.count > 0 {
            let (bytes, count) = blob.take();
            if self.current.bytes() + bytes.len() > self.limits.max_command && self.current.bytes() > 0 {
                self.cut();
            }
            self.add(bytes, count, node);
        }
    }

    fn add(&mut self, bytes: Vec<u8>, count: u64, node: bool) {
        if node {
            self.current.nodes += count;
            self.current.label_blobs.push(bytes);
        } else {
            self.current.edges += count;
            self.current.type_blobs.push(bytes);
        }
    }

    fn cut(&mut self) {
        if self.open && self.current.nodes + self.current.edges > 0 {
            self.open = (self.send)(std::mem::take(&mut self.current));
        }
    }

    pub(super) fn finish(mut self) {
        self.cut();
    }
}

#[cfg(test)]
#[path = "bulk_tests.rs"]
mod tests;
