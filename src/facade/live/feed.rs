//! Live semantic zoom: a graph's top-level clusters kept current as deltas arrive,
//! and streamed to the clients of its cluster view as a whole view's positions are (new boxes
//! placed by the incremental layout, nothing drawn moving; changed counts in place).
//!
//! A feed opens with the counts of the grouped reads its first view was drawn from, then
//! reads an index of every node (a 64-bit hash of its label and name, its cluster and
//! status) and every edge (a hash), slice by slice, in the background. Deltas wait until
//! the index is read, then each one costs what it holds: a node seen before only moves
//! between statuses or clusters, an edge seen before counts once, so re-ingesting a file
//! changes nothing. The index of a million nodes and edges takes some 40 MB.

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::BuildHasher;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use foldhash::fast::FixedState;

use super::backlog::Backlog;
use super::boxes::{box_layout_node, box_node, view_edge, view_edges};
use super::convert::now_ms;
use super::state::panic_text;
use crate::api::{StreamMessage, View, ViewEdge, ViewMode, ViewNode};
use crate::facade::DeltaBatch;
use crate::layout::cluster::{self, top_key, Clusters};
use crate::layout::{EdgeSpec, Incremental, LayoutGraph, LayoutOptions};
use crate::model::{Edge, Node, PropValue};
use crate::store::canvas_reads::{AGENT_KEYS, CONTEXT_KEYS, STATUS_KEY};
use crate::store::members::{EdgeRow, MemberRow};

/// Seed of the index's hashes: fixed, so a node hashes alike from the store and from a delta.
const SEED: u64 = 0x9e37_79b9_7f4a_7c15;

fn hasher() -> FixedState {
    FixedState::with_seed(SEED)
}

fn node_hash(h: &FixedState, label: &str, name: &str) -> u64 {
    h.hash_one((label, name))
}

fn edge_hash(h: &FixedState, source: u64, rel: &str, kind: &str, target: u64) -> u64 {
    h.hash_one((source, rel, kind, target))
}

/// A node as the index keeps it: its cluster and status, as numbers into the index's names.
#[derive(Debug, Clone, Copy)]
struct Member {
    key: u32,
    status: u32,
}

/// Every node and edge of the graph, as hashes (see the module docs).
pub(super) struct Index {
    nodes: HashMap<u64, Member, FixedState>,
    edges: HashSet<u64, FixedState>,
    /// Cluster keys, labels and statuses ("" is none), numbered.
    names: Vec<String>,
    numbers: HashMap<String, u32>,
}

impl Index {
    pub(super) fn new() -> Index {
        Index {
            nodes: HashMap::with_hasher(hasher()),
            edges: HashSet::with_hasher(hasher()),
            names: Vec::new(),
            numbers: HashMap::new(),
        }
    }

    fn number(&mut self, s: &str) -> u32 {
        if let Some(&n) = self.numbers.get(s) {
            return n;
        }
        let n = self.names.len() as u32;
        self.names.push(s.to_owned());
        self.numbers.insert(s.to_owned(), n);
        n
    }

    fn name(&self, n: u32) -> &str {
        &self.names[n as usize]
    }

    /// Counts a node read from the store.
    pub(super) fn add_member(&mut self, c: &mut Clusters, row: MemberRow) {
        let h = node_hash(&hasher(), &row.label, &row.name);
        let key = top_key(&row.label, row.agent.as_deref(), row.has_context);
        let m = Member { key: self.number(&key), status: self.number(row.status.as_deref().unwrap_or("")) };
        if self.nodes.insert(h, m).is_none() {
            c.add_nodes(&key, &row.label, row.status.as_deref(), 1);
        }
    }

    /// Counts an edge read from the store.
    pub(super) fn add_edge(&mut self, c: &mut Clusters, row: EdgeRow) {
        let h = hasher();
        let (s, t) =
            (node_hash(&h, &row.source.0, &row.source.1), node_hash(&h, &row.target.0, &row.target.1));
        let (Some(a), Some(b)) = (self.nodes.get(&s).copied(), self.nodes.get(&t).copied()) else { return };
        if self.edges.insert(edge_hash(&h, s, &row.rel, &row.kind, t)) {
            c.add_edges(self.name(a.key), self.name(b.key), 1);
        }
    }
}

