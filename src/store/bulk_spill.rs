//! The spill of a bulk build: what an ingest into a new graph reads is written to one private
//! temporary file, in partitions by the hash of each node's and each edge's identity, so that
//! the build reads back one bounded part at a time, merges what was seen more than once as
//! the upserts would, and holds in memory only the nodes' hashes and FalkorDB ids.
//!
//! The file is created without a name in the temporary folder (or unlinked as soon as it is
//! created where the system cannot do that), readable by this process only, so it goes
//! away with the process, also after a crash.

use std::fs::File;
use std::hash::BuildHasher;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::bulk::{encode_edges, encode_nodes, BulkCommand, Limits, Unsupported, Writer};
use crate::model::vocab::{A2aRelation, EdgeKind, Label, ProvRelation, RelType};
use crate::model::{Edge, GraphDelta, Node, NodeRef, PropValue, Props};

/// Partitions of nodes and of edges, by the top bits of their hash (a partition is a range
/// of hashes); each node goes with the position it was seen at.
pub const PARTITIONS: usize = 256;
/// Bytes gathered for one partition before they go to the file as one segment.
const SEGMENT: usize = 64 << 10;
/// How deep lists may nest in a spilled value (the model's values nest one level).
const MAX_DEPTH: usize = 32;

const HASHER: foldhash::quality::FixedState = foldhash::quality::FixedState::with_seed(0x70_72_6f_76_65_78);

/// The 64-bit hash of a node's identity (label and name), the same in every run.
pub fn node_hash(label: Label, name: &str) -> u64 {
    HASHER.hash_one((label as u8, name))
}

fn edge_hash(e: &Edge) -> u64 {
    let kind = kind_code(e.kind);
    let (s, t) = (node_hash(e.source.label, &e.source.name), node_hash(e.target.label, &e.target.name));
    HASHER.hash_one((e.rel as u8, kind, s, t))
}

fn partition(hash: u64) -> usize {
    (hash >> 56) as usize
}

/// Writes what is read into the spill file.
pub struct Spill {
    dir: PathBuf,
    file: File,
    written: u64,
    /// Bytes not yet written, by partition (nodes, then edges).
    buffers: Vec<Vec<u8>>,
    /// The spilled bytes of each partition: its segments (offset, length) in order.
    segments: Vec<Vec<(u64, u32)>>,
    /// Records by partition.
    counts: Vec<u64>,
    rows: u64,
    /// Node records so far: each is spilled with its position, so that the build can
    /// number nodes in the order they were first seen.
    seq: u64,
}

impl Spill {
    /// A spill in the user's temporary folder.
    pub fn new() -> io::Result<Spill> {
        Spill::in_dir(&std::env::temp_dir())
    }

    /// A spill in `dir`.
    pub fn in_dir(dir: &Path) -> io::Result<Spill> {
        Ok(Spill {
            dir: dir.to_owned(),
            file: tempfile::tempfile_in(dir)?,
            written: 0,
            buffers: vec![Vec::new(); 2 * PARTITIONS],
            segments: vec![Vec::new(); 2 * PARTITIONS],
            counts: vec![0; 2 * PARTITIONS],
            rows: 0,
            seq: 0,
        })
    }

    /// The folder the file is in (for errors).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The nodes and edges added so far (before those seen twice are merged).
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Adds a delta's nodes and edges.
    pub fn add(&mut self, delta: GraphDelta) -> io::Result<()> {
        let (nodes, edges) = delta.into_parts();
        self.rows += (nodes.len() + edges.len()) as u64;
        for n in &nodes {
            self.push_node(partition(node_hash(n.label, &n.name)), self.seq, n)?;
            self.seq += 1;
        }
        for e in &edges {
            let p = PARTITIONS + partition(edge_hash(e));
            encode_edge(&mut self.buffers[p], e);
            self.counts[p] += 1;
            self.flush_full(p)?;
        }
        Ok(())
    }

    /// Adds a node with its position to node partition `p`.
    fn push_node(&mut self, p: usize, seq: u64, n: &Node) -> io::Result<()> {
        self.buffers[p].extend_from_slice(&seq.to_le_bytes());
        encode_node(&mut self.buffers[p], n);
        self.counts[p] += 1;
        self.flush_full(p)
    }

    fn flush_full(&mut self, p: usize) -> io::Result<()> {
        if self.buffers[p].len() >= SEGMENT {
            self.flush(p)?;
        }
        Ok(())
    }

