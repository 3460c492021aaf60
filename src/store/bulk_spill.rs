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
use std::sync::atomic::{AtomicUsize, Ordering};

use super::bulk::{encode_edges, encode_nodes, BulkCommand, Limits, Unsupported, Writer};
use super::bulk_records::kind_code;
pub use super::bulk_records::{decode_edge, decode_node, encode_edge, encode_node, Reader};
use crate::model::vocab::Label;
use crate::model::{Edge, GraphDelta, Node, NodeRef};

/// Partitions of nodes and of edges, by the top bits of their hash (a partition is a range
/// of hashes); each node goes with the position it was seen at.
pub const PARTITIONS: usize = 256;
/// Bytes gathered for one partition before they go to the file as one segment.
const SEGMENT: usize = 64 << 10;

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
        Ok(Spilled { dir, file, segments, counts, rows, most_read: AtomicUsize::new(0) })
    }
}

/// A finished spill, read back by partition.
pub struct Spilled {
    dir: PathBuf,
    file: File,
    segments: Vec<Vec<(u64, u32)>>,
    counts: Vec<u64>,
    rows: u64,
    /// The most bytes of the file read into memory at once when reading partitions back.
    most_read: AtomicUsize,
}

impl Spilled {
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// The most bytes read back at once by [`Spilled::read_nodes`] and
    /// [`Spilled::read_edges`]: one segment, however often a node recurs.
    pub fn most_read(&self) -> usize {
        self.most_read.load(Ordering::Relaxed)
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

    /// Hands each segment of partition `p` to `decode`, one at a time (a segment holds whole
    /// records): a partition of a node seen in every batch may be large, a segment never is.
    fn each_segment(
        &self,
        p: usize,
        buf: &mut Vec<u8>,
        mut decode: impl FnMut(&mut Reader<'_>) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut file = &self.file;
        for &(offset, len) in &self.segments[p] {
            file.seek(SeekFrom::Start(offset))?;
            buf.clear();
            buf.resize(len as usize, 0);
            file.read_exact(buf)?;
            self.most_read.fetch_max(buf.len(), Ordering::Relaxed);
            decode(&mut Reader(buf))?;
        }
        Ok(())
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
            self.each_segment(p, &mut buf, |r| {
                while !r.0.is_empty() {
                    let seq = r.u64()?;
                    delta.add_node(decode_node(r)?);
                    if delta.node_count() > first.len() {
                        first.push(seq);
                    }
                }
                Ok(())
            })?;
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
            self.each_segment(PARTITIONS + p, &mut buf, |r| {
                while !r.0.is_empty() {
                    delta.add_edge(decode_edge(r)?);
                }
                Ok(())
            })?;
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

/// Guesses from a hash's value before [`IdMap::position`] searches by halves.
const INTERPOLATIONS: usize = 6;

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
        let i = self.position(node_hash(r.label, &r.name))?;
        let id = self.entries[i].id;
        Some(u64::from(id))
    }

    /// Where `h` is among the entries. Hashes are spread evenly over `u64`, so its place is
    /// first guessed from its value (a few probes, where a binary search over a million
    /// nodes takes twenty, each a cache miss); past [`INTERPOLATIONS`] guesses, as hashes
    /// made to bunch up would need, a binary search ends it.
    pub fn position(&self, h: u64) -> Option<usize> {
        let e = &self.entries;
        // Every entry of `lo..hi` has a hash in `lo_h..=hi_h`, and so would `h`.
        let (mut lo, mut hi, mut lo_h, mut hi_h) = (0, e.len(), 0u64, u64::MAX);
        for _ in 0..INTERPOLATIONS {
            if hi - lo <= 8 || h < lo_h || h > hi_h {
                break;
            }
            let width = u128::from(hi_h - lo_h) + 1;
            let at = lo + ((u128::from(h - lo_h) * (hi - lo) as u128) / width) as usize;
            let at_h = e[at].hash;
            match at_h.cmp(&h) {
                std::cmp::Ordering::Equal => return Some(at),
                std::cmp::Ordering::Less => (lo, lo_h) = (at + 1, at_h + 1),
                std::cmp::Ordering::Greater => (hi, hi_h) = (at, at_h - 1),
            }
        }
        e[lo..hi].binary_search_by_key(&h, |x| x.hash).ok().map(|i| lo + i)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
#[path = "bulk_spill_tests.rs"]
mod tests;