/// What one feed holds.
pub(super) struct FeedState {
    graph: String,
    limit: u32,
    pub(super) clusters: Clusters,
    /// `None` until the index is read: deltas wait in the inbox meanwhile.
    pub(super) index: Option<Index>,
    layout: Incremental,
    /// The boxes drawn, by cluster key.
    boxes: HashMap<String, ViewNode>,
    pub(super) stream: Backlog,
    pub(super) broken: bool,
}

/// See the module docs.
pub(crate) struct ClusterFeed {
    pub(super) graph: String,
    inbox: Mutex<VecDeque<Arc<DeltaBatch>>>,
    state: Mutex<FeedState>,
}

impl ClusterFeed {
    /// A feed drawn from `clusters` (counted by grouped reads) and the edges between them
    /// known so far, laid out to `opts`; its index is read by [`ClusterFeed::indexed`].
    pub(super) fn new(
        graph: &str,
        clusters: Clusters,
        edges: &[ViewEdge],
        limit: u32,
        opts: LayoutOptions,
        backlog_bytes: usize,
    ) -> Result<ClusterFeed, String> {
        let mut g = LayoutGraph::new();
        let mut ix = HashMap::new();
        let mut boxes = HashMap::new();
        for (i, cl) in clusters.clusters().iter().enumerate() {
            ix.insert(cl.key.clone(), g.add_node(box_layout_node(&cl.key)));
            boxes.insert(cl.key.clone(), box_node(cl, i as u32, limit));
        }
        for e in edges {
            if let (Some(&s), Some(&t)) = (ix.get(&e.source), ix.get(&e.target)) {
                g.add_edge(s, t, crate::layout::LayoutEdge { kind: None });
            }
        }
        let layout = Incremental::from_graph(&g, opts).map_err(|e| e.to_string())?;
        for p in layout.layout().nodes {
            if let Some(b) = boxes.get_mut(&p.id) {
                super::convert::place(b, &p);
            }
        }
        Ok(ClusterFeed {
            graph: graph.to_owned(),
            inbox: Mutex::new(VecDeque::new()),
            state: Mutex::new(FeedState {
                graph: graph.to_owned(),
                limit,
                clusters,
                index: None,
                layout,
                boxes,
                stream: Backlog::new(graph, backlog_bytes),
                broken: false,
            }),
        })
    }

    pub(super) fn state(&self) -> MutexGuard<'_, FeedState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn is_broken(&self) -> bool {
        self.state().broken
    }

    pub(super) fn enqueue(&self, batch: Arc<DeltaBatch>) {
        self.inbox.lock().unwrap_or_else(PoisonError::into_inner).push_back(batch);
    }

    /// Takes the index read from the store (and the clusters counted from it): what differs
    /// from the first counts goes out as one message, then the deltas that waited apply.
    pub(super) fn indexed(&self, index: Index, counted: Clusters) {
        let mut st = self.state();
        if st.broken {
            return;
        }
        let mut counted = counted;
        // A box drawn from the first counts stays, emptied, if the index has none of it.
        for c in st.clusters.clusters() {
            counted.ensure(&c.key);
        }
        let old = std::mem::replace(&mut st.clusters, counted);
        let keys: Vec<String> = st.clusters.clusters().iter().map(|c| c.key.clone()).collect();
        let changed: Vec<&str> =
            keys.iter().map(String::as_str).filter(|k| old.get(k) != st.clusters.get(k)).collect();
        let pairs: Vec<(String, String)> =
            st.clusters.edges().into_iter().map(|(a, b, _)| (a.to_owned(), b.to_owned())).collect();
        st.index = Some(index);
        let outcome = catch_unwind(AssertUnwindSafe(|| st.publish(&changed, &pairs)));
        st.settle(outcome);
        drop(st);
        self.drain();
    }

    /// Applies the queued deltas, once the index is read.
    pub(super) fn drain(&self) {
        let mut st = self.state();
        loop {
            if st.broken {
                self.inbox.lock().unwrap_or_else(PoisonError::into_inner).clear();
                return;
            }
            if st.index.is_none() {
                return;
            }
            let Some(batch) = self.inbox.lock().unwrap_or_else(PoisonError::into_inner).pop_front() else {
                return;
            };
            let outcome = catch_unwind(AssertUnwindSafe(|| st.apply(&batch)));
            st.settle(outcome);
        }
    }

    /// Breaks the feed: its clients get a `reset` and load the view again.
    pub(super) fn fail(&self, reason: &str) {
        self.state().fail(reason);
    }
}