    fn flush(&mut self, p: usize) -> io::Result<()> {
        let buf = &mut self.buffers[p];
        if buf.is_empty() {
            return Ok(());
        }
        let len = u32::try_from(buf.len()).map_err(|_| io::Error::other("spill segment over 4 GiB"))?;
        self.file.write_all(buf)?;
        self.segments[p].push((self.written, len));
        self.written += u64::from(len);
        buf.clear();
        Ok(())
    }

    /// Writes what is still gathered and hands the file over for reading.
    pub fn finish(mut self) -> io::Result<Spilled> {
        for p in 0..2 * PARTITIONS {
            self.flush(p)?;
        }
        self.file.flush()?;
        let (dir, file, segments, counts, rows) =
            (self.dir, self.file, self.segments, self.counts, self.rows);
        Ok(Spilled { dir, file, segments, counts, rows })
    }
}

/// A finished spill, read back by partition.
pub struct Spilled {
    dir: PathBuf,
    file: File,
    segments: Vec<Vec<(u64, u32)>>,
    counts: Vec<u64>,
    rows: u64,
}

impl Spilled {
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    fn bytes(&self, p: usize) -> u64 {
        self.segments[p].iter().map(|(_, l)| u64::from(*l)).sum()
    }

    /// Consecutive partitions of nodes (`nodes`) or edges whose spilled bytes and records add
    /// up to at most `part` (a partition over it alone is a group of its own): the parts
    /// read into memory one at a time.
    pub fn groups(&self, nodes: bool, part: Part) -> Vec<Range<usize>> {
        let mut groups = Vec::new();
        let (mut start, mut bytes, mut rows) = (0, 0u64, 0u64);
        for p in 0..PARTITIONS {
            let q = if nodes { p } else { PARTITIONS + p };
            let (b, r) = (self.bytes(q), self.counts[q]);
            if rows > 0 && (bytes + b > part.bytes || rows + r > part.rows) {
                groups.push(start..p);
                (start, bytes, rows) = (p, 0, 0);
            }
            (bytes, rows) = (bytes + b, rows + r);
        }
        if rows > 0 {
            groups.push(start..PARTITIONS);
        }
        groups
    }

    fn read_partition(&self, p: usize, buf: &mut Vec<u8>) -> io::Result<()> {
        buf.clear();
        let mut file = &self.file;
        for &(offset, len) in &self.segments[p] {
            file.seek(SeekFrom::Start(offset))?;
            let start = buf.len();
            buf.resize(start + len as usize, 0);
            file.read_exact(&mut buf[start..])?;
        }
        Ok(())
    }

    /// The nodes of a group of partitions, those seen more than once merged in the order
    /// they were seen ([`GraphDelta::add_node`]: later values win).
    pub fn read_nodes(&self, group: Range<usize>) -> io::Result<GraphDelta> {
        Ok(self.read_nodes_seen(group)?.0)
    }

    /// [`Spilled::read_nodes`], with the position each node was first seen at, in node order.
    fn read_nodes_seen(&self, group: Range<usize>) -> io::Result<(GraphDelta, Vec<u64>)> {
        let mut delta = GraphDelta::new();
        let mut first = Vec::new();
        let mut buf = Vec::new();
        for p in group {
            self.read_partition(p, &mut buf)?;
            let mut r = Reader(&buf);
            while !r.0.is_empty() {
                let seq = r.u64()?;
                delta.add_node(decode_node(&mut r)?);
                if delta.node_count() > first.len() {
                    first.push(seq);
                }
            }
        }
        Ok((delta, first))
    }

    /// The node records spilled (before those seen twice are merged).
    fn node_records(&self) -> u64 {
        self.counts[..PARTITIONS].iter().sum()
    }

    /// The edges of a group of partitions, merged as [`Spilled::read_nodes`] merges nodes.
    pub fn read_edges(&self, group: Range<usize>) -> io::Result<GraphDelta> {
        let mut delta = GraphDelta::new();
        let mut buf = Vec::new();
        for p in group {
            self.read_partition(PARTITIONS + p, &mut buf)?;
            let mut r = Reader(&buf);
            while !r.0.is_empty() {
                delta.add_edge(decode_edge(&mut r)?);
            }
        }
        Ok(delta)
    }
}

/// How much of a spill is read into memory at once.
#[derive(Debug, Clone, Copy)]
pub struct Part {
    /// Spilled bytes.
    pub bytes: u64,
    /// Nodes, or edges.
    pub rows: u64,
}

impl Default for Part {
    /// About 50 MB in memory once decoded (records and the delta's index of them).
    fn default() -> Self {
        Part { bytes: 8 << 20, rows: 100_000 }
    }
}

