//! Live views of graphs for UIs: a graph's nodes with positions from the incremental layout,
//! kept current as deltas arrive, and the graph's stream of numbered messages (new nodes
//! where the layout puts them, changed nodes, new edges, verification results, tidy-up
//! moves) with a backlog for clients that reconnect. `provex serve` and the desktop shell
//! both serve these, so a window and a browser see the same thing.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use tokio::sync::broadcast;

use super::{DeltaBatch, Provex};
use crate::api::{
    NodeMove, StreamMessage, VerificationKind, VerificationUpdate, View, ViewEdge, ViewMode, ViewNode,
};
use crate::error::{Error, Result};
use crate::layout::{self, EdgeSpec, Incremental, LayoutGraph, LayoutNode, LayoutOptions, NODE_HEIGHT};
use crate::model::{Edge, Label, Node, PropValue};
use crate::store::view::{NodeSummary, AGENT_KEYS, CONTEXT_KEYS, STATUS_KEY, TEXT_CHARS, TEXT_KEYS};
use crate::store::TraceDirection;

/// Messages kept per graph for clients that reconnect.
const BACKLOG: usize = 2048;
/// Most nodes a view draws whole, unless the client asks otherwise.
pub const DEFAULT_LIMIT: u32 = 50_000;
/// Largest limit a client may ask for.
pub const MAX_LIMIT: u32 = 200_000;
/// Widest node box, in layout pixels.
const MAX_WIDTH: f64 = 200.0;

/// What a client asks a view for.
#[derive(Debug, Clone, Default)]
pub struct ViewRequest {
    /// Draw this node's neighbourhood rather than the whole graph.
    pub root: Option<String>,
    /// How far from the root (default 2).
    pub depth: Option<u32>,
    /// Most nodes to draw whole (default [`DEFAULT_LIMIT`]).
    pub limit: Option<u32>,
}

/// The live views of all graphs some client looks at.
#[derive(Default)]
pub(super) struct LiveViews {
    views: Mutex<HashMap<String, Arc<Mutex<LiveView>>>>,
}

struct LiveView {
    graph: String,
    layout: Incremental,
    nodes: HashMap<String, ViewNode>,
    edges: HashSet<ViewEdge>,
    edge_list: Vec<ViewEdge>,
    next_arrival: u32,
    seq: u64,
    recent: VecDeque<Arc<StreamMessage>>,
    tx: broadcast::Sender<Arc<StreamMessage>>,
    /// Deltas that arrived while the view was being loaded, applied once it is.
    pending: Option<Vec<Arc<DeltaBatch>>>,
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// The short caption a node box is sized for: the last part of its name.
fn caption(name: &str) -> &str {
    let tail = name.rsplit([':', '/', '#']).find(|s| !s.is_empty()).unwrap_or(name);
    let end = tail.char_indices().nth(24).map_or(tail.len(), |(i, _)| i);
    &tail[..end]
}

fn layout_node(id: &str, label: &str, base_type: Option<&str>) -> LayoutNode {
    let mut n = LayoutNode::new(id, layout::label_width(caption(id)).min(MAX_WIDTH), NODE_HEIGHT);
    n.label = label.to_owned();
    n.base_type = base_type.map(str::to_owned);
    n
}

fn truncate(s: &str) -> String {
    match s.char_indices().nth(TEXT_CHARS) {
        Some((i, _)) => s[..i].to_owned(),
        None => s.to_owned(),
    }
}

fn prop_text(v: &PropValue) -> Option<String> {
    match v {
        PropValue::Str(s) => Some(s.clone()),
        PropValue::Int(i) => Some(i.to_string()),
        PropValue::Float(f) => Some(f.to_string()),
        PropValue::Bool(b) => Some(b.to_string()),
        PropValue::List(_) => None,
    }
}

fn first_prop(n: &Node, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| n.props.get(*k).and_then(prop_text))
}

/// A stored node's view data (position filled in later).
fn from_summary(s: NodeSummary, arrival: u32) -> ViewNode {
    ViewNode {
        id: s.name,
        label: s.label,
        base_type: s.base_type,
        x: 0.0,
        y: 0.0,
        w: 0.0,
        h: 0.0,
        layer: 0,
        arrival,
        agent: s.agent,
        context: s.context,
        status: s.status,
        text: s.text.as_deref().map(truncate),
    }
}