/// The first of these properties a node has, as text.
fn first(n: &Node, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| match n.props.get(*k) {
        Some(PropValue::Str(s)) => Some(s.clone()),
        Some(PropValue::Int(i)) => Some(i.to_string()),
        _ => None,
    })
}

impl FeedState {
    fn fail(&mut self, reason: &str) {
        if !self.broken {
            tracing::warn!(graph = %self.graph, "the cluster feed broke: {reason}");
            self.broken = true;
            self.stream.reset(reason);
        }
    }

    fn settle(&mut self, outcome: std::thread::Result<Result<(), String>>) {
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(e)) => self.fail(&e),
            Err(p) => {
                self.fail(&format!("the cluster layout of {} panicked: {}", self.graph, panic_text(&*p)))
            }
        }
    }

    /// The view its clients draw: every box where it is, and the edges between them (until
    /// the index is read, those counted apart, `counted`).
    pub(super) fn snapshot(&self, totals: (u64, u64), counted: &[ViewEdge]) -> View {
        let mut nodes: Vec<ViewNode> = self.boxes.values().cloned().collect();
        nodes.sort_by_key(|n| n.arrival);
        let (total_nodes, total_edges) = match self.index {
            Some(_) => (self.clusters.total_members(), self.clusters.total_edges()),
            None => totals,
        };
        View {
            graph: self.graph.clone(),
            seq: self.stream.seq(),
            mode: ViewMode::Clusters,
            root: None,
            total_nodes,
            total_edges,
            limit: self.limit,
            nodes,
            edges: if self.index.is_some() {
                view_edges(&self.clusters)
            } else {
                counted
                    .iter()
                    .filter(|e| self.boxes.contains_key(&e.source) && self.boxes.contains_key(&e.target))
                    .cloned()
                    .collect()
            },
            columns: None,
        }
    }

    /// Counts a delta's new nodes, changed statuses and new edges, and publishes the boxes
    /// and edges whose counts changed.
    fn apply(&mut self, delta: &DeltaBatch) -> Result<(), String> {
        let index = self.index.as_mut().expect("drain checks the index is read");
        let h = hasher();
        let mut touched: HashSet<String> = HashSet::new();
        let mut pairs: HashSet<(String, String)> = HashSet::new();
        for n in &delta.nodes {
            let hash = node_hash(&h, n.label.as_str(), &n.name);
            let agent = first(n, &AGENT_KEYS);
            let context = first(n, &CONTEXT_KEYS);
            let status = first(n, &[STATUS_KEY]);
            let label = n.label.as_str();
            let old = index.nodes.get(&hash).copied();
            // A known node's delta may hold only what changed: what it leaves out stays, as
            // the store keeps it (its agent in its cluster's key, its context in "tasks").
            let old_key = old.map(|m| index.name(m.key).to_owned());
            let agent = agent
                .filter(|a| !a.is_empty())
                .or_else(|| old_key.as_deref().and_then(|k| k.strip_prefix("agent:")).map(str::to_owned));
            let has_context =
                context.is_some_and(|c| !c.is_empty()) || old_key.as_deref() == Some(cluster::TASKS);
            let key = top_key(label, agent.as_deref(), has_context);
            let status = match (&status, old) {
                (Some(s), _) => s.clone(),
                (None, Some(m)) => index.name(m.status).to_owned(),
                (None, None) => String::new(),
            };
            let m = Member { key: index.number(&key), status: index.number(&status) };
            if let Some(o) = old {
                if o.key == m.key && o.status == m.status {
                    continue;
                }
                let (ok, os) = (index.name(o.key).to_owned(), index.name(o.status).to_owned());
                self.clusters.remove_nodes(&ok, label, Some(&os), 1);
                touched.insert(ok);
            }
            self.clusters.add_nodes(&key, label, Some(&status), 1);
            index.nodes.insert(hash, m);
            touched.insert(key);
        }
        for e in &delta.edges {
            let Some(((a, b), hash)) = edge_ends(index, &mut self.clusters, &mut touched, e) else {
                continue;
            };
            if index.edges.insert(hash) {
                self.clusters.add_edges(&a, &b, 1);
                if a != b {
                    pairs.insert((a, b));
                }
            }
        }
        let touched: Vec<&str> = touched.iter().map(String::as_str).collect();
        let pairs: Vec<(String, String)> = pairs.into_iter().collect();
        self.publish(&touched, &pairs)?;
        self.stream.publish_knowledge(&self.graph, &delta.knowledge);
        Ok(())
    }

    /// Sends the boxes of clusters `keys` (new ones placed, others where they are) and the
    /// edges between the cluster pairs `pairs`, as one message.
    fn publish(&mut self, keys: &[&str], pairs: &[(String, String)]) -> Result<(), String> {
        let mut new_boxes = Vec::new();
        let mut nodes = Vec::new();
        for &k in keys {
            let Some(cl) = self.clusters.get(k) else { continue };
            let arrival = self.boxes.get(k).map_or(self.boxes.len() as u32, |b| b.arrival);
            let mut b = box_node(cl, arrival, self.limit);
            match self.boxes.get(k) {
                Some(old) => {
                    (b.x, b.y, b.w, b.h, b.layer) = (old.x, old.y, old.w, old.h, old.layer);
                    if *old == b {
                        continue;
                    }
                }
                None => new_boxes.push(box_layout_node(k)),
            }
            self.boxes.insert(k.to_owned(), b);
            nodes.push(k.to_owned());
        }
        let specs: Vec<EdgeSpec> = pairs.iter().map(|(a, b)| EdgeSpec::new(a.clone(), b.clone())).collect();
        let placed = self.layout.append(new_boxes, specs).map_err(|e| format!("cluster layout: {e}"))?;
        for p in placed {
            if let Some(b) = self.boxes.get_mut(&p.id) {
                (b.x, b.y, b.layer) = (p.x, p.y, p.layer);
            }
        }
        let nodes: Vec<ViewNode> = nodes.iter().filter_map(|k| self.boxes.get(k).cloned()).collect();
        let edges: Vec<ViewEdge> =
            pairs.iter().map(|(a, b)| view_edge(a, b, self.clusters.edge_count(a, b))).collect();
        if nodes.is_empty() && edges.is_empty() {
            return Ok(());
        }
        let seq = self.stream.next_seq();
        self.stream.publish(StreamMessage::Clusters {
            graph: self.graph.clone(),
            seq,
            time_ms: now_ms(),
            nodes,
            edges,
        });
        Ok(())
    }
}

/// The clusters of an edge's ends and the edge's hash. An end no delta named yet (a node the
/// store made for the edge) is counted as a new bare node of its label.
fn edge_ends(
    index: &mut Index,
    clusters: &mut Clusters,
    touched: &mut HashSet<String>,
    e: &Edge,
) -> Option<((String, String), u64)> {
    let h = hasher();
    let mut end = |label: &str, name: &str| -> u64 {
        let hash = node_hash(&h, label, name);
        if !index.nodes.contains_key(&hash) {
            let key = top_key(label, None, false);
            let m = Member { key: index.number(&key), status: index.number("") };
            index.nodes.insert(hash, m);
            clusters.add_nodes(&key, label, None, 1);
            touched.insert(key);
        }
        hash
    };
    let s = end(e.source.label.as_str(), &e.source.name);
    let t = end(e.target.label.as_str(), &e.target.name);
    let (a, b) = (index.nodes.get(&s)?.key, index.nodes.get(&t)?.key);
    let kind = e.kind.key().map_or("", |(_, v)| v);
    let hash = edge_hash(&h, s, e.rel.as_str(), kind, t);
    Some(((index.name(a).to_owned(), index.name(b).to_owned()), hash))
}