/// Encodes a spill into `GRAPH.BULK` commands for a new graph, as [`encode_each`] encodes
/// a delta, one part in memory at a time: the nodes part by part (merged, numbered, and
/// their hashes kept with their numbers), then the edges part by part (merged, their
/// endpoints found by hash). An error reading the spill is the outer one.
pub fn encode_spilled(
    spilled: &Spilled,
    limits: Limits,
    part: Part,
    send: impl FnMut(BulkCommand) -> bool,
) -> io::Result<Result<(u64, u64), Unsupported>> {
    let mut out = Writer::new(limits, send);
    // The nodes merged, part by part, into a second file by when they were first seen, so
    // that nodes are numbered in that order within each label (as the upserts create them).
    let total = spilled.node_records().max(1);
    let mut seen = Spill::in_dir(spilled.dir())?;
    let mut distinct = 0;
    for group in spilled.groups(true, part) {
        let (delta, first) = spilled.read_nodes_seen(group)?;
        distinct += delta.node_count();
        for (n, seq) in delta.nodes().zip(first) {
            let bucket = (u128::from(seq) * PARTITIONS as u128 / u128::from(total)) as usize;
            seen.push_node(bucket.min(PARTITIONS - 1), seq, n)?;
        }
    }
    let seen = seen.finish()?;
    // The id map is what a build holds for the whole graph: exactly 12 bytes a node.
    let mut numbered = Vec::with_capacity(distinct);
    let mut next = 0u64;
    let mut buf = Vec::new();
    for bucket in 0..PARTITIONS {
        seen.read_partition(bucket, &mut buf)?;
        let mut nodes = Vec::new();
        let mut r = Reader(&buf);
        while !r.0.is_empty() {
            let seq = r.u64()?;
            nodes.push((seq, decode_node(&mut r)?));
        }
        nodes.sort_unstable_by_key(|(seq, _)| *seq);
        let open = match encode_nodes(nodes.iter().map(|(_, n)| n), &mut out, &mut next, |n, id| {
            numbered.push(Entry { hash: node_hash(n.label, &n.name), id: id as u32 });
        }) {
            Ok(open) => open,
            Err(e) => return Ok(Err(e)),
        };
        if next > u64::from(u32::MAX) {
            return Ok(Err(Unsupported::TooManyNodes(next)));
        }
        if !open {
            return Ok(Ok((next, 0)));
        }
    }
    drop(seen);
    let Some(ids) = IdMap::new(numbered) else { return Ok(Err(Unsupported::HashCollision)) };
    let mut edges = 0;
    for group in spilled.groups(false, part) {
        let delta = spilled.read_edges(group)?;
        match encode_edges(delta.edges(), &mut out, |r| ids.get(r)) {
            Ok((n, open)) => {
                edges += n;
                if !open {
                    return Ok(Ok((next, edges)));
                }
            }
            Err(e) => return Ok(Err(e)),
        }
    }
    out.finish();
    Ok(Ok((next, edges)))
}

/// A node's hash and FalkorDB id, in 12 bytes.
#[derive(Debug, Clone, Copy)]
#[repr(C, packed)]
pub struct Entry {
    pub hash: u64,
    pub id: u32,
}

/// The hashes of the nodes sent with their FalkorDB ids, sorted by hash: 12 bytes a node.
#[derive(Debug, Default)]
pub struct IdMap {
    entries: Vec<Entry>,
}

impl IdMap {
    /// The map of these nodes; `None` when two of them share a hash (two different names:
    /// the map cannot tell them apart).
    pub fn new(mut entries: Vec<Entry>) -> Option<IdMap> {
        entries.sort_unstable_by_key(|e| e.hash);
        if entries.windows(2).any(|w| { w[0].hash } == { w[1].hash }) {
            return None;
        }
        entries.shrink_to_fit();
        Some(IdMap { entries })
    }