/// A delta node's view data (position filled in later).
fn from_node(n: &Node, arrival: u32) -> ViewNode {
    ViewNode {
        id: n.name.clone(),
        label: n.label.as_str().to_owned(),
        base_type: Some(n.label.base_type().as_str().to_owned()),
        x: 0.0,
        y: 0.0,
        w: 0.0,
        h: 0.0,
        layer: 0,
        arrival,
        agent: first_prop(n, &AGENT_KEYS),
        context: first_prop(n, &CONTEXT_KEYS),
        status: first_prop(n, &[STATUS_KEY]),
        text: first_prop(n, &TEXT_KEYS).as_deref().map(truncate),
    }
}

fn from_edge(e: &Edge) -> ViewEdge {
    let (prov, a2a) = super::edge_relations(e);
    ViewEdge {
        source: e.source.name.clone(),
        target: e.target.name.clone(),
        rel: e.rel.as_str().to_owned(),
        prov,
        a2a,
    }
}

/// The verification result a statement or verification node carries.
fn verification_update(n: &Node) -> Option<VerificationUpdate> {
    let kind = match n.label {
        Label::Statement => VerificationKind::Statement,
        Label::Verification => VerificationKind::Verification,
        _ => return None,
    };
    let num = |k: &str| match n.props.get(k) {
        Some(PropValue::Float(f)) => Some(*f),
        Some(PropValue::Int(i)) => Some(*i as f64),
        _ => None,
    };
    let flag = |k: &str| match n.props.get(k) {
        Some(PropValue::Bool(b)) => Some(*b),
        _ => None,
    };
    Some(VerificationUpdate {
        id: n.name.clone(),
        kind,
        signature: first_prop(n, &[STATUS_KEY]),
        verdict: first_prop(n, &["verdict"]),
        consensus: num("consensus_score"),
        verified: flag("verified"),
    })
}

fn place(node: &mut ViewNode, p: &layout::NodePos) {
    node.x = p.x;
    node.y = p.y;
    node.w = p.width;
    node.h = p.height;
    node.layer = p.layer;
}

impl LiveView {
    fn publish(&mut self, msg: StreamMessage) {
        let msg = Arc::new(msg);
        if self.recent.len() == BACKLOG {
            self.recent.pop_front();
        }
        self.recent.push_back(msg.clone());
        let _ = self.tx.send(msg);
    }

    /// Applies a delta: places new nodes, updates changed ones, adds new edges, and
    /// publishes what changed as one batch.
    fn apply(&mut self, delta: &DeltaBatch) -> Result<()> {
        let mut new_nodes = Vec::new();
        let mut changed = Vec::new();
        let mut verifications = Vec::new();
        let mut fresh: HashMap<&str, ViewNode> = HashMap::new();
        for n in &delta.nodes {
            if let Some(v) = verification_update(n) {
                verifications.push(v);
            }
            match self.nodes.get(&n.name) {
                Some(old) => {
                    let mut v = from_node(n, old.arrival);
                    v.x = old.x;
                    v.y = old.y;
                    v.w = old.w;
                    v.h = old.h;
                    v.layer = old.layer;
                    if &v != old {
                        changed.push(v);
                    }
                }
                None => {
                    if !fresh.contains_key(n.name.as_str()) {
                        new_nodes.push(layout_node(
                            &n.name,
                            n.label.as_str(),
                            Some(n.label.base_type().as_str()),
                        ));
                    }
                    let arrival = fresh.get(n.name.as_str()).map(|v| v.arrival);
                    let arrival = arrival.unwrap_or_else(|| {
                        self.next_arrival += 1;
                        self.next_arrival - 1
                    });
                    fresh.insert(&n.name, from_node(n, arrival));
                }
            }
        }
        let mut specs = Vec::new();
        let mut edges = Vec::new();
        for e in &delta.edges {
            let v = from_edge(e);
            let known = |id: &str| self.nodes.contains_key(id) || fresh.contains_key(id);
            if self.edges.contains(&v) || !known(&v.source) || !known(&v.target) {
                continue;
            }
            specs.push(EdgeSpec {
                source: v.source.clone(),
                target: v.target.clone(),
                kind: Some(v.rel.clone()),
            });
            self.edges.insert(v.clone());
            edges.push(v);
        }
        let placed = self
            .layout
            .append(new_nodes, specs)
            .map_err(|e| Error::Server(format!("incremental layout of {}: {e}", self.graph)))?;
        let mut out_nodes = Vec::with_capacity(placed.len() + changed.len());
        for p in placed {
            if let Some(mut v) = fresh.remove(p.id.as_str()) {
                v.x = p.x;
                v.y = p.y;
                v.layer = p.layer;
                out_nodes.push(v);
            }
        }
        for v in out_nodes.iter_mut() {
            let ln = layout_node(&v.id, &v.label, v.base_type.as_deref());
            v.w = ln.width;
            v.h = ln.height;
        }
        for v in out_nodes.iter().chain(&changed) {
            self.nodes.insert(v.id.clone(), v.clone());
        }
        out_nodes.extend(changed);
        self.edge_list.extend(edges.iter().cloned());
        if out_nodes.is_empty() && edges.is_empty() && verifications.is_empty() {
            return Ok(());
        }
        self.seq += 1;
        let msg = StreamMessage::Batch {
            graph: self.graph.clone(),
            seq: self.seq,
            time_ms: now_ms(),
            nodes: out_nodes,
            edges,
            verifications,
        };
        self.publish(msg);
        Ok(())
    }

    fn snapshot(&self, limit: u32, total_edges: u64) -> View {
        let mut nodes: Vec<ViewNode> = self.nodes.values().cloned().collect();
        nodes.sort_by_key(|n| n.arrival);
        View {
            graph: self.graph.clone(),
            seq: self.seq,
            mode: ViewMode::Whole,
            root: None,
            total_nodes: nodes.len() as u64,
            total_edges: total_edges.max(self.edge_list.len() as u64),
            limit,
            nodes,
            edges: self.edge_list.clone(),
        }
    }
}

impl LiveViews {
    /// Routes a delta to its graph's view, if some client looks at that graph.
    pub(super) fn on_delta(&self, batch: &Arc<DeltaBatch>) {
        let view = self.views.lock().expect("live views").get(&batch.graph).cloned();
        let Some(view) = view else { return };
        let mut v = view.lock().expect("live view");
        if let Some(pending) = v.pending.as_mut() {
            pending.push(batch.clone());
            return;
        }
        if let Err(e) = v.apply(batch) {
            tracing::warn!("{e}; the view will be rebuilt");
            self.invalidate(&batch.graph, &mut v, &e.to_string());
        }
    }

    /// Drops a view whose layout failed; its clients get a `reset` and load it again.
    fn invalidate(&self, graph: &str, v: &mut LiveView, reason: &str) {
        v.seq += 1;
        let msg = StreamMessage::Reset { graph: graph.to_owned(), seq: v.seq, reason: reason.to_owned() };
        v.publish(msg);
        self.views.lock().expect("live views").remove(graph);
    }

    pub(super) fn forget(&self, graph: &str) {
        let view = self.views.lock().expect("live views").remove(graph);
        if let Some(view) = view {
            let mut v = view.lock().expect("live view");
            v.seq += 1;
            let msg =
                StreamMessage::Reset { graph: graph.to_owned(), seq: v.seq, reason: "graph deleted".into() };
            v.publish(msg);
        }
    }
}

impl Provex {
    /// The live view of a graph, loaded (and laid out) on first use.
    async fn live_view(&self, graph: &str) -> Result<Arc<Mutex<LiveView>>> {
        crate::store::validate_graph_name(graph)?;
        let (view, existing) = {
            let mut views = self.live.views.lock().expect("live views");
            match views.get(graph) {
                Some(v) => (v.clone(), true),
                None => {
                    let (tx, _) = broadcast::channel(256);
                    let v = Arc::new(Mutex::new(LiveView {
                        graph: graph.to_owned(),
                        layout: Incremental::new(LayoutOptions::default()),
                        nodes: HashMap::new(),
                        edges: HashSet::new(),
                        edge_list: Vec::new(),
                        next_arrival: 0,
                        seq: 0,
                        recent: VecDeque::new(),
                        tx,
                        pending: Some(Vec::new()),
                    }));
                    views.insert(graph.to_owned(), v.clone());
                    (v, false)
                }
            }
        };
        if existing {
            // Another caller may still be loading it.
            loop {
                if view.lock().expect("live view").pending.is_none() {
                    return Ok(view);
                }
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                if !self.live.views.lock().expect("live views").contains_key(graph) {
                    return Err(Error::Server(format!("loading the view of {graph} failed")));
                }
            }
        }
        match self.load_view(graph, &view).await {
            Ok(()) => Ok(view),
            Err(e) => {
                self.live.views.lock().expect("live views").remove(graph);
                Err(e)
            }
        }
    }