    pub fn get(&self, r: &NodeRef) -> Option<u64> {
        let h = node_hash(r.label, &r.name);
        let i = self.entries.binary_search_by_key(&h, |e| e.hash).ok()?;
        let id = self.entries[i].id;
        Some(u64::from(id))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

// The record encoding: a node is its label, name and properties; an edge its type, kind,
// endpoints (label and name each) and properties. Strings are a `u32` length and UTF-8;
// properties a `u32` count, then name and value each; a value a tag and its content.

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn put_value(out: &mut Vec<u8>, v: &PropValue) {
    match v {
        PropValue::Bool(b) => out.extend_from_slice(&[0, u8::from(*b)]),
        PropValue::Int(i) => {
            out.push(1);
            out.extend_from_slice(&i.to_le_bytes());
        }
        PropValue::Float(f) => {
            out.push(2);
            out.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        PropValue::Str(s) => {
            out.push(3);
            put_str(out, s);
        }
        PropValue::List(items) => {
            out.push(4);
            out.extend_from_slice(&(items.len() as u32).to_le_bytes());
            for item in items {
                put_value(out, item);
            }
        }
    }
}

fn put_props(out: &mut Vec<u8>, props: &Props) {
    out.extend_from_slice(&(props.len() as u32).to_le_bytes());
    for (k, v) in props {
        put_str(out, k);
        put_value(out, v);
    }
}

fn kind_code(kind: EdgeKind) -> [u8; 2] {
    match kind {
        EdgeKind::Prov(r) => [0, r as u8],
        EdgeKind::A2a(r) => [1, r as u8],
        EdgeKind::Plain => [2, 0],
    }
}

/// Appends a node's record.
pub fn encode_node(out: &mut Vec<u8>, n: &Node) {
    out.push(n.label as u8);
    put_str(out, &n.name);
    put_props(out, &n.props);
}

/// Appends an edge's record.
pub fn encode_edge(out: &mut Vec<u8>, e: &Edge) {
    out.push(e.rel as u8);
    out.extend_from_slice(&kind_code(e.kind));
    for end in [&e.source, &e.target] {
        out.push(end.label as u8);
        put_str(out, &end.name);
    }
    put_props(out, &e.props);
}

/// The bytes of a partition not decoded yet.
pub struct Reader<'a>(pub &'a [u8]);

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("spill file: {what}"))
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> io::Result<&[u8]> {
        if self.0.len() < n {
            return Err(bad("a record is cut short"));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn u8(&mut self) -> io::Result<u8> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> io::Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }

    fn u64(&mut self) -> io::Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }

    fn string(&mut self) -> io::Result<String> {
        let n = self.u32()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| bad("a string is not UTF-8"))
    }

    fn label(&mut self) -> io::Result<Label> {
        Label::ALL.get(self.u8()? as usize).copied().ok_or_else(|| bad("unknown label"))
    }

    fn value(&mut self, depth: usize) -> io::Result<PropValue> {
        Ok(match self.u8()? {
            0 => PropValue::Bool(self.u8()? != 0),
            1 => PropValue::Int(self.u64()? as i64),
            2 => PropValue::Float(f64::from_bits(self.u64()?)),
            3 => PropValue::Str(self.string()?),
            4 if depth < MAX_DEPTH => {
                let n = self.u32()? as usize;
                let mut items = Vec::with_capacity(n.min(self.0.len()));
                for _ in 0..n {
                    items.push(self.value(depth + 1)?);
                }
                PropValue::List(items)
            }
            4 => return Err(bad("lists nested too deep")),
            _ => return Err(bad("unknown value type")),
        })
    }

    fn props(&mut self) -> io::Result<Props> {
        let mut props = Props::new();
        for _ in 0..self.u32()? {
            let k = self.string()?;
            props.insert(k.into(), self.value(0)?);
        }
        Ok(props)
    }
}

/// Reads the next node's record.
pub fn decode_node(r: &mut Reader<'_>) -> io::Result<Node> {
    let label = r.label()?;
    let name = r.string()?;
    Ok(Node { label, name, props: r.props()? })
}

/// Reads the next edge's record.
pub fn decode_edge(r: &mut Reader<'_>) -> io::Result<Edge> {
    let rel = RelType::ALL.get(r.u8()? as usize).copied().ok_or_else(|| bad("unknown type"))?;
    let (tag, code) = (r.u8()?, r.u8()? as usize);
    let kind = match tag {
        0 => EdgeKind::Prov(*ProvRelation::ALL.get(code).ok_or_else(|| bad("unknown PROV relation"))?),
        1 => EdgeKind::A2a(*A2aRelation::ALL.get(code).ok_or_else(|| bad("unknown A2A relation"))?),
        2 => EdgeKind::Plain,
        _ => return Err(bad("unknown edge kind")),
    };
    let source = NodeRef { label: r.label()?, name: r.string()? };
    let target = NodeRef { label: r.label()?, name: r.string()? };
    Ok(Edge { rel, kind, source, target, props: r.props()? })
}

#[cfg(test)]
#[path = "bulk_spill_tests.rs"]
mod tests;