    async fn load_view(&self, graph: &str, view: &Arc<Mutex<LiveView>>) -> Result<()> {
        let (nodes, edges) = match self.store.view_nodes(graph).await {
            Ok(nodes) => (nodes, self.store.view_edges(graph).await?),
            // A graph nobody wrote yet: an empty view that fills as it is written.
            Err(Error::NotFound { what: "graph", .. }) => (Vec::new(), Vec::new()),
            Err(e) => return Err(e),
        };
        let started = std::time::Instant::now();
        let mut g = LayoutGraph::with_capacity(nodes.len(), edges.len());
        let mut index = HashMap::with_capacity(nodes.len());
        let mut view_nodes = HashMap::with_capacity(nodes.len());
        let mut arrival = 0u32;
        for s in nodes {
            if index.contains_key(&s.name) {
                continue;
            }
            let ix = g.add_node(layout_node(&s.name, &s.label, s.base_type.as_deref()));
            index.insert(s.name.clone(), ix);
            view_nodes.insert(s.name.clone(), from_summary(s, arrival));
            arrival += 1;
        }
        let mut edge_set = HashSet::with_capacity(edges.len());
        let mut edge_list = Vec::with_capacity(edges.len());
        for e in edges {
            let (Some(&s), Some(&t)) = (index.get(&e.source), index.get(&e.target)) else { continue };
            let v = ViewEdge { source: e.source, target: e.target, rel: e.rel, prov: e.prov, a2a: e.a2a };
            if edge_set.insert(v.clone()) {
                g.add_edge(s, t, layout::LayoutEdge { kind: Some(v.rel.clone()) });
                edge_list.push(v);
            }
        }
        let layout = tokio::task::spawn_blocking(move || {
            Incremental::from_graph(&g, LayoutOptions::default()).map_err(|e| Error::Server(e.to_string()))
        })
        .await
        .map_err(|e| Error::Server(format!("layout thread: {e}")))??;
        for p in layout.layout().nodes {
            if let Some(v) = view_nodes.get_mut(&p.id) {
                place(v, &p);
            }
        }
        tracing::debug!(
            graph,
            nodes = view_nodes.len(),
            ms = started.elapsed().as_millis() as u64,
            "view laid out"
        );
        let mut v = view.lock().expect("live view");
        v.layout = layout;
        v.nodes = view_nodes;
        v.edges = edge_set;
        v.edge_list = edge_list;
        v.next_arrival = arrival;
        let pending = v.pending.take().unwrap_or_default();
        for batch in pending {
            v.apply(&batch)?;
        }
        Ok(())
    }

    /// A drawable view of a graph: the whole graph (kept current by [`Provex::watch`]) when
    /// it has at most `limit` nodes, else the neighbourhood of `root` (or of the node
    /// created last).
    pub async fn view(&self, graph: &str, req: ViewRequest) -> Result<View> {
        crate::store::validate_graph_name(graph)?;
        let limit = req.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
        let (total_nodes, total_edges) = match self.store.stats(graph).await {
            Ok(s) => (s.nodes, s.edges),
            Err(Error::NotFound { what: "graph", .. }) => (0, 0),
            Err(e) => return Err(e),
        };
        let root = match req.root {
            Some(root) => Some(root),
            None if total_nodes > limit as u64 => {
                let statement = self.store.latest_node(graph, Some(Label::Statement.as_str())).await?;
                match statement {
                    Some(s) => Some(s),
                    None => self.store.latest_node(graph, None).await?,
                }
            }
            None => None,
        };
        match root {
            None => {
                let view = self.live_view(graph).await?;
                let v = view.lock().expect("live view");
                Ok(v.snapshot(limit, total_edges))
            }
            Some(root) => {
                self.neighbourhood_view(graph, &root, req.depth.unwrap_or(2), limit, total_nodes, total_edges)
                    .await
            }
        }
    }

    async fn neighbourhood_view(
        &self,
        graph: &str,
        root: &str,
        depth: u32,
        limit: u32,
        total_nodes: u64,
        total_edges: u64,
    ) -> Result<View> {
        let depth = depth.clamp(1, 10);
        let up = self.trace(graph, root, TraceDirection::Up, depth).await?;
        let down = self.trace(graph, root, TraceDirection::Down, depth).await?;
        let mut seen = HashSet::new();
        let mut g = LayoutGraph::new();
        let mut index = HashMap::new();
        let mut nodes = Vec::new();
        for n in up.nodes.into_iter().chain(down.nodes) {
            if !seen.insert(n.id.clone()) || nodes.len() >= limit as usize {
                continue;
            }
            index.insert(n.id.clone(), g.add_node(layout_node(&n.id, &n.label, n.base_type.as_deref())));
            let prop = |keys: &[&str]| {
                keys.iter().find_map(|k| n.properties.get(*k).and_then(|v| v.as_str().map(str::to_owned)))
            };
            let summary = NodeSummary {
                name: n.id.clone(),
                label: n.label.clone(),
                base_type: n.base_type.clone(),
                agent: prop(&AGENT_KEYS),
                context: prop(&CONTEXT_KEYS),
                status: prop(&[STATUS_KEY]),
                text: prop(&TEXT_KEYS),
            };
            nodes.push(from_summary(summary, nodes.len() as u32));
        }
        let mut edges = Vec::new();
        let mut edge_set = HashSet::new();
        for e in up.edges.into_iter().chain(down.edges) {
            let (Some(&s), Some(&t)) = (index.get(&e.source), index.get(&e.target)) else { continue };
            let v = ViewEdge { source: e.source, target: e.target, rel: e.rel, prov: e.prov, a2a: e.a2a };
            if edge_set.insert(v.clone()) {
                g.add_edge(s, t, layout::LayoutEdge { kind: Some(v.rel.clone()) });
                edges.push(v);
            }
        }
        let laid = layout::full(&g, &LayoutOptions::default());
        for (v, p) in nodes.iter_mut().zip(&laid.nodes) {
            place(v, p);
        }
        Ok(View {
            graph: graph.to_owned(),
            seq: 0,
            mode: ViewMode::Neighbourhood,
            root: Some(root.to_owned()),
            total_nodes,
            total_edges,
            limit,
            nodes,
            edges,
        })
    }

    /// A graph's stream: the messages after `since` still held (a `reset` first when some
    /// are gone or `since` is from an older view), and a receiver of the ones to come.
    pub async fn watch(
        &self,
        graph: &str,
        since: u64,
    ) -> Result<(Vec<Arc<StreamMessage>>, broadcast::Receiver<Arc<StreamMessage>>)> {
        let view = self.live_view(graph).await?;
        let v = view.lock().expect("live view");
        let rx = v.tx.subscribe();
        let oldest = v.recent.front().map_or(v.seq + 1, |m| m.seq());
        if since > v.seq || since + 1 < oldest {
            let reason = if since > v.seq { "the view was rebuilt" } else { "too far behind" };
            let reset = StreamMessage::Reset { graph: graph.to_owned(), seq: v.seq, reason: reason.into() };
            return Ok((vec![Arc::new(reset)], rx));
        }
        Ok((v.recent.iter().filter(|m| m.seq() > since).cloned().collect(), rx))
    }

    /// Re-lays a graph's view out, keeping the drawing's order as far as it can; the moves
    /// go out on the stream as one `moves` message. Returns how many nodes moved.
    pub async fn tidy(&self, graph: &str) -> Result<usize> {
        let view = self.live_view(graph).await?;
        let mut v = view.lock().expect("live view");
        let moves = v.layout.tidy_up();
        let mut out = Vec::with_capacity(moves.len());
        for m in moves {
            if let Some(n) = v.nodes.get_mut(&m.id) {
                n.x = m.to[0];
                n.y = m.to[1];
                out.push(NodeMove { id: m.id, x: m.to[0], y: m.to[1] });
            }
        }
        let moved = out.len();
        v.seq += 1;
        let msg = StreamMessage::Moves { graph: graph.to_owned(), seq: v.seq, moves: out };
        v.publish(msg);
        Ok(moved)
    }
}
